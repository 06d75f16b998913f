"""Charts: Plotly figures built in Python from registry Series (docs/numbers.md).

Each chart block embeds its figure as JSON (`fig.to_plotly_json()`, sorted keys) in a
`<script type="application/json" id="fig-NAME-json">` beside a
`<div class="chart" data-figure-id="fig-NAME">`, which first shows a static SVG preview
drawn at build time (cit/svgplot.py, `preview_html`); static/charts.js fetches the
plotly.js partial bundle (cit/plotlybundle.py) only when a reader reaches for the chart
and draws it into the preview's box. Ids are fixed, so output is reproducible. The figure holds the look (layout, and per trace its series as
`legendgroup`, name, colour, dash; a seed band is marked `meta: "band"`) but not the
points: charts.js reads those from the chart's data table below, so the page carries
each value once and the chart draws exactly the values the check verified.

Every chart also carries its data as a table inside `<details class="chart-data">`,
for readers without JavaScript and for screen readers: `<table data-fx=F data-fy=F>`
whose column headers name their series (`data-series`), one row per point, x in the
row header and y in each cell, with the lowest and highest seed in brackets where they
differ (`data-range`). No new registry entries: the naked-number check recomputes each
cell from the registry series with the table's formats (fmt.SERIES_FORMATS) and fails
on any difference.

Colours come from the palette the study's data stage returned (cit/palette.py): a
series is drawn in its `variant`'s own colour, the same in every chart, and its static
preview in the mark shade of the same key (or of its `shade`) that the stylesheet
gives for light, dark and print.

Series extras read: `label` (required: fallback table heading and, unless `short` is
given, legend text, wrapped and, for many runs of one variant, without the words they
share), `short` (optional legend text), `variant` (required: a palette key, which
picks the colour), `shade` (optional: the palette key the static preview draws it in,
default `variant`), `dash` (optional: a dash every series of a family shares, e.g. the
runs of a first design; the others cycle through the rest), `lo` / `hi` (optional: the
shaded min-max band).

What a chart colours is the page's to say: `@[chart:NAME highlight=ID,ID]` (docs/syntax.md,
"Blocks") names the series the text beside it compares, and only those take their
colours; the others are a grey context, drawn first and thin, unlabelled in the
preview and grey in the interactive chart (their names are in the data table and the
chart's hover). Without the option every series is coloured, and the preview's rules
(cit/svgplot.py, "Colour": at most six coloured series, one hue each) fail the build
at the block line when they do not hold.

The engine names no chart: a study's block provider (site.yaml `blocks:`) declares
each one as a ChartSpec and hands it, with the series it picks, to `series_block` (a
plain chart) or `chart_html` (one with markers or extra HTML); docs/site-config.md,
"Charts". A block whose series are absent fails the build.
"""

from __future__ import annotations

import colorsys
import hashlib
import math
from dataclasses import dataclass
from html import escape as e

from .. import plotlybundle
from ..errors import BuildError
from ..fmt import SERIES_FORMATS, series_cell, series_text
from ..markup import json_for_script, scroll_region, wrap_text
from ..palette import Palette
from ..registry import Registry, Series
from .spec import BlockSpec, compute_now

PAGE_TEXT = True     # its string literals reach pages (docs/claims.md, "Sentences the build finds")

DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")


@dataclass(frozen=True)
class ChartAxis:
    title: str
    fmt: str            # a key of fmt.SERIES_FORMATS: how the fallback table shows values
    log: bool = False


@dataclass(frozen=True)
class ChartSpec:
    name: str           # block name after "chart:", also the fixed element id
    title: str          # one line, shown as caption and aria-label (no digits)
    x: ChartAxis
    y: ChartAxis
    bands: bool = True  # draw lo/hi as a shaded band when the series has them
    # what the fallback table's brackets are (the seeds' range, or another interval)
    band_note: str = ("Values are means; where the seeds differ, the lowest and highest "  # :x[caption]
                      "follow in brackets.")
    # the static preview's viewBox sizes, by variant: "wide" alone, or "wide" and
    # "narrow" (a phone shows the narrow one; its text stays legible at 390 px)
    preview: tuple = (("wide", 640, 400),)


CONTEXT_COLOUR = "#8c8c8c"   # the interactive chart's grey context (docs/figures.md)


