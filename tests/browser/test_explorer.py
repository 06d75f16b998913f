"""The transit explorer's JavaScript port, in Chromium: it reproduces, character for
character, every cell of data/sim/results.md §3-§7 that the closed form covers (§7 is
"Against the original"); its formatting matches cit.fmt; moving a control changes the
results, and the layout switch moves the break-evens; it runs from file://; the page
fetches the port only when a reader reaches for the controls, and a move made before it
arrived is shown once it has.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cit.fmt import fmt, fmt_general, fmt_sig
from cit.markdown import PageContext
from cit.markup import json_for_script
from cit.registry import Registry
from study.runs import load_folder
from study.sim.compute import compute_from_paths
from study.sim.register import register_sim
from study.sim.report import RESULTS, parse
from cit import svgplot
from study.blocks.explorer import (explorer_data, explorer_html, explorer_payload, highlighted,
                                   figure_lines, figure_svg)

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "study" / "static" / "explorer.js"
BOOT = ROOT / "study" / "static" / "explorer-boot.js"
HEADLINE = "results/tinystories-gpu"
PORTED_SECTIONS = (3, 4, 5, 6, 7)


@pytest.fixture(scope="module")
def computed(vendored_root):
    return compute_from_paths(ROOT, load_folder(vendored_root / HEADLINE, HEADLINE))


@pytest.fixture(scope="module")
def harness(computed, tmp_path_factory, serve_dir):
    """A page that loads explorer.js and holds the embedded data."""
    d = tmp_path_factory.mktemp("explorer-harness")
    shutil.copy(SCRIPT, d / "explorer.js")
    (d / "index.html").write_text(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>harness</title>'
        '</head><body><script type="application/json" id="explorer-data">'
        + json_for_script(highlighted(explorer_payload(computed), ())["data"]) + "</script>"
        '<script src="explorer.js"></script><script>window.X = window.citExplorer; '
        "window.ready = true;</script></body></html>", encoding="utf-8")
    return serve_dir(d)


def open_harness(make_page, url):
    page = make_page()
    page.goto(url + "index.html")
    page.wait_for_function("() => window.ready === true")
    return page


def recorded_cells():
    text = (ROOT / RESULTS).read_text()
    out = []
    for sec in parse(text).sections:
        if sec.number not in PORTED_SECTIONS:
            continue
        for b in sec.blocks:
            if isinstance(b, tuple):
                continue
            for row in b.rows:
                for col, c in zip(b.columns, row):
                    out.append((f"{sec.number}|{b.name}|{row[0].text}|{col}", c.text))
    return out


def test_the_port_reproduces_every_closed_form_cell_of_sections_three_to_seven(
        make_page, harness, record_property):
    page = open_harness(make_page, harness)
    cells = page.evaluate(
        "() => X.computeCells(JSON.parse(document.getElementById('explorer-data')"
        ".textContent))")
    recorded = recorded_cells()
    compared, mismatches, uncovered = 0, [], []
    for key, text in recorded:
        if key not in cells:
            uncovered.append(key)
            continue
        compared += 1
        if cells[key] != text:
            mismatches.append(f"{key}: results.md {text!r}, explorer.js {cells[key]!r}")
    extra = sorted(set(cells) - {k for k, _ in recorded})
    record_property("cells_compared", compared)
    record_property("cells_not_covered", len(uncovered))
    against = sum(1 for k, _ in recorded if k.startswith("7|"))
    print(f"\nexplorer.js: {compared} cells of {RESULTS} §3-§7 compared ({against} of them "
          f"in §7, Against the original), {len(mismatches)} mismatches, {len(uncovered)} "
          "it could not compute")
    assert recorded, "no cells in sections 3-7"
    assert against, "no cells in section 7"
    assert not mismatches, "\n".join(mismatches)
    assert not uncovered, "cells the port does not produce:\n" + "\n".join(uncovered)
    assert not extra, "cells the port produces that results.md lacks:\n" + "\n".join(extra)
    assert compared == len(recorded)


def python_figure(lines: list, markers: list, data: dict) -> str:
    """svgplot's drawing of the port's own lines and markers (as plain JSON)."""
    return figure_svg(data, [svgplot.Line(key=ln["key"], label=ln["label"], x=tuple(ln["x"]),
                                          y=tuple(ln["y"]), colour=ln["colour"],
                                          dash=ln["dash"]) for ln in lines],
                      [svgplot.VLine(m["x"], m["label"]) for m in markers])


# Settings the figure is compared at besides the recorded ones: each moves the curves or
# the break-evens (and with them the axes, the labels and the markers' staircase).
FIGURE_SETTINGS = [{}, {"wan_gbps": 1.0}, {"utilisation": 1.0, "module_budget_gflops": 5.0},
                   {"wan_latency_us": 4000.0, "layout": "flat-ring"},
                   {"transform_counts": False, "wan_gbps": 300.0}]


def test_the_port_draws_its_figure_as_svgplot_draws_the_same_lines(make_page, harness,
                                                                    computed, measured):
    """At the recorded settings the lines are the build's own (the closed form in Python);
    at each other setting svgplot draws the port's lines, and the two SVGs must be the
    same, character for character."""
    page = open_harness(make_page, harness)
    payload = highlighted(explorer_payload(computed), ())   # as the page is given it
    data = json.loads(json.dumps(payload["data"]))
    for settings in FIGURE_SETTINGS:
        got = page.evaluate("(c) => { const d = JSON.parse(document.getElementById("
                            "'explorer-data').textContent); return [X.figureInput(d, c), "
                            "X.figureSvg(d, c)]; }", settings)
        (inp, svg) = got
        want = python_figure(inp["lines"], inp["markers"], data)
        assert svg == want, (settings, first_difference(svg, want))
        if not settings:
            assert [ln["y"] for ln in inp["lines"]] == [
                payload["curves"][ln.key] for ln in figure_lines(data, payload["curves"])]
            assert len(inp["markers"]) >= 2
    measured(f"explorer figure: port = svgplot at {len(FIGURE_SETTINGS)} settings")


def first_difference(a: str, b: str) -> str:
    k = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return f"at {k}: port {a[k - 40:k + 40]!r} / svgplot {b[k - 40:k + 40]!r}"


FORMAT_CASES = [0.0, 0.125, 0.375, 2.5, 3.5, 1234.5, 0.0005, 0.0015, 999.95, 9.995,
                99.95, 0.1, 1e-7, 12.5, 1000.0, 999.9999999, 123456789.123, 2.675,
                1.005, 5e-5, 0.00049999, 31666944.0, 2666.6666666666665, 0.8055661998]


def test_the_port_formats_numbers_as_cit_fmt_does(make_page, harness):
    page = open_harness(make_page, harness)
    for x in FORMAT_CASES:
        for d in (0, 1, 2, 3):
            got = page.evaluate("([x, d]) => X.fmt(x, d)", [x, d])
            assert got == fmt(x, d), (x, d)
        for sig in (1, 2, 3, 4):
            if x == 0.0 and sig < 1:
                continue
            got = page.evaluate("([x, s]) => X.fmtSig(x, s)", [x, sig])
            assert got == fmt_sig(x, sig), (x, sig)
        assert page.evaluate("(x) => X.fmtGeneral(x)", x) == fmt_general(x), x
    assert page.evaluate("() => X.fmt(null, 2)") == fmt(None, 2)


@pytest.fixture(scope="module")
def block_page(computed, tmp_path_factory):
    """The real @[explorer] block, rendered with the registry, in a bare page."""
    reg = Registry()
    register_sim(reg, computed, RESULTS, ROOT)
    ctx = PageContext(registry=reg, url="/transit/", root="", path="content/pages/transit.md",
                      glossary={}, blocks={})
    html = explorer_html(ctx, explorer_payload(computed))
    assert ctx.scripts == [("explorer-boot.js", False)]
    d = tmp_path_factory.mktemp("explorer-block")
    shutil.copy(SCRIPT, d / "explorer.js")
    shutil.copy(BOOT, d / "explorer-boot.js")
    (d / "index.html").write_text(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>explorer</title>'
        f'</head><body>{html}<script src="explorer-boot.js" defer></script></body></html>',
        encoding="utf-8")
    return d, reg


def reach(page) -> None:
    """Point at the explorer's controls (what fetches the port) and wait until it runs."""
    page.hover("form.explorer-controls")
    page.wait_for_selector(".explorer.explorer-ready")


