"""The `@[explorer]` block of the transit page: controls, output tables, the model's
inputs as JSON, and the closed-form port (study/static/explorer.js).

The port is a classic script loaded by `src`, not a module: Chromium refuses module
scripts from file:// URLs, and the site must work from file://; nor is it written
inline, which the site's Content-Security-Policy forbids (docs/output.md, "Content-Security-Policy").

The page asks for static/explorer-boot.js only: it shows the controls at load and
fetches the port the first time a reader reaches for them (pointer, focus, key, touch or
change), so a page view that never touches the explorer carries none of the port's code
(docs/architecture.md, "What a page loads").

Before any control moves, every output is the registered number (with its provenance),
so the block reads correctly without JavaScript; once a reader moves a control, the
port replaces the outputs with its own figures for those settings.
"""

from __future__ import annotations

import math
from html import escape as e

from cit import svgplot
from cit.errors import BuildError
from cit.fmt import GBPS
from cit.markup import json_for_script, scroll_region
from cit.blocks.spec import BlockSpec

PAGE_TEXT = True     # its string literals reach pages (docs/claims.md, "Sentences the build finds")

# The explorer's figure: what the build draws here at the recorded settings and
# explorer.js draws again at the reader's (it reads these from the embedded data).
FIGURE = {
    "uid": "explorer-figure-svg",
    "title": "Time to the target loss against WAN bandwidth at these settings, per "  # :x[caption]
             "variant, with the break-evens marked",
    "desc": "Each line is labelled at its right end; the break-even bandwidths and the "
            "bandwidth set are marked; the tables beside the figure give the values.",
    "x": {"title": "WAN bandwidth (GB/s, log scale)", "log": True},  # :x[label]
    "y": {"title": "Time to target (s, log scale)", "log": True},  # :x[label]
    # one drawing for both: on a 390 px phone the explorer is about 360 px wide, so 380
    # units keep svgplot's FONT-unit text over 12 px (docs/figures.md)
    "width": 380,
    "height": 300,
    "set_label": "WAN bandwidth set",
}


def line_style(key: str, mech: str, hypothetical: bool) -> dict:
    """A variant's svgplot colour, the palette key of its step-time model (the
    hypothetical ones have shades of their own: data/variants.yaml) and dash (the
    hypothetical ones dashed, E′ on the exact band's steps dotted)."""
    dash = "dot" if key == "Eprime_Csteps" else "dash" if hypothetical else "solid"
    return {"colour": mech, "dash": dash}



def explorer_data(c) -> dict:
    """The model's inputs at the recorded settings, for explorer.js (plain JSON)."""
    from ..sim import closed
    from ..sim.compute import BREAKEVENS
    from ..sim.quoted import against
    from ..sim.report import other_a_label
    v = c.values
    return {
        "base": c.params.as_json(),
        "controls": dict(c.controls),
        "gpu_peak_tflops": v.gpu_peak_flops,
        "variants": [{"key": x.key, "label": x.label, "mech": x.mech,
                      "collective": x.collective, "steps_from": x.steps_from,
                      "hypothetical": x.hypothetical, **line_style(x.key, x.mech, x.hypothetical)}
                     for x in closed.VARIANTS],
        "steps": dict(c.steps),
        "breakevens": [{"id": bid, "label": label, "a": a, "b": b}
                       for bid, label, a, b in BREAKEVENS],
        "grid": list(c.grid),
        "lo": c.grid[0],
        "hi": c.grid[-1],
        "iterations": v.bisection_iterations,
        "enob": [{"slug": r.run.slug, "enob": r.run.enob, "planes": r.run.planes,
                  "fs_every": r.run.fs_every, "steps": r.run.steps.mean} for r in c.enob],
        "e_planes": v.e_planes,
        "other_layout": "flat-ring" if c.params.layout == "hierarchical" else "hierarchical",
        "other_a_label": other_a_label(c),
        "against": [{"key": k, "what": c.quoted.figures[k].what,
                     "text": c.quoted.figures[k].text(), "value": c.quoted.figures[k].value,
                     "decimals": c.quoted.figures[k].decimals,
                     "kind": c.quoted.figures[k].kind} for k in against(c.quoted)],
        "figure": FIGURE,
    }


