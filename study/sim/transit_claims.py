"""Checked claims about the transit simulation (docs/claims.md): predicates over the
simulator's computed values (the same `Computed` that writes every cell of
data/sim/results.md) and the registry's scenario and experiment figures. Nothing here
assumes a figure: each predicate reads what this build's simulation produced.

`register_transit_claims(reg, computed, groups, results_path)` is called by the simulator
stage after its figures are in the registry (`groups`: the headline folder's run groups).
"""

from __future__ import annotations

from cit.claims import Verdict, claim_book
from cit.fmt import (GB, GBPS, GFLOPS, GVALUES, MS, SECONDS, US, fmt, fmt_general,
                     fmt_int, fmt_pct, fmt_sig)
from cit.registry import Registry, Source
from . import calibrate, closed, interval
from .closed import BY_KEY, BreakEven
from .report import f_be, f_typed
from .compute import Computed
from .counterfactual import free_module
from .quoted import against as quoted_against


def _gbps(bw: float | None) -> str:
    return "none" if bw is None else GBPS.labelled(bw, 3, sig=False)


def _secs_vs(a, b, whose: str = "") -> str:
    """Two times as evidence: `1.23 against [whose ]4.56 s`."""
    return f"{SECONDS.text(a)} against {whose}{SECONDS.labelled(b)}"


class _Sim:
    def __init__(self, reg: Registry, c: Computed, results_path: str):
        self.reg, self.c = reg, c
        self.book = claim_book(reg)
        self.sources = (Source(results_path), Source("data/sim/scenario.yaml"))

    def v(self, id):
        return self.reg.numbers[id].value

    def add(self, id, checked, verdict, computation, extra=(), one_seed=False, keys=(),
            words=()):
        """`keys`: the variants whose steps the claim compares; their seed counts join the
        verdict's, so a comparison resting on a one-seed run is a hypothesis."""
        if keys:
            verdict = Verdict(verdict.holds, verdict.evidence,
                              tuple(verdict.seeds) + self.seeds(*keys))
        self.book.add(id, checked, verdict, sources=self.sources + tuple(extra),
                      computation=computation, one_seed=one_seed, words=words)

    def seeds(self, *keys: str) -> tuple[int, ...]:
        """Seed counts of the runs behind each variant's steps (C′ and E′ borrow C's, E's)."""
        return tuple(len(self.c.inputs.steps[BY_KEY[k].steps_from].per_seed) for k in keys)

    def step_at(self, key: str, i: int) -> float:
        """Simulated step time (s) of variant `key` at grid point i."""
        return self.c.sweep[BY_KEY[key].mech][i]

    def time(self, key: str) -> float | None:
        return self.c.time(key, self.c.default[BY_KEY[key].mech].total)

    def at(self, key: str, steps: float | None, what: str = "total") -> float | None:
        """Variant `key`'s time (or energy, what="energy") to target at `steps`."""
        st = self.c.default[BY_KEY[key].mech]
        return None if steps is None else steps * getattr(st, what)

    def be3(self, bid: str) -> tuple:
        """A break-even at the grid values, at the first variant's fewest steps and at its
        most (interval.py)."""
        return (self.c.breakevens[bid],) + tuple(self.c.breakeven_ends[bid])

    def cf(self, key: str):
        return next(o for o in self.c.counterfactuals if o.case.key == key)


def _three(bes) -> str:
    """A break-even at the grid values and at both ends, for the evidence."""
    return f"{f_be(bes[0])} (grid); {f_be(bes[1])} and {f_be(bes[2])} at the two ends"


def register_transit_claims(reg: Registry, computed: Computed, groups, results_path: str) -> None:
    s = _Sim(reg, computed, results_path)
    for fn in (_breakevens, _enob, _intervals, _target, _sweep, _bytes, _causes, _layout,
               _layout_wan_bytes, _module, _e_run, _e_run_choice, _charged,
               _switch_on_optics_steps, _hypothetical):
        fn(s, groups)


def _hypothetical(s: _Sim, groups) -> None:
    """C′ and E′: never run, simulated on borrowed steps (docs/simulator.md)."""
    trained = sorted({g.first.variant.key for g in groups})
    borrowed = {v.key: v.steps_from for v in closed.VARIANTS if v.hypothetical}
    s.add("sim.hypothetical_not_run",
          "C′ and E′ are hypothetical: no run of the experiment is either, and the model "
          "gives C′ C's steps and E′ E's steps in one row and C's in another",
          Verdict(not {"Cprime", "Eprime"} & set(trained)
                  and borrowed == {"Cprime": "C", "Eprime_Esteps": "E", "Eprime_Csteps": "C"},
                  (("variants the runs are", ", ".join(trained)),
                   ("borrowed steps", ", ".join(f"{BY_KEY[k].label}: {v}'s"
                                                for k, v in sorted(borrowed.items()))))),
          "no group of the experiment's logs has the catalogue's C′ or E′ as its variant; "
          "closed.VARIANTS: the hypothetical rows take steps_from C (C′), E and C (E′)",
          words=(("trained", "not trained: no run of the experiment's logs is C′ or E′"),))


def _breakevens(s: _Sim, groups) -> None:
    c = s.c
    e3 = s.be3("E_vs_A")
    ew = _wins_on_grid(s, "E", "A")
    s.add("sim.e_never_breaks_even",
          "E, on the optics run that stands for it, breaks even with AdamW nowhere in the "
          "swept range, at the grid values and at both ends of the steps' interval",
          Verdict(all(b.kind == "none" for b in e3) and ew[0] == 0,
                  (("E vs A", _three(e3)),
                   ("sweep points where E is faster, grid values and both ends", _points(ew))),
                  s.seeds("E", "A")),
          "BreakEven.kind of E vs A is none at the grid values, with E at its fewest steps "
          "and A at its most, and the reverse (bisection over sweep_min..sweep_max); E slower "
          "at every point of the sweep grid in all three")
    none = f_be(BreakEven("none", None))
    quoted = {k: s.reg.numbers[f"quoted.breakeven.{k}"].text for k in ("E_vs_A", "Eprime_vs_Cprime")}
    s.add("sim.quoted_e_and_eprime_never",
          "the original page's figures, as quoted, have E never breaking even with AdamW and "
          "E′ never beating C′ on the exact band's steps",
          Verdict(all(t == none for t in quoted.values()),
                  (("quoted E vs A", quoted["E_vs_A"]), ("quoted E′ vs C′", quoted["Eprime_vs_Cprime"]))),
          "text of the quoted break-evens against the text of 'none in the range'",
          extra=(Source("data/sim/quoted.yaml"),))
    _fit_count(s)
    _unfitted(s, quoted, none)
    _budget_figures(s)
    _cprime_higher(s)


def _grid_wins(s: _Sim, a: str, b: str, steps: dict, pa=None) -> int:
    """Grid points of the sweep at which a, with `steps`, reaches the target before b
    (closed form, which the simulation matches there); `pa`: a's parameters when they
    differ from the scenario's (a counterfactual)."""
    c = s.c
    pa = pa or c.params
    return sum(steps[a] * closed.step(pa.with_(bw_wan=bw), BY_KEY[a].mech).total
               < steps[b] * closed.step(c.params.with_(bw_wan=bw), BY_KEY[b].mech).total
               for bw in c.grid)


def _wins_on_grid(s: _Sim, a: str, b: str, pa=None, ends=interval.ENDS) -> tuple[int, int]:
    """(grid points at which a reaches the target before b, points tried), over every
    bandwidth of the sweep grid at the grid values and at the corners `ends` of the steps'
    interval: a statement that a never (or always) wins is tested over the whole sweep,
    not only where the bisection looks, at its two ends."""
    c = s.c
    sets = (c.steps,) + tuple(interval.corner(c.steps, c.ends, a, b, e) for e in ends)
    return sum(_grid_wins(s, a, b, st, pa) for st in sets), len(sets) * len(c.grid)


def _points(w: tuple[int, int]) -> str:
    return f"{fmt_int(w[0])} of {fmt_int(w[1])}"


