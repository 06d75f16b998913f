"""Counterfactual runs of the model (docs/simulator.md, "Counterfactuals"): a sentence
that gives a cause ("E is slow because ...") is checked by changing that cause and
showing whether the effect changes. Each counterfactual changes one thing (the module's
time, or a variant's steps) and compares the changed variant with another, at the
sweep's two ends, at the default WAN, and by break-even at the grid values and at both
ends of the steps' interval (interval.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

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
