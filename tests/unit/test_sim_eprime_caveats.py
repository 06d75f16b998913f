"""What E's and E′'s figures rest on (docs/simulator.md, "The run behind E" and
"Counterfactuals"): the one seed behind E, its margin below the target and E one
evaluation later, read from its eval records; and E′ with what its model leaves out
charged. Each claim that reads them fails when its cause is taken away."""

import dataclasses
import importlib
import math
import statistics
from pathlib import Path
from types import SimpleNamespace

import pytest

from cit.registry import Registry
from study.runs import load_folder
from study.sim import closed, counterfactual, transit_claims
from study.sim.report import RESULTS, build_doc
from study.sim.register import register_cells

compute_mod = importlib.import_module("study.sim.compute")

ROOT = Path(__file__).resolve().parents[2]
HEADLINE = "results/tinystories-gpu"


@pytest.fixture(scope="module")
def folder(vendored_root):
    return load_folder(vendored_root / HEADLINE, HEADLINE)


@pytest.fixture(scope="module")
def computed(folder):
    return compute_mod.compute_from_paths(ROOT, folder)


def _e_runs(c, folder):
    files = set(c.inputs.steps["E"].files)
    runs = [r for r in folder.runs if r.rel in files]
    assert runs and len(runs) == len(files)
    return runs


def test_the_run_behind_e_is_read_from_its_eval_records(computed, folder):
    target = computed.inputs.measured["target_loss"]
    st = computed.inputs.steps["E"]
    for run, first, at, after in zip(_e_runs(computed, folder), st.per_seed, st.crossed_at,
                                     st.after):
        evals = [(e.step, e.val_loss) for e in run.evals]
        k = next(i for i, (_, v) in enumerate(evals) if v <= target)
        assert (first, at) == evals[k]
        assert after == evals[k + 1][0]
    cells = {cell.id: cell for *_, cell in build_doc(computed).cells() if cell.id}
    margin = min(target - x for x in st.crossed_at)
    assert cells["sim.e_run.margin"].value == margin > 0
    assert cells["sim.e_run.loss_at_crossing"].value == math.fsum(st.crossed_at) / len(st.per_seed)
    assert cells["sim.later.steps"].value == math.fsum(st.after) / len(st.after)


def test_e_one_evaluation_later_is_e_at_the_next_evaluated_step(computed):
    c, later = computed, computed.later
    st = c.inputs.steps["E"]
    assert later.steps == math.fsum(st.after) / len(st.after) > c.steps["E"]
    assert later.time_e == later.steps * c.default["E"].total
    assert later.time_eprime == later.steps * c.default["Eprime"].total
    v = c.values
    s = dict(c.steps, E=later.steps, Eprime_Esteps=later.steps)
    be = closed.breakeven_pair(c.params, s, "Eprime_Esteps", "A", v.sweep_min * 1e9,
                               v.sweep_max * 1e9, v.bisection_iterations)
    assert be == later.eprime_vs_a


def test_charged_eprime_adds_each_shard_up_and_the_band_back_down(computed):
    p, ch = computed.params, computed.charged
    k = p.workers // p.dcs
    extra = p.alpha_intra + p.dense_bytes / k / p.bw_nic + p.band_bytes / p.bw_nic
    assert math.isclose(ch.step - ch.modelled, extra, rel_tol=1e-12)
    assert ch.modelled == computed.default["Eprime"].total
    faster = p.with_(bw_nic=2 * p.bw_nic)
    assert counterfactual.charged_total(faster) - closed.step(faster, "Eprime").total < extra
    assert ch.time == computed.steps["Eprime_Esteps"] * ch.step


def _claims(c, folder) -> dict:
    """The claims of transit_claims._e_run and _charged on `c`, with the target group's
    seed sd read from its runs."""
    reg = Registry()
    register_cells(reg, build_doc(c), RESULTS)
    tg = c.inputs.target_group
    finals = [r.final_val_loss for r in folder.runs if r.group == tg]
    sd = statistics.stdev(finals)
    reg.add("final_loss_sd.T", sd, f"{sd:.3f}", kind="measured", sources=(), locator="test",
            computation="sample sd of the target group's final losses")
    groups = [SimpleNamespace(first=SimpleNamespace(group=tg), slug="T")]
    s = transit_claims._Sim(reg, c, RESULTS)
    transit_claims._e_run(s, groups)
    transit_claims._charged(s, groups)
    return reg.claims


def _with(c, **changes):
    c2 = dataclasses.replace(c, **changes)
    v = c.values
    lo, hi, it = v.sweep_min * 1e9, v.sweep_max * 1e9, v.bisection_iterations
    c2.charged = counterfactual.charged(c2, lo, hi, it)
    c2.later = counterfactual.one_eval_later(c2, lo, hi, it)
    return c2


def test_the_claims_hold_on_the_data(computed, folder):
    claims = _claims(computed, folder)
    for cid in ("sim.e_margin_within_seed_spread", "sim.later_lowers_eprime_breakeven",
                "sim.charged_lowers_eprime_breakeven"):
        assert claims[cid].holds, (cid, claims[cid].evidence)


def test_a_wide_margin_breaks_the_margin_claim(computed, folder):
    st = computed.inputs.steps["E"]
    target = computed.inputs.measured["target_loss"]
    wide = dataclasses.replace(st, crossed_at=tuple(target - 1.0 for _ in st.crossed_at))
    inputs = dataclasses.replace(computed.inputs, steps=dict(computed.inputs.steps, E=wide))
    assert not _claims(_with(computed, inputs=inputs), folder)[
        "sim.e_margin_within_seed_spread"].holds


def test_no_later_evaluation_to_move_to_breaks_the_later_claim(computed, folder):
    st = computed.inputs.steps["E"]
    same = dataclasses.replace(st, after=st.per_seed)
    inputs = dataclasses.replace(computed.inputs, steps=dict(computed.inputs.steps, E=same))
    assert not _claims(_with(computed, inputs=inputs), folder)[
        "sim.later_lowers_eprime_breakeven"].holds


def test_nothing_left_out_breaks_the_charged_claim(computed, folder, monkeypatch):
    monkeypatch.setattr(closed, "innet_left_out", lambda p, dense, band: 0.0)
    assert not _claims(_with(computed), folder)["sim.charged_lowers_eprime_breakeven"].holds
