"""study/sim/transit_claims.py: the simulation's inferences tested as inferences (issue
28): the flat ring ruled out by a refit and by a bound over every value of the two fitted
inputs; the comparisons that hold at every module budget said to test nothing about it,
and the figures that do turn on it; statements over a range of the sweep tested at every
grid point of that range. Each claim is shown to fail when its cause is taken away."""

import dataclasses

import pytest

from study.sim import calibrate

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


def _moved_quoted(computed, key: str, value: float):
    figures = dict(computed.quoted.figures)
    figures[key] = figures[key].model_copy(update={"value": value})
    return dataclasses.replace(computed,
                               quoted=computed.quoted.model_copy(update={"figures": figures}))


def test_the_claim_fails_when_the_original_reads_as_the_flat_ring_with_no_latency(computed):
    """The original's figure for A moved to what the flat ring gives with no latency, at
    its precision: a latency of zero would then reproduce it."""
    t = _layout_registry(computed).numbers["sim.flat_ring.time.A_no_latency"].value
    fig = computed.quoted.figures["time.A"]
    moved = _moved_quoted(computed, "time.A", round(t, fig.decimals))
    assert not _layout_registry(moved).claims["sim.flat_ring_misses_quoted_a"].holds


def test_the_flat_ring_bound_rests_on_the_wan_and_fails_at_the_wan_it_names(computed):
    reg = _layout_registry(computed)
    wan = reg.numbers["sim.flat_ring.wan_for_quoted_a"].value * 1e9
    flat0 = computed.params.with_(layout="flat-ring", alpha_intra=0.0, bw_wan=wan)
    t = closed.time_to_target(flat0, closed.BY_KEY["A"].mech, computed.steps["A"])
    assert t == pytest.approx(computed.quoted.figures["time.A"].value, rel=1e-9)
    faster = dataclasses.replace(computed, params=computed.params.with_(bw_wan=wan * 1.01))
    assert not _layout_registry(faster).claims["sim.flat_ring_misses_quoted_a"].holds


def test_the_flat_ring_refit_is_the_recorded_procedure_on_that_layout(computed):
    """The refit runs the calibration's own Gauss-Newton on the flat layout; with the
    layout by data centre it returns the recorded fit, and reads_same there gives the
    results file's count."""
    reg = _layout_registry(computed)
    flat = computed.params.with_(layout="flat-ring")
    keys, figures = calibrate.fitted_keys(computed.scenario)
    raw, _ = calibrate.gauss_newton(flat, computed.steps, keys, figures, computed.quoted,
                                    computed.values)
    for key, x in zip(keys, raw):
        sig = computed.scenario.entries[key].fit.significant
        assert reg.numbers[f"sim.flat_ring.refit.{key}"].value == calibrate.round_sig(x, sig)
    same = calibrate.reads_same(computed.params, computed.steps, computed.quoted,
                                computed.values)
    assert sum(same.values()) == reg.numbers["sim.against.same"].value
    assert reg.claims["sim.flat_ring_refit_misses"].holds
    mine = calibrate.refit(computed.scenario, computed.values, computed.params,
                           computed.steps, computed.quoted)
    assert mine.fitted == computed.calibration.fitted


def test_the_refit_claim_fails_when_the_flat_ring_is_the_layout_by_data_centre(computed):
    """Refitting the layout the fit already used reproduces as many figures: the claim
    that the flat ring reproduces fewer must then fail."""
    reg = Registry()
    register_sim(reg, computed, RESULTS, ROOT)
    s = transit_claims._Sim(reg, computed, RESULTS)
    transit_claims._flat_refit(s, computed.params)
    assert not reg.claims["sim.flat_ring_refit_misses"].holds


def _sweep_claims(computed, flat=None):
    reg = Registry()
    register_sim(reg, computed, RESULTS, ROOT)
    s = transit_claims._Sim(reg, computed, RESULTS)
    if flat is None:
        transit_claims._sweep(s, None)
    else:
        keys = [k for k in closed.BY_KEY if computed.steps[k] is not None]
        transit_claims._step_parts(s, keys, flat)
    return reg


