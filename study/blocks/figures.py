"""The decks' figures: blocks `@[figure:NAME]` drawn at build time by cit/svgplot.py
from registry numbers and series (docs: README "Figures").

Every figure is a `<figure class="fig">` holding the SVG, a caption, and its data as a
table in a `<details class="chart-data">`: each cell a number element (`ctx.num`), or,
for a figure drawn from registry series, the chart fallback table of cit/blocks/charts.py,
which the naked-number check recomputes. Every value drawn comes from the registry; a
figure whose numbers or series are missing fails the build naming the block.

Which configurations a figure shows, their labels and colours are the variant
catalogue's (data/variants.yaml), as the experiment stage returns it (`data["variants"]`:
its figure lists, the energy selectors and each group's label and variant); a colour is
a palette key (`data["palette"]`), checked by svgplot. What a figure colours is the
page's to say: `@[figure:NAME highlight=KEY,KEY]` names the items the slide compares
(a bar's configuration, selector or comparison, a line's key or series id, a strip's
band or planes: an unknown one fails, listing the figure's), and the others are grey;
without it every item keeps its colour, and svgplot's rules (at most six coloured
series, one hue each) fail the block when they do not hold.

Blocks (`figure_blocks(inputs)`):
- `figure:final-loss`: final validation loss per headline configuration, whiskers of one
  standard deviation where there is more than one seed;
- `figure:energy-kept`: the share of the momentum's energy each selector keeps;
- `figure:optics-enob`: final loss against ENOB, first design and repaired, with the
  exact band for reference (log scale);
- `figure:sweep`: simulated time to target against WAN bandwidth, with break-evens;
- `figure:bytes`: payload against wire bytes per collective;
- `figure:breakevens`: the simulated break-even WAN bandwidths;
- `figure:band-positions`: which positions of a 1-D chunk the low and high bands keep;
- `figure:bit-planes`: bit planes (optical passes) per chunk of the repaired ENOB 8 runs;
- `figure:seeds`: seeds per configuration;
- `figure:target`: AdamW's loss curve, its seed range, and the target it sets;
- `figure:module-rate`: values a second the module can transform against its port rate;
- `figure:link-energy`: energy per bit of the optical links the simulator can choose.
"""

from __future__ import annotations

import html
import math
import re
from html import escape as e

from cit import svgplot as sp
from cit.errors import BuildError
from cit.registry import Number, Registry
from cit.blocks.charts import ChartAxis, ChartSpec, fallback_html, select
from cit.blocks.generic import scroll_region
from cit.blocks.spec import BlockSpec

from .curves import SPECS, breakeven_label, breakeven_markers, grid_breakeven

PAGE_TEXT = True     # its string literals reach pages (docs/claims.md, "Sentences the build finds")


# The figures' width in units: on a 390 px phone a portrait slide's column is about 350 px
# and a figure at most 15 of its ems (about 266 px) high, so 340 units wide (and heights
# in proportion) shows svgplot's FONT-unit text at 12 px or more (docs/figures.md;
# tests/browser/test_chart_design.py measures it)
WIDTH = 340

MARK_ID_RE = re.compile(r'<g class="fig-mark" data-id="([^"]+)"')


def _num(reg: Registry, block: str, nid: str) -> Number:
    return reg.get(nid, f"figure:{block}")


def chunk_words(code: str) -> str:
    """A registry chunking code as words: "1d256" -> "1-D 256-point chunks"."""
    m = re.fullmatch(r"([12])d(\d+)", code)
    if not m:
        raise BuildError("figures", f"unknown chunking code {code!r}")
    dims, size = m.groups()
    return f"1-D {size}-point chunks" if dims == "1" else f"2-D {size}x{size} chunks"  # :x[label]


def _cell(ctx, item) -> str:
    """A data-table cell: a registry number (by id), or words."""
    if isinstance(item, Number):
        return f'<td class="n">{ctx.num(item.id)}</td>'
    return f"<td>{e(item)}</td>"