def highlighted(spec: ChartSpec, series: list[Series], highlight) -> frozenset[str]:
    """The ids of the series the chart colours: those `highlight` names (each must be
    one of the chart's), or every one when it names none."""
    ids = [s.id for s in series]
    if not highlight:
        return frozenset(ids)
    for h in highlight:
        if h not in ids:
            raise BuildError(f"chart:{spec.name}", f"highlight names {h!r}, not a series of "
                             f"this chart (its series: {', '.join(ids)})")
    return frozenset(highlight)


def _finite(v):
    """JSON has no NaN or infinity: a missing point is null (a gap in the line)."""
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return None
    return v


def _rgba(hex_colour: str, alpha: float) -> str:
    h = hex_colour.lstrip("#")
    r, g, b = (int(h[i:i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


def _check(s: Series) -> None:
    where = f"series {s.id}"
    if len(s.x) != len(s.y):
        raise BuildError(where, f"{len(s.x)} x values but {len(s.y)} y values")
    for k in ("lo", "hi"):
        if k in s.extra and len(s.extra[k]) != len(s.x):
            raise BuildError(where, f"{k} has {len(s.extra[k])} values for {len(s.x)} points")
    v = s.extra.get("variant")
    if not isinstance(v, str) or not v:
        raise BuildError(where, f"extra `variant` must name a palette key, not {v!r}")
    if not isinstance(s.extra.get("label"), str) or not s.extra["label"]:
        raise BuildError(where, "extra `label` (the legend text) is missing")


def select(registry: Registry, name: str, pred, need: str) -> list[Series]:
    """The series a chart draws, sorted by id; none at all is an error."""
    out = [s for sid, s in sorted(registry.series.items()) if pred(s)]
    if not out:
        raise BuildError(f"chart:{name}", f"no series found: needs {need}")
    for s in out:
        _check(s)
    return out


SHADES = (0.0, 0.18, -0.15)   # lightness offsets within one variant's hue


def _shade(hex_colour: str, offset: float) -> str:
    h = hex_colour.lstrip("#")
    r, g, b = (int(h[i:i + 2], 16) / 255 for i in (0, 2, 4))
    hue, light, sat = colorsys.rgb_to_hls(r, g, b)
    light = min(0.85, max(0.2, light + offset))
    r, g, b = colorsys.hls_to_rgb(hue, light, sat)
    return "#" + "".join(f"{round(c * 255):02X}" for c in (r, g, b))


def _styles(series: list[Series], palette: Palette) -> dict[str, tuple[str, str]]:
    """Colour by variant; within a variant, series differ by dash, then (past the
    dashes) by shade, in id order, so even a dozen runs of one variant stay apart. A
    series whose extra `dash` names one keeps it (a family of runs drawn alike), and
    the others cycle through the dashes no such series takes."""
    fixed = {s.extra["dash"] for s in series if s.extra.get("dash")}
    unknown = fixed - set(DASHES)
    if unknown:
        raise BuildError("chart series", f"dash {sorted(unknown)[0]!r} is not one of {DASHES}")
    free = [d for d in DASHES if d not in fixed] or list(DASHES)
    seen: dict[str, int] = {}
    out = {}
    for s in series:
        letter = s.extra["variant"]
        colour = palette.chart_colour(letter, f"series {s.id}")
        if s.extra.get("dash"):
            out[s.id] = (colour, s.extra["dash"])
            continue
        k = seen.get(letter, 0)
        seen[letter] = k + 1
        shade = (k // len(free)) % len(SHADES)
        if shade:
            colour = _shade(colour, SHADES[shade])
        out[s.id] = (colour, free[k % len(free)])
    return out


LEGEND_WRAP = 28     # characters per legend line (the legend sits beside the plot)
SHORTEN_FROM = 4     # runs of one variant in a chart before their shared words are dropped


def legend_texts(series: list[Series]) -> dict[str, list[str]]:
    """Legend lines per series: `short` when given; else the label, and when a chart
    holds many runs of one variant, without the comma-separated words they all share
    (the first part, which names the variant, always stays)."""
    by_letter: dict[str, list[Series]] = {}
    for s in series:
        by_letter.setdefault(s.extra["variant"], []).append(s)
    out = {}
    for group in by_letter.values():
        common: set[str] = set()
        if len(group) >= SHORTEN_FROM:
            parts = [s.extra["label"].split(", ") for s in group]
            common = set(parts[0][1:]).intersection(*(p[1:] for p in parts[1:]))
        for s in group:
            if s.extra.get("short"):
                text = s.extra["short"]
            else:
                head, *rest = s.extra["label"].split(", ")
                text = ", ".join([head] + [p for p in rest if p not in common])
            out[s.id] = wrap_text(text, LEGEND_WRAP, ", ")
    return out


def _legend_layout(texts: dict[str, list[str]]) -> tuple[dict, int]:
    """The legend beside the plot (the interactive chart takes the static preview's
    box, so a legend above or below would squeeze the plot instead of pushing it down)
    and a nominal height (charts.js sets the preview's)."""
    legend = dict(orientation="v", yanchor="top", y=1, xanchor="left", x=1.02,
                  font=dict(size=11), tracegroupgap=2)
    return legend, 400

def build_figure(spec: ChartSpec, series: list[Series], markers: list[tuple[str, float]] = (),
                 palette: Palette = Palette(), shown=None) -> dict:
    """The figure for `series` (and vertical markers: (label, x)) as plotly.js takes it
    (its JSON schema: traces of the default type scatter, each with no data, which
    charts.js fills from the chart's table; layout). `shown`: the ids of the series
    coloured (None: all), the others grey and first, beneath them. Written as plain
    data: the engine needs no Python plotly package."""
    styles = _styles(series, palette)
    shown = frozenset(s.id for s in series) if shown is None else shown
    series = [s for s in series if s.id not in shown] + [s for s in series if s.id in shown]
    texts = legend_texts(series)
    legend, height = _legend_layout(texts)
    data, shapes, notes = [], [], []
    for s in series:
        colour, dash = styles[s.id]
        if s.id not in shown:
            data.append(dict(mode="lines", name="<br>".join(texts[s.id]), legendgroup=s.id,
                             line=dict(color=CONTEXT_COLOUR, dash=dash, width=1.25)))
            continue
        colour = palette.chart_colour(s.extra.get("shade") or s.extra["variant"], f"series {s.id}")
        if spec.bands and "lo" in s.extra and "hi" in s.extra:
            pts = [(x, lo, hi) for x, lo, hi in zip(s.x, s.extra["lo"], s.extra["hi"])
                   if _finite(lo) is not None and _finite(hi) is not None]
            # A single seed (lo == hi everywhere) has no band to shade. charts.js draws
            # the band's outline from the table's brackets (hi, then lo reversed).
            if any(lo != hi for _, lo, hi in pts):
                data.append(dict(meta="band", fill="toself", fillcolor=_rgba(colour, 0.18),
                                 line=dict(width=0), hoverinfo="skip", showlegend=False,
                                 legendgroup=s.id))
        data.append(dict(mode="lines", name="<br>".join(texts[s.id]), legendgroup=s.id,
                         line=dict(color=colour, dash=dash, width=2)))
    for label, x in markers:
        # shapes take data coordinates on a log axis; annotations take log10 of them
        shapes.append(dict(type="line", xref="x", yref="paper", x0=x, x1=x, y0=0, y1=1,
                           line=dict(color="#777777", dash="dot", width=1)))
        notes.append(dict(x=math.log10(x) if spec.x.log else x, y=1, yref="paper",
                          text=label, showarrow=False, textangle=-90,
                          xanchor="right", yanchor="top", font=dict(size=11)))
    layout = dict(
        height=height,
        margin=dict(l=64, r=16, t=16, b=56),
        paper_bgcolor="rgba(0,0,0,0)", plot_bgcolor="rgba(0,0,0,0)",
        font=dict(family="system-ui, -apple-system, 'Segoe UI', sans-serif", size=13),
        legend=legend,
        hovermode="closest",
        xaxis=dict(title=dict(text=spec.x.title), type="log" if spec.x.log else "linear",
                   gridcolor="rgba(128,128,128,0.25)", zeroline=False),
        yaxis=dict(title=dict(text=spec.y.title), type="log" if spec.y.log else "linear",
                   gridcolor="rgba(128,128,128,0.25)", zeroline=False),
    )
    if shapes:
        layout.update(shapes=shapes, annotations=notes)
    return {"data": data, "layout": layout}


def _ranged(spec: ChartSpec, series: list[Series]) -> bool:
    """Whether the table shows seed ranges: the chart draws bands and a series has one
    that is not a single seed."""
    return spec.bands and any(
        "lo" in s.extra and "hi" in s.extra and any(lo != hi for lo, hi in zip(s.extra["lo"], s.extra["hi"]))
        for s in series)


def fallback_html(spec: ChartSpec, series: list[Series]) -> str:
    """The chart's data as tables: one wide table when every series shares its x values,
    else one table per series. The naked-number check reads this layout back
    (cit/naked.py): keep the two in step."""
    ranged = _ranged(spec, series)

    count = iter(range(1, 1000))

    def table(caption: str, cols: list[tuple[str, str]], rows) -> str:
        attrs = f' data-fx="{spec.x.fmt}" data-fy="{spec.y.fmt}"' + (" data-range" if ranged else "")
        head = "".join(f'<th scope="col" data-series="{e(sid)}">{e(label)}</th>' for sid, label in cols)
        cid = f"{spec.name}-data-{next(count)}-caption"
        return (f'{scroll_region(cid)}<table class="data chart-table"{attrs}>'
                f'<caption id="{cid}">{e(caption)}</caption>'
                f'<thead><tr><th scope="col">{e(spec.x.title)}</th>{head}</tr></thead><tbody>\n'
                + "".join(rows) + "</tbody></table></div>")

    def rows(group: list[Series]):
        for i, x in enumerate(group[0].x):
            cells = "".join(f"<td>{e(series_cell(s, i, spec.y.fmt, ranged))}</td>" for s in group)
            yield f'<tr><th scope="row">{e(series_text(x, spec.x.fmt))}</th>{cells}</tr>\n'

    note = " " + spec.band_note if ranged else ""
    out = [f'<details class="chart-data"><summary>The data behind this chart</summary>'  # :x[caption]
           f'<p class="chart-note">Each value is read from the same registry series as the chart.{note}</p>']
    if all(s.x == series[0].x for s in series):
        out.append(table(spec.title, [(s.id, s.extra["label"]) for s in series], rows(series)))
    else:
        for s in series:
            out.append(table(s.extra["label"], [(s.id, spec.y.title)], rows([s])))
    out.append("</details>")
    return "".join(out)


def preview_lines(ctx, spec: ChartSpec, series: list[Series], palette: Palette,
                  shown=None) -> list:
    """The series as svgplot Lines, styled as in the plotly figure (the colour key its
    `shade`, else its `variant`; a series not in `shown`, a set of ids, is grey
    context). A series whose extra `end` names a registry number shows it at its last
    point (a mark with a card), unless it is context."""
    from .. import svgplot

    styles = _styles(series, palette)
    out = []
    for s in series:
        end = None
        context = shown is not None and s.id not in shown
        # a grey context line is unlabelled: its final value is in the data table
        if s.extra.get("end") and not context:
            ctx.num(s.extra["end"], where=f"series {s.id}")   # the page shows it: cards need it
            end = ctx.registry.get(s.extra["end"], f"series {s.id}")
        band = spec.bands and "lo" in s.extra and "hi" in s.extra
        dash = styles[s.id][1]
        out.append(svgplot.Line(
            key=s.id, label=s.extra.get("short") or s.extra["label"],
            x=tuple(_finite(v) for v in s.x), y=tuple(_finite(v) for v in s.y),
            colour=s.extra.get("shade") or s.extra["variant"], dash=dash if dash in svgplot.DASHES else "longdash",
            lo=tuple(_finite(v) for v in s.extra["lo"]) if band else None,
            hi=tuple(_finite(v) for v in s.extra["hi"]) if band else None, end=end,
            context=context))
    return out


def preview_html(ctx, spec: ChartSpec, series: list[Series], markers=(),
                 palette: Palette = Palette(), shown=None) -> str:
    """The chart drawn at build time as SVG (cit/svgplot.py), one per preview size: what a
    reader sees first, without JavaScript and in print. `markers`: (label, x, number id);
    `shown`: the ids of the series coloured (None: all)."""
    from .. import svgplot

    lines = preview_lines(ctx, spec, series, palette, shown)
    vlines = [svgplot.VLine(x, label, ctx.registry.get(nid, f"chart:{spec.name}"))
              for label, x, nid in markers]
    for _, _, nid in markers:
        ctx.num(nid, where=f"chart:{spec.name}")
    ax = svgplot.Axis(spec.x.title, log=spec.x.log)
    ay = svgplot.Axis(spec.y.title, log=spec.y.log)
    desc = ("Each coloured line is labelled at its right end" + (", with its final value" if any(
        ln.end is not None for ln in lines) else "") + (", over the other series in grey" if any(
        ln.context for ln in lines) else "") + "; the values are in the table of "  # :x[caption]
            "data below the chart.")
    out = []
    for variant, width, height in spec.preview:
        try:
            svg = svgplot.line_chart(lines, ax, ay, title=spec.title, desc=desc,
                                     uid=f"{spec.name}-{variant}", markers=vlines,
                                     width=width, height=height, colours=palette.keys)
        except svgplot.FigureError as err:
            raise BuildError(f"chart:{spec.name}", str(err)) from None
        out.append(f'<div class="chart-svg chart-svg-{variant}">{svg}</div>')
    return f'<div class="chart-preview">{"".join(out)}</div>'


def figure_key(spec: ChartSpec, series: list[Series], vlines: list[tuple[str, float]],
               palette: Palette = Palette(), shown=None) -> str:
    """Everything a figure's JSON is made from besides the code (the build's memo adds
    the hash of cit/, see block_table): the spec, the series (values and provenance),
    the markers, the palette and the series coloured."""
    h = hashlib.sha256(repr((spec, series, vlines, palette,
                             None if shown is None else sorted(shown))).encode())
    return h.hexdigest()


def chart_html(ctx, spec: ChartSpec, series: list[Series], *, markers=(), extra_html: str = "",
               figure_memo=compute_now, palette: Palette = Palette(), highlight=()) -> str:
    """The figure element: chart div, its JSON, caption, extra HTML and the data fallback;
    `highlight`, the block line's option, the ids of the series to colour (none: all).
    `figure_memo(name, key, compute)` returns the figure's JSON: the build's keeps it in
    .cache/ under figure_key, so a page edit does not remake an unchanged figure (docs/architecture.md, "Rebuilding fast")."""
    for axis in (spec.x, spec.y):
        if axis.fmt not in SERIES_FORMATS:
            raise BuildError(f"chart:{spec.name}", f"axis format {axis.fmt!r} is not one of "
                                                   f"{sorted(SERIES_FORMATS)}")
    vlines = [(label, x) for label, x, _ in markers]
    shown = highlighted(spec, series, highlight)
    fig = figure_memo(f"figure-{spec.name}", figure_key(spec, series, vlines, palette, shown),
                      lambda: build_figure(spec, series, vlines, palette, shown))
    fid = f"fig-{spec.name}"
    if fid in ctx.slugs:
        raise BuildError(ctx.path, f"chart:{spec.name} is already on this page")
    ctx.slugs.add(fid)
    ctx.add_script(plotlybundle.SCRIPT)   # written to static/, but fetched by charts.js on demand
    ctx.add_script("charts.js")
    kinds = sorted({s.kind for s in series})
    return (f'<figure class="chart-figure" id="chart-{spec.name}">\n'
            f'<div class="chart" id="{fid}" data-figure-id="{fid}" '
            f'data-plotly-src="{e(ctx.root)}static/{e(plotlybundle.SCRIPT)}" tabindex="0" role="group" '
            f'aria-label="{e(spec.title)}">{preview_html(ctx, spec, series, markers, palette, shown)}</div>\n'
            f'<script type="application/json" id="{fid}-json">{json_for_script(fig)}</script>\n'  # :x[label]
            f"{extra_html}{fallback_html(spec, series)}\n"
            # last: a figcaption must be a figure's first or last child
            f'<figcaption>{e(spec.title)}. <span class="chart-kind">Kind: {e(", ".join(kinds))}.</span></figcaption>\n'
            f"</figure>")


def series_block(inputs, spec: ChartSpec, pick, need: str) -> BlockSpec:
    """The block of a chart of the registry's series that `pick(series)` selects (`need`
    says which, for the error when there are none), looked up when a page uses it;
    `inputs` is the provider's cit.blocks.BlockInputs (its registry, memo and palette)."""
    def block(ctx, highlight=()) -> str:
        series = select(inputs.registry, spec.name, pick, need)
        return chart_html(ctx, spec, series, figure_memo=inputs.memo, palette=inputs.palette,
                          highlight=highlight)
    return BlockSpec(block, options=("highlight",))