def _unfitted(s: _Sim, quoted: dict, none: str) -> None:
    """The two comparisons the fit was not fitted to: the same in ours as in the
    original's, over the whole sweep, and for every module budget."""
    c = s.c
    ours = {k: s.be3(k) for k in ("E_vs_A", "Eprime_vs_Cprime")}
    free = {k: s.cf(k) for k in ("E_free_vs_A", "Eprime_free_vs_Cprime")}
    grid = {("E", "A"): _wins_on_grid(s, "E", "A"),
            ("Eprime_Csteps", "Cprime"): _wins_on_grid(s, "Eprime_Csteps", "Cprime")}
    grid_free = {k: _wins_on_grid(s, *k, pa=free_module(c.params)) for k in grid}
    fb = {k: (o.breakeven,) + tuple(o.ends) for k, o in free.items()}
    s.add("sim.unfitted_comparisons_agree",
          "in ours as in the original's figures, E never beats AdamW and E′ never beats C′ on "
          "the exact band's steps; in ours the same holds with a module that takes no time, "
          "so it holds at every module budget and tests nothing about the budget",
          Verdict(all(b.kind == "none" for v in list(ours.values()) + list(fb.values()) for b in v)
                  and all(w == 0 for w, _ in list(grid.values()) + list(grid_free.values()))
                  and all(t == none for t in quoted.values()),
                  (("ours, E vs A", _three(ours["E_vs_A"])),
                   ("ours, E′ vs C′", _three(ours["Eprime_vs_Cprime"])),
                   ("module taking no time, E vs A", _three(fb["E_free_vs_A"])),
                   ("module taking no time, E′ vs C′", _three(fb["Eprime_free_vs_Cprime"])),
                   ("sweep points where E or E′ wins, as fitted and with a module taking no "
                    "time", f"{sum(w for w, _ in list(grid.values()) + list(grid_free.values()))}"
                    f" of {sum(n for _, n in list(grid.values()) + list(grid_free.values()))}"),
                   ("quoted, E vs A", quoted["E_vs_A"]), ("quoted, E′ vs C′", quoted["Eprime_vs_Cprime"]))),
          "ours: BreakEven.kind none at the grid values and at both ends of the interval, with "
          "the fitted budget and with the module taking no time (counterfactual E_free_vs_A, "
          "Eprime_free_vs_Cprime), and no point of the sweep grid where E or E′ is faster, at "
          "the grid values or either corner; the module's time only lengthens E's and E′'s "
          "steps, so what they lose with it taking no time they lose at every budget; quoted: "
          "the text 'none in range'", extra=(Source("data/sim/quoted.yaml"),),
          keys=('E', 'A', 'Eprime_Csteps', 'Cprime'))


# the figures of the original's that turn on the module's budget, as the page names them
# the bisection for the ends of the budgets that reproduce them stops at this fraction of
# the fitted budget (the page prints them to four significant figures)
BUDGET_TOLERANCE = 1e-5
BUDGET_FIGURES = ("time.E", "time.Eprime_Esteps", "breakeven.Eprime_Esteps_vs_A",
                  "breakeven.Eprime_Csteps_vs_A")


def _budget_figures(s: _Sim) -> None:
    """Which of the original's figures turn on the module's budget, and the budgets at
    which all of them read as the original's (the latency where the fit put it)."""
    c, v = s.c, s.c.values
    if c.calibration is None:
        return
    same = calibrate.reads_same(c.params, c.steps, c.quoted, v)
    fitted = [k for k in c.calibration.figures if same[k]]
    s.add("sim.fit_reproduces_its_figures",
          "with the two fitted inputs, every figure of the original's they were fitted to "
          "reads the same as ours at the precision it printed, and the fitted budget lies "
          "inside the range the original page gives",
          Verdict(len(fitted) == len(c.calibration.figures)
                  and v.module_budget_min <= v.module_budget <= v.module_budget_max,
                  (("fitted figures read the same",
                    f"{fmt_int(len(fitted))} of {fmt_int(len(c.calibration.figures))}"),
                   ("RMS relative residual", fmt_general(c.calibration.rms)),
                   ("fitted budget", GFLOPS.after(f_typed(v.module_budget))),
                   ("range", f"{GFLOPS.text(v.module_budget_min, scaled=True)} to "
                             f"{GFLOPS.labelled(v.module_budget_max, scaled=True)}"))),
          "calibrate.reads_same at the scenario's recorded fitted values, for each figure "
          "of fit.figures; module_budget_min ≤ module_budget ≤ module_budget_max",
          keys=('A', 'B', 'C', 'E'))
    lo_bw, hi_bw, it = GBPS.base(v.sweep_min), GBPS.base(v.sweep_max), v.bisection_iterations
    at = lambda b: c.params.with_(module_budget=GFLOPS.base(b))
    ends = (v.module_budget_min, v.module_budget_max)
    figures = [k for k in quoted_against(c.quoted)
               if len({calibrate.figure_value(at(b), c.steps, k, lo_bw, hi_bw, it)
                       for b in ends}) > 1]
    sub = c.quoted.model_copy(update={"figures": {k: c.quoted.figures[k] for k in figures}})
    ok = lambda b: all(calibrate.reads_same(at(b), c.steps, sub, v).values())
    fit = v.module_budget
    edges = []
    for end in ends:           # each figure is monotone in the budget: one interval
        a, b = fit, end
        while abs(b - a) > BUDGET_TOLERANCE * fit:
            mid = (a + b) / 2
            a, b = (mid, b) if ok(mid) else (a, mid)
        edges.append(a)
    where = ("closed form at the scenario with module_budget moved, the latency at its "
             "fitted value; data/sim/quoted.yaml")
    s.reg.add("sim.fitted.budget_figures", len(figures), fmt_int(len(figures)),
              unit="figures", kind="derived", sources=s.sources, locator=where,
              computation="the original's transit figures whose value (ours) differs "
                          "between module_budget_min and module_budget_max")
    for key, x, how in (("low", edges[0], "lowest"), ("high", edges[1], "highest")):
        s.reg.add(f"sim.fitted.budget_agrees.{key}", x, fmt_sig(x, 4), unit=GFLOPS.label,
                  kind="derived", sources=s.sources, locator=where,
                  computation=f"the {how} budget at which every figure that turns on the "
                              "budget reads as the original's at its precision: bisection "
                              "from the fitted budget toward the range's end, to "
                              f"{BUDGET_TOLERANCE:g} of the fitted budget")
    s.add("sim.budget_pins_its_figures",
          "exactly four of the original's figures turn on the module's budget across the "
          "range its page gives, E's and E′'s times and E′'s two break-evens with AdamW; "
          "with the fitted latency all four read as the original's only for budgets inside "
          "an interval that holds the fitted budget and reaches neither end of the range",
          Verdict(tuple(figures) == BUDGET_FIGURES and ok(fit) and not ok(ends[0])
                  and not ok(ends[1]) and ends[0] < edges[0] <= fit <= edges[1] < ends[1],
                  (("figures that turn on the budget", ", ".join(figures)),
                   ("budgets at which all read as the original's",
                    f"{fmt_sig(edges[0], 4)} to {GFLOPS.after(fmt_sig(edges[1], 4))}"),
                   ("fitted budget", GFLOPS.after(f_typed(fit))),
                   ("range", f"{GFLOPS.text(ends[0], scaled=True)} to "
                             f"{GFLOPS.labelled(ends[1], scaled=True)}"))),
          "calibrate.figure_value of each quoted transit figure at module_budget_min and "
          "module_budget_max (those that differ); calibrate.reads_same of those at the fitted "
          "budget (true), at both ends of the range (false), and bisection for the ends of "
          "the interval where all read the same (each figure is monotone in the budget)",
          keys=('E', 'C', 'A'))


def _fit_count(s: _Sim) -> None:
    """How many of the original's figures the fitted inputs were fitted to (the page
    says it in words beside the count of all its figures)."""
    if s.c.calibration is None:
        return                   # no fitted inputs: a page citing the count fails the build
    figures = s.c.calibration.figures
    s.reg.add("sim.fitted.figure_count", len(figures), fmt_int(len(figures)), kind="derived",
              sources=(Source("data/sim/scenario.yaml"),),
              locator="data/sim/scenario.yaml, fit.figures of the fitted inputs",
              computation="number of quoted figures the calibration fitted to")


