"""study/sim/transit_claims.py: the flat-ring figures and the claim that the original's
figures rule that layout out."""

import dataclasses

import pytest

from cit.registry import Registry
from study.runs import load_folder
from study.sim import closed, transit_claims
from study.sim.compute import compute_from_paths
from study.sim.register import register_sim
from study.sim.report import RESULTS
from tests.conftest import ROOT

HEADLINE = "results/tinystories-gpu"


@pytest.fixture(scope="module")
def computed(vendored_root):
    return compute_from_paths(ROOT, load_folder(vendored_root / HEADLINE, HEADLINE))


def _layout_registry(computed) -> Registry:
    reg = Registry()
    register_sim(reg, computed, RESULTS, ROOT)
    transit_claims._layout(transit_claims._Sim(reg, computed, RESULTS), None)
    return reg


def test_the_flat_ring_figures_come_from_the_closed_form(computed):
    reg = _layout_registry(computed)
    flat = computed.params.with_(layout="flat-ring")
    hier = computed.params.with_(layout="hierarchical")
    mech = closed.BY_KEY["A"].mech
    assert reg.numbers["sim.flat_ring.wan_ratio"].value == \
        closed.traffic(flat, mech)[2] / closed.traffic(hier, mech)[2]
    assert reg.numbers["sim.flat_ring.time.A"].value == \
        closed.time_to_target(flat, mech, computed.steps["A"])
    assert reg.claims["sim.flat_ring_misses_quoted_a"].holds


def test_the_claim_fails_when_the_original_reads_as_the_flat_ring(computed):
    """The original's figure for A moved to what the flat ring gives, at its precision."""
    t = _layout_registry(computed).numbers["sim.flat_ring.time.A"].value
    fig = computed.quoted.figures["time.A"]
    figures = dict(computed.quoted.figures)
    figures["time.A"] = fig.model_copy(update={"value": round(t, fig.decimals)})
    moved = dataclasses.replace(computed,
                                quoted=computed.quoted.model_copy(update={"figures": figures}))
    assert not _layout_registry(moved).claims["sim.flat_ring_misses_quoted_a"].holds


def test_the_step_parts_are_shares_of_one_step_at_the_top_of_the_sweep(computed):
    """read-report F9: the phases and the step they are shares of come from one bandwidth
    (the top of the sweep), so every share lies in [0, 1] and a step's parts sum to it."""
    reg = Registry()
    register_sim(reg, computed, RESULTS, ROOT)
    transit_claims._sweep(transit_claims._Sim(reg, computed, RESULTS), None)
    for cid in ("sim.step_parts_at_max", "sim.module_largest_part_of_e"):
        c = reg.claims[cid]
        assert c.holds, c.evidence
        shares = [float(text.rstrip("%")) for _, text in c.evidence]
        assert shares and all(0 <= x <= 100 for x in shares), c.evidence
    top = closed.step(computed.params.with_(bw_wan=computed.grid[-1]), closed.BY_KEY["A"].mech)
    assert top.compute + top.gpu + top.module + top.comm == top.total