def test_the_port_comes_when_a_reader_reaches_for_it_and_shows_an_earlier_move(
        make_page, block_page, serve_dir):
    """At load the controls show and explorer.js is not fetched; a slider moved while the
    port is still on its way (its response held back here) is computed once it runs."""
    d, reg = block_page
    page = make_page()
    asked, held = [], []
    page.on("request", lambda r: asked.append(r.url) if r.url.endswith("/explorer.js") else None)
    page.route("**/explorer.js", lambda route: held.append(route))
    page.goto(serve_dir(d) + "index.html", wait_until="load")
    page.wait_for_timeout(200)
    assert asked == [] and page.evaluate("typeof window.citExplorer") == "undefined"
    assert page.locator("form.explorer-controls").is_visible()
    assert page.locator(".explorer-note").is_hidden()
    assert page.locator(".explorer-live-note").is_visible()
    time_a = page.locator('tr[data-variant="A"] [data-out="time"]')
    recorded = reg.get("sim.time.A").text
    page.evaluate("() => { const w = document.querySelector('input[name=\"wan\"]'); "
                  "w.value = String(Number(w.value) - 1); "
                  "w.dispatchEvent(new Event('input', {bubbles: true})); }")
    for _ in range(50):
        if held:
            break
        page.wait_for_timeout(20)
    assert len(held) == 1 and time_a.inner_text() == recorded      # asked for, not here
    held[0].continue_()
    page.wait_for_function(
        "(t) => document.querySelector('tr[data-variant=\"A\"] [data-out=\"time\"]')"
        ".textContent !== t", arg=recorded)
    expect = page.evaluate(
        "() => { const r = document.querySelector('.explorer').explorer; "
        "const v = Number(document.querySelector('input[name=\"wan\"]').value); "
        "const c = Object.assign({}, r.data.controls, {wan_gbps: 10 ** v}); "
        "return r.evaluate(c).variants.find(x => x.key === 'A').time; }")
    assert time_a.inner_text() == fmt(expect, 2)
    assert len(asked) == 1