def data_table(ctx, uid: str, caption: str, columns, rows) -> str:
    """A figure's data, every value a number element: `rows` are (label, [Number or
    words, ...])."""
    head = "".join(f'<th scope="col">{e(c)}</th>' for c in columns)
    body = "".join(f'<tr><th scope="row">{e(label)}</th>{"".join(_cell(ctx, c) for c in cells)}</tr>\n'
                   for label, cells in rows)
    cid = f"{uid}-data-caption"
    return (f'<details class="chart-data"><summary>The data behind this figure</summary>'
            f'{scroll_region(cid)}<table class="data">'
            f'<caption id="{cid}">{e(caption)}</caption><thead><tr>{head}</tr></thead>'
            f"<tbody>\n{body}</tbody></table></div></details>")


def figure_html(ctx, uid: str, svg: str, caption: str, table: str) -> str:
    """The figure element; its id must be new on the page."""
    if uid in ctx.slugs:
        raise BuildError(ctx.path, f"figure {uid!r} is already on this page")
    ctx.slugs.add(uid)
    for nid in sorted(set(MARK_ID_RE.findall(svg))):
        # a mark's number is on the page: its card needs it in the page's provenance
        ctx.num(html.unescape(nid))
    # the caption last: a figcaption must be a figure's first or last child
    return (f'<figure class="fig" id="{uid}-figure">{svg}\n'  # :x[label]
            f"{table}\n<figcaption>{e(caption)}</figcaption></figure>")


class Shown:
    """What the figures read of the variant catalogue (the stage's `data["variants"]`)
    and the palette's keys (the colours svgplot accepts)."""

    def __init__(self, data: dict, colours, highlight=()):
        self.highlight = frozenset(highlight)   # the block line's highlight= (none: all)
        self.items: set[str] = set()            # the keys of the items drawn
        self.groups = data["groups"]            # slug -> {variant, label}
        self.figures = data["figures"]
        self.selectors = data["selectors"]
        self.letters = data["letters"]
        self.follows = data["follows"]          # hypothetical key -> the key it follows
        self.colours = frozenset(colours)

    def group(self, block: str, slug: str) -> dict:
        if slug not in self.groups:
            raise BuildError(f"figure:{block}", f"data/variants.yaml names the group {slug!r}, "
                             "which has no completed runs")
        return self.groups[slug]

    def shows(self, key: str) -> bool:
        """Whether the item `key` keeps its colour (the block's highlight= names it, or
        names none); `key` is one of the figure's items."""
        self.items.add(key)
        return not self.highlight or key in self.highlight

    def tone(self, key: str, colour: str) -> str:
        """The item's colour, or muted when the block's highlight= leaves it out."""
        return colour if self.shows(key) else sp.MUTED


def _draw(v: Shown, block: str, fn, *args, **kw) -> str:
    unknown = sorted(v.highlight - v.items)
    if unknown:
        raise BuildError(f"figure:{block}", f"highlight names {unknown[0]!r}, not an item of this "
                         f"figure (its items: {', '.join(sorted(v.items)) or 'none'})")
    try:
        return fn(*args, colours=v.colours, **kw)
    except sp.FigureError as err:
        raise BuildError(f"figure:{block}", str(err)) from None


# ---------------------------------------------------------------- results

def final_loss(ctx, v: Shown) -> str:
    reg, uid = ctx.registry, "fig-final-loss"
    bars, rows = [], []
    for key in v.figures["headline"]:
        mean = _num(reg, "final-loss", f"final_loss_mean.{key}")
        sd = _num(reg, "final-loss", f"final_loss_sd.{key}")
        seeds = _num(reg, "final-loss", f"seeds.{key}")
        group = v.group("final-loss", key)
        label, colour = group["label"], v.tone(key, group["variant"])
        several = isinstance(seeds.value, int) and seeds.value > 1
        lo, hi = (mean.value - sd.value, mean.value + sd.value) if several else (None, None)
        bars.append(sp.Bar(label, mean.value, mean, colour, lo, hi))
        rows.append((label, [mean, sd if several else "one seed"]))  # :x[label]
    svg = _draw(v, "final-loss", sp.bar_chart, bars, sp.Axis("Final validation loss (nats per token)"),  # :x[label]
                title="Final validation loss per configuration",  # :x[caption]
                desc="Horizontal bars, one per configuration, each as long as its mean final "  # :x[caption]
                     "validation loss, with a whisker of one standard deviation either side "
                     "where it has several seeds; the values are under “The data behind this "
                     "figure”.",
                uid=uid, width=WIDTH)
    caption = ("Final validation loss, mean over seeds; whiskers span one standard deviation "  # :x[caption] :x[caption]
               "where there is more than one seed. A bar per fixed shape trained and for one "
               "repaired optics run, named on its bar; the optics page has the others.")
    table = data_table(ctx, uid, "Final validation loss per configuration",  # :x[caption]
                       ("Configuration", "Mean final loss", "Standard deviation over seeds"), rows)  # :x[label] :x[label]
    return figure_html(ctx, uid, svg, caption, table)