def figure_curves(c) -> dict:
    """Each variant's time to target (s) at every bandwidth of the sweep's grid, by the
    closed form at the recorded settings (None where it never reaches the target)."""
    from ..sim import closed
    return {v.key: [closed.time_to_target(c.params.with_(bw_wan=bw), v.mech, c.steps[v.key])
                    for bw in c.grid] for v in closed.VARIANTS}


def figure_lines(data: dict, curves: dict) -> list:
    """The figure's lines: every variant that reaches the target."""
    xs = tuple(GBPS.of(g) for g in data["grid"])
    return [svgplot.Line(key=v["key"], label=v["label"], x=xs, y=tuple(curves[v["key"]]),
                         colour=v["colour"], dash=v["dash"])
            for v in data["variants"] if data["steps"][v["key"]] is not None]


def figure_svg(data: dict, lines: list, markers: list, colours=None) -> str:
    """The figure as svgplot draws it (explorer.js's lineChart draws the same);
    `colours`: the palette's keys (cit/palette.py)."""
    f = data["figure"]
    try:
        return svgplot.line_chart(
            lines, svgplot.Axis(f["x"]["title"], log=f["x"]["log"]),
            svgplot.Axis(f["y"]["title"], log=f["y"]["log"]), title=f["title"],
            desc=f["desc"], uid=f["uid"], markers=markers, width=f["width"],
            height=f["height"], colours=colours)
    except svgplot.FigureError as err:
        raise BuildError("@[explorer]", str(err)) from None


def figure_markers(ctx, data: dict) -> list:
    """The break-evens that fall inside the sweep and the bandwidth set, each a mark of
    its registered number (so its card opens from the figure)."""
    out = []
    for be in data["breakevens"]:
        nid = f"sim.breakeven.{be['id']}"
        n = ctx.registry.get(nid, "@[explorer]")
        if isinstance(n.value, float) and math.isfinite(n.value) and n.value > 0:
            ctx.num(nid)
            out.append(svgplot.VLine(n.value, be["label"], n))
    ctx.num("sim.wan_default")
    out.append(svgplot.VLine(data["controls"]["wan_gbps"], data["figure"]["set_label"],
                             ctx.registry.get("sim.wan_default", "@[explorer]")))
    return out


def explorer_figure(ctx, payload: dict, colours=None) -> str:
    """The figure at the recorded settings; explorer.js redraws it in place."""
    data = payload["data"]
    svg = figure_svg(data, figure_lines(data, payload["curves"]), figure_markers(ctx, data),
                     colours)
    return (f'<figure class="explorer-figure"><div class="explorer-svg" data-out="figure">'  # :x[caption]
            f'{svg}</div><figcaption>{e(data["figure"]["title"])}: the closed form\'s times '
            f'at the settings above, redrawn when a control moves.</figcaption></figure>')


def _slider(ctx, name, label, num_id, *, lo, hi, step, value, hint) -> str:
    cid = ctx.unique_id(f"explorer-{name}")
    return (f'<div class="explorer-control">'
            f'<label for="{cid}">{e(label)}</label>'
            f'<input id="{cid}" name="{name}" type="range" min="{lo!r}" max="{hi!r}" '
            f'step="{step!r}" value="{value!r}" aria-describedby="{cid}-hint">'
            f'<output for="{cid}" data-out="{name}">{ctx.num(num_id)}</output>'
            f'<span class="explorer-hint" id="{cid}-hint">{e(hint)}</span></div>')


def _layout_switch(ctx, current: str, layouts: list) -> str:
    """Radio buttons for the collective layout (hierarchical or flat ring); `layouts`:
    [layout, label] pairs."""
    items = []
    for layout, label in layouts:
        rid = ctx.unique_id(f"explorer-layout-{layout}")
        checked = " checked" if layout == current else ""
        items.append(f'<span><input id="{rid}" name="layout" type="radio" value="{layout}"'
                     f'{checked}><label for="{rid}">{e(label)}</label></span>')
    return (f'<fieldset class="explorer-control explorer-switch"><legend>Collective layout'
            f'</legend>{"".join(items)}</fieldset>')


