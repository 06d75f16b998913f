"""This study's interactive charts, `@[chart:NAME]`, drawn by the engine's chart machinery
(cit/blocks/charts.py: ChartSpec, series_block, chart_html) from registry series; see
docs/site-config.md, "Charts".

Blocks (`curve_blocks(inputs)`): `chart:loss-curves` (series `curve.*` with role "hub"),
`chart:optics-curves` (series with role "optics", except `band_energy.*`),
`chart:band-energy` (series `band_energy.*`), `chart:sweep` (series `sim.sweep.*`, log x,
break-even markers from the numbers `sim.breakeven.*` whose value is a float).

The break-even helpers (`breakeven_label`, `grid_breakeven`, `breakeven_markers`) are
shared with the decks' figures (study/blocks/figures.py).
"""

from __future__ import annotations

import math
from html import escape as e

from cit.blocks.charts import ChartAxis, ChartSpec, chart_html, select, series_block
from cit.blocks.spec import BlockSpec
from cit.registry import Registry

PAGE_TEXT = True     # its string literals reach pages (docs/claims.md, "Sentences the build finds")

# A phone's preview: on a 390 px screen the page's column is about 360 px wide, so a
# drawing 360 units wide shows its text (svgplot.FONT units) at about FONT px, over the
# 12 px the design pass asks for (docs/figures.md; tests/browser/test_chart_design.py
# measures it)
NARROW = ("narrow", 360, 340)

SPECS = {
    "loss-curves": ChartSpec(
        "loss-curves", "Validation loss against training step, per variant: mean over seeds, "  # :x[caption]
        "shaded from the lowest to the highest seed",
        ChartAxis("Training step", "int"), ChartAxis("Validation loss", "dec3"),  # :x[label]
        preview=(("wide", 720, 360), NARROW)),
    "optics-curves": ChartSpec(
        "optics-curves", "Validation loss against training step: the first design's runs, "  # :x[caption]
        "the repaired runs and the exact band",
        ChartAxis("Training step", "int"), ChartAxis("Validation loss (log scale)", "dec3", log=True),  # :x[label]
        preview=(("wide", 640, 400), NARROW)),
    "band-energy": ChartSpec(
        "band-energy", "The band's share of the energy of the compressed delta, against step",  # :x[caption]
        ChartAxis("Training step", "int"), ChartAxis("Share of the delta's energy in the band", "sig3"),  # :x[label]
        preview=(("wide", 640, 400), NARROW)),
    "sweep": ChartSpec(
        "sweep", "Time to the target loss against WAN bandwidth, per variant, with the break-even "  # :x[caption]
        "bandwidths marked",
        ChartAxis("WAN bandwidth (GB/s, log scale)", "sig3", log=True),  # :x[label]
        ChartAxis("Time to target (s, log scale)", "sig3", log=True), bands=False,  # :x[label]
        preview=(("wide", 640, 400), NARROW),
        band_note="Values are on the evaluation grid's steps to target; the times at the "  # :x[caption]
                  "bottom and the top of the interval that grid leaves follow in brackets."),
}


def breakeven_label(nid: str) -> str:
    """`sim.breakeven.Eprime_Esteps_vs_A` -> "E′ vs A (E's steps)"."""
    core = nid.split("sim.breakeven.", 1)[1]
    left, _, right = core.partition("_vs_")

    def name(v: str) -> str:
        base, _, steps = v.partition("_")
        base = base.replace("prime", "′")
        if steps.endswith("steps"):
            return f"{base} ({steps[0]}'s steps)"
        return base

    left_name = name(left)
    if "(" in left_name:
        head, tail = left_name.split(" ", 1)
        return f"{head} vs {name(right)} {tail}"
    return f"{left_name} vs {name(right)}"


def grid_breakeven(nid: str) -> bool:
    """`sim.breakeven.X_vs_Y`, the grid value; not its interval's ends (`….fewest`,
    `….most`: docs/simulator.md, "The evaluation grid's interval")."""
    return nid.startswith("sim.breakeven.") and nid.count(".") == 2


def breakeven_markers(registry: Registry) -> list[tuple[str, str, float]]:
    """(number id, label, bandwidth) of each grid break-even inside the swept range."""
    out = []
    for nid, n in sorted(registry.numbers.items()):
        if grid_breakeven(nid) and isinstance(n.value, float) and math.isfinite(n.value) \
                and n.value > 0:
            out.append((nid, breakeven_label(nid), n.value))
    return out


def sweep_chart(inputs, ctx, highlight=()) -> str:
    """The sweep, with a dotted line and a listed number for each break-even; the series
    `highlight` names coloured (none: all)."""
    reg = inputs.registry
    s = select(reg, "sweep", lambda s: s.id.startswith("sim.sweep."), 'series "sim.sweep.*"')
    marks = breakeven_markers(reg)
    extra = ""
    if marks:
        items = "".join(f"<li>{e(label)}: {ctx.num(nid)}</li>" for nid, label, _ in marks)
        extra = f'<ul class="chart-markers" aria-label="Break-even bandwidths marked">{items}</ul>\n'
    return chart_html(ctx, SPECS["sweep"], s, markers=[(lab, v, nid) for nid, lab, v in marks],
                      extra_html=extra, figure_memo=inputs.memo, palette=inputs.palette,
                      highlight=highlight)


def curve_blocks(inputs) -> dict[str, BlockSpec]:
    """The chart blocks, by name (a cit.blocks.BlockInputs is given); each looks up its
    series when a page uses it."""
    return {
        "chart:loss-curves": series_block(
            inputs, SPECS["loss-curves"],
            lambda s: s.id.startswith("curve.") and s.extra.get("role") == "hub",
            'series "curve.*" with role "hub"'),
        "chart:optics-curves": series_block(
            inputs, SPECS["optics-curves"],
            lambda s: s.extra.get("role") == "optics" and not s.id.startswith("band_energy."),
            'series with role "optics" (other than band_energy.*)'),  # :x[method]
        "chart:band-energy": series_block(
            inputs, SPECS["band-energy"], lambda s: s.id.startswith("band_energy."),
            'series "band_energy.*"'),
        "chart:sweep": BlockSpec(lambda ctx, highlight=(): sweep_chart(inputs, ctx, highlight),
                                 options=("highlight",)),
    }