def _cprime_higher(s: _Sim) -> None:
    """C′'s break-even with A above E′'s (on E's steps) at every corner of the three
    step intervals (C's, E's, A's: A's steps are the same in both comparisons)."""
    from itertools import product
    from .compute import breakeven_pair
    c, v = s.c, s.c.values
    lo, hi, it = GBPS.base(v.sweep_min), GBPS.base(v.sweep_max), v.bisection_iterations
    worst = None
    for sc, se, sa in product(c.ends["C"], c.ends["E"], c.ends["A"]):
        st = dict(c.steps, Cprime=sc, Eprime_Esteps=se, A=sa)
        cp = breakeven_pair(c.params, st, "Cprime", "A", lo, hi, it)
        ep = breakeven_pair(c.params, st, "Eprime_Esteps", "A", lo, hi, it)
        ok = cp.kind == "below" and ep.kind == "below" and cp.at > ep.at
        margin = cp.at / ep.at if ok else 0.0
        if worst is None or margin < worst[0]:
            worst = (margin, cp, ep, sc, se, sa)
    g = (c.breakevens["Cprime_vs_A"], c.breakevens["Eprime_Esteps_vs_A"])
    _, cp, ep, sc, se, sa = worst
    s.add("sim.cprime_breaks_even_higher",
          "C′ breaks even with AdamW at a higher WAN bandwidth than E′ on the optics' steps, "
          "at the grid values and at every end of the steps' intervals",
          Verdict(g[0].kind == g[1].kind == "below" and g[0].at > g[1].at and worst[0] > 1,
                  (("C′ vs A, grid", _gbps(g[0].at)), ("E′ vs A, grid", _gbps(g[1].at)),
                   ("closest corner, C′ vs A", _gbps(cp.at)),
                   ("closest corner, E′ vs A", _gbps(ep.at)),
                   ("its steps, C′, E′, A", f"{fmt(sc, 0)}, {fmt(se, 0)}, {fmt(sa, 0)}"))),
          "BreakEven.at of C′ vs A > that of E′ (E's steps) vs A at the grid values and at "
          "all eight corners of C's, E's and A's step intervals (A's shared by both)",
          keys=('Cprime', 'Eprime_Esteps', 'A'))


def _enob(s: _Sim, groups) -> None:
    c = s.c
    grid_none = [r for r in c.enob if r.e_vs_a.kind == "none"]
    most_none = [r for r, e in zip(c.enob, c.enob_ends) if e["most"].e_vs_a.kind == "none"]
    exceptions = [(r, e["fewest"]) for r, e in zip(c.enob, c.enob_ends)
                  if e["fewest"].e_vs_a.kind != "none"]
    n = len(c.enob)
    for r, e in exceptions[:1]:       # the one exception the claim allows, for the page
        loc = f"{s.sources[0].path} §8, table 'Repaired optics runs at both ends', row {r.run.slug!r}"
        s.reg.add("sim.e_enob_exception.enob", r.run.enob, fmt(r.run.enob, 0), unit="bits",
                  kind="measured", sources=s.sources, locator=loc,
                  computation="ENOB of the one repaired run whose E breaks even with AdamW at "
                              "the end of the interval that favours E")
        s.reg.add("sim.e_enob_exception.breakeven", GBPS.of(e.e_vs_a.at), f_be(e.e_vs_a),
                  unit=GBPS.label, kind="simulated", sources=s.sources, locator=loc,
                  computation="bisection: E at that run's fewest steps against A at its most")
    s.add("sim.e_breaks_even_at_no_enob_on_the_grid",
          "at the grid values E breaks even with AdamW at no ENOB, nor at the end of the "
          "interval that favours AdamW; at the end that favours E, exactly one repaired run's "
          "E does",
          Verdict(len(grid_none) == n and len(most_none) == n and len(exceptions) == 1,
                  (("runs where E never breaks even, grid", f"{len(grid_none)} of {n}"),
                   ("same, E at its most steps and A at its fewest", f"{len(most_none)} of {n}"),)
                  + tuple((f"{r.run.slug}, E at its fewest steps and A at its most",
                           f"E vs A {f_be(e.e_vs_a)} at {fmt(e.steps, 0)} steps")
                          for r, e in exceptions)),
          "BreakEven.kind of E vs A with each repaired run's steps: none for every run at the "
          "grid values and at E's most/A's fewest; not none for exactly one run at E's "
          "fewest/A's most", one_seed=True)
    be, ends = c.enob_breakeven, c.enob_breakeven_ends
    planes = s.v("scenario.e_planes")
    reach = sorted((r for r in c.enob if r.run.planes == planes and r.run.steps.mean is not None),
                   key=lambda r: r.run.enob)
    picks = [be, ends["fewest"], ends["most"]]
    same = all(p is not None and p[1] == "E′" and p[0].enob == be[0].enob for p in picks)
    ok = (be is not None and same and reach and reach[0].run.enob == be[0].enob)
    text = lambda p: "none" if p is None else f"{fmt(p[0].enob, 0)} as {p[1]}"
    s.add("sim.enob_breakeven_is_eprime",
          "at the break-even ENOB it is the switch variant E′ that beats AdamW, and no lower "
          "ENOB with E's plane count reaches the target; the same at both ends of the "
          "steps' interval",
          Verdict(bool(ok), (("break-even ENOB, grid", text(be)),
                             ("at E's fewest steps", text(ends["fewest"])),
                             ("at E's most steps", text(ends["most"])),
                             ("lowest ENOB reaching the target",
                              fmt(reach[0].run.enob, 0) if reach else "none"))),
          "compute.enob_pick at the grid values and at both ends (section 8), and the repaired "
          "runs' steps to target", one_seed=True)


def _intervals(s: _Sim, groups) -> None:
    """Which orderings and break-evens survive the evaluation grid's interval."""
    c = s.c
    b3 = s.be3("B_vs_A")
    sa, sb = c.inputs.steps["A"], c.inputs.steps["B"]
    same = sorted(zip(sa.above, sa.per_seed)) == sorted(zip(sb.above, sb.per_seed))
    bw = _wins_on_grid(s, "B", "A", ends=("fewest",))
    s.add("sim.b_beats_a_only_on_the_grid",
          "at the grid values B beats AdamW across the whole range, but not at both ends of "
          "the interval: with B at its most steps and AdamW at its fewest, only below a "
          "bandwidth inside the range; every seed of both crosses the target between the "
          "same two evaluations",
          Verdict(b3[0].kind == "whole" and b3[1].kind == "whole" and b3[2].kind == "below"
                  and same and bw[0] == bw[1],
                  (("B vs A", _three(b3)),
                   ("sweep points where B is faster, grid values and B at its fewest", _points(bw)),
                   ("A's seeds, last eval above and first at or below",
                    ", ".join(f"{a}-{f}" for a, f in zip(sa.above, sa.per_seed))),
                   ("B's seeds, the same", ", ".join(f"{a}-{f}" for a, f in zip(sb.above, sb.per_seed)))),
                  (len(sa.per_seed), len(sb.per_seed))),
          "BreakEven.kind of B vs A: whole at the grid values and at B's fewest/A's most, "
          "below at B's most/A's fewest; the (last above, first at or below) eval steps of "
          "A's seeds and of B's seeds are the same pairs")
    lost = {}
    for what in ("time", "energy"):
        lost[what] = [(o.first, o.second) for o in interval.orderings(c, what) if not o.survives]
    total = len(interval.orderings(c, "time"))
    s.add("sim.orderings_survive_but_b_and_a",
          "of the orderings of time to target at the default WAN, every one survives the "
          "interval except B before AdamW; of energy to target, every one except AdamW "
          "below B",
          Verdict(lost["time"] == [("B", "A")] and lost["energy"] == [("A", "B")],
                  (("pairs", fmt_int(total)),
                   ("time orderings that do not survive", ", ".join(f"{a} before {b}" for a, b in lost["time"]) or "none"),
                   ("energy orderings that do not survive", ", ".join(f"{a} below {b}" for a, b in lost["energy"]) or "none"))),
          "interval.orderings: the lower at the grid values still lower at its most steps "
          "against the other's fewest (the same steps when shared), every pair of variants",
          keys=('A', 'B', 'C', 'Cprime', 'E', 'Eprime_Esteps'))
    ids = ("Eprime_Esteps_vs_A", "Eprime_Csteps_vs_A", "Cprime_vs_A")
    bes = {k: s.be3(k) for k in ids}
    s.add("sim.switch_and_cprime_beat_a_somewhere_at_both_ends",
          "E′ on either steps (the optics' or the exact band's) and C′ each beat AdamW below "
          "some WAN bandwidth inside the range, at the grid values and at both ends of the "
          "interval",
          Verdict(all(b.kind == "below" for v in bes.values() for b in v),
                  tuple((BY_KEY[k.split("_vs_")[0]].label, _three(v)) for k, v in bes.items())),
          "BreakEven.kind below (a bandwidth inside sweep_min..sweep_max) for each of the "
          "three comparisons at the grid values and at both corners of section 8",
          keys=('Eprime_Esteps', 'Eprime_Csteps', 'Cprime', 'A'))