def test_moving_a_control_changes_the_results_and_reset_restores_them(make_page, block_page,
                                                                      serve_dir):
    d, reg = block_page
    page = make_page()
    page.goto(serve_dir(d) + "index.html")
    reach(page)
    assert page.locator("form.explorer-controls").is_visible()
    assert page.locator(".explorer-note").is_hidden()
    assert page.locator(".explorer-live-note").is_visible()
    time_a = page.locator('tr[data-variant="A"] [data-out="time"]')
    be = page.locator('[data-breakeven="Eprime_Esteps_vs_A"]')
    recorded_time, recorded_be = reg.get("sim.time.A").text, reg.get(
        "sim.breakeven.Eprime_Esteps_vs_A").text
    assert time_a.inner_text() == recorded_time
    assert time_a.locator("data.num").count() == 1      # provenance before any move
    # a tenth of the default WAN bandwidth: AdamW slows, the break-evens do not move
    wan = page.locator('input[name="wan"]')
    default = float(wan.get_attribute("value"))
    wan.fill(repr(default - 1.0))
    page.wait_for_function(
        "(t) => document.querySelector('tr[data-variant=\"A\"] [data-out=\"time\"]')"
        ".textContent !== t", arg=recorded_time)
    slower = time_a.inner_text()
    # the slider snaps to its step, so read back the value it took
    expect = page.evaluate(
        "() => { const r = document.querySelector('.explorer').explorer; "
        "const v = Number(document.querySelector('input[name=\"wan\"]').value); "
        "const c = Object.assign({}, r.data.controls, {wan_gbps: 10 ** v}); "
        "const res = r.evaluate(c); const a = res.variants.find(x => x.key === 'A'); "
        "return a.time; }")
    assert slower == fmt(expect, 2)
    assert float(slower.replace(",", "")) > float(recorded_time.replace(",", ""))
    # the module's budget moves E′'s break-even
    budget = page.locator('input[name="budget"]')
    budget.fill(repr(float(budget.get_attribute("value")) / 2))
    page.wait_for_function(
        "(t) => document.querySelector('[data-breakeven=\"Eprime_Esteps_vs_A\"]')"
        ".textContent !== t", arg=recorded_be)
    assert be.inner_text() != recorded_be
    page.locator('[data-action="reset"]').click()
    assert time_a.inner_text() == recorded_time
    assert time_a.locator("data.num").count() == 1