def energy_kept(ctx, v: Shown) -> str:
    reg, uid = ctx.registry, "fig-energy-kept"
    bars, rows = [], []
    drawn = [(s["key"], s["name"], s["variant"]) for s in v.selectors if s.get("name")]
    for code in ("2d64", "1d256"):
        group = chunk_words(code)
        for sel, name, colour in drawn:
            n = _num(reg, "energy-kept", f"energy.c{code}.momentum.all.{sel}")
            if n.value is None:
                continue
            if sel == "zigzag" and code.startswith("1d"):
                # a 1-D chunk has one order of positions: its zig-zag band is its low band
                low = _num(reg, "energy-kept", f"energy.c{code}.momentum.all.low")
                if n.value != low.value:
                    raise BuildError("figure:energy-kept", f"on {group} the zig-zag band keeps "
                                     f"{n.text} and the low band {low.text}: not the same band")
                continue
            bars.append(sp.Bar(name, n.value, n, v.tone(sel, colour), group=group))
            rows.append((f"{group}: {name}", [n]))
    svg = _draw(v, "energy-kept", sp.bar_chart, bars,
                sp.Axis("Share of the momentum's energy kept"),
                title="Share of the momentum's energy each selector keeps",
                desc="Horizontal bars grouped by chunk shape, one per selector, each as long "  # :x[caption]
                     "as the share of the momentum's energy it keeps; the values are "
                     "under “The data behind this figure”.",
                uid=uid, width=WIDTH)
    caption = ("Share of the momentum's energy each selector would keep at the same number of "  # :x[caption] :x[caption]
               "coefficients, all parameters, from the low band runs' diagnostics. On 1-D chunks "
               "the zig-zag order is the natural one, so that band has no bar of its own.")
    table = data_table(ctx, uid, "Share of the momentum's energy kept", ("Selector", "Share kept"), rows)
    return figure_html(ctx, uid, svg, caption, table)


OPTICS_RUN_RE = re.compile(r"final_loss_mean\.E\.e(\d+)p(\d+)\.(fixed\.exact|reset100\.sent)$")


def _optics_runs(reg: Registry, planes: int, design: str) -> list[tuple[int, Number]]:
    """(ENOB, final loss) of the optics runs with `planes` planes of one design, by ENOB;
    the ENOB and planes are read from the registry ids the experiment stage gives."""
    out = []
    for nid, n in reg.numbers.items():
        m = OPTICS_RUN_RE.match(nid)
        if m and int(m.group(2)) == planes and m.group(3) == design:
            out.append((int(m.group(1)), n))
    if len(out) < 2:
        raise BuildError("figure:optics-enob", f"fewer than two optics runs with {planes} planes ({design})")
    return sorted(out, key=lambda t: t[0])


