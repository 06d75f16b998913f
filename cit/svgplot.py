"""Build-time SVG figures: line charts, horizontal bar charts and strip diagrams, drawn
in Python with no library and no JavaScript (docs: README "Figures").

Each function returns one `<svg>` element as a string: viewBox-scaled (it fills its
column and shrinks to a 390 px phone), with a `<title>` and a `<desc>` that name it,
styled by classes that static/figures.css colours for light, dark and print. Output is
deterministic: the same input gives the same bytes (coordinates are rounded to a tenth
of a unit, nothing depends on dict order, time or randomness).

The API
-------
    line_chart(lines, x, y, *, title, desc, uid, markers=(), width=400, height=300,
               colours=None) -> str
        `lines`: `Line`s (x/y values, a palette colour (one of `colours`, the
        palette's keys, or "muted"), a dash, an optional min-max seed
        band `lo`/`hi`, an optional registry number `end` that the line's last point shows,
        optional registry numbers `points`, one per point, each drawn as a dot-mark).
        Each line is labelled directly at its right end (labels are pushed apart so they
        never overlap, and wrap where the room right of the plot is too narrow:
        docs/figures.md); there is no legend. A `context` line is drawn first, thin and
        grey, with no label of its own (the figure's data table names it): the grey
        context the coloured lines are read against. `x` and `y` are `Axis`es, linear or log.
        `markers`: `VLine`s, vertical marker lines with a label (break-evens), each
        optionally a registry number.
    bar_chart(bars, axis, *, title, desc, uid, width=400, colours=None) -> str
        Horizontal bars, one row per `Bar`, with an optional error range (`lo`/`hi`,
        drawn as a whisker) and the bar's value written at its end. Consecutive bars with
        the same `group` are drawn together under the group's heading. The value axis
        may be log (bars then start at the axis minimum).
    strip_diagram(strips, *, title, desc, uid, length, columns=None, width=400,
                  colours=None) -> str
        One row of cells per `Strip` (e.g. the positions of a vector a
        selector keeps, or a value's bits); `cells` holds the indices that are on. With `columns`, each
        strip wraps into a grid of that many columns. A strip may end in a registry
        number (e.g. the share it keeps).

Numbers on marks
----------------
A mark that shows a registry number (a bar, a line's end point, a marker, a strip's
figure) is `<g class="fig-mark" data-id=ID data-kind=KIND data-value=RAW>` holding a
`<title>` that contains the number's text, so a pointer shows it and a screen reader
reads it. static/site.js gives these the same role, focus and provenance card as a
`<data class="num">` element, and the no-naked-numbers check (cit/naked.py) verifies
their id, kind, value and text against the registry. A figure with such marks has
`role="group"` (its marks are buttons; `role="img"` would hide them from assistive
technology and axe forbids focusable content inside an image); one without has
`role="img"`. Both are named by their `<title>` and described by their `<desc>`.

Colour
------
A figure colours at most MAX_COLOURED series, each in a palette key no other series
of the figure takes (a series is a line, or the bars or strips of one label: the same
selector in two groups of bars is one series); the rest are `muted`. A figure that
breaks either fails with FigureError, which tells its block to grey the others with its
`highlight=` option (docs/syntax.md, "Blocks"). All text is FONT units high: a
figure's width in units sets how large it reads (docs/figures.md).

Axis tick labels (class `fig-tick`) are scale positions computed here from the data
range, not results; data/allowlist.yaml exempts them from the naked-number check.
Numbers are duck-typed: anything with `.id`, `.kind`, `.text` and `.raw()`, such as
`cit.registry.Number`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from html import escape as e

from .markup import wrap_text

# The colour key every figure may use for context marks (static/figures.css); the
# others are the palette's (cit/palette.py: the study's keys, each with a mark shade
# for light, dark and print), given to each drawing function as `colours`.
MUTED = "muted"
KEY_RE = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
DASHES = {"solid": "", "dash": "6 4", "dot": "1.5 3", "dashdot": "6 3 1.5 3",
          "longdash": "11 4"}
FONT = 13            # viewBox units, every text of a figure (docs/figures.md)
# the least distance, in viewBox units, between a text placed near an edge and that edge
MARGIN = 3
MAX_COLOURED = 6     # series a figure may colour; the rest are grey (docs/figures.md)
LINE_GAP = 15        # the least vertical distance between two end-of-line labels
CHAR_W = 0.6         # average glyph width as a share of the font size (label sizing)
STACK_FROM = 0.38    # share of a bar chart's width beyond which labels go above the bars
GROUP_GAP = 20       # room for a bar group's heading
DIVIDE_FROM = 8      # the least cell width (units) at which a strip's cells are divided


@dataclass(frozen=True)
class Axis:
    """A value axis: its title, log or linear, and optional fixed bounds."""
    title: str
    log: bool = False
    lo: float | None = None
    hi: float | None = None


@dataclass(frozen=True)
class Line:
    """One series of a line chart. `lo`/`hi` (same length as `x`) shade a min-max band;
    `end` is the registry number the last point shows (a focusable mark). `points` (same
    length as `x`, None where there is none) makes each point a dot and a mark for its
    registry number, named by `point_labels` (e.g. "size 8")."""
    key: str
    label: str
    x: tuple
    y: tuple
    colour: str = MUTED     # a palette key (the study's), or muted
    dash: str = "solid"
    lo: tuple | None = None
    hi: tuple | None = None
    end: object = None
    points: tuple | None = None
    point_labels: tuple | None = None
    context: bool = False   # drawn first, thin and grey, unlabelled (unless it has `end`)


@dataclass(frozen=True)
class VLine:
    """A vertical marker at `x` with a label; `number` makes it a focusable mark."""
    x: float
    label: str
    number: object = None


@dataclass(frozen=True)
class Bar:
    """One bar: `value` from the axis start, an optional error range `lo`-`hi`, the
    registry `number` it shows (its text is written at the bar's end)."""
    label: str
    value: float
    number: object = None
    colour: str = MUTED     # a palette key (the study's), or muted
    lo: float | None = None
    hi: float | None = None
    group: str = ""


@dataclass(frozen=True)
class Strip:
    """One row of a strip diagram: the indices in `on` are filled in `colour`; `number`
    (optional) is written after the row."""
    label: str
    on: tuple
    colour: str = MUTED     # a palette key (the study's), or muted
    number: object = None


class FigureError(ValueError):
    """Input a figure cannot be drawn from (the caller names the block)."""


# ---------------------------------------------------------------- small helpers

def _f(v: float) -> str:
    """A coordinate: one decimal, no trailing ".0", no "-0"."""
    s = f"{v:.1f}"
    if s.endswith(".0"):
        s = s[:-2]
    return "0" if s == "-0" else s


def _finite(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _text_width(text: str, size: float = FONT) -> float:
    return len(text) * size * CHAR_W


def _colour(key: str, colours) -> str:
    """`key` when it is `muted` or one of `colours` (the palette's keys; None: any
    key that can be a class name)."""
    if colours is None and KEY_RE.fullmatch(key):
        return key
    if key != MUTED and key not in (colours or ()):
        raise FigureError(f"colour {key!r} is not one of the palette's "
                          f"({', '.join(sorted(colours or ()))}) nor {MUTED!r}")
    return key


def check_colours(items, uid: str) -> None:
    """`items`: (series label, colour key) of every mark of a figure. At most
    MAX_COLOURED series take a colour other than muted, and no key colours two series
    (the module docstring, "Colour")."""
    by_key: dict[str, set] = {}
    for label, key in items:
        if key != MUTED:
            by_key.setdefault(key, set()).add(label)
    for key, labels in sorted(by_key.items()):
        if len(labels) > 1:
            two = sorted(labels)[:2]
            raise FigureError(f"figure {uid!r}: colour {key!r} is drawn for {len(labels)} series "
                              f"({two[0]!r}, {two[1]!r}): one hue a series, so grey all but one "
                              "(the block's highlight= option names the series to colour)")
    if len(by_key) > MAX_COLOURED:
        raise FigureError(f"figure {uid!r}: {len(by_key)} coloured series, more than "
                          f"{MAX_COLOURED}: name the ones the text compares with the block's "
                          "highlight= option, and the rest are grey")


def mark(number, title: str, inner: str) -> str:
    """A mark that shows registry number `number`: its `<title>` must contain the
    number's text (cit/naked.py checks it)."""
    if number.text not in title:
        raise FigureError(f"mark for {number.id!r}: its title {title!r} does not show {number.text!r}")
    return (f'<g class="fig-mark" data-id="{e(number.id)}" data-kind="{e(number.kind)}" '
            f'data-value="{e(number.raw())}"><title>{e(title)}</title>{inner}</g>')


def _svg(uid: str, width: float, height: float, title: str, desc: str, body: str,
         interactive: bool) -> str:
    if not uid or not uid.replace("-", "").isalnum():
        raise FigureError(f"figure id {uid!r} must be letters, digits and hyphens")
    if not title.strip() or not desc.strip():
        raise FigureError(f"figure {uid!r} needs a title and a description")
    role = "group" if interactive else "img"
    return (f'<svg class="svg-figure" id="{uid}" viewBox="0 0 {_f(width)} {_f(height)}" '
            f'role="{role}" aria-labelledby="{uid}-t" aria-describedby="{uid}-d" '
            f'font-size="{FONT}" xmlns="http://www.w3.org/2000/svg">'
            f'<title id="{uid}-t">{e(title)}</title><desc id="{uid}-d">{e(desc)}</desc>'
            f"{body}</svg>")


# ---------------------------------------------------------------- scales and ticks

@dataclass(frozen=True)
class Scale:
    """Maps data values in [lo, hi] (linear or log) onto pixels [p0, p1]."""
    lo: float
    hi: float
    p0: float
    p1: float
    log: bool = False

    def __call__(self, v: float) -> float:
        if self.log:
            a, b, t = math.log10(self.lo), math.log10(self.hi), math.log10(v)
        else:
            a, b, t = self.lo, self.hi, v
        return self.p0 + (t - a) / (b - a) * (self.p1 - self.p0)


def _nice_step(span: float, target: int = 5) -> float:
    raw = span / target
    mag = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if m * mag >= raw:
            return m * mag
    return 10 * mag


def domain(values, axis: Axis) -> tuple[float, float, list[float]]:
    """The axis bounds and tick positions for `values` (finite ones; positive ones on a
    log axis), widened to round numbers unless the axis fixes them."""
    vals = [v for v in values if _finite(v) and (not axis.log or v > 0)]
    if axis.lo is not None:
        vals.append(axis.lo)
    if axis.hi is not None:
        vals.append(axis.hi)
    if not vals:
        raise FigureError(f"axis {axis.title!r}: no value to draw")
    lo, hi = min(vals), max(vals)
    if axis.log:
        return _log_domain(lo, hi, axis)
    if lo == hi:
        lo, hi = (lo - 1, hi + 1) if lo == 0 else (lo - abs(lo) / 2, hi + abs(hi) / 2)
    step = _nice_step(hi - lo)
    a = axis.lo if axis.lo is not None else math.floor(lo / step + 1e-9) * step
    b = axis.hi if axis.hi is not None else math.ceil(hi / step - 1e-9) * step
    first = math.ceil(a / step - 1e-9)
    ticks = [round(k * step, 12) for k in range(first, int(math.floor(b / step + 1e-9)) + 1)]
    return a, b, ticks


def _log_domain(lo: float, hi: float, axis: Axis) -> tuple[float, float, list[float]]:
    if lo == hi:
        lo, hi = lo / 2, hi * 2
    d0, d1 = math.floor(math.log10(lo) + 1e-9), math.ceil(math.log10(hi) - 1e-9)
    decades = max(1, d1 - d0)
    mults = (1,) if decades > 3 else (1, 2, 5) if decades > 1 else (1, 1.5, 2, 3, 5, 7)
    cands = sorted({round(m * 10 ** d, 12) for d in range(d0 - 1, d1 + 1) for m in mults})
    a = axis.lo if axis.lo is not None else max(c for c in cands if c <= lo * (1 + 1e-9))
    b = axis.hi if axis.hi is not None else min(c for c in cands if c >= hi * (1 - 1e-9))
    ticks = [c for c in cands if a * (1 - 1e-9) <= c <= b * (1 + 1e-9)]
    return a, b, ticks


def _fit_ticks(ticks, scale: Scale, log: bool, pad: float = 8) -> list[float]:
    """The ticks whose labels fit side by side on a horizontal axis: all of them if
    they do; else, on a log axis, the decades; else every second, third, ... tick."""
    def fits(ts):
        return all(abs(scale(b) - scale(a)) >= (_text_width(tick_text(a)) + _text_width(tick_text(b))) / 2 + pad
                   for a, b in zip(ts, ts[1:]))
    if fits(ticks):
        return list(ticks)
    if log:
        decades = [t for t in ticks if math.isclose(math.log10(t), round(math.log10(t)), abs_tol=1e-9)]
        if len(decades) >= 2:
            ticks = decades
            if fits(ticks):
                return ticks
    for k in range(2, len(ticks)):
        if fits(ticks[::k]):
            return ticks[::k]
    return [ticks[0], ticks[-1]] if len(ticks) > 1 else list(ticks)


def tick_text(v: float) -> str:
    """A tick label: thousands separated, no needless zeros ("0.05", "2.5", "10,000")."""
    if v == 0:
        return "0"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    decimals = max(0, -math.floor(math.log10(abs(v))) + 2)
    s = f"{v:.{decimals}f}"
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return s


def _x_axis(sx: Scale, ticks, top: float, bottom: float, title: str) -> str:
    """Vertical grid lines (one path), tick labels and the axis title below the plot."""
    grid = "".join(f"M{_f(sx(t))} {_f(top)}V{_f(bottom)}" for t in ticks)
    labels = "".join(f'<text x="{_f(sx(t))}" y="{_f(bottom + FONT + 3)}">{tick_text(t)}</text>'
                     for t in ticks)
    mid = (sx.p0 + sx.p1) / 2
    return (f'<path class="fig-grid" d="{grid}"/><g class="fig-tick" text-anchor="middle">{labels}</g>'
            f'<text class="fig-axis-title" x="{_f(mid)}" y="{_f(bottom + 2 * FONT + 10)}" '
            f'text-anchor="middle">{e(title)}</text>')


def _y_axis(sy: Scale, ticks, left: float, right: float, title: str, title_y: float) -> str:
    """Horizontal grid lines (one path), tick labels and the axis title above the plot."""
    grid = "".join(f"M{_f(left)} {_f(sy(t))}H{_f(right)}" for t in ticks)
    labels = "".join(f'<text x="{_f(left - 5)}" y="{_f(sy(t) + FONT * 0.35)}">{tick_text(t)}</text>'
                     for t in ticks)
    return (f'<path class="fig-grid" d="{grid}"/><g class="fig-tick" text-anchor="end">{labels}</g>'
            f'<text class="fig-axis-title" x="{_f(left - 5)}" y="{_f(title_y)}">{e(title)}</text>')


# ---------------------------------------------------------------- line chart

def _off_line(a, b, p) -> float:
    """Distance of point p from the segment a-b (or from a, when b is a)."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    length2 = dx * dx + dy * dy
    t = 0.0 if not length2 else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / length2))
    return math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy)


def _thin(points, tol: float = 0.05):
    """Drop the points that lie on the straight line from the last kept point to the
    next one (every dropped point within `tol` units of it): a flat or straight stretch
    becomes one segment and is drawn the same."""
    out: list = []
    skipped: list = []
    for p in points:
        if p is None:
            out.append(None)
            skipped = []
            continue
        if len(out) >= 2 and out[-1] is not None and out[-2] is not None:
            cand = skipped + [out[-1]]
            if all(_off_line(out[-2], p, q) <= tol for q in cand):
                out[-1] = p
                skipped = cand
                continue
        out.append(p)
        skipped = []
    return out


def _path(points, digits: int = 1, tol: float = 0.05) -> str:
    """An SVG path through points, rounded to `digits` decimals; None (a missing value)
    breaks the line. After each move, steps are relative ("l"), rounded so that the
    rounding never accumulates. `tol`: see _thin."""
    out, last = [], None
    rounded = [None if p is None else (round(p[0], digits), round(p[1], digits)) for p in points]
    for p in _thin(rounded, tol):
        if p is None:
            last = None
            continue
        x, y = p
        if last is None:
            out.append(f"M{_f(x)} {_f(y)}")
        else:
            dx, dy = _f(x - last[0]), _f(y - last[1])
            out.append(f"l{dx}{dy if dy.startswith('-') else ' ' + dy}")
        last = (x, y)
    return "".join(out)


def _check_line(ln: Line, colours) -> None:
    if len(ln.x) != len(ln.y):
        raise FigureError(f"line {ln.key!r}: {len(ln.x)} x values but {len(ln.y)} y values")
    for name in ("lo", "hi", "points", "point_labels"):
        band = getattr(ln, name)
        if band is not None and len(band) != len(ln.x):
            raise FigureError(f"line {ln.key!r}: {name} has {len(band)} values for {len(ln.x)} points")
    if ln.dash not in DASHES:
        raise FigureError(f"line {ln.key!r}: dash {ln.dash!r} is not one of {sorted(DASHES)}")
    _colour(ln.colour, colours)


def spread_labels(wanted: list[float], gap: float, lo: float, hi: float,
                  rows=None) -> list[float]:
    """Label positions (each its first line's) as close as possible to `wanted` (in
    order), inside [lo, hi] and apart by at least `gap` for each line of the label
    above (`rows`: each label's line count, 1 when None): a forward then a backward
    sweep over the sorted positions."""
    order = sorted(range(len(wanted)), key=lambda i: (wanted[i], i))
    rows = [rows[i] if rows else 1 for i in order]
    pos = [min(max(wanted[i], lo), hi) for i in order]
    for k in range(1, len(pos)):
        pos[k] = max(pos[k], pos[k - 1] + gap * rows[k - 1])
    last = hi - gap * (rows[-1] - 1) if pos else hi
    if pos and pos[-1] > last:
        pos[-1] = last
        for k in range(len(pos) - 2, -1, -1):
            pos[k] = min(pos[k], pos[k + 1] - gap * rows[k])
    out = [0.0] * len(wanted)
    for k, i in enumerate(order):
        out[i] = pos[k]
    return out


def _last_point(ln: Line, sx: Scale, sy: Scale, log_y: bool):
    for x, y in zip(reversed(ln.x), reversed(ln.y)):
        if _finite(x) and _finite(y) and (not log_y or y > 0):
            return sx(x), sy(y)
    return None


def line_chart(lines, x: Axis, y: Axis, *, title: str, desc: str, uid: str,
               markers=(), width: float = 400, height: float = 300, colours=None) -> str:
    """A line chart as an `<svg>` string (see the module docstring)."""
    lines = list(lines)
    if not lines:
        raise FigureError(f"figure {uid!r}: no line to draw")
    for ln in lines:
        _check_line(ln, colours)
    # the grey context beneath the coloured lines
    lines = ([replace(ln, colour=MUTED) for ln in lines if ln.context]
             + [ln for ln in lines if not ln.context])
    check_colours([(ln.label, ln.colour) for ln in lines], uid)
    labelled = [ln for ln in lines if not ln.context or ln.end is not None]
    xs = [v for ln in lines for v in ln.x] + [m.x for m in markers]
    ys = [v for ln in lines for v in ln.y + (ln.lo or ()) + (ln.hi or ())]
    x0, x1, xticks = domain(xs, x)
    y0, y1, yticks = domain(ys, y)
    labels = [ln.label + (f" {ln.end.text}" if ln.end is not None else "") for ln in labelled]
    right = min(width * 0.42, max((_text_width(t) for t in labels), default=0) + 16)
    fit = max(1, int((right - 16) / (FONT * CHAR_W)))      # characters a label line holds
    ytick_w = max(_text_width(tick_text(t)) for t in yticks)
    left, top, bottom = ytick_w + 12, 2 * FONT + 6, height - 2 * FONT - 16
    sx = Scale(x0, x1, left, width - right, x.log)
    sy = Scale(y0, y1, bottom, top, y.log)

    def pt(a, b):
        ok = _finite(a) and _finite(b) and (not x.log or a > 0) and (not y.log or b > 0)
        return (sx(a), sy(b)) if ok else None

    body = [_y_axis(sy, yticks, left, width - right, y.title, FONT),
            _x_axis(sx, _fit_ticks(xticks, sx, x.log), top, bottom, x.title)]
    for ln in lines:
        if ln.context or ln.lo is None or ln.hi is None:
            continue
        if any(a != b for a, b in zip(ln.lo, ln.hi)):
            up = [pt(a, b) for a, b in zip(ln.x, ln.hi)]
            down = [pt(a, b) for a, b in zip(ln.x, ln.lo)]
            ring = [p for p in up if p] + [p for p in reversed(down) if p]
            body.append(f'<path class="fig-band c-{ln.colour}" d="{_path(ring)}Z"/>')
    for ln in lines:
        dash = DASHES[ln.dash]
        da = f' stroke-dasharray="{dash}"' if dash else ""
        # a grey context line is thin and behind: whole units (under a pixel on a
        # phone) draw it as well, in fewer bytes
        d = _path([pt(a, b) for a, b in zip(ln.x, ln.y)], *((0, 0.5) if ln.context else ()))
        cls = "fig-line fig-context" if ln.context else "fig-line"
        cls += f" c-{ln.colour}"
        body.append(f'<path class="{cls}"{da} d="{d}"/>')
    # right to left, so a label (written rightwards) lies above the markers it crosses
    ordered = sorted(markers, key=lambda m: (m.x, m.label))
    for k in range(len(ordered) - 1, -1, -1):
        body.append(_marker(ordered[k], k, sx, top, bottom, x.log))
    for ln in lines:
        body.append(_point_marks(ln, pt))
    body.append(_end_labels(labelled, sx, sy, y.log, top, bottom, width - right, fit))
    interactive = (any(ln.end is not None or ln.points for ln in lines)
                   or any(m.number is not None for m in markers))
    return _svg(uid, width, height, title, desc, "".join(body), interactive)


def _point_marks(ln: Line, pt) -> str:
    if not ln.points:
        return ""
    out = []
    for k, (a, b, n) in enumerate(zip(ln.x, ln.y, ln.points)):
        p = pt(a, b)
        if n is None or p is None:
            continue
        where = f", {ln.point_labels[k]}" if ln.point_labels else ""
        dot = f'<circle class="fig-dot c-{ln.colour}" cx="{_f(p[0])}" cy="{_f(p[1])}" r="4"/>'
        out.append(mark(n, f"{ln.label}{where}: {n.text}", dot))
    return "".join(out)


def _marker(m: VLine, k: int, sx: Scale, top: float, bottom: float, log: bool) -> str:
    """Marker k (in x order): a dotted vertical line, its label written across at the
    k-th line from the top (a staircase, so close markers never overprint), to the right
    of the line unless it would leave the plot, then to its left, kept a few units inside
    the drawing (a text's measured width is an estimate, _text_width)."""
    if not _finite(m.x) or (log and m.x <= 0):
        raise FigureError(f"marker {m.label!r}: x {m.x!r} cannot be drawn on this axis")
    x = sx(m.x)
    ty = top + FONT + k * (FONT + 2)
    width = _text_width(m.label)
    right = x + 4 + width <= sx.p1
    tx, anchor = (x + 4, "") if right else (max(x - 4, width + MARGIN), ' text-anchor="end"')
    inner = (f'<line class="fig-marker" x1="{_f(x)}" x2="{_f(x)}" y1="{_f(top)}" y2="{_f(bottom)}"/>'
             f'<text class="fig-marker-label" x="{_f(tx)}" y="{_f(ty)}"{anchor}>{e(m.label)}</text>')
    if m.number is None:
        return inner
    hit = f'<rect class="fig-hit" x="{_f(x - 3)}" y="{_f(top)}" width="6" height="{_f(bottom - top)}"/>'
    return mark(m.number, f"{m.label}: {m.number.text}", inner + hit)


def _end_labels(lines, sx, sy, log_y, top, bottom, x_end, fit: int) -> str:
    """Each line's label at its right end, wrapped to `fit` characters a line where the
    room right of the plot is too narrow for it (a phone's chart), so no label runs past
    the figure's edge; labels pushed apart by their line counts (spread_labels)."""
    ends = [_last_point(ln, sx, sy, log_y) for ln in lines]
    keep = [i for i, p in enumerate(ends) if p is not None]
    rows = [_label_rows(lines[i], fit) for i in keep]
    ys = spread_labels([ends[i][1] for i in keep], LINE_GAP, top + FONT / 2, bottom,
                       [len(r) for r in rows])
    out = []
    for i, ty, text in zip(keep, ys, rows):
        ln, (px, py) = lines[i], ends[i]
        lx = x_end + 6
        lead = (f'<path class="fig-lead c-{ln.colour}" d="M{_f(px)} {_f(py)}L{_f(lx - 2)} {_f(ty)}"/>'
                if abs(ty - py) > 1 or lx - px > 8 else "")
        drawn = [e(row) for row in text]
        if ln.end is not None:                  # the value, last on the last row
            drawn[-1] += f'<tspan class="fig-value">{e(ln.end.text)}</tspan>'
        words = "".join(row if not k else f'<tspan x="{_f(lx)}" dy="{LINE_GAP}">{row}</tspan>'
                        for k, row in enumerate(drawn))
        label = (f'<text class="fig-label" x="{_f(lx)}" y="{_f(ty + FONT * 0.35)}">'
                 f'{words}</text>')
        if ln.end is not None:
            dot = f'<circle class="fig-dot c-{ln.colour}" cx="{_f(px)}" cy="{_f(py)}" r="3.5"/>'
            out.append(lead + mark(ln.end, f"{ln.label}: {ln.end.text}", dot + label))
        else:
            out.append(lead + label)
    return "".join(out)


def _label_rows(ln: Line, fit: int) -> list[str]:
    """A line's end label, its name then its end value, wrapped to `fit` characters a row
    (between phrases first, then between words), as the rows it is drawn in, each row's
    end a space (as it is read); the end value, which the caller draws after the last
    row, taken off that row."""
    value = ln.end.text if ln.end is not None else ""
    text = ln.label + (f" {value}" if value else "")
    rows = [text] if len(text) <= fit else wrap_text(text, fit, ", ")
    rows = rows if max(map(len, rows)) <= fit else wrap_text(text, fit)
    if value and rows[-1].endswith(value):
        rows[-1] = rows[-1][:-len(value)]
    elif value:                             # a value wrapped apart: on a row of its own
        rows = wrap_text(ln.label, fit) + [""]
    return [r.rstrip() + " " for r in rows[:-1]] + [rows[-1]]


# ---------------------------------------------------------------- bar chart

def bar_chart(bars, axis: Axis, *, title: str, desc: str, uid: str, width: float = 400,
              colours=None) -> str:
    """Horizontal bars, grouped by consecutive `group`, as an `<svg>` string. Short
    labels sit left of their bar; when a label would take more than STACK_FROM of the
    width, every label sits above its bar instead, so the bars keep the full width."""
    bars = list(bars)
    if not bars:
        raise FigureError(f"figure {uid!r}: no bar to draw")
    for b in bars:
        _colour(b.colour, colours)
    check_colours([(b.label, b.colour) for b in bars], uid)
    for b in bars:
        if not _finite(b.value) or (axis.log and b.value <= 0):
            raise FigureError(f"bar {b.label!r}: value {b.value!r} cannot be drawn on this axis")
    vals = [v for b in bars for v in (b.value, b.lo, b.hi) if v is not None]
    if not axis.log and axis.lo is None:
        vals.append(0)
    a, z, ticks = domain(vals, axis)
    stacked = max(_text_width(b.label) for b in bars) + 10 > width * STACK_FROM
    row = 22 + (FONT + 2 if stacked else 0)
    groups = [b.group for b in bars]
    heads = sum(1 for k, g in enumerate(groups) if g and (k == 0 or groups[k - 1] != g))
    # stacked: just room for half the first tick label, which is centred on the axis start
    label_w = (_text_width(tick_text(ticks[0])) / 2 + 2 if stacked
               else max(_text_width(b.label) for b in bars) + 10)
    value_w = max(_text_width(b.number.text if b.number else "") for b in bars) + 10
    top = 8
    height = top + len(bars) * row + heads * GROUP_GAP + 2 * FONT + 20
    sx = Scale(a, z, label_w, width - value_w, axis.log)
    bottom = height - 2 * FONT - 16
    body = [_x_axis(sx, _fit_ticks(ticks, sx, axis.log), top, bottom, axis.title)]
    y = top
    for k, b in enumerate(bars):
        if b.group and (k == 0 or groups[k - 1] != b.group):
            body.append(f'<text class="fig-group" x="2" y="{_f(y + FONT + 2)}">{e(b.group)}</text>')
            y += GROUP_GAP
        body.append(_bar(b, sx, a, y, row, label_w, stacked))
        y += row
    return _svg(uid, width, height, title, desc, "".join(body),
                any(b.number is not None for b in bars))


def _bar(b: Bar, sx: Scale, start: float, y: float, row: float, label_w: float,
         stacked: bool) -> str:
    if stacked:
        label = f'<text class="fig-label" x="{_f(label_w)}" y="{_f(y + FONT)}">{e(b.label)}</text>'
        y += FONT + 2
        row -= FONT + 2
    x0, x1 = sx(start), sx(b.value)
    h = row - 8
    cy = y + row / 2
    if not stacked:
        label = (f'<text class="fig-label" x="{_f(label_w - 6)}" y="{_f(cy + FONT * 0.35)}" '
                 f'text-anchor="end">{e(b.label)}</text>')
    shape = (f'<rect class="fig-bar c-{b.colour}" x="{_f(min(x0, x1))}" y="{_f(y + 4)}" '
             f'width="{_f(abs(x1 - x0))}" height="{_f(h)}"/>')
    if b.lo is not None and b.hi is not None and b.lo != b.hi:
        lo, hi = sx(b.lo), sx(b.hi)
        shape += (f'<path class="fig-whisker" d="M{_f(lo)} {_f(cy)}H{_f(hi)}M{_f(lo)} {_f(cy - 5)}'
                  f'V{_f(cy + 5)}M{_f(hi)} {_f(cy - 5)}V{_f(cy + 5)}"/>')
    if b.number is None:
        return label + shape
    end = max(x1, sx(b.hi) if b.hi is not None else x1)
    text = (f'<text class="fig-value" x="{_f(end + 5)}" y="{_f(cy + FONT * 0.35)}">'
            f"{e(b.number.text)}</text>")
    return label + mark(b.number, f"{b.label}: {b.number.text}", shape + text)


# ---------------------------------------------------------------- strip diagram

def _runs(on: set, start: int, stop: int):
    """Maximal runs [a, b) of consecutive indices of `on` within [start, stop)."""
    k = start
    while k < stop:
        if k in on:
            j = k
            while j < stop and j in on:
                j += 1
            yield k, j
            k = j
        else:
            k += 1


def strip_diagram(strips, *, title: str, desc: str, uid: str, length: int,
                  columns: int | None = None, axis_title: str = "", width: float = 400,
                  colours=None) -> str:
    """Rows of `length` cells, those in each strip's `on` filled, as an `<svg>` string.
    With `columns`, each strip wraps into a grid of `columns` cells a line."""
    strips = list(strips)
    if not strips or length < 1:
        raise FigureError(f"figure {uid!r}: nothing to draw")
    cols = columns or length
    lines = math.ceil(length / cols)
    label_w = max(_text_width(s.label) for s in strips) + 10
    value_w = max((_text_width(s.number.text) for s in strips if s.number), default=0) + 10
    cell = min(24.0, (width - label_w - value_w) / cols)
    block_h = lines * cell
    pitch = max(block_h, FONT + 4) + 12
    top = 6
    fit = max(1, int((width - 2 * MARGIN) / (FONT * CHAR_W)))
    title_rows = wrap_text(axis_title, fit) if axis_title else []
    height = top + len(strips) * pitch + (FONT + 8 + LINE_GAP * (len(title_rows) - 1)
                                          if title_rows else 0)
    for s in strips:
        _colour(s.colour, colours)
    check_colours([(s.label, s.colour) for s in strips], uid)
    body = []
    for r, s in enumerate(strips):
        on = {int(i) for i in s.on}
        if any(i < 0 or i >= length for i in on):
            raise FigureError(f"strip {s.label!r}: an index lies outside 0..{length - 1}")
        y = top + r * pitch
        body.append(_strip(s, on, label_w, y, cell, cols, length, block_h))
    if title_rows:
        # under the grid's middle, moved in so its widest line stays inside the figure
        half = max(_text_width(r) for r in title_rows) / 2
        mid = min(max(label_w + cols * cell / 2, MARGIN + half), width - MARGIN - half)
        y0 = height - 6 - LINE_GAP * (len(title_rows) - 1)
        rows = "".join(f'<tspan x="{_f(mid)}" dy="{LINE_GAP}">{e(r)}</tspan>' if k else e(r + " ")
                       for k, r in enumerate(title_rows))
        body.append(f'<text class="fig-axis-title" x="{_f(mid)}" y="{_f(y0)}" '
                    f'text-anchor="middle">{rows}</text>')
    return _svg(uid, width, height, title, desc, "".join(body),
                any(s.number is not None for s in strips))


def _strip(s: Strip, on: set, x0: float, y: float, cell: float, cols: int, length: int,
           block_h: float) -> str:
    cy = y + block_h / 2
    out = [f'<text class="fig-label" x="{_f(x0 - 6)}" y="{_f(cy + FONT * 0.35)}" '
           f'text-anchor="end">{e(s.label)}</text>']
    lines = math.ceil(length / cols)
    for ln in range(lines):
        a, b = ln * cols, min(length, (ln + 1) * cols)
        out.append(f'<rect class="fig-cell-off" x="{_f(x0)}" y="{_f(y + ln * cell)}" '
                   f'width="{_f((b - a) * cell)}" height="{_f(cell)}"/>')
        for i, j in _runs(on, a, b):
            out.append(f'<rect class="fig-cell c-{s.colour}" x="{_f(x0 + (i - a) * cell)}" '
                       f'y="{_f(y + ln * cell)}" width="{_f((j - i) * cell)}" height="{_f(cell)}"/>')
        if cell >= DIVIDE_FROM:
            # cells wide enough to count get a dividing line each
            d = "".join(f"M{_f(x0 + k * cell)} {_f(y + ln * cell)}v{_f(cell)}" for k in range(1, b - a))
            out.append(f'<path class="fig-divider" d="{d}"/>')
    if s.number is not None:
        text = (f'<text class="fig-value" x="{_f(x0 + cols * cell + 6)}" y="{_f(cy + FONT * 0.35)}">'
                f"{e(s.number.text)}</text>")
        out.append(mark(s.number, f"{s.label}: {s.number.text}", text))
    return "".join(out)