def explorer_payload(c) -> dict:
    """What the block draws from the simulator's computation `c`, as plain JSON: the
    data explorer.js reads, the sweep's range for the WAN slider, and the layouts."""
    from ..sim.closed import LAYOUT_LABEL, LAYOUTS
    return {"data": explorer_data(c), "curves": figure_curves(c),
            "sweep": [c.values.sweep_min, c.values.sweep_max],
            "layouts": [[layout, LAYOUT_LABEL[layout]] for layout in LAYOUTS]}


def explorer_html(ctx, payload: dict, colours=None, highlight=()) -> str:
    """The block's HTML for `ctx` and `payload` (explorer_payload), `highlight`'s variants
    coloured (`highlighted`); asks for static/explorer-boot.js (which fetches
    static/explorer.js when a reader reaches for the controls)."""
    ctx.add_script("explorer-boot.js")
    payload = highlighted(payload, highlight)
    data = payload["data"]
    ctl = data["controls"]
    wan_log = math.log10(ctl["wan_gbps"])
    budget_log = math.log10(ctl["module_budget_gflops"])
    lo_log, hi_log = (math.log10(x) for x in payload["sweep"])
    counts_id = ctx.unique_id("explorer-counts")
    controls = "".join([
        _slider(ctx, "wan", "WAN bandwidth (GB/s)", "sim.wan_default", lo=lo_log, hi=hi_log,
                step=0.01, value=wan_log, hint="logarithmic, across the sweep's range"),
        _slider(ctx, "latency", "WAN latency, one way (µs)", "sim.wan_latency", lo=0.0,  # :x[label]
                hi=ctl["wan_latency_us"] * 200, step=1.0, value=ctl["wan_latency_us"],
                hint="set by the length of fibre between the two data centres"),  # :x[label]
        _slider(ctx, "budget", "Module compute budget, fitted (GFLOP/s)",
                "scenario.module_budget", lo=0.0, hi=budget_log * 2, step=0.01,
                value=budget_log, hint="logarithmic; starts at the fitted value; the "
                "original page's range is in the scenario table"),
        _slider(ctx, "utilisation", "GPU utilisation (fraction of peak)",
                "scenario.utilisation", lo=0.05, hi=1.0, step=0.01,
                value=ctl["utilisation"], hint="the share of peak FLOP/s the GPU sustains"),
        f'<div class="explorer-control explorer-switch"><input id="{counts_id}" '
        f'name="counts" type="checkbox"{" checked" if ctl["transform_counts"] else ""}>'
        f'<label for="{counts_id}">The optical transform counts against the module\'s '
        f'budget</label></div>',
        _layout_switch(ctx, ctl["layout"], payload["layouts"]),
        '<div class="explorer-actions"><button type="button" data-action="reset">'
        'Back to the recorded settings</button></div>',
    ])
    times = []
    for var in data["variants"]:
        k = var["key"]
        hyp = ' <span class="kind-label">hypothetical</span>' if var["hypothetical"] else ""
        times.append(
            f'<tr data-variant="{e(k)}"><th scope="row">{e(var["label"])}{hyp}</th>'
            f'<td class="n" data-out="step">{ctx.num(f"sim.step_time.{k}")}</td>'
            f'<td class="n" data-out="time">{ctx.num(f"sim.time.{k}")}</td>'
            f'<td class="n" data-out="energy">{ctx.num(f"sim.energy.{k}")}</td></tr>')
    bes = []
    for be in data["breakevens"]:
        bid, label = be["id"], be["label"]
        bes.append(f'<tr><th scope="row">{e(label)}</th><td class="n" data-out="be" '
                   f'data-breakeven="{e(bid)}">{ctx.num(f"sim.breakeven.{bid}")}</td></tr>')
    root_id = ctx.unique_id("explorer")
    return (
        f'<div class="explorer wide" id="{root_id}" data-explorer>'  # :x[caption] :x[caption] :x[caption]
        f'<p class="explorer-note">The explorer needs JavaScript. Without it, the figures '
        f'below are the recorded ones, each with its provenance.</p>'
        f'<p class="explorer-live-note" hidden>Move a control and the figures below become '
        f'the closed form\'s at your settings; the button brings back the recorded ones, '
        f'each with its provenance.</p>'
        f'<form class="explorer-controls" hidden aria-label="Explorer settings">{controls}'
        f'</form>'
        f'<div class="explorer-results">{explorer_figure(ctx, payload, colours)}'
        f'<div class="explorer-outputs" aria-live="polite">'
        f'{scroll_region("explorer-times-caption")}<table class="data explorer-times">'
        f'<caption id="explorer-times-caption">Time and energy to the target loss at these settings '
        f'(closed form, no contention; the original page gave no energy figures)</caption>'
        f'<thead><tr><th scope="col">Variant</th><th scope="col" class="n">Step time (ms)'
        f'</th><th scope="col" class="n">Time to target (s)</th><th scope="col" class="n">'
        f'Energy to target (kJ)</th></tr></thead><tbody>{"".join(times)}</tbody></table>'
        f'</div>'
        f'{scroll_region("explorer-breakevens-caption")}<table class="data explorer-breakevens">'
        f'<caption id="explorer-breakevens-caption">Break-even WAN bandwidths at these settings</caption>'
        f'<thead><tr><th scope="col">Comparison</th><th scope="col" class="n">Break-even'
        f'</th></tr></thead><tbody>{"".join(bes)}</tbody></table></div>'
        f'<p class="explorer-enob">Break-even ENOB at these settings: '
        f'<span data-out="enob">{ctx.num("sim.enob.breakeven")}</span></p>'
        f'<p class="explorer-against">The original\'s transit figures that ours match at '
        f'the precision it printed, at these settings: '
        f'<span data-out="against-same">{ctx.num("sim.against.same")}</span> of '
        f'<span data-out="against-total">{ctx.num("sim.against.total")}</span></p>'
        f'</div></div>'
        f'<script type="application/json" class="explorer-data" id="explorer-data">'
        f'{json_for_script(data)}</script>'
        f'</div>')