def optics_enob(ctx, v: Shown) -> str:
    reg, uid = ctx.registry, "fig-optics-enob"
    first = _optics_runs(reg, 8, "fixed.exact")
    fixed = _optics_runs(reg, 8, "reset100.sent")
    exact = _num(reg, "optics-enob", "final_loss_mean.C.1d256")
    span = (min(first[0][0], fixed[0][0]), max(first[-1][0], fixed[-1][0]))

    def line(key, label, runs, colour, dash):
        return sp.Line(key, label, tuple(x for x, _ in runs), tuple(n.value for _, n in runs),
                       colour=v.tone(key, colour), dash=dash, points=tuple(n for _, n in runs),
                       point_labels=tuple(f"ENOB {x}" for x, _ in runs))
    # both designs are E's: a slide colours one of them (one hue a series)
    lines = [line("first", "First design", first, "E", "dash"),  # :x[label]
             line("repaired", "Repaired", fixed, "E", "solid"),
             sp.Line("exact", "Exact band", span, (exact.value, exact.value),  # :x[label]
                     colour=v.tone("exact", "C"), dash="dot", end=exact)]
    svg = _draw(v, "optics-enob", sp.line_chart, lines, sp.Axis("ENOB of the readout"),
                sp.Axis("Final validation loss (log scale)", log=True),  # :x[label]
                title="Final loss of the optics runs against the readout's ENOB",  # :x[caption]
                desc="Two lines over the readout's ENOB, the first design's and the repaired "  # :x[caption]
                     "runs' final loss on a log scale, and a dotted line at the exact band's; "
                     "the values are under “The data behind this figure”.",
                uid=uid, width=WIDTH, height=240)
    caption = ("Final validation loss of the emulated-optics runs with eight bit planes, one seed "  # :x[source] :x[source]
               "each, against ENOB, beside the exact band's mean (dotted). The optics code and "
               "the exact band's cut the LayerNorm vectors into different chunks, so the dotted "
               "line is not a pure optics reference (the optics page gives the evidence).")
    rows = [(f"ENOB {x}", [a, b]) for (x, a), (_, b) in zip(first, fixed)]
    table = data_table(ctx, uid, "Final validation loss of the optics runs by ENOB",  # :x[caption]
                       ("Readout", "First design", "Repaired"), rows)  # :x[label]
    return figure_html(ctx, uid, svg, caption, table)


def sweep(ctx, v: Shown) -> str:
    reg, uid = ctx.registry, "fig-sweep"
    series = select(reg, "sweep", lambda s: s.id.startswith("sim.sweep."), 'series "sim.sweep.*"')
    dashes = ("solid", "dash", "dot", "dashdot", "longdash")
    seen: dict[str, int] = {}
    lines = []
    for s in series:
        key = s.extra["variant"]
        k = seen.get(key, 0)
        seen[key] = k + 1
        colour = s.extra.get("shade") or key
        lines.append(sp.Line(s.id, s.extra["label"], s.x, s.y, colour=colour,
                             dash=dashes[k % len(dashes)], lo=s.extra.get("lo"),
                             hi=s.extra.get("hi"), context=not v.shows(s.id)))
    marks = [sp.VLine(v, lab, _num(reg, "sweep", nid)) for nid, lab, v in breakeven_markers(reg)]
    grey = any(ln.context for ln in lines)
    svg = _draw(v, "sweep", sp.line_chart, lines, sp.Axis("WAN bandwidth (GB/s, log scale)", log=True),  # :x[label]
                sp.Axis("Time to target (s, log scale)", log=True),  # :x[label]
                title="Simulated time to the target loss against WAN bandwidth",  # :x[caption]
                desc="One line per variant on log scales, each coloured one named at its right end "  # :x[caption]
                     "and shaded down to its time at the bottom of the evaluation grid's interval of "
                     "steps" + (", the others grey" if grey else "") + "; dotted vertical lines mark "
                     "the break-even bandwidths.",
                uid=uid, markers=marks, width=WIDTH, height=272)
    caption = ("Simulated time to the target loss against WAN bandwidth, on the evaluation grid's "  # :x[caption]
               "steps, each coloured line shaded down to its time at the bottom of that grid's "
               "interval" + ("; grey: the variants this slide does not compare" if grey else "")  # :x[caption]
               + "; dotted lines: break-even bandwidths, below which the first variant named is "  # :x[caption]
               "faster.")
    return figure_html(ctx, uid, svg, caption, fallback_html(SPECS["sweep"], series))


