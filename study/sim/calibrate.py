"""The calibration: the scenario inputs the original study never states, fitted to its
quoted figures by a recorded procedure.

    python -m study.sim calibrate     fit, and record the values in data/sim/scenario.yaml

An input tagged `fitted` in the scenario lists the quoted figures it is fitted to
(`fit.figures`, keys of data/sim/quoted.yaml). All fitted inputs are fitted together,
to the same figures, by PROCEDURE below, on the closed form (which the simulation
matches to 1e-9 relative). Each value is recorded to `fit.significant` significant
figures with the root-mean-square relative residual at the recorded values. The build
re-runs the fit (`check`) and fails if a recorded value, or its residual, differs.

A fitted input with a range given by the original page (the compute budget) must land inside
it; if it does not, the quoted figures cannot be reached with a budget the page allows,
and the calibration fails naming the figure furthest off at the range's nearer end.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from cit import atomic
from cit.errors import BuildError
from cit.fmt import GBPS, GFLOPS, PCT, US, fmt_sig
from . import closed
from .closed import Params
from .quoted import QUOTED, QuotedFile, against, at_precision

# How each fittable input sets the model's parameters (the same operations as
# compute.build_params), and the coordinate the fit moves it in: step time is linear in
# the latency and in the inverse of the module's budget.
SETTERS = {
    "intra_dc_latency_us": lambda p, x: p.with_(alpha_intra=US.base(x)),
    "module_budget": lambda p, x: p.with_(module_budget=GFLOPS.base(x)),
}
INVERSE = {"intra_dc_latency_us": False, "module_budget": True}
# where the fit starts: no latency; the geometric middle of the original page's budget range
START = {"intra_dc_latency_us": lambda v: 0.0,
         "module_budget": lambda v: math.sqrt(v.module_budget_min * v.module_budget_max)}
# the original page's range a fitted input must stay inside: (low key, high key)
RANGES = {"module_budget": ("module_budget_min", "module_budget_max")}

PROCEDURE = ("Gauss-Newton least squares on the relative residuals (ours / quoted - 1) of "
             "the named figures, computed with the closed form; latency in µs and the "
             "inverse of the budget as coordinates; central differences; started at no "
             "latency and the geometric middle of the original page's budget range; stopped when "
             "no coordinate moves by more than one part in 1e8, or the sum of squares stops "
             "falling")
MAX_ITERATIONS = 50
TOLERANCE = 1e-8
RESIDUAL_FIGURES = 2       # significant figures of the recorded residual


@dataclass(frozen=True)
class Fitted:
    key: str
    value: float            # rounded to `significant`
    significant: int


@dataclass(frozen=True)
class Calibration:
    figures: tuple[str, ...]
    fitted: tuple[Fitted, ...]
    residuals: dict          # figure key -> relative residual at the recorded values
    rms: float               # rounded to RESIDUAL_FIGURES
    iterations: int

    def value(self, key: str) -> float:
        return next(f.value for f in self.fitted if f.key == key)


def figure_value(p: Params, steps: dict, key: str, lo: float, hi: float, iters: int):
    """Our figure for quoted key `key`: ("time", seconds) or (break-even kind, GB/s)."""
    group, _, rest = key.partition(".")
    if group == "time" and rest in closed.BY_KEY:
        s = steps[rest]
        return "time", None if s is None else s * closed.step(p, closed.BY_KEY[rest].mech).total
    if group == "breakeven":
        for bid, _, a, b in closed.BREAKEVENS:
            if bid == rest:
                be = closed.breakeven_pair(p, steps, a, b, lo, hi, iters)
                return be.kind, GBPS.of(be.at)
    raise BuildError(QUOTED, f"figures.{key}: the calibration has no figure of ours for it "
                     "(it knows time.<variant> and breakeven.<comparison>)")


def _residuals(p, steps, figures, quoted: QuotedFile, v) -> list[float]:
    lo, hi, iters = GBPS.base(v.sweep_min), GBPS.base(v.sweep_max), v.bisection_iterations
    out = []
    for key in figures:
        q = quoted.figures[key]
        kind, ours = figure_value(p, steps, key, lo, hi, iters)
        if ours is None or (q.kind or "time") != kind:
            raise BuildError(quoted.where(key), f"figures.{key}: cannot fit to it: ours is "
                             f"{kind} "
                             f"({ours!r}) where the quoted figure is {q.text()!r}")
        out.append(ours / q.value - 1)
    return out


def _params(p: Params, keys, z) -> Params:
    for key, zi in zip(keys, z):
        p = SETTERS[key](p, 1 / zi if INVERSE[key] else zi)
    return p


def _solve(jac: list[list[float]], r: list[float]) -> list[float]:
    """The least-squares step: solve (JᵀJ) d = −Jᵀr (normal equations, Gauss-Jordan)."""
    m = len(jac[0])
    a = [[math.fsum(row[i] * row[j] for row in jac) for j in range(m)]
         + [-math.fsum(row[i] * ri for row, ri in zip(jac, r))] for i in range(m)]
    for c in range(m):
        piv = max(range(c, m), key=lambda i: abs(a[i][c]))
        if a[piv][c] == 0:
            raise BuildError("data/sim/scenario.yaml", "calibration: the named figures do "
                             "not depend on every fitted input (singular fit)")
        a[c], a[piv] = a[piv], a[c]
        for i in range(m):
            if i != c:
                f = a[i][c] / a[c][c]
                a[i] = [x - f * y for x, y in zip(a[i], a[c])]
    return [a[i][m] / a[i][i] for i in range(m)]


def gauss_newton(p: Params, steps, keys, figures, quoted, v) -> tuple[list[float], int]:
    """The fitted inputs (unrounded, in the scenario's units) and the iterations used."""
    z = []
    for key in keys:
        x = START[key](v)
        z.append(1 / x if INVERSE[key] else x)
    best, last = math.inf, list(z)
    for it in range(1, MAX_ITERATIONS + 1):
        r = _residuals(_params(p, keys, z), steps, figures, quoted, v)
        ss = math.fsum(x * x for x in r)
        if ss >= best * (1 - 1e-12):
            # no better than the last step: the residuals' own rounding is reached
            return [1 / zi if INVERSE[k] else zi for k, zi in zip(keys, last)], it
        best, last = ss, list(z)
        cols = []
        for j in range(len(z)):
            h = 1e-6 * (abs(z[j]) or 1.0)
            up, dn = list(z), list(z)
            up[j], dn[j] = z[j] + h, z[j] - h
            ru = _residuals(_params(p, keys, up), steps, figures, quoted, v)
            rd = _residuals(_params(p, keys, dn), steps, figures, quoted, v)
            cols.append([(a - b) / (2 * h) for a, b in zip(ru, rd)])
        jac = [[cols[j][i] for j in range(len(z))] for i in range(len(r))]
        d = _solve(jac, r)
        z = [zi + di for zi, di in zip(z, d)]
        if all(abs(di) <= TOLERANCE * max(abs(zi), 1e-12) for zi, di in zip(z, d)):
            return [1 / zi if INVERSE[k] else zi for k, zi in zip(keys, z)], it
    raise BuildError("data/sim/scenario.yaml", f"calibration did not converge in "
                     f"{MAX_ITERATIONS} iterations")


def round_sig(x: float, sig: int) -> float:
    return float(f"{x:.{sig}g}")


def fitted_keys(scenario) -> tuple[list[str], tuple[str, ...]]:
    """The fitted inputs and the one list of figures they are fitted to."""
    keys = [k for k, e in scenario.entries.items() if e.source == "fitted"]
    figures = None
    for k in keys:
        e = scenario.entries[k]
        if k not in SETTERS:
            raise BuildError(scenario.line_of(k), f"inputs.{k}: the calibration cannot fit "
                             f"this input (it fits {', '.join(SETTERS)})")
        if figures is not None and tuple(e.fit.figures) != figures:
            raise BuildError(scenario.line_of(k), f"inputs.{k}: fitted inputs are fitted "
                             "together and must name the same figures")
        figures = tuple(e.fit.figures)
    return keys, figures or ()


def _at(p, keys, values, key, x):
    z = [x if k == key else y for k, y in zip(keys, values)]
    return _params(p, keys, [1 / a if INVERSE[k] else a for k, a in zip(keys, z)])


def _check_reach(p, steps, keys, values, figures, quoted, v) -> None:
    """Each figure, with the other fitted inputs where the fit put them, must lie between
    ours at the two ends of every ranged input's range."""
    lo_bw, hi_bw, iters = GBPS.base(v.sweep_min), GBPS.base(v.sweep_max), v.bisection_iterations
    for key in keys:
        if key not in RANGES:
            continue
        lo_k, hi_k = RANGES[key]
        lo, hi = getattr(v, lo_k), getattr(v, hi_k)
        for fk in figures:
            q = quoted.figures[fk]
            ends = [figure_value(_at(p, keys, values, key, x), steps, fk, lo_bw, hi_bw, iters)
                    for x in (lo, hi)]
            if any(kind != (q.kind or "time") or y is None for kind, y in ends):
                continue          # the kind changes inside the range: reachable somewhere
            a, b = sorted(y for _, y in ends)
            if b - a <= 1e-9 * b:
                continue          # this figure does not turn on this input
            if not a <= q.value <= b:
                raise BuildError(
                    quoted.where(fk), f"figures.{fk}: the quoted {q.text()} cannot be reached "
                    f"with inputs.{key} inside the original page's range {fmt_sig(lo, 3)} to "
                    f"{fmt_sig(hi, 3)} (inputs.{lo_k} to inputs.{hi_k}): across that range "
                    f"ours runs from {fmt_sig(a, 4)} to {fmt_sig(b, 4)}")


def _check_range(p, steps, keys, values, figures, quoted, v) -> None:
    for key, x in zip(keys, values):
        if key not in RANGES:
            continue
        lo_k, hi_k = RANGES[key]
        lo, hi = getattr(v, lo_k), getattr(v, hi_k)
        if lo <= x <= hi:
            continue
        edge = lo if x < lo else hi
        at = [edge if k == key else y for k, y in zip(keys, values)]
        res = _residuals(_params(p, keys, [1 / a if INVERSE[k] else a
                                          for k, a in zip(keys, at)]), steps, figures,
                         quoted, v)
        worst = max(range(len(res)), key=lambda i: abs(res[i]))
        fk = figures[worst]
        raise BuildError(
            quoted.where(fk), f"figures.{fk}: the quoted {quoted.figures[fk].text()} "
            f"cannot be reached with inputs.{key} inside the original page's range "
            f"{fmt_sig(lo, 3)} to {fmt_sig(hi, 3)} (inputs.{lo_k} to inputs.{hi_k}): the "
            f"fit needs {fmt_sig(x, 4)}, and at {fmt_sig(edge, 3)} this figure is off by "
            f"{PCT.labelled(res[worst], 1, signed=True)}")


def calibrate(scenario, v, p: Params, steps: dict, quoted: QuotedFile) -> Calibration | None:
    """Fit every `fitted` input of the scenario (None when there is none)."""
    keys, figures = fitted_keys(scenario)
    if not keys:
        return None
    for fk in figures:
        f = quoted.figures.get(fk)
        if f is None or f.value is None:
            raise BuildError(scenario.line_of(keys[0]), f"inputs.{keys[0]}: fit.figures "
                             f"names {fk!r}, which is not a numeric figure of {QUOTED}")
    raw, iterations = gauss_newton(p, steps, keys, figures, quoted, v)
    _check_reach(p, steps, keys, raw, figures, quoted, v)
    _check_range(p, steps, keys, raw, figures, quoted, v)
    return _recorded(p, steps, scenario, keys, raw, iterations, figures, quoted, v)


def _recorded(p, steps, scenario, keys, raw, iterations, figures, quoted, v) -> Calibration:
    """The fit as recorded: each value to its significant figures, the residuals there."""
    fitted = tuple(Fitted(k, round_sig(x, scenario.entries[k].fit.significant),
                          scenario.entries[k].fit.significant) for k, x in zip(keys, raw))
    res = _residuals(fitted_params(p, fitted), steps, figures, quoted, v)
    rms = math.sqrt(math.fsum(x * x for x in res) / len(res))
    return Calibration(figures, fitted, dict(zip(figures, res)),
                       round_sig(rms, RESIDUAL_FIGURES), iterations)


def fitted_params(p: Params, fitted) -> Params:
    """`p` with each fitted input (a `Fitted`) set where the fit put it."""
    for f in fitted:
        p = SETTERS[f.key](p, f.value)
    return p


def refit(scenario, v, p: Params, steps: dict, quoted: QuotedFile) -> Calibration | None:
    """The same fit, by the same PROCEDURE and to the same figures, on other model
    parameters `p` (another collective layout): recorded as `calibrate` records it, but
    without its range checks, so that a fit the original's figures reject is still
    reported (with its values and residuals) rather than refused."""
    keys, figures = fitted_keys(scenario)
    if not keys:
        return None
    raw, iterations = gauss_newton(p, steps, keys, figures, quoted, v)
    return _recorded(p, steps, scenario, keys, raw, iterations, figures, quoted, v)


def reads_same(p: Params, steps: dict, quoted: QuotedFile, v) -> dict:
    """For each of the original's transit figures (quoted.against), whether ours with
    parameters `p` reads the same at the precision the original printed (the test of
    results.md's "Against the original")."""
    lo, hi, iters = GBPS.base(v.sweep_min), GBPS.base(v.sweep_max), v.bisection_iterations
    out = {}
    for key in against(quoted):
        q = quoted.figures[key]
        kind, ours = figure_value(p, steps, key, lo, hi, iters)
        out[key] = at_precision(q, kind, ours) == q.text()
    return out


def check_calibration(scenario, cal: Calibration | None) -> None:
    """The build's check: the recorded fitted values and residual are the calibration's."""
    if cal is None:
        return
    for f in cal.fitted:
        e = scenario.entries[f.key]
        if e.value != f.value:
            raise BuildError(scenario.line_of(f.key), f"inputs.{f.key}: the recorded fitted "
                             f"value {e.value!r} differs from the calibration's {f.value!r}; "
                             "rerun `python -m study.sim calibrate` (never edit it by hand)")
        if e.fit.residual != cal.rms or e.fit.procedure != PROCEDURE:
            what = "residual" if e.fit.residual != cal.rms else "procedure"
            got = e.fit.residual if what == "residual" else e.fit.procedure
            want = cal.rms if what == "residual" else PROCEDURE
            raise BuildError(scenario.line_of(f.key), f"inputs.{f.key}: the recorded fit "
                             f"{what} {got!r} differs from the calibration's {want!r}; rerun "
                             "`python -m study.sim calibrate`")


def _block(key: str, e, f: Fitted, cal: Calibration) -> list[str]:
    def q(text):
        return json.dumps(text, ensure_ascii=False)
    return [f"  {key}:",
            f"    label: {q(e.label)}",
            f"    value: {f.value!r}",
            f"    unit: {e.unit}",
            "    source: fitted",
            f"    cite: {q(e.cite)}",
            "    fit:",
            f"      figures: [{', '.join(cal.figures)}]",
            f"      procedure: {q(PROCEDURE)}",
            f"      significant: {f.significant}",
            f"      residual: {cal.rms!r}"]


def write_calibration(path: Path, scenario, cal: Calibration) -> None:
    """Rewrite the fitted entries' blocks of the scenario file, leaving the rest as is."""
    lines = Path(path).read_text().split("\n")
    for f in sorted(cal.fitted, key=lambda f: -scenario.lines[f.key]):
        start = scenario.lines[f.key] - 1
        end = start + 1
        while end < len(lines) and (lines[end].startswith("    ") or not lines[end].strip()):
            end += 1
        while end > start + 1 and not lines[end - 1].strip():
            end -= 1                      # keep the blank lines before the next entry
        lines[start:end] = _block(f.key, scenario.entries[f.key], f, cal)
    atomic.write_file(Path(path), "\n".join(lines))   # never a truncated scenario
