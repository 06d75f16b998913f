"""The `@[explorer]` block of the transit page: controls, output tables, the model's
inputs as JSON, and the closed-form port (templates/static/explorer.js).

The port is an ES module. It is written into the page inline, as
`<script type="module">`, rather than loaded by `src`: Chromium refuses module scripts
loaded from file:// URLs, and the site must work from file://. The same file is copied
to static/ with the other scripts (the browser test imports it from there).

Before any control moves, every output is the registered number (with its provenance),
so the block reads correctly without JavaScript; once a reader moves a control, the
module replaces the outputs with its own figures for those settings.
"""

from __future__ import annotations

import math
from html import escape as e
from pathlib import Path

from cit.errors import BuildError
from cit.markup import json_for_script, scroll_region
from cit.blocks.spec import BlockSpec, compute_now
from cit.reads import Reads



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
                      "hypothetical": x.hypothetical} for x in closed.VARIANTS],
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
    }


def _script_text(script: Path, reads: Reads | None = None) -> str:
    js = (reads or Reads.beside(script)).maybe_text(script)
    if js is None:
        raise BuildError("templates/static/explorer.js", "the explorer's script is missing")
    if "</script" in js.lower():
        raise BuildError("templates/static/explorer.js", "contains '</script', which would "
                         "end the inline script early")
    return js


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
    return {"data": explorer_data(c), "sweep": [c.values.sweep_min, c.values.sweep_max],
            "layouts": [[layout, LAYOUT_LABEL[layout]] for layout in LAYOUTS]}


def explorer_html(ctx, payload: dict, script: Path) -> str:
    """The block's HTML for page context `ctx` and `payload` (explorer_payload)."""
    data = payload["data"]
    ctl = data["controls"]
    wan_log = math.log10(ctl["wan_gbps"])
    budget_log = math.log10(ctl["module_budget_gflops"])
    lo_log, hi_log = (math.log10(x) for x in payload["sweep"])
    counts_id = ctx.unique_id("explorer-counts")
    controls = "".join([
        _slider(ctx, "wan", "WAN bandwidth (GB/s)", "sim.wan_default", lo=lo_log, hi=hi_log,
                step=0.01, value=wan_log, hint="logarithmic, across the sweep's range"),
        _slider(ctx, "latency", "WAN latency, one way (µs)", "sim.wan_latency", lo=0.0,
                hi=ctl["wan_latency_us"] * 200, step=1.0, value=ctl["wan_latency_us"],
                hint="set by the length of fibre between the two data centres"),
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
        f'<div class="explorer" id="{root_id}" data-explorer>'
        f'<p class="explorer-note">The explorer needs JavaScript. Without it, the figures '
        f'below are the recorded ones, each with its provenance.</p>'
        f'<p class="explorer-live-note" hidden>Move a control and the figures below become '
        f'the closed form\'s at your settings; the button brings back the recorded ones, '
        f'each with its provenance.</p>'
        f'<form class="explorer-controls" hidden aria-label="Explorer settings">{controls}'
        f'</form>'
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
        f'</div>'
        f'<script type="application/json" class="explorer-data" id="explorer-data">'
        f'{json_for_script(data)}</script>'
        f'<script type="module">\n{_script_text(script, getattr(ctx.site, "reads", None))}'
        f'</script>'
        f'</div>')


def explorer_blocks(sim_values, script: Path, memo=compute_now) -> dict[str, BlockSpec]:
    """`@[explorer]`, drawn from `sim_values()` (the simulator's study.sim.Computed of this
    build, handed over by the build and loaded only when needed; the block never
    recomputes it), with `script` (templates/static/explorer.js) written inline. `memo`
    keeps the block's payload: the build's keys it by the data stages' inputs and code,
    which the computation is a function of (block_table), so a page edit does not load
    the simulator (docs/architecture.md, "Rebuilding fast")."""
    def payload():
        return memo("explorer-payload", "", lambda: explorer_payload(sim_values()))
    return {"explorer": BlockSpec(lambda ctx: explorer_html(ctx, payload(), script))}