def _breakeven_end(reg, nid: str, end: str) -> float | None:
    """A break-even's bandwidth at one end of the steps' interval, for the whisker: the
    swept range's bottom where the first variant wins nowhere, its top where it wins
    everywhere (docs/simulator.md, "The evaluation grid's interval")."""
    n = reg.numbers.get(f"{nid}.{end}")
    if n is None:
        return None
    if isinstance(n.value, float):
        return n.value
    return _num(reg, "breakevens", "sim.sweep_min" if n.text.startswith("none")
                else "sim.sweep_max").value


def breakevens(ctx, v: Shown) -> str:
    reg, uid = ctx.registry, "fig-breakevens"
    found = sorted((nid, n) for nid, n in reg.numbers.items() if grid_breakeven(nid))
    if not found:
        raise BuildError("figure:breakevens", 'no numbers "sim.breakeven.*"')
    bars, rows = [], []
    for nid, n in found:
        label = breakeven_label(nid)
        rows.append((label, [n]))
        if isinstance(n.value, float) and math.isfinite(n.value) and n.value > 0:
            colour = next((k for k in v.follows if label.startswith(v.letters[k])), "muted")
            colour = v.tone(nid.removeprefix("sim.breakeven."), colour)
            bars.append(sp.Bar(label, n.value, n, colour, lo=_breakeven_end(reg, nid, "most"),
                               hi=_breakeven_end(reg, nid, "fewest")))
    if not bars:
        raise BuildError("figure:breakevens", "no break-even bandwidth falls in the simulated range")
    svg = _draw(v, "breakevens", sp.bar_chart, bars, sp.Axis("WAN bandwidth (GB/s, log scale)", log=True),  # :x[label]
                title="Break-even WAN bandwidths of the simulated comparisons",
                desc="Horizontal bars on a log scale, one per comparison that has a break-even in "  # :x[caption] :x[caption]
                     "the simulated range: below its bandwidth the first variant named reaches the "
                     "target sooner. A whisker on each bar spans the break-even across the "
                     "evaluation grid's interval of steps to target.",
                uid=uid, width=WIDTH)
    caption = ("Below each bandwidth, the first variant named reaches the target loss sooner "  # :x[caption] :x[caption]
               "than the second, on the steps the evaluation grid gives. A whisker spans from "
               "the first variant at the top of its interval of steps and the second at the "
               "bottom, to the reverse. The table also lists the comparisons with no break-even "
               "in the simulated range.")
    table = data_table(ctx, uid, "Break-even WAN bandwidths (grid values; results.md §8 gives "
                       "each at both corners of the interval)",
                       ("Comparison", "Break-even (grid)"), rows)
    return figure_html(ctx, uid, svg, caption, table)


# ---------------------------------------------------------------- traffic

def bytes_per_collective(ctx, v: Shown) -> str:
    reg, uid = ctx.registry, "fig-bytes"
    bars, rows = [], []
    for item in v.figures["bytes"]:
        key, name, colour = item["number"], item["name"], item["variant"]
        payload = _num(reg, "bytes", f"hub.payload_mb.{key}")
        wire = _num(reg, "bytes", f"hub.wire_mb.{key}")
        bars.append(sp.Bar("Payload", payload.value, payload, "muted", group=name))
        bars.append(sp.Bar("On the wire", wire.value, wire, v.tone(key, colour), group=name))
        rows.append((name, [payload, wire]))
    svg = _draw(v, "bytes", sp.bar_chart, bars, sp.Axis("MB per worker per step"),
                title="Payload and bytes on the wire per worker per step",
                desc="A pair of bars per variant: the payload each worker sends per step, and "  # :x[caption]
                     "the bytes its collective puts on the wire; the values are "
                     "under “The data behind this figure”.",
                uid=uid, width=WIDTH)
    caption = ("What each worker has to send (payload) and what its collective puts on the wire, "
               "per step, in MB.")
    table = data_table(ctx, uid, "Payload and wire bytes per worker per step (MB)",
                       ("Variant and collective", "Payload (MB)", "On the wire (MB)"), rows)  # :x[label]
    return figure_html(ctx, uid, svg, caption, table)


# ---------------------------------------------------------------- optics

