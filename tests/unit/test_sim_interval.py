"""The evaluation grid's interval and the counterfactuals (docs/simulator.md, "The
evaluation grid's interval" and "Counterfactuals"): each seed's interval read from its
eval records, every derived figure at both ends, the corner rule for break-evens checked
against points inside the intervals, orderings checked by brute force, and the claims
that read them failing when their cause or their interval is changed."""

import dataclasses
import importlib
import math
from itertools import product
from pathlib import Path

import pytest

from cit.errors import BuildError
from cit.registry import Registry
from study.runs import load_folder
from study.sim import closed, counterfactual, interval, transit_claims
from study.sim.report import RESULTS, build_doc, check_results, render
from study.sim.register import register_cells, register_sim

compute_mod = importlib.import_module("study.sim.compute")
inputs_mod = importlib.import_module("study.sim.inputs")

ROOT = Path(__file__).resolve().parents[2]
HEADLINE = "results/tinystories-gpu"


@pytest.fixture(scope="module")
def computed(vendored_root):
    return compute_mod.compute_from_paths(ROOT, load_folder(vendored_root / HEADLINE, HEADLINE))


@pytest.fixture(scope="module")
def folder(vendored_root):
    return load_folder(vendored_root / HEADLINE, HEADLINE)


@dataclasses.dataclass
class _Eval:
    step: int
    val_loss: float


@dataclasses.dataclass
class _Run:
    evals: list
    rel: str = "x.jsonl"
    group: str = "g"

    def first_step_at_or_below(self, target):
        return next((e.step for e in self.evals if e.val_loss <= target), None)


def test_a_seeds_interval_runs_from_the_step_after_its_last_eval_above_to_its_first_below():
    runs = [_Run([_Eval(200, 3.5), _Eval(400, 3.0), _Eval(600, 2.9)]),
            _Run([_Eval(200, 3.5), _Eval(400, 3.2), _Eval(600, 3.05)]),
            _Run([_Eval(100, 2.0), _Eval(300, 1.0)])]
    s = inputs_mod._steps(runs, 3.1)
    assert s.per_seed == (400, 600, 100) and s.above == (200, 400, 0)
    assert s.fewest == math.fsum((201, 401, 1)) / 3 and s.mean == math.fsum((400, 600, 100)) / 3
    never = inputs_mod._steps([runs[0], _Run([_Eval(200, 9.0)])], 3.1)
    assert never.mean is None and never.fewest is None


def test_every_variants_interval_is_read_from_its_seeds_eval_records(computed, folder):
    """Recomputed here from the logs, eval by eval, without inputs.py's helpers."""
    target = computed.inputs.measured["target_loss"]
    by_group = {}
    for r in folder.runs:
        by_group.setdefault(r.group, []).append(r)
    for var in closed.VARIANTS:
        src = computed.inputs.steps[var.steps_from]
        lows, highs = [], []
        for r in by_group[src.group]:
            steps = [e.step for e in r.evals]
            i = next(i for i, e in enumerate(r.evals) if e.val_loss <= target)
            assert all(e.val_loss > target for e in r.evals[:i])
            lows.append((steps[i - 1] if i else 0) + 1)
            highs.append(steps[i])
        fewest, most = computed.ends[var.key]
        assert fewest == math.fsum(lows) / len(lows) and most == math.fsum(highs) / len(highs)
        assert most == computed.steps[var.key] and fewest < most


def test_time_and_energy_at_both_ends_are_the_steps_ends_times_the_step(computed):
    reg = Registry()
    register_sim(reg, computed, RESULTS, ROOT)
    for var in closed.VARIANTS:
        st = computed.default[var.mech]
        for i, end in enumerate(interval.ENDS):
            steps = computed.ends[var.key][i]
            assert reg.numbers[f"sim.steps.{var.key}.{end}"].value == steps
            assert reg.numbers[f"sim.time.{var.key}.{end}"].value == steps * st.total
            assert reg.numbers[f"sim.energy.{var.key}.{end}"].value == steps * st.energy / 1e3
        assert reg.numbers[f"sim.time.{var.key}.most"].text == reg.numbers[f"sim.time.{var.key}"].text


def _key(be) -> float:
    """How much of the range the first variant wins (for `below` break-evens)."""
    return {"none": -math.inf, "whole": math.inf}.get(be.kind) or be.at


def _between(computed, bid, a, b, sa, sb):
    v = computed.values
    steps = dict(computed.steps)
    for key, s in ((a, sa), (b, sb)):
        for var in closed.VARIANTS:
            if var.steps_from == closed.BY_KEY[key].steps_from:
                steps[var.key] = s
    return compute_mod.breakeven_pair(computed.params, steps, a, b, v.sweep_min * 1e9,
                                      v.sweep_max * 1e9, v.bisection_iterations)