def test_the_explorer_runs_from_a_file_url(browser, block_page):
    """Opened as a file (the shared guard allows only the local server, so this page has
    its own watch on errors and requests)."""
    d, reg = block_page
    ctx = browser.new_context()
    page = ctx.new_page()
    problems = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda exc: problems.append(str(exc)))
    page.on("request", lambda r: None if r.url.startswith("file:") else problems.append(r.url))
    page.goto((d / "index.html").as_uri())
    reach(page)
    util = page.locator('input[name="utilisation"]')
    util.fill("1")
    page.wait_for_function(
        "() => document.querySelector('tr[data-variant=\"A\"] [data-out=\"step\"]')"
        ".classList.contains('live')")
    assert page.locator('[data-out="utilisation"]').inner_text() == fmt(1.0, 2)
    ctx.close()
    assert not problems, problems


def test_the_port_follows_the_closed_form_under_both_layouts(make_page, harness, computed):
    """Every mechanism's step, in both collective layouts, at three WAN bandwidths: the
    port's floats are the closed form's, bit for bit."""
    from study.sim import closed
    page = open_harness(make_page, harness)
    for layout in closed.LAYOUTS:
        for wan in (0.1, 12.5, 1000.0):
            got = page.evaluate(
                "([layout, wan]) => { const d = JSON.parse(document.getElementById("
                "'explorer-data').textContent); const p = X.paramsFrom(d, {layout: layout, "
                "wan_gbps: wan}); const out = {}; for (const m of ['A','B','C','Cprime','E',"
                "'Eprime']) { const s = X.step(p, m); out[m] = [s.total, s.energy, "
                "s.wan_bytes, s.wire]; } return out; }", [layout, wan])
            p = computed.params.with_(layout=layout, bw_wan=wan * 1e9)
            for mech in closed.MECHS:
                st = closed.step(p, mech)
                assert got[mech] == [st.total, st.energy, st.wan_bytes, st.wire], \
                    (layout, wan, mech)


def test_the_layout_switch_moves_the_break_evens_and_reset_restores_them(make_page,
                                                                         block_page,
                                                                         serve_dir):
    d, reg = block_page
    page = make_page()
    page.goto(serve_dir(d) + "index.html")
    reach(page)
    be = page.locator('[data-breakeven="Eprime_Esteps_vs_A"]')
    same = page.locator('[data-out="against-same"]')
    recorded_be = reg.get("sim.breakeven.Eprime_Esteps_vs_A").text
    recorded_same = reg.get("sim.against.same").text
    assert be.inner_text() == recorded_be and same.inner_text() == recorded_same
    page.locator('input[name="layout"][value="flat-ring"]').check()
    page.wait_for_function(
        "(t) => document.querySelector('[data-breakeven=\"Eprime_Esteps_vs_A\"]')"
        ".textContent !== t", arg=recorded_be)
    expect = page.evaluate(
        "() => { const r = document.querySelector('.explorer').explorer; "
        "const c = Object.assign({}, r.data.controls, {layout: 'flat-ring'}); "
        "const res = r.evaluate(c); return [X_be(res), res.against.filter(x => x.same)"
        ".length]; function X_be(res) { const b = res.breakevens.find(x => x.id === "
        "'Eprime_Esteps_vs_A').be; return [b.kind, b.at]; } }")
    flat_kind, flat_at = expect[0]
    assert flat_kind == "below"
    assert be.inner_text() == f"below {fmt_sig(flat_at / 1e9, 3)} GB/s"
    # under the flat ring A is slower, so E′ catches it on a faster WAN, and fewer of the
    # original's figures read the same
    assert flat_at / 1e9 > reg.get("sim.breakeven.Eprime_Esteps_vs_A").value
    assert int(same.inner_text()) == expect[1] < int(recorded_same)
    page.locator('[data-action="reset"]').click()
    assert be.inner_text() == recorded_be and same.inner_text() == recorded_same