def _trained_shapes(reg: Registry, prefix: str) -> str:
    """The chunk shapes a configuration was trained with, in words, from the registry's
    final losses (`final_loss_mean.<prefix>.<chunking>`)."""
    codes = sorted(nid.rsplit(".", 1)[1] for nid in reg.numbers
                   if nid.startswith(f"final_loss_mean.{prefix}.") and nid.count(".") == 3)
    if not codes:
        raise BuildError("figures", f"no trained configuration final_loss_mean.{prefix}.*")
    return " and ".join(chunk_words(c) for c in codes)


def band_positions(ctx, v: Shown) -> str:
    reg, uid = ctx.registry, "fig-band-positions"
    length = _num(reg, "band-positions", "exp.chunk_1d")
    kept = _num(reg, "band-positions", "exp.kept_per_chunk")
    n, k = int(length.value), int(kept.value)
    if not 0 < k <= n:
        raise BuildError("figure:band-positions", f"keeps {k} of {n} positions")
    low = _num(reg, "band-positions", "energy.c1d256.momentum.all.low")
    high = _num(reg, "band-positions", "energy.c1d256.momentum.all.high")
    strips = [sp.Strip("Low band", tuple(range(k)), v.tone("low", "C"), low),  # :x[label]
              sp.Strip("High band", tuple(range(n - k, n)), v.tone("high", "F"), high)]  # :x[label]
    svg = _draw(v, "band-positions", sp.strip_diagram, strips, length=n, columns=64,
                axis_title="A chunk's positions, lowest frequency first, in rows",  # :x[label]
                title="Which positions of a one-dimensional chunk the two fixed bands keep",  # :x[caption]
                desc="Two grids of the chunk's positions, filled where a band keeps a position; "  # :x[caption]
                     "beside each, the share of the momentum's energy it "
                     "would keep on the 1-D 256-point low band's runs.",
                uid=uid, width=WIDTH)
    caption = ("The positions of a 1-D chunk that the two bands keep, the same in every chunk and step, "  # :x[caption] :x[caption] :x[caption]
               "and the share of the momentum's energy each would keep, measured on the "
               "momentum of the exact low band's runs with 1-D 256-point chunks (results.md "
               f"§2). The high band itself was trained with {_trained_shapes(reg, 'F.high')}. "
               "Top-k's positions change from chunk to chunk and step to step.")
    on = "share of the momentum's energy it would keep on the 1-D 256-point low band's runs"  # :x[caption]
    rows = [("Positions in a chunk", [length]), ("Positions a band keeps", [kept]),  # :x[label] :x[label]
            (f"Low band: {on}", [low]), (f"High band: {on}", [high])]  # :x[number] :x[number]
    table = data_table(ctx, uid, "Chunk, band size and energy kept", ("Quantity", "Value"), rows)  # :x[caption]
    return figure_html(ctx, uid, svg, caption, table)


PLANES_RE = re.compile(r"sim\.enob\.E\.e8p(\d+)\.reset100\.sent\.planes$")


def bit_planes(ctx, v: Shown) -> str:
    reg, uid = ctx.registry, "fig-bit-planes"
    runs = []
    for nid, n in reg.numbers.items():
        m = PLANES_RE.match(nid)
        if m:
            loss = _num(reg, "bit-planes", f"final_loss_mean.E.e8p{m.group(1)}.reset100.sent")
            runs.append((int(n.value), n, loss))
    if not runs:
        raise BuildError("figure:bit-planes", "no repaired ENOB 8 optics runs (sim.enob.E.e8p*)")
    runs.sort(key=lambda r: r[0])
    most = runs[-1][0]
    strips = [sp.Strip(f"{p} planes", tuple(range(p)), v.tone(f"p{p}", "E"), loss)
              for p, _, loss in runs]
    svg = _draw(v, "bit-planes", sp.strip_diagram, strips, length=most,
                axis_title="Bit planes, one optical pass each",  # :x[caption]
                title="Bit planes per chunk and the final loss of the repaired optics runs",  # :x[caption]
                desc="One row of cells per run, one cell per bit plane sent through the transform; "  # :x[caption]
                     "beside the row, its run's final validation loss.",
                uid=uid, width=WIDTH)
    caption = ("Each bit plane is one pass through the optical transform. Repaired runs at "  # :x[caption] :x[caption]
               "ENOB 8, one seed each, with their final validation loss.")
    rows = [(f"ENOB 8, {p} planes", [planes, loss]) for p, planes, loss in runs]
    table = data_table(ctx, uid, "Bit planes and final loss of the repaired ENOB 8 runs",  # :x[caption]
                       ("Run", "Bit planes", "Final validation loss"), rows)  # :x[label] :x[label]
    return figure_html(ctx, uid, svg, caption, table)