def _target(s: _Sim, groups) -> None:
    target = s.v("sim.target")
    two = next(g for g in groups if g.first.group == s.c.inputs.target_group)
    missing = [r for r in two.runs if r.first_step_at_or_below(target) is None]
    s.reg.add("sim.target_missed.seeds", len(missing), str(len(missing)), unit="seeds",
              kind="derived", sources=s.sources + s.reg.numbers[f"final_loss_mean.{two.slug}"].sources,
              locator="derived from the eval records of the target group's logs",
              computation="seeds of the target's own group with no eval at or below the target")
    s.add("sim.target_not_reached_by_all_its_seeds",
          "at least one seed of the band group that defines the target has no evaluation at or "
          "below it",
          Verdict(len(missing) >= 1, (("target", fmt(target, 3)),
                                      ("seeds never reaching it", f"{len(missing)} of {len(two.runs)}")),
                  (len(two.runs),)),
          "first eval step at or below the target, per seed of the target group")
    high = next(g for g in groups if g.slug == "F.high.2d64")
    hl = high.first.final_val_loss
    s.add("sim.target_not_worst_band",
          "the high band ended above the target, so the target is not the worst exact band",
          Verdict(hl > target, (("high band", fmt(hl, 3)), ("target", fmt(target, 3))),
                  (len(high.runs), len(two.runs))),
          "final val loss of the high band > target")


def _sweep(s: _Sim, groups) -> None:
    c = s.c
    keys = [k for k in BY_KEY if c.steps[k] is not None]
    last = len(c.grid) - 1
    change = [max(abs(s.step_at(k, i) / s.step_at(k, last) - 1) for k in keys)
              for i in range(len(c.grid))]
    flat = min(i for i in range(len(c.grid)) if max(change[i:]) < 0.02)
    s.reg.add("sim.sweep_flat_from", GBPS.of(c.grid[flat]),
              GBPS.text(c.grid[flat], 0, sig=False), unit=GBPS.label,
              kind="simulated", sources=s.sources, locator=f"{s.sources[0].path} §6",
              computation="lowest grid bandwidth from which every variant's simulated step "
                          "time stays within two percent of its time at the top of the sweep")
    s.add("sim.sweep_flat_above",
          "the curves flatten inside the swept range: from a bandwidth below its top, no "
          "variant's time changes by two percent or more",
          Verdict(0 < flat < last, (("flat from", _gbps(c.grid[flat])),
                                    ("largest change from there", fmt_pct(max(change[flat:]), 2)),
                                    ("largest change one grid point lower", fmt_pct(change[flat - 1], 2)))),
          "max over variants of |step(bw) ÷ step(top) − 1| on the sweep grid")
    _step_parts(s, keys, flat)


def _step_parts(s: _Sim, keys, flat: int) -> None:
    """What is more than half of each variant's step, at every grid bandwidth from the
    point where the curves flatten to the top of the sweep (the sentence's "there")."""
    c = s.c
    pts = range(flat, len(c.grid))
    steps = {i: {k: closed.step(c.params.with_(bw_wan=c.grid[i]), BY_KEY[k].mech)
                 for k in keys} for i in pts}
    share = lambda i, k, what: getattr(steps[i][k], what) / steps[i][k].total
    compute_heavy = [{k for k in keys if share(i, k, "compute") > 0.5} for i in pts]
    comm = {k: [share(i, k, "comm") for i in pts] for k in ("A", "B")}
    span = f"{_gbps(c.grid[flat])} to {_gbps(c.grid[-1])}, {len(pts)} grid points"
    s.add("sim.step_parts_at_max",
          "at every grid bandwidth from where the curves flatten to the top of the sweep, "
          "compute is more than half of the step for C and C′ and for no other variant, and "
          "communication is more than half for A and B",
          Verdict(all(h == {"C", "Cprime"} for h in compute_heavy)
                  and min(min(v) for v in comm.values()) > 0.5,
                  (("bandwidths", span),)
                  + tuple((f"compute, {BY_KEY[k].label}, lowest to highest share",
                           f"{fmt_pct(min(share(i, k, 'compute') for i in pts), 1)} to "
                           f"{fmt_pct(max(share(i, k, 'compute') for i in pts), 1)}")
                          for k in keys)
                  + tuple((f"communication, {BY_KEY[k].label}, lowest share", fmt_pct(min(v), 1))
                          for k, v in comm.items())),
          "phase time ÷ step time, both from the closed form, per variant at every point of "
          "the sweep grid from sim.sweep_flat_from to sweep_max")
    mod = {k: [share(i, k, "module") for i in pts] for k in ("E", "Eprime_Esteps")}
    s.add("sim.module_largest_part_of_e",
          "at every grid bandwidth from where the curves flatten to the top of the sweep, "
          "the module's compression is more than half of the step of E and of E′",
          Verdict(min(min(v) for v in mod.values()) > 0.5,
                  (("bandwidths", span),)
                  + tuple((f"{BY_KEY[k].label}, lowest share", fmt_pct(min(v), 1))
                          for k, v in mod.items())),
          "module compression ÷ step time, both from the closed form, at every point of the "
          "sweep grid from sim.sweep_flat_from to sweep_max")
    _comm_takes_over(s, keys)
    _cheaper_steps(s)


def _comm_takes_over(s: _Sim, keys) -> None:
    """"As the WAN slows, the bytes crossing it take over": over the whole sweep grid,
    each variant's communication share of its step never falls as the bandwidth falls and
    ends higher than it began, and at
    the bottom of the sweep communication is the largest part of every variant's step."""
    c = s.c
    parts = {k: [closed.step(c.params.with_(bw_wan=bw), BY_KEY[k].mech) for bw in c.grid]
             for k in keys}
    share = {k: [p.comm / p.total for p in v] for k, v in parts.items()}
    rising = all(all(lo >= hi for lo, hi in zip(v, v[1:])) and v[0] > v[-1]
                 for v in share.values())
    largest = {k: max(("compute", "gpu", "module", "comm"), key=lambda w: getattr(v[0], w))
               for k, v in parts.items()}
    s.add("sim.comm_takes_over_as_wan_slows",
          "over every point of the sweep grid, each variant's communication share of its "
          "step never falls as the WAN bandwidth falls and is higher at the sweep's lowest "
          "bandwidth than at its highest, where "
          "communication is the largest part of every variant's step",
          Verdict(rising and all(w == "comm" for w in largest.values()),
                  (("bandwidths", f"{_gbps(c.grid[0])} to {_gbps(c.grid[-1])}, "
                                  f"{len(c.grid)} grid points"),)
                  + tuple((f"communication share, {BY_KEY[k].label}, top to bottom of the sweep",
                           f"{fmt_pct(v[-1], 1)} to {fmt_pct(v[0], 1)}") for k, v in share.items())
                  + (("largest part at the lowest bandwidth",
                      ", ".join(f"{BY_KEY[k].label}: {w}" for k, w in largest.items())),)),
          "phase time ÷ step time from the closed form, per variant at every point of the "
          "sweep grid, sweep_min to sweep_max")


def _cheaper_steps(s: _Sim) -> None:
    c = s.c
    cb, bb = c.default["C"], c.default["B"]
    corner = interval.corner(c.steps, c.ends, "C", "B", "fewest")    # C fewest, B most
    tc, tb = s.at("C", corner["C"]), s.at("B", corner["B"])
    s.add("sim.cheaper_steps_still_slower",
          "C's step is shorter than B's, yet C takes longer to reach the target, at the grid "
          "values and at both ends of the steps' interval",
          Verdict(cb.total < bb.total and s.time("C") > s.time("B") and tc > tb,
                  (("C step", MS.labelled(cb.total)), ("B step", MS.labelled(bb.total)),
                   ("C to target", SECONDS.labelled(s.time('C'))),
                   ("B to target", SECONDS.labelled(s.time('B'))),
                   ("C at its fewest steps", SECONDS.labelled(tc)),
                   ("B at its most", SECONDS.labelled(tb)))),
          "default-WAN step times (C < B); times to target C > B at the grid values and with "
          "C at its fewest steps and B at its most")