def explorer_blocks(inputs) -> dict[str, BlockSpec]:
    """`@[explorer]`, drawn from the payload the simulator stage returned
    (`inputs.data["explorer"]`, explorer_payload: plain JSON, so the block never sees
    the simulator's classes), with static/explorer.js."""
    def block(ctx, highlight=()) -> str:
        payload = inputs.data.get("explorer")
        if payload is None:
            raise BuildError("site.yaml stages", "@[explorer] draws from the `explorer` "
                             "data of the simulator stage (study.stages:simulator), which "
                             "no stage returned")
        return explorer_html(ctx, payload, inputs.palette.keys, highlight)
    return {"explorer": BlockSpec(block, options=("highlight",))}


def highlighted(payload: dict, highlight) -> dict:
    """The payload with the variants the block line's `highlight=` leaves out drawn grey
    (svgplot's muted, in the build's figure and in explorer.js's, which read the same
    data); none named: each colour's first variant keeps it and any later one of the same
    colour (E′ on a second set of steps) is grey, one hue a series. An unknown key fails."""
    keys = [v["key"] for v in payload["data"]["variants"]]
    for h in highlight:
        if h not in keys:
            raise BuildError("@[explorer]", f"highlight names {h!r}, not a variant of the "
                             f"explorer (its variants: {', '.join(keys)})")
    if not highlight:
        seen = set()
        highlight = [v["key"] for v in payload["data"]["variants"]
                     if not (v["colour"] in seen or seen.add(v["colour"]))]
    variants = [v if v["key"] in highlight else {**v, "colour": svgplot.MUTED}
                for v in payload["data"]["variants"]]
    return {**payload, "data": {**payload["data"], "variants": variants}}