def test_the_step_parts_are_tested_at_every_grid_point_from_where_the_curves_flatten(computed):
    """The sentence says "from 200 GB/s upward": the claim names that span and its grid
    points, and each point's phases sum to its step."""
    reg = _sweep_claims(computed)
    flat = computed.grid.index(reg.numbers["sim.sweep_flat_from"].value * 1e9)
    n = len(computed.grid) - flat
    for cid in ("sim.step_parts_at_max", "sim.module_largest_part_of_e"):
        c = reg.claims[cid]
        assert c.holds, c.evidence
        assert dict(c.evidence)["bandwidths"].endswith(f"{n} grid points"), c.evidence
    for bw in computed.grid[flat:]:
        st = closed.step(computed.params.with_(bw_wan=bw), closed.BY_KEY["A"].mech)
        assert st.compute + st.gpu + st.module + st.comm == pytest.approx(st.total, rel=1e-12)


def test_the_step_parts_claims_fail_over_the_whole_sweep(computed):
    """Over the whole sweep (from its lowest bandwidth) the WAN, not compute, is most of
    C's step: a claim tested only at the top would still hold; these must fail."""
    reg = _sweep_claims(computed, flat=0)
    assert not reg.claims["sim.step_parts_at_max"].holds
    assert not reg.claims["sim.module_largest_part_of_e"].holds


def _breakeven_claims(computed):
    reg = Registry()
    register_sim(reg, computed, RESULTS, ROOT)
    transit_claims._breakevens(transit_claims._Sim(reg, computed, RESULTS), None)
    return reg


def test_the_unfitted_comparisons_hold_with_a_free_module_over_the_whole_sweep(computed):
    reg = _breakeven_claims(computed)
    c = reg.claims["sim.unfitted_comparisons_agree"]
    assert c.holds, c.evidence
    wins = next(t for label, t in c.evidence if label.startswith("sweep points"))
    assert wins == f"0 of {2 * 2 * 3 * len(computed.grid)}"


def test_the_unfitted_comparison_fails_when_e_wins_somewhere(computed):
    """E on AdamW's steps beats AdamW below some bandwidth: then "E never beats AdamW"
    must fail, as must the claim that it holds at every budget."""
    steps = dict(computed.steps, E=computed.steps["A"])
    ends = dict(computed.ends, E=computed.ends["A"])
    moved = dataclasses.replace(computed, steps=steps, ends=ends)
    assert not transit_claims._wins_on_grid(transit_claims._Sim(Registry(), moved, RESULTS),
                                            "E", "A") == (0, 3 * len(computed.grid))
    reg = Registry()
    register_sim(reg, computed, RESULTS, ROOT)
    transit_claims._unfitted(transit_claims._Sim(reg, moved, RESULTS),
                             {"E_vs_A": "none in range", "Eprime_vs_Cprime": "none in range"},
                             "none in range")
    assert not reg.claims["sim.unfitted_comparisons_agree"].holds


def test_the_budget_figures_are_those_that_move_with_it_and_pin_it(computed):
    reg = _breakeven_claims(computed)
    c = reg.claims["sim.budget_pins_its_figures"]
    assert c.holds, c.evidence
    v = computed.values
    lo_bw, hi_bw, it = v.sweep_min * 1e9, v.sweep_max * 1e9, v.bisection_iterations
    at = lambda b: computed.params.with_(module_budget=b * 1e9)
    moved = [k for k in computed.quoted.figures if computed.quoted.figures[k].against
             and calibrate.figure_value(at(v.module_budget_min), computed.steps, k, lo_bw,
                                        hi_bw, it)
             != calibrate.figure_value(at(v.module_budget_max), computed.steps, k, lo_bw,
                                       hi_bw, it)]
    assert tuple(moved) == transit_claims.BUDGET_FIGURES
    assert reg.numbers["sim.fitted.budget_figures"].value == len(moved)
    low, high = (reg.numbers[f"sim.fitted.budget_agrees.{k}"].value for k in ("low", "high"))
    same = lambda b: all(calibrate.reads_same(at(b), computed.steps, computed.quoted, v).values())
    step = transit_claims.BUDGET_TOLERANCE * v.module_budget
    assert same(low) and same(high) and same(v.module_budget)
    assert not same(low - 2 * step) and not same(high + 2 * step)


def test_the_budget_claim_fails_when_the_original_gives_no_budget_dependence(computed):
    """Were E's quoted time what a budget at the range's top gives, the fitted budget would
    no longer reproduce the figures that turn on it: the claim must fail."""
    v = computed.values
    top = computed.params.with_(module_budget=v.module_budget_max * 1e9)
    t = computed.steps["E"] * closed.step(top, closed.BY_KEY["E"].mech).total
    moved = _moved_quoted(computed, "time.E", round(t, computed.quoted.figures["time.E"].decimals))
    assert not _breakeven_claims(moved).claims["sim.budget_pins_its_figures"].holds