def _bytes(s: _Sim, groups) -> None:
    c = s.c
    wan, nic = s.v("scenario.wan_bandwidth"), s.v("scenario.nic_bandwidth")
    s.add("sim.wan_slower_than_worker_links",
          "the scenario's default WAN is slower than each worker's link inside a data centre",
          Verdict(wan < nic, (("WAN, default", GBPS.labelled(wan, 1, sig=False, scaled=True)),
                              ("worker link", GBPS.labelled(nic, 1, sig=False, scaled=True)))),
          "scenario wan_bandwidth < nic_bandwidth")
    d = c.default
    wan = {k: c.wan_to_target[k] for k in ("C", "E")}           # (grid, fewest, most)
    te = (s.time("E"), s.at("E", c.ends["E"][0]))
    tc = (s.time("C"), s.at("C", c.ends["C"][1]))
    s.add("sim.e_fewer_wan_bytes_yet_slower",
          "E sends fewer bytes across the WAN on its way to the target than C, yet at the "
          "default WAN takes longer, at the grid values and at both ends of the steps' interval",
          Verdict(wan["E"][0] < wan["C"][0] and wan["E"][2] < wan["C"][1]
                  and te[0] > tc[0] and te[1] > tc[1],
                  (("E, WAN bytes to target", GB.labelled(wan['E'][0])),
                   ("C, WAN bytes to target", GB.labelled(wan['C'][0])),
                   ("E at its most steps, C at its fewest",
                    f"{GB.text(wan['E'][2])} against {GB.labelled(wan['C'][1])}"),
                   ("E to target", SECONDS.labelled(te[0])), ("C to target", SECONDS.labelled(tc[0])),
                   ("E at its fewest steps, C at its most", _secs_vs(te[1], tc[1])))),
          "steps × WAN bytes per step, E < C, and times to target at the default WAN, E > C, "
          "each at the grid values and at the corner that favours the other way",
          keys=('E', 'C'))
    dense = s.v("sim.payload.A")
    ep, cc, cp = d["Eprime"], d["C"], d["Cprime"]
    e3 = s.be3("Eprime_vs_Cprime")
    w3 = _wins_on_grid(s, "Eprime_Csteps", "Cprime")
    s.add("sim.eprime_saves_on_wan_only",
          "under E′ each worker sends more bytes a step than under C or C′; E′ puts the same "
          "bytes on the WAN as C′, fewer than C; and E′ never beats C′, at the grid values or "
          "at either end of the steps' interval",
          Verdict(ep.wire > cc.wire and ep.wire > cp.wire and ep.wan_bytes == cp.wan_bytes
                  and ep.wan_bytes < cc.wan_bytes and all(b.kind == "none" for b in e3)
                  and w3[0] == 0,
                  (("E′ bytes per worker", fmt_int(ep.wire)), ("C bytes per worker", fmt_int(cc.wire)),
                   ("C′ bytes per worker", fmt_int(cp.wire)), ("dense delta", fmt_int(dense)),
                   ("E′ WAN bytes", fmt_int(ep.wan_bytes)), ("C′ WAN bytes", fmt_int(cp.wan_bytes)),
                   ("C WAN bytes", fmt_int(cc.wan_bytes)), ("E′ vs C′", _three(e3)),
                   ("sweep points where E′ is faster, grid values and both ends", _points(w3)))),
          "per-worker wire bytes E′ > C and E′ > C′; WAN bytes per step E′ = C′ < C; "
          "BreakEven.kind of E′ vs C′ (C's steps, shared) none at the grid values and both ends")
    s.add("sim.cprime_fewer_wan_bytes",
          "summing the band on the GPUs (C′) sends fewer bytes across the WAN each step than "
          "gathering it (C)",
          Verdict(cp.wan_bytes < cc.wan_bytes, (("C′", fmt_int(cp.wan_bytes)), ("C", fmt_int(cc.wan_bytes)))),
          "WAN bytes per step at the default WAN")


def _cf_evidence(o, label: str, other: str) -> tuple:
    lo, dflt, hi = o.times
    return ((f"{label}, lowest WAN", _secs_vs(lo[0], lo[1], f"{other}'s ")),
            (f"{label}, default WAN", _secs_vs(dflt[0], dflt[1], f"{other}'s ")),
            (f"{label}, highest WAN", _secs_vs(hi[0], hi[1], f"{other}'s ")),
            (f"{label}, break-even", _three((o.breakeven,) + tuple(o.ends))))


def _causes(s: _Sim, groups) -> None:
    """Causes, each by a counterfactual run of the model (results.md §9)."""
    c = s.c
    free, asteps = s.cf("E_free_vs_A"), s.cf("E_Asteps_vs_A")
    nothing = free_module(c.params)
    fw = _wins_on_grid(s, "E", "A", pa=nothing)
    w = {k: c.wan_to_target[k] for k in ("E", "A")}
    s.add("sim.e_slow_by_steps_not_module",
          "E's steps alone make it lose to AdamW: with a module that takes no time it still "
          "beats AdamW nowhere in the range, at the grid values or either end of the interval; "
          "its module alone makes it lose above a bandwidth inside the range: on AdamW's steps, "
          "module and all, it beats AdamW only below it; it also sends more bytes across the "
          "WAN on its way to the target, at the grid values and at its fewest steps against "
          "AdamW's most",
          Verdict(all(b.kind == "none" for b in (free.breakeven,) + tuple(free.ends))
                  and fw[0] == 0 and asteps.breakeven.kind == "below"
                  and w["E"][0] > w["A"][0] and w["E"][1] > w["A"][2],
                  _cf_evidence(free, "E, module taking no time", "A")
                  + (("sweep points where E with no module time is faster", _points(fw)),)
                  + _cf_evidence(asteps, "E on A's steps", "A")
                  + (("WAN bytes to target, E against A",
                      f"{GB.text(w['E'][0])} against {GB.labelled(w['A'][0])}"),
                     ("E at its fewest steps, A at its most",
                      f"{GB.text(w['E'][1])} against {GB.labelled(w['A'][2])}")),
                  s.seeds("E", "A")),
          "counterfactual.CASES E_free_vs_A (module time zero): BreakEven.kind none at the grid "
          "values and both ends; E_Asteps_vs_A (E's step time, A's steps): kind below; WAN "
          "bytes to target E > A at the grid values and at E's fewest/A's most")
    vc = s.cf("E_free_vs_C")
    vw = _wins_on_grid(s, "E", "C", pa=nothing)
    e_c = interval.corner(c.steps, c.ends, "E", "C", "fewest")      # E fewest, C most
    s.add("sim.module_makes_e_slower_than_c",
          "at the default WAN E takes longer than C to reach the target because of its "
          "module's time: with a module that takes no time E would reach it first across the "
          "whole range, at the grid values and both ends of the interval",
          Verdict(s.time("E") > s.time("C") and s.at("E", e_c["E"]) > s.at("C", e_c["C"])
                  and all(b.kind == "whole" for b in (vc.breakeven,) + tuple(vc.ends))
                  and vw[0] == vw[1],
                  (("E to target", SECONDS.labelled(s.time('E'))),
                   ("C to target", SECONDS.labelled(s.time('C'))),
                   ("E at its fewest steps, C at its most",
                    _secs_vs(s.at('E', e_c['E']), s.at('C', e_c['C']))),
                   ("module time per step", MS.labelled(c.default['E'].module)))
                  + _cf_evidence(vc, "E, module taking no time", "C")
                  + (("sweep points where E with no module time is faster", _points(vw)),),
                  s.seeds("E", "C")),
          "E's time to target > C's at the default WAN (grid values and E's fewest/C's most); "
          "counterfactual E_free_vs_C: BreakEven.kind whole at the grid values and both ends")
    t0 = {k: c.steps[k] * s.step_at(k, 0) for k in ("E", "C")}
    s.add("sim.e_beats_c_at_lowest_wan",
          "at the lowest bandwidth swept, E with its module reaches the target before C, at "
          "the grid values and with E at its most steps and C at its fewest",
          Verdict(t0["E"] < t0["C"]
                  and c.ends["E"][1] * s.step_at("E", 0) < c.ends["C"][0] * s.step_at("C", 0),
                  (("E, lowest WAN", SECONDS.labelled(t0['E'])),
                   ("C, lowest WAN", SECONDS.labelled(t0['C'])),
                   ("E at its most steps, C at its fewest",
                    _secs_vs(c.ends['E'][1] * s.step_at('E', 0),
                             c.ends['C'][0] * s.step_at('C', 0)))),
                  s.seeds("E", "C")),
          "steps to target × simulated step time at sweep_min (results.md §6 first row), E < C, "
          "at the grid values and at the corner that favours C (interval.py)")
    pf = s.cf("Eprime_free_vs_Cprime")
    pw = _wins_on_grid(s, "Eprime_Csteps", "Cprime", pa=nothing)
    ep, cp = c.default["Eprime"], c.default["Cprime"]
    s.add("sim.eprime_free_never_beats_cprime",
          "on the same steps (C's), even with a module that takes no time, E′ never beats C′ "
          "anywhere in the range, at the grid values or either end of the interval, though "
          "the two put the same bytes on the WAN",
          Verdict(ep.wan_bytes == cp.wan_bytes and pw[0] == 0
                  and all(b.kind == "none" for b in (pf.breakeven,) + tuple(pf.ends)),
                  (("WAN bytes per step, E′ and C′", f"{fmt_int(ep.wan_bytes)} and {fmt_int(cp.wan_bytes)}"),
                   ("bytes per worker per step, E′ and C′", f"{fmt_int(ep.wire)} and {fmt_int(cp.wire)}"))
                  + _cf_evidence(pf, "E′, module taking no time", "C′")
                  + (("sweep points where E′ with no module time is faster", _points(pw)),)),
          "counterfactual Eprime_free_vs_Cprime (E′ on C's steps, module time zero, against "
          "C′): BreakEven.kind none at the grid values and both ends; WAN bytes per step equal")