def test_a_break_even_inside_the_intervals_lies_between_its_two_corners(computed):
    """The corner rule (a break-even depends on the steps only through their ratio),
    checked on a 5 x 5 grid of step counts inside the two intervals."""
    checked = 0
    for bid, _, a, b in compute_mod.BREAKEVENS:
        fewest, most = computed.breakeven_ends[bid]
        if interval.shared(a, b):
            assert fewest == most == computed.breakevens[bid]
            continue
        (a0, a1), (b0, b1) = computed.ends[a], computed.ends[b]
        for i, j in product(range(5), range(5)):
            sa, sb = a0 + (a1 - a0) * i / 4, b0 + (b1 - b0) * j / 4
            be = _between(computed, bid, a, b, sa, sb)
            assert _key(most) * (1 - 1e-9) <= _key(be) <= _key(fewest) * (1 + 1e-9), \
                (bid, sa, sb, be, most, fewest)
            checked += 1
    assert checked


def test_an_ordering_survives_exactly_when_it_holds_at_every_corner(computed):
    """Brute force over the four corners of each pair's two intervals (one corner pair
    when the two share their steps), for time and energy."""
    for what in ("time", "energy"):
        for o in interval.orderings(computed, what):
            per = {k: interval.per_step(computed, k, what) for k in (o.first, o.second)}
            if interval.shared(o.first, o.second):
                corners = [(s, s) for s in computed.ends[o.first]]
            else:
                corners = list(product(computed.ends[o.first], computed.ends[o.second]))
            holds = all(sa * per[o.first] < sb * per[o.second] for sa, sb in corners)
            assert o.survives == holds, (what, o)
    lost = [(o.first, o.second) for o in interval.orderings(computed, "time") if not o.survives]
    assert lost, "no ordering fails: the test above would pass on any rule"


def test_a_changed_interval_cell_fails_the_check_naming_section_table_row_and_column(
        computed, tmp_path):
    text = render(build_doc(computed))
    row = next(ln for ln in text.splitlines() if ln.startswith("| A | ") and ln.count("|") == 7)
    cells = row.split(" | ")
    cells[3] = cells[3] + "0"
    bad = tmp_path / "results.md"
    bad.write_text(text.replace(row, " | ".join(cells), 1))
    with pytest.raises(BuildError) as err:
        check_results(computed, bad)
    msg = str(err.value)
    assert "§8, table 'Steps to target within the evaluation grid', row 'A', column " \
           "'Fewest steps'" in msg


def _claims(c) -> dict:
    reg = Registry()
    register_cells(reg, build_doc(c), RESULTS)
    s = transit_claims._Sim(reg, c, RESULTS)
    transit_claims._causes(s, None)
    transit_claims._intervals(s, None)
    transit_claims._bytes(s, None)
    return reg.claims


def _rerun(c, **changes):
    """`c` with some figures changed and the interval and counterfactuals recomputed."""
    c2 = dataclasses.replace(c, **changes)
    v = c.values
    compute_mod.carry_interval(c2, v.sweep_min * 1e9, v.sweep_max * 1e9,
                               v.bisection_iterations, v.e_planes)
    c2.counterfactuals = counterfactual.run(c2, v.sweep_min * 1e9, v.sweep_max * 1e9,
                                            v.bisection_iterations)
    c2.wan_to_target = counterfactual.wan_to_target(c2)
    return c2


def test_the_causal_and_interval_claims_hold_on_the_data(computed):
    claims = _claims(computed)
    for cid in ("sim.e_slow_by_steps_not_module", "sim.module_makes_e_slower_than_c",
                "sim.eprime_free_never_beats_cprime", "sim.orderings_survive_but_b_and_a",
                "sim.b_beats_a_only_on_the_grid", "sim.eprime_saves_on_wan_only"):
        assert claims[cid].holds, (cid, claims[cid].evidence)


def test_e_on_a_steps_breaks_the_steps_claim(computed):
    """Give E AdamW's steps: then a free module beats AdamW, so 'E loses because of its
    steps' must fail."""
    steps = dict(computed.steps, E=computed.steps["A"], Eprime_Esteps=computed.steps["A"])
    ends = dict(computed.ends, E=computed.ends["A"], Eprime_Esteps=computed.ends["A"])
    claims = _claims(_rerun(computed, steps=steps, ends=ends))
    assert not claims["sim.e_slow_by_steps_not_module"].holds


def test_an_evaluation_at_every_step_makes_b_and_a_ordered_and_breaks_the_claim(computed):
    """With no interval (fewest = most), every grid ordering survives, and the claim that
    B before A does not survive must fail, as must the one that B wins only on the grid."""
    ends = {k: None if v is None else (v[1], v[1]) for k, v in computed.ends.items()}
    claims = _claims(_rerun(computed, ends=ends))
    assert not claims["sim.orderings_survive_but_b_and_a"].holds
    assert not claims["sim.b_beats_a_only_on_the_grid"].holds
