"""The evaluation grid's interval, carried through every derived figure (docs/simulator.md,
"The evaluation grid's interval").

A run is evaluated only every so many steps, so its steps to target are interval-censored:
the loss crossed the target after the last evaluation above it and at or before the first
evaluation at or below it. A group's steps to target (the mean over its seeds) therefore
lie between `fewest` (the mean of each seed's last step above the target, plus one) and
`most` (the mean of each seed's first step at or below it, the grid value the original
page used).

Every figure that depends on steps is computed at both ends:

- time and energy to target: steps × the step's time or energy, at `fewest` and `most`;
- a break-even between variants a and b: a's time against b's. A break-even depends on
  the two step counts only through their ratio, so its extremes are the two corners
  "a at its fewest, b at its most" (`fewest`, the end that favours a) and "a at its most,
  b at its fewest" (`most`). Variants that borrow the same measured steps (C and C′; E
  and E′ on E's steps) move together: both at their fewest, or both at their most;
- an ordering of two times (or energies) survives the interval when it holds at the
  corner that favours the slower one.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

from . import closed
from .closed import BY_KEY, VARIANTS, BreakEven

ENDS = ("fewest", "most")


def variant_ends(inputs) -> dict:
    """variant key -> (fewest, most) steps to target, or None where it never reaches."""
    out = {}
    for v in VARIANTS:
        s = inputs.steps.get(v.steps_from)
        out[v.key] = None if s is None or s.mean is None else (s.fewest, s.mean)
    return out


def shared(a: str, b: str) -> bool:
    """Do variants a and b borrow the same measured steps?"""
    return BY_KEY[a].steps_from == BY_KEY[b].steps_from


def corner(steps: dict, ends: dict, a: str, b: str, end: str) -> dict:
    """`steps` with a at its `end` of the interval and b at the other end (or at the
    same end, when the two share their steps)."""
    i = ENDS.index(end)
    j = i if shared(a, b) else 1 - i
    out = dict(steps)
    for key, k in ((a, i), (b, j)):
        for v in VARIANTS:
            if v.steps_from == BY_KEY[key].steps_from:
                out[v.key] = None if ends[v.key] is None else ends[v.key][k]
    return out


@dataclass(frozen=True)
class Order:
    """One ordering of two variants at the default WAN (time or energy to target):
    `first` is lower at the grid values; `worst` are the two figures at the corner that
    favours `second`; `survives` when `first` is still lower there."""
    first: str
    second: str
    grid: tuple
    worst: tuple
    survives: bool


def per_step(c, key: str, what: str) -> float:
    st = c.default[BY_KEY[key].mech]
    return st.total if what == "time" else st.energy


def orderings(c, what: str) -> list[Order]:
    """Every pair of variants that reach the target, ordered at the grid values."""
    keys = [v.key for v in VARIANTS if c.steps[v.key] is not None]
    out = []
    for a, b in combinations(keys, 2):
        ga, gb = (c.steps[k] * per_step(c, k, what) for k in (a, b))
        if gb < ga:
            a, b, ga, gb = b, a, gb, ga
        s = corner(c.steps, c.ends, a, b, "most")      # a at its most, b at its fewest
        wa, wb = (s[k] * per_step(c, k, what) for k in (a, b))
        out.append(Order(a, b, (ga, gb), (wa, wb), ga < gb and wa < wb))
    return out


def breakeven_ends(c, pair, a: str, b: str) -> tuple[BreakEven, BreakEven]:
    """(a at its fewest and b at its most, a at its most and b at its fewest)."""
    return tuple(pair(corner(c.steps, c.ends, a, b, end), a, b) for end in ENDS)


@dataclass(frozen=True)
class EnobEnd:
    """One repaired run at one end of the interval: E's steps there (A at the other end),
    and E and E′ against A."""
    steps: float | None
    e_vs_a: BreakEven
    eprime_vs_a: BreakEven


def enob_ends(c, pair, e_planes: int, pick) -> tuple[list, dict]:
    """For each repaired run (c.enob's order), {end: EnobEnd}; and {end: the break-even
    ENOB there}. `pair(steps, a, b)` is the bisection, `pick` compute.enob_pick."""
    rows = [{} for _ in c.enob]
    picks = {}
    for end in ENDS:
        found = []
        for i, r in enumerate(c.enob):
            grid = r.run.steps.mean
            lo_hi = None if grid is None else (r.run.steps.fewest, grid)
            s = dict(c.steps, E=grid, Eprime_Esteps=grid)
            s = corner(s, dict(c.ends, E=lo_hi, Eprime_Esteps=lo_hi), "E", "A", end)
            rows[i][end] = EnobEnd(s["E"], pair(s, "E", "A"), pair(s, "Eprime_Esteps", "A"))
            found.append((r.run, rows[i][end].e_vs_a, rows[i][end].eprime_vs_a))
        picks[end] = pick(found, e_planes)
    return rows, picks


def time_at(c, key: str, steps: float | None) -> float | None:
    return None if steps is None else steps * c.default[closed.BY_KEY[key].mech].total