def _layout(s: _Sim, groups) -> None:
    """The single ring against the hierarchical layout, for AdamW (A): the WAN bytes of
    its all-reduce, and its time to target at the default WAN against the original's."""
    c, mech = s.c, BY_KEY["A"].mech
    hier, flat = (c.params.with_(layout=x) for x in ("hierarchical", "flat-ring"))
    ratio = closed.traffic(flat, mech)[2] / closed.traffic(hier, mech)[2]
    where = ("closed form at the scenario's defaults, data/sim/scenario.yaml with "
             "collective_layout flat-ring and hierarchical")
    s.reg.add("sim.flat_ring.wan_ratio", ratio, fmt(ratio, 2), kind="simulated",
              sources=s.sources[1:], locator=where,
              computation="WAN bytes per step of A's all-reduce laid out as one ring of all "
                          "workers ÷ laid out by data centre")
    t = closed.time_to_target(flat, mech, c.steps["A"])
    s.reg.add("sim.flat_ring.time.A", t, SECONDS.text(t), unit=SECONDS.label, kind="simulated",
              sources=s.sources, locator=where,
              computation="A's steps to target × its step time with one ring of all workers, "
                          "at the default WAN")
    _flat_bound(s, flat)
    _flat_refit(s, flat)


def _flat_bound(s: _Sim, flat) -> None:
    """AdamW under the flat ring at no latency at all: its step does not turn on the
    module's budget and rises with the latency, so no pair of the two fitted inputs (a
    latency of zero or more, any budget) brings its time to target under this one. It
    rests on the WAN bandwidth, so the WAN at which it would read as the original's is
    given too."""
    c, mech = s.c, BY_KEY["A"].mech
    where = ("closed form at the scenario's defaults with collective_layout flat-ring "
             "and no worker link latency")
    p0 = flat.with_(alpha_intra=0.0)
    t0 = closed.time_to_target(p0, mech, c.steps["A"])
    s.reg.add("sim.flat_ring.time.A_no_latency", t0, SECONDS.text(t0), unit=SECONDS.label,
              kind="simulated", sources=s.sources, locator=where,
              computation="A's steps to target × its step time with one ring of all workers "
                          "and a worker link latency of zero, at the default WAN")
    v = s.c.values
    budgets = [closed.time_to_target(p0.with_(module_budget=GFLOPS.base(b)), mech,
                                     c.steps["A"])
               for b in (v.module_budget_min, v.module_budget_max)]
    fitted = closed.time_to_target(flat, mech, c.steps["A"])
    quoted = c.quoted.figures["time.A"]
    wan = _flat_wan_for(c, p0, quoted.value)
    s.reg.add("sim.flat_ring.wan_for_quoted_a", GBPS.of(wan), GBPS.text(wan),
              unit=GBPS.label, kind="simulated", sources=s.sources, locator=where,
              computation="bisection in log-bandwidth (bisection_iterations halvings, from "
                          "the default WAN to sweep_max) for the WAN at which A under the "
                          "flat ring, with no latency, takes the original's time to target")
    s.add("sim.flat_ring_misses_quoted_a",
          "with one ring of all workers at the default WAN, AdamW's time to target with no "
          "worker link latency at all reads above the original's at the precision it "
          "printed; that time is the same at both ends of the budget range and lower than "
          "at the fitted latency, so no latency of zero or more and no budget brings it "
          "down to the original's; only a WAN faster than the default would",
          Verdict(SECONDS.of(t0) > quoted.value and SECONDS.text(t0, quoted.decimals) != quoted.text()
                  and budgets[0] == budgets[1] == t0 and t0 < fitted
                  and wan > s.c.params.bw_wan,
                  (("A, flat ring, no latency", SECONDS.labelled(t0)),
                   ("the same at the two ends of the budget range",
                    f"{SECONDS.text(budgets[0])} and {SECONDS.labelled(budgets[1])}"),
                   ("A, flat ring, fitted latency", SECONDS.labelled(fitted)),
                   ("original", SECONDS.after(quoted.text())),
                   ("default WAN", GBPS.labelled(s.c.params.bw_wan)),
                   ("WAN at which it would read as the original's", GBPS.labelled(wan)))),
          "closed.time_to_target of A with collective_layout flat-ring: at alpha_intra 0, "
          "rounded as the original rounds it, above the quoted time; equal at "
          "module_budget_min and module_budget_max; below its value at the fitted latency "
          "(the step is linear in the latency); the WAN that would give the quoted time "
          "above the default")


def _flat_wan_for(c, p0, seconds: float) -> float:
    """The WAN bandwidth (bytes/s) at which A under `p0` takes `seconds` to the target:
    bisection in log-bandwidth between the default WAN and the top of the sweep (its
    time falls as the WAN rises)."""
    mech, v = BY_KEY["A"].mech, c.values
    a, b = p0.bw_wan, GBPS.base(v.sweep_max)
    for _ in range(v.bisection_iterations):
        mid = (a * b) ** 0.5
        if closed.time_to_target(p0.with_(bw_wan=mid), mech, c.steps["A"]) > seconds:
            a = mid
        else:
            b = mid
    return (a * b) ** 0.5


def _flat_refit(s: _Sim, flat) -> None:
    """The two fitted inputs fitted again, by the recorded procedure and to the same
    figures, with the flat ring: what they come to and how many of the original's
    figures that fit reproduces (docs/simulator.md, "Fitted inputs")."""
    c = s.c
    cal = calibrate.refit(c.scenario, c.values, flat, c.steps, c.quoted)
    if cal is None or c.calibration is None:
        return
    same = calibrate.reads_same(calibrate.fitted_params(flat, cal.fitted), c.steps,
                                c.quoted, c.values)
    where = ("study/sim/calibrate.py refit: the recorded procedure on the closed form with "
             "collective_layout flat-ring, to the figures data/sim/scenario.yaml names")
    for f in cal.fitted:
        e = c.scenario.entries[f.key]
        s.reg.add(f"sim.flat_ring.refit.{f.key}", f.value, f_typed(f.value), unit=e.unit,
                  kind="fitted", sources=s.sources[1:] + (Source("data/sim/quoted.yaml"),),
                  locator=where, computation=f"{f.key} refitted under the flat ring, to "
                  f"{f.significant} significant figures")
    off = min(abs(r) for r in cal.residuals.values())
    n_same = sum(same.values())
    for key, value, text, unit, how in (
            ("residual", cal.rms, fmt_general(cal.rms), "", "root-mean-square relative "
             "residual of the refit at its recorded values"),
            ("least_off", off, fmt_pct(off, 1), "", "smallest |ours / quoted − 1| over the "
             "figures the refit was fitted to"),
            ("same", n_same, fmt_int(n_same), "figures", "the original's transit figures "
             "that read the same as ours at its precision with the refitted inputs")):
        s.reg.add(f"sim.flat_ring.refit.{key}", value, text, unit=unit, kind="fitted",
                  sources=s.sources[1:] + (Source("data/sim/quoted.yaml"),),
                  locator=where, computation=how)
    lat = cal.value("intra_dc_latency_us")
    s.add("sim.flat_ring_refit_misses",
          "fitted again by the recorded procedure with one ring of all workers, the two "
          "inputs reproduce fewer of the original's figures than with the layout by data "
          "centre, miss every figure they were fitted to by more than the hierarchical fit "
          "misses any, and need a negative worker link latency",
          Verdict(n_same < s.v("sim.against.same") and off > max(abs(r) for r in c.calibration.residuals.values())
                  and lat < 0,
                  (("figures read the same, flat ring refit", f"{fmt_int(n_same)} of "
                    f"{fmt_int(len(same))}"),
                   ("the same, layout by data centre", s.reg.numbers["sim.against.same"].text),
                   ("smallest miss of a fitted figure, flat ring", fmt_pct(off, 1)),
                   ("largest miss, layout by data centre",
                    fmt_pct(max(abs(r) for r in c.calibration.residuals.values()), 2)),
                   ("RMS residual, flat ring and by data centre",
                    f"{fmt_general(cal.rms)} and {fmt_general(c.calibration.rms)}"),
                   ("latency, flat ring refit", US.after(f_typed(lat))),
                   ("budget, flat ring refit",
                    GFLOPS.after(f_typed(cal.value("module_budget")))))),
          "calibrate.refit (gauss_newton, the recorded PROCEDURE) with collective_layout "
          "flat-ring; calibrate.reads_same at its recorded values, against sim.against.same; "
          "its smallest |relative residual| over the fitted figures against the largest of "
          "the recorded fit; the refit latency < 0")