# ---------------------------------------------------------------- the setup

def seeds(ctx, v: Shown) -> str:
    """One bar per configuration the registry counts seeds of (`seeds.*`), the optics
    configurations in the data table only, each once under its full name."""
    reg, uid = ctx.registry, "fig-seeds"
    bars, rows = [], []
    groups = sorted(nid.removeprefix("seeds.") for nid in reg.numbers
                    if nid.startswith("seeds.") and not nid.startswith("seeds.E."))
    order = v.figures["seeds"]
    for key in groups:
        if key not in order:
            raise BuildError("figure:seeds", f"the configuration seeds.{key} is not in "
                             "data/variants.yaml's figures.seeds")
    for key in sorted(groups, key=order.index):
        n = _num(reg, "seeds", f"seeds.{key}")
        group = v.group("seeds", key)
        label = group["label"]
        bars.append(sp.Bar(label, n.value, n, v.tone(key, group["variant"])))
        rows.append((label, [n]))
    optics = sorted(nid for nid in reg.numbers if nid.startswith("seeds.E."))
    svg = _draw(v, "seeds", sp.bar_chart, bars, sp.Axis("Seeds (independent runs)"),  # :x[label]
                title="Seeds per configuration",  # :x[label]
                desc="Horizontal bars, one per configuration, each as long as the number of "  # :x[caption]
                     "seeds it ran with; the values are under “The data behind this figure”.",
                uid=uid, width=WIDTH)
    caption = ("How many seeds a configuration ran with. A configuration with one seed has "  # :x[caption] :x[caption]
               "no measured spread.")
    if optics and all(reg.numbers[nid].value == 1 for nid in optics):
        caption += (" The optics configurations ran with one seed apiece; the data behind this "  # :x[conditional]
                    "figure lists them.")
    for nid in optics:
        curve = reg.series.get("optics_curve." + nid.removeprefix("seeds."))
        if curve is None:
            raise BuildError("figure:seeds", f"no series names the configuration of {nid!r}")
        rows.append((" ".join(curve.extra["label"].split()), [reg.numbers[nid]]))
    table = data_table(ctx, uid, "Seeds per configuration", ("Configuration", "Seeds"), rows)  # :x[label]
    return figure_html(ctx, uid, svg, caption, table)


def target(ctx, v: Shown) -> str:
    reg, uid = ctx.registry, "fig-target"
    s = reg.series.get("curve.A")
    if s is None:
        raise BuildError("figure:target", 'series "curve.A" is missing')
    goal = _num(reg, "target", "exp.target")
    line = sp.Line(s.id, "AdamW; target", s.x, s.y, colour="A", lo=s.extra.get("lo"),
                   hi=s.extra.get("hi"), end=goal)
    svg = _draw(v, "target", sp.line_chart, [line], sp.Axis("Training step"),
                sp.Axis("Validation loss (log scale)", log=True),  # :x[label]
                title="AdamW's validation loss against step, and the target it sets",  # :x[caption]
                desc="One falling line, shaded between the seeds' losses at each step; "  # :x[caption]
                     "its last value is the target of the experiment's own tables.",
                uid=uid, width=WIDTH, height=221)
    caption = ("AdamW's validation loss against step, mean over seeds, shaded over the "  # :x[caption]
               "range of its seeds; its final mean is the target of the experiment's "
               "tables (the simulator uses another, on the transit page).")
    spec = ChartSpec("target", "AdamW's validation loss against step", ChartAxis("Training step", "int"),  # :x[caption]
                     ChartAxis("Validation loss", "dec3"))  # :x[label]
    return figure_html(ctx, uid, svg, caption, fallback_html(spec, [s]))