def test_eprime_beats_cprime_only_on_the_optics_steps(computed):
    reg = Registry()
    register_sim(reg, computed, RESULTS, ROOT)
    transit_claims._switch_on_optics_steps(transit_claims._Sim(reg, computed, RESULTS), None)
    c = reg.claims["sim.eprime_beats_cprime_on_optics_steps"]
    assert c.holds and c.hypothesis, c.evidence
    be = closed.breakeven_pair(computed.params, computed.steps, "Eprime_Esteps", "Cprime",
                               computed.values.sweep_min * 1e9,
                               computed.values.sweep_max * 1e9,
                               computed.values.bisection_iterations)
    assert reg.numbers["sim.switch.Eprime_Esteps_vs_Cprime"].value == be.at / 1e9
    # on C's steps, E′ is the switch variant of results.md's E′ vs C′: never
    steps = dict(computed.steps, Eprime_Esteps=computed.steps["C"])
    ends = dict(computed.ends, Eprime_Esteps=computed.ends["C"])
    reg2 = Registry()
    register_sim(reg2, computed, RESULTS, ROOT)
    moved = dataclasses.replace(computed, steps=steps, ends=ends)
    transit_claims._switch_on_optics_steps(transit_claims._Sim(reg2, moved, RESULTS), None)
    assert not reg2.claims["sim.eprime_beats_cprime_on_optics_steps"].holds


def test_the_fast_transform_is_over_the_ceiling_only_at_two_operations(computed):
    reg = Registry()
    register_sim(reg, computed, RESULTS, ROOT)
    transit_claims._module(transit_claims._Sim(reg, computed, RESULTS), None)
    c = reg.claims["sim.fft_at_port_over_budget_only_at_two_ops"]
    assert c.holds, c.evidence
    fft = reg.numbers["sim.band_gflops_at_port.fft"].value
    top = reg.numbers["scenario.module_budget_max"].value
    assert reg.numbers["sim.band_gflops_at_port.fft_over_top"].value == fft / top - 1
    one = reg.numbers["sim.band_gflops_at_port.fft_one_op"].value
    assert one * reg.numbers["scenario.module_ops_per_multiply_add"].value == fft
    reg2 = Registry()
    register_sim(reg2, computed, RESULTS, ROOT)
    n = reg2.numbers["scenario.module_ops_per_multiply_add"]
    reg2.numbers[n.id] = dataclasses.replace(n, value=1)
    transit_claims._module(transit_claims._Sim(reg2, computed, RESULTS), None)
    assert not reg2.claims["sim.fft_at_port_over_budget_only_at_two_ops"].holds


NEVER_CLAIMS = ("sim.e_never_breaks_even", "sim.unfitted_comparisons_agree",
                "sim.e_slow_by_steps_not_module", "sim.eprime_free_never_beats_cprime",
                "sim.eprime_saves_on_wan_only")
ALWAYS_CLAIMS = ("sim.module_makes_e_slower_than_c", "sim.b_beats_a_only_on_the_grid")


def _all_claims(computed):
    reg = Registry()
    register_sim(reg, computed, RESULTS, ROOT)
    s = transit_claims._Sim(reg, computed, RESULTS)
    for fn in (transit_claims._breakevens, transit_claims._intervals, transit_claims._bytes,
               transit_claims._causes):
        fn(s, None)
    return reg.claims


def test_never_and_always_are_tested_at_every_point_of_the_sweep(computed, monkeypatch):
    """The bisection looks only at the range's two ends. A claim that a variant never (or
    always) wins must also fail when one interior grid point says otherwise: here every
    point is made to disagree by one, and each such claim must fail."""
    claims = _all_claims(computed)
    assert all(claims[c].holds for c in NEVER_CLAIMS + ALWAYS_CLAIMS)
    real = transit_claims._grid_wins
    flip = lambda s, a, b, steps, pa=None: (lambda n: n + 1 if n == 0 else n - 1)(
        real(s, a, b, steps, pa))
    monkeypatch.setattr(transit_claims, "_grid_wins", flip)
    claims = _all_claims(computed)
    for cid in NEVER_CLAIMS + ALWAYS_CLAIMS:
        assert not claims[cid].holds, cid