def _layout_wan_bytes(s: _Sim, groups) -> None:
    """The layouts' WAN bytes as the discrete-event simulator counts them (des.py: every
    transfer whose path takes a WAN link), not as the closed form computes them."""
    from . import des
    c = s.c
    hier, flat = (c.params.with_(layout=x) for x in ("hierarchical", "flat-ring"))
    got = {p.layout: des.simulate(p, "A", 1)[0].wan_bytes for p in (hier, flat)}
    k, n = closed.per_dc(hier), hier.workers
    crossings = sum(i // k != ((i + 1) % n) // k for i in range(n))
    ratio = s.v("sim.flat_ring.wan_ratio")
    simulated = got["flat-ring"] / got["hierarchical"]
    s.add("sim.flat_ring_more_wan_bytes",
          "one ring of all the workers crosses the WAN at two places in its ring order; laid "
          "out by data centre, AdamW's all-reduce puts one dense vector on the WAN each way "
          "per step, and the single ring puts the registered ratio times as many bytes on "
          "it, more than the layout by data centre, as the discrete-event simulator counts "
          "the bytes of every transfer",
          Verdict(crossings == 2 and abs(got["hierarchical"] - 2 * hier.dense_bytes) <= 1e-9 * hier.dense_bytes
                  and simulated > 1 and fmt(simulated, 2) == fmt(ratio, 2),
                  (("WAN crossings of the single ring", fmt_int(crossings)),
                   ("WAN bytes per step, by data centre", fmt_int(got["hierarchical"])),
                   ("dense vector, both ways", fmt_int(2 * hier.dense_bytes)),
                   ("WAN bytes per step, single ring", fmt_int(got["flat-ring"])),
                   ("ratio, simulated", fmt(simulated, 2)), ("ratio, registered", fmt(ratio, 2)))),
          "des.simulate(…, 'A', 1).wan_bytes under collective_layout flat-ring and "
          "hierarchical at the scenario's defaults; ring order by worker index")


def _module(s: _Sim, groups) -> None:
    port = s.v("scenario.module_port_rate")            # billion values/s
    per_mac = s.v("scenario.module_ops_per_multiply_add")
    direct = port * s.v("scenario.band_direct_flops_per_value") * per_mac
    fast = port * s.v("scenario.fft_flops_per_value") * per_mac
    for key, v, how in (("direct", direct, "band_direct_flops_per_value"),
                        ("fft", fast, "fft_flops_per_value")):
        s.reg.add(f"sim.band_gflops_at_port.{key}", v, GFLOPS.text(v, scaled=True),
                  unit=GFLOPS.label, kind="derived",
                  sources=(Source("data/sim/scenario.yaml"),), locator="data/sim/scenario.yaml",
                  computation=f"module_port_rate × {how} × module_ops_per_multiply_add")
    top = s.v("scenario.module_budget_max")
    s.add("sim.band_at_port_rate_exceeds_budget",
          "computing the band at the module's port rate, directly or through a fast transform, "
          "takes more FLOP/s than the top of the budget range the original page gives",
          Verdict(min(direct, fast) > top, (("direct", GFLOPS.labelled(direct, scaled=True)),
                                            ("fast transform", GFLOPS.labelled(fast, scaled=True)),
                                            ("budget, top", GFLOPS.labelled(top, scaled=True)))),
          "port rate × multiply-adds per value × budget operations per multiply-add, "
          "against module_budget_max")
    _fft_margin(s, fast, port, top)
    fit, low = s.v("sim.fitted.module_budget"), s.v("scenario.module_budget_min")
    s.add("sim.fitted_budget_in_range",
          "the fitted module budget lies inside the range the original page gives",
          Verdict(low <= fit <= top, (("fitted", GFLOPS.labelled(fit, 2, scaled=True)),
                                      ("range", f"{GFLOPS.text(low, scaled=True)} to "
                                                f"{GFLOPS.labelled(top, scaled=True)}"))),
          "module_budget_min ≤ sim.fitted.module_budget ≤ module_budget_max")
    ratio = s.v("scenario.band_direct_flops_per_value") / s.v("scenario.fft_flops_per_value")
    s.add("sim.direct_needs_budget_above_range",
          "computing the band directly at the fitted time per step would need a budget above "
          "the top of the original page's range",
          Verdict(fit * ratio > top, (("budget needed", GFLOPS.labelled(fit * ratio, 1, scaled=True)),
                                      ("budget, top", GFLOPS.labelled(top, scaled=True)))),
          "fitted budget × (direct ÷ fast-transform multiply-adds per value) > module_budget_max")
    rate = s.v("sim.module_rate")
    p = s.c.params
    fast_port = GVALUES.of(closed.module_rate(p.with_(module_port_rate=2 * p.module_port_rate)))
    big_budget = GVALUES.of(closed.module_rate(p.with_(module_budget=2 * p.module_budget)))
    uncounted = GVALUES.of(closed.module_rate(p.with_(transform_counts=not p.transform_counts)))
    s.add("sim.module_budget_bound",
          "with the optical transform counted against the budget, as the scenario sets it, "
          "the budget, not the port, sets the module's pace: it processes values more slowly "
          "than its port rate, doubling the port rate leaves its rate unchanged and doubling "
          "the budget raises it; with the transform not counted, it runs at its port rate",
          Verdict(p.transform_counts and rate < port and fast_port == rate
                  and big_budget > rate and uncounted == port,
                  (("module rate", GVALUES.labelled(rate, scaled=True)),
                   ("port rate", GVALUES.labelled(port, 1, scaled=True)),
                   ("with the port rate doubled", GVALUES.labelled(fast_port, scaled=True)),
                   ("with the budget doubled", GVALUES.labelled(big_budget, scaled=True)),
                   ("with the transform not counted", GVALUES.labelled(uncounted, scaled=True)))),
          "closed.module_rate at the scenario (transform_counts_against_budget true), with "
          "module_port_rate × 2 (equal) and with module_budget × 2 (higher); "
          "sim.module_rate < scenario.module_port_rate; with transform_counts false, equal to "
          "the port rate")


def _fft_margin(s: _Sim, fast: float, port: float, top: float) -> None:
    """How far the fast transform at the port rate is above the budget's top, and what it
    needs when a multiply-add counts as one budget operation."""
    low = s.v("scenario.module_budget_min")
    over = fast / top - 1
    one = port * s.v("scenario.fft_flops_per_value")
    where = "data/sim/scenario.yaml"
    s.reg.add("sim.band_gflops_at_port.fft_over_top", over, fmt_pct(over, 0), kind="derived",
              sources=(Source(where),), locator=where,
              computation="sim.band_gflops_at_port.fft ÷ module_budget_max − 1")
    s.reg.add("sim.band_gflops_at_port.fft_one_op", one, GFLOPS.text(one, scaled=True),
              unit=GFLOPS.label, kind="derived", sources=(Source(where),), locator=where,
              computation="module_port_rate × fft_flops_per_value × 1 (a multiply-add "
                          "counted as one budget operation)")
    s.add("sim.fft_at_port_over_budget_only_at_two_ops",
          "through a fast transform at the port rate, the band needs more than the top of "
          "the budget range only because a multiply-add counts as more than one operation: "
          "counted as one, it needs a rate inside the range",
          Verdict(fast > top and s.v("scenario.module_ops_per_multiply_add") > 1
                  and low <= one <= top,
                  (("fast transform, as counted", GFLOPS.labelled(fast, scaled=True)),
                   ("above the top by", fmt_pct(over, 1)),
                   ("counted as one operation a multiply-add", GFLOPS.labelled(one, scaled=True)),
                   ("range", f"{GFLOPS.text(low, scaled=True)} to "
                             f"{GFLOPS.labelled(top, scaled=True)}"))),
          "module_port_rate × fft_flops_per_value × module_ops_per_multiply_add > "
          "module_budget_max with module_ops_per_multiply_add > 1; × 1 instead, between "
          "module_budget_min and module_budget_max")


def _e_run(s: _Sim, groups) -> None:
    """How far E's figures rest on where one seed crossed the target (results.md §8)."""
    c = s.c
    st, later = c.inputs.steps["E"], c.later
    two = next(g for g in groups if g.first.group == c.inputs.target_group)
    sd = s.v(f"final_loss_sd.{two.slug}")
    margin = s.v("sim.e_run.margin")
    s.add("sim.e_margin_within_seed_spread",
          "the run behind E, one seed, is below the target at its crossing evaluation by "
          "less than a tenth of the standard deviation of the final losses of the target "
          "group's seeds",
          Verdict(0 <= margin < sd / 10,
                  (("seeds of the run behind E", fmt_int(len(st.per_seed))),
                   ("target", fmt(s.v("sim.e_run.target"), 6)),
                   ("its loss at step " + fmt(st.mean, 0), fmt(s.v("sim.e_run.loss_at_crossing"), 6)),
                   ("margin", s.reg.numbers["sim.e_run.margin"].text),
                   ("target group's seed sd", s.reg.numbers[f"final_loss_sd.{two.slug}"].text)),
                  (len(st.per_seed),)),
          "0 ≤ sim.e_run.margin < final_loss_sd of the target group ÷ 10", one_seed=True)
    grid = (c.breakevens["E_vs_A"], c.breakevens["Eprime_Esteps_vs_A"])
    s.add("sim.later_lowers_eprime_breakeven",
          "had the run behind E crossed the target one evaluation later, E′ on its steps "
          "would break even with AdamW at a lower bandwidth than on the grid's steps, still "
          "inside the range, and E would still break even nowhere in it",
          Verdict(later is not None and later.eprime_vs_a.kind == grid[1].kind == "below"
                  and later.eprime_vs_a.at < grid[1].at and later.e_vs_a.kind == "none",
                  (("steps, grid and one evaluation later",
                    f"{fmt(st.mean, 0)} and {fmt(later.steps, 0)}"),
                   ("E′ vs A", f"{f_be(grid[1])} and {f_be(later.eprime_vs_a)}"),
                   ("E vs A", f"{f_be(grid[0])} and {f_be(later.e_vs_a)}"),
                   ("E to target",
                    f"{SECONDS.text(s.time('E'))} and {SECONDS.labelled(later.time_e)}")),
                  (len(st.per_seed),)),
          "counterfactual.one_eval_later: E's steps = the eval step after its crossing, A on "
          "the grid's; BreakEven of E′ vs A below and lower than at the grid values; E vs A "
          "none", one_seed=True)


def _e_run_choice(s: _Sim, groups) -> None:
    """Which repaired run stands for E, recomputed from the experiment's groups."""
    c = s.c
    chosen = c.inputs.e_run
    planes = chosen.planes if chosen is not None else None
    target = s.v("sim.target")
    like = sorted((g for g in groups if g.first.cfg.variant == "optics"
                   and g.first.cfg.feedback == "sent" and g.first.cfg.fs_every > 0
                   and g.first.cfg.planes == planes), key=lambda g: g.first.cfg.enob)
    reach = [g for g in like
             if all(r.first_step_at_or_below(target) is not None for r in g.runs)]
    s.add("sim.e_run_is_lowest_reaching_enob",
          "the run the simulator takes for E is, of the repaired optics runs with its plane "
          "count, the one at the lowest ENOB whose every seed reaches the target",
          Verdict(bool(reach) and chosen is not None and reach[0].first.cfg.enob == chosen.enob,
                  (("E's run", chosen.slug if chosen else "none"),
                   ("reaching the target, by ENOB",
                    ", ".join(f"ENOB {fmt(g.first.cfg.enob, 0)}" for g in reach) or "none"),
                   ("not reaching it", ", ".join(f"ENOB {fmt(g.first.cfg.enob, 0)}"
                                                 for g in like if g not in reach) or "none")),
                  tuple(len(g.runs) for g in reach[:1])),
          "from the experiment's groups: optics, feedback sent, full scale re-set, E's plane "
          "count; the least ENOB among those whose every run has an evaluation at or below "
          "sim.target equals the ENOB of the run the simulator's inputs take for E",
          one_seed=True)


def _charged(s: _Sim, groups) -> None:
    """E′ with what its model leaves out charged (results.md §9)."""
    c, ch = s.c, s.c.charged
    lower = []
    for bid in ("Eprime_Esteps_vs_A", "Eprime_Csteps_vs_A"):
        for got, was in zip(ch.breakevens[bid], s.be3(bid)):
            lower.append(got.kind == was.kind == "below" and got.at < was.at)
    never = all(b.kind == "none" for b in ch.breakevens["Eprime_vs_Cprime"])
    ev = tuple((f"{BY_KEY[k.split('_vs_')[0]].label} vs {k.split('_vs_')[1]}, modelled; charged",
                f"{_three(s.be3(k))}; {_three(ch.breakevens[k])}")
               for k in ("Eprime_Esteps_vs_A", "Eprime_Csteps_vs_A"))
    s.add("sim.charged_lowers_eprime_breakeven",
          "charging E′'s shards' way up to the switch and the band's bytes back down "
          "lengthens its step and lowers its break-even with AdamW, on E's steps and on C's, "
          "at the grid values and at both ends of the interval; E′ still never beats C′",
          Verdict(ch.step > ch.modelled and all(lower) and never,
                  (("E′ step, modelled", MS.labelled(ch.modelled)),
                   ("E′ step, charged", MS.labelled(ch.step))) + ev
                  + (("E′ vs C′, charged", _three(ch.breakevens["Eprime_vs_Cprime"])),),
                  s.seeds("E", "C", "A")),
          "counterfactual.charged (closed.innet_left_out added to E′'s step): step longer; "
          "BreakEven.at lower for E′ vs A on E's and C's steps at the grid values and both "
          "ends; E′ vs C′ none at all three")


def _switch_on_optics_steps(s: _Sim, groups) -> None:
    """E′ on the optics' steps against C′ on C's: the comparison the results file does not
    list (its E′ against C′ shares C's steps), for the sentence that says no summing at
    the switch is needed on C's steps and only there."""
    from .compute import breakeven_pair
    c, v = s.c, s.c.values
    lo, hi, it = GBPS.base(v.sweep_min), GBPS.base(v.sweep_max), v.bisection_iterations
    a, b = "Eprime_Esteps", "Cprime"
    grid = breakeven_pair(c.params, c.steps, a, b, lo, hi, it)
    ends = [breakeven_pair(c.params, interval.corner(c.steps, c.ends, a, b, e), a, b, lo, hi, it)
            for e in interval.ENDS]
    where = ("closed form at the scenario: bisection of E′ on E's steps against C′ on C's, "
             "at the grid values and at both corners of the steps' interval")
    for key, be, how in (("", grid, "the grid values"),
                         (".fewest", ends[0], "E′ at its fewest steps and C′ at its most"),
                         (".most", ends[1], "E′ at its most steps and C′ at its fewest")):
        s.reg.add(f"sim.switch.Eprime_Esteps_vs_Cprime{key}", GBPS.of(be.at), f_be(be),
                  unit=GBPS.label, kind="hypothetical", sources=s.sources, locator=where,
                  computation=f"bisection: E′ (E's steps) against C′ (C's steps), at {how}")
    wins, tried = _wins_on_grid(s, a, b)
    below = [bw for bw in c.grid if bw < grid.at] if grid.kind == "below" else []
    s.add("sim.eprime_beats_cprime_on_optics_steps",
          "on the optics' steps E′ beats C′, on C's steps, below a WAN bandwidth inside the "
          "range, at the grid values and at both ends of the steps' interval, and at no "
          "point of the sweep above it",
          Verdict(all(be.kind == "below" for be in [grid] + ends) and wins > 0
                  and all(s.step_at(a, i) * c.steps[a] < s.step_at(b, i) * c.steps[b]
                          for i, bw in enumerate(c.grid) if bw < grid.at)
                  and all(s.step_at(a, i) * c.steps[a] > s.step_at(b, i) * c.steps[b]
                          for i, bw in enumerate(c.grid) if bw > grid.at),
                  (("E′ (E's steps) vs C′", _three([grid] + ends)),
                   ("sweep points where E′ is faster, grid values",
                    f"{len(below)} of {len(c.grid)}"),
                   ("E′ and C′ at the highest such point",
                    _secs_vs(c.steps[a] * s.step_at(a, len(below) - 1),
                             c.steps[b] * s.step_at(b, len(below) - 1)) if below else "none"))),
          "closed.breakeven_pair of Eprime_Esteps against Cprime: kind below at the grid "
          "values and both corners; the simulated sweep (results.md §6) has E′ faster at "
          "every grid bandwidth below the break-even and slower at every one above",
          keys=('Eprime_Esteps', 'Cprime'))