def module_rate(ctx, v: Shown) -> str:
    reg, uid = ctx.registry, "fig-module-rate"
    port = _num(reg, "module-rate", "scenario.module_port_rate")
    rate = _num(reg, "module-rate", "sim.module_rate")
    counts = _num(reg, "module-rate", "scenario.transform_counts_against_budget")
    if port.unit != rate.unit:
        raise BuildError("figure:module-rate", f"units differ: {port.unit!r} and {rate.unit!r}")
    bars = [sp.Bar("Port rate", port.value, port, "muted"),
            sp.Bar("Band computed within the budget", rate.value, rate, "E")]  # :x[label]
    svg = _draw(v, "module-rate", sp.bar_chart, bars, sp.Axis(f"Values a second ({port.unit})"),
                title="The module's port rate and the rate it can compute the band at",  # :x[caption]
                desc="Two horizontal bars: the rate values leave the module, and the rate the "  # :x[caption]
                     "simulator lets it compute the band at.",
                uid=uid, width=WIDTH)
    caption = ("The port rate is the original study page's figure; the band's rate is the simulator's, with the "  # :x[caption]
               "transform counted against the compute budget as its scenario sets.")
    rows = [("Port rate", [port]), ("Band computed within the budget", [rate]),  # :x[label]
            ("Transform counts against the budget", [counts])]
    table = data_table(ctx, uid, "The module's rates", ("Quantity", "Value"), rows)
    return figure_html(ctx, uid, svg, caption, table)


LINKS = (("optics_400g_pj_per_bit", "Pluggable optics, 400G"),
         ("optics_800g_pj_per_bit", "Pluggable optics, 800G"),
         ("cpo_pj_per_bit", "Co-packaged optics"))


def link_energy(ctx, v: Shown) -> str:
    reg, uid = ctx.registry, "fig-link-energy"
    bars, rows = [], []
    for key, name in LINKS:
        n = _num(reg, "link-energy", f"scenario.{key}")
        bars.append(sp.Bar(name, n.value, n, "muted" if "optics_" in key else "A"))
        rows.append((name, [n]))
    svg = _draw(v, "link-energy", sp.bar_chart, bars, sp.Axis("Energy per bit (pJ)"),
                title="Energy per bit of the optical links the simulator can choose",
                desc="Horizontal bars, one per link type the scenario can choose, by energy per bit.",  # :x[caption]
                uid=uid, width=WIDTH)
    caption = "Energy per bit of each link type, as the simulator's scenario file cites it."
    table = data_table(ctx, uid, "Energy per bit of each link type", ("Link", "pJ per bit"), rows)
    return figure_html(ctx, uid, svg, caption, table)


def figure_blocks(inputs) -> dict[str, BlockSpec]:
    """The figure blocks, by name (a cit.blocks.BlockInputs is given); each reads the
    registry when a page uses it, and the catalogue the experiment stage returned."""
    def shown(highlight) -> Shown:
        if "variants" not in inputs.data:
            raise BuildError("site.yaml stages", "the figures draw from the `variants` data "
                             "of the experiment stage (study.stages:experiment), which no "
                             "stage returned")
        return Shown(inputs.data["variants"], inputs.palette.keys, highlight)

    fns = {"figure:final-loss": final_loss, "figure:energy-kept": energy_kept,
           "figure:optics-enob": optics_enob, "figure:sweep": sweep,
           "figure:bytes": bytes_per_collective, "figure:breakevens": breakevens,
           "figure:band-positions": band_positions, "figure:bit-planes": bit_planes,
           "figure:seeds": seeds, "figure:target": target,
           "figure:module-rate": module_rate, "figure:link-energy": link_energy}
    return {name: BlockSpec(lambda ctx, highlight=(), fn=fn: fn(ctx, shown(highlight)),
                            options=("highlight",)) for name, fn in fns.items()}
