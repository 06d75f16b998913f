"""Counterfactual runs of the model (docs/simulator.md, "Counterfactuals"): a sentence
that gives a cause ("E is slow because ...") is checked by changing that cause and
showing whether the effect changes. Each counterfactual changes one thing (the module's
time, or a variant's steps) and compares the changed variant with another, at the
sweep's two ends, at the default WAN, and by break-even at the grid values and at both
ends of the steps' interval (interval.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from . import closed, interval
from .closed import BY_KEY, BreakEven


@dataclass(frozen=True)
class Counterfactual:
    key: str            # registry id part
    label: str          # what was changed, in words
    variant: str        # the changed variant's key
    against: str        # the variant it is compared with
    free_module: bool   # the module takes no time
    steps_from: str | None = None    # the variant takes these steps instead of its own


CASES = (
    Counterfactual("E_free_vs_A", "E with a module that takes no time", "E", "A", True),
    Counterfactual("E_Asteps_vs_A", "E on A's steps", "E", "A", False, "A"),
    Counterfactual("E_free_vs_C", "E with a module that takes no time", "E", "C", True),
    Counterfactual("Eprime_free_vs_Cprime", "E′ (C's steps) with a module that takes no "
                   "time", "Eprime_Csteps", "Cprime", True),
)


def free_module(p: closed.Params) -> closed.Params:
    """The same model with a module that takes no time (and so draws no energy)."""
    return p.with_(transform_counts=False, module_port_rate=math.inf)


@dataclass(frozen=True)
class Outcome:
    case: Counterfactual
    times: tuple        # ((changed, other) at sweep_min, at the default WAN, at sweep_max)
    breakeven: BreakEven
    ends: tuple         # (BreakEven fewest, BreakEven most)


def _steps(c, case: Counterfactual) -> tuple[dict, dict]:
    """Steps and interval ends with the case's change of steps applied."""
    steps, ends = dict(c.steps), dict(c.ends)
    if case.steps_from is not None:
        steps[case.variant] = c.steps[case.steps_from]
        ends[case.variant] = c.ends[case.steps_from]
    return steps, ends


def run(c, lo: float, hi: float, iters: int) -> list[Outcome]:
    """Every case of CASES, on the computed model `c` (compute.Computed)."""
    out = []
    for case in CASES:
        p = free_module(c.params) if case.free_module else c.params
        steps, ends = _steps(c, case)

        def t(params, key, s, bw):
            return s[key] * closed.step(params.with_(bw_wan=bw), BY_KEY[key].mech).total

        def pair(s, a, b):
            ta = lambda bw: None if s[a] is None else t(p, a, s, bw)
            tb = lambda bw: None if s[b] is None else t(c.params, b, s, bw)
            return closed.break_even(ta, tb, lo, hi, iters)

        times = tuple((t(p, case.variant, steps, bw), t(c.params, case.against, steps, bw))
                      for bw in (lo, c.params.bw_wan, hi))
        shared = case.steps_from is not None and \
            case.steps_from == BY_KEY[case.against].steps_from
        corners = []
        for i, end in enumerate(interval.ENDS):
            if shared:          # the two take the same steps: both at this end
                s = dict(steps)
                s[case.variant] = s[case.against] = ends[case.against][i]
            else:
                s = interval.corner(steps, ends, case.variant, case.against, end)
            corners.append(pair(s, case.variant, case.against))
        out.append(Outcome(case, times, pair(steps, case.variant, case.against),
                           tuple(corners)))
    return out


def wan_to_target(c) -> dict:
    """variant key -> (grid, fewest, most) bytes crossing the WAN on the way to the
    target, or None where it never reaches it."""
    out = {}
    for v in closed.VARIANTS:
        per = c.default[v.mech].wan_bytes
        s, ends = c.steps[v.key], c.ends[v.key]
        out[v.key] = None if s is None else (s * per, ends[0] * per, ends[1] * per)
    return out


# ---- E′ with what its model leaves out charged (results.md §9) -------------------------

CHARGED = ("Eprime_Esteps_vs_A", "Eprime_Csteps_vs_A", "Eprime_vs_Cprime")


@dataclass(frozen=True)
class Charged:
    """E′ with its shards' way to the switch and the band's way back charged in bytes
    (closed.innet_left_out): its step at the default WAN, its time to target on E's
    steps, and break-evens {id: (grid, first at its fewest, first at its most)}."""
    step: float
    modelled: float
    time: float | None
    breakevens: dict = field(default_factory=dict)


def charged_total(p: closed.Params) -> float:
    """E′'s step time (s) with closed.innet_left_out added."""
    return closed.step(p, "Eprime").total + closed.innet_left_out(p, p.dense_bytes,
                                                                   p.band_bytes)


def charged(c, lo: float, hi: float, iters: int) -> Charged:
    """The figures of `Charged` on the computed model `c` (compute.Computed)."""
    def pair(s, a, b):
        def t(key, bw):
            if s[key] is None:
                return None
            pb = c.params.with_(bw_wan=bw)
            if BY_KEY[key].mech == "Eprime":
                return s[key] * charged_total(pb)
            return s[key] * closed.step(pb, BY_KEY[key].mech).total
        return closed.break_even(lambda bw: t(a, bw), lambda bw: t(b, bw), lo, hi, iters)

    bes = {}
    for bid, _, a, b in closed.BREAKEVENS:
        if bid in CHARGED:
            bes[bid] = (pair(c.steps, a, b),) + tuple(
                pair(interval.corner(c.steps, c.ends, a, b, end), a, b)
                for end in interval.ENDS)
    # at the default WAN on the simulated step, as section 3 (break-evens: closed form)
    p = c.params
    step = c.default["Eprime"].total + closed.innet_left_out(p, p.dense_bytes, p.band_bytes)
    s = c.steps["Eprime_Esteps"]
    return Charged(step, c.default["Eprime"].total, None if s is None else s * step, bes)


# ---- E's run one evaluation later (results.md §8) --------------------------------------


@dataclass(frozen=True)
class Later:
    """E (and E′ on E's steps) had the run behind E crossed the target one evaluation
    later: `steps` the mean over its seeds of the evaluated step after its crossing."""
    steps: float
    time_e: float
    time_eprime: float
    e_vs_a: BreakEven
    eprime_vs_a: BreakEven


def one_eval_later(c, lo: float, hi: float, iters: int) -> Later | None:
    """None where E never reaches the target or a seed has no later evaluation."""
    st = c.inputs.steps.get("E")
    if st is None or st.mean is None or any(a is None for a in st.after):
        return None
    later = math.fsum(st.after) / len(st.after)
    s = dict(c.steps, E=later, Eprime_Esteps=later)
    return Later(later, later * c.default["E"].total, later * c.default["Eprime"].total,
                 closed.breakeven_pair(c.params, s, "E", "A", lo, hi, iters),
                 closed.breakeven_pair(c.params, s, "Eprime_Esteps", "A", lo, hi, iters))
