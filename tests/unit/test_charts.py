"""Chart blocks over the tiny site: figures, fallback tables, seed bands, colours,
break-even markers and the plotly bundle (cit/blocks/charts.py, and the study's charts
in study/blocks/curves.py)."""

import re

import pytest

from cit.assets import plotly_js
from cit.errors import BuildError
from cit.fmt import fmt, fmt_int
from cit.plotlybundle import SCRIPT as PLOTLY_SCRIPT
from tests.conftest import TINY_PAGES, html_elements, page_text, script_json


def _hub_without_charts():
    from conftest import RENDER_CONTENT
    return RENDER_CONTENT["hub.md"].replace("@[chart:loss-curves]\n", "")


def test_chart_pages_name_plotly_for_later_and_never_load_it_up_front(site):
    """No page loads plotly with a <script>: each chart names the file in data-plotly-src
    (relative to the page) and charts.js fetches it when a reader reaches for the chart."""
    chart_pages = set()
    for path in TINY_PAGES:
        html = page_text(site, path)
        has_chart = 'class="chart"' in html
        loads = [a.get("src", "") for t, a in html_elements(html) if t == "script"]
        assert not any(s.endswith(PLOTLY_SCRIPT) for s in loads), path
        named = {a.get("data-plotly-src") for t, a in html_elements(html) if a.get("data-plotly-src")}
        root = "../" * path.count("/")
        assert named == ({f"{root}static/{PLOTLY_SCRIPT}"} if has_chart else set()), path
        assert has_chart == any(s.endswith("static/charts.js") for s in loads), path
        if has_chart:
            chart_pages.add(path)
    assert chart_pages == {"index.html", "decks/01-sources/index.html"}
    assert site.files["static/" + PLOTLY_SCRIPT] == plotly_js()
    assert "cdn" not in "".join(page_text(site, p) for p in TINY_PAGES).lower()


def test_no_plotly_file_is_copied_when_no_page_has_a_chart(render_content, render_tiny):
    hub = _hub_without_charts()
    deck = "---\ntitle: Sources\ndescription: D.\nlayout: deck\norder: 1\n---\n# Sources\n"
    site = render_tiny(render_content({"hub.md": hub, "decks/01-sources.md": deck}))
    assert "static/" + PLOTLY_SCRIPT not in site.files


def test_a_chart_embeds_its_figure_and_a_fallback_of_registry_values(site, render_registry):
    html = page_text(site, "index.html")
    fig = script_json(html, "fig-loss-curves-json")
    hub_series = sorted(i for i in render_registry.series if i.startswith("curve."))
    lines = [t for t in fig["data"] if t.get("mode") == "lines"]
    # one line per series, named by its id; the points are the table's (charts.js reads them)
    assert [t["legendgroup"] for t in lines] == hub_series
    assert not any(k in t for t in fig["data"] for k in ("x", "y", "customdata"))
    # the fallback: a column per series, a row per point (x, then y with the seed range)
    table = re.search(r'<table class="data chart-table" data-fx="int" data-fy="dec3" data-range>'
                      r'(.*?)</table>', html, re.S).group(1)
    sids = re.findall(r'<th scope="col" data-series="([^"]+)">', table)
    assert sids == hub_series
    rows = re.findall(r'<tr><th scope="row">([^<]*)</th>(.*?)</tr>', table)
    values = 0
    for i, (x, cells) in enumerate(rows):
        for sid, cell in zip(sids, re.findall(r"<td>([^<]*)</td>", cells), strict=True):
            s = render_registry.series[sid]
            assert x == fmt_int(s.x[i]), (sid, i)
            lo, hi = s.extra["lo"][i], s.extra["hi"][i]
            assert cell == f"{fmt(s.y[i], 3)} ({fmt(lo, 3)} to {fmt(hi, 3)})", (sid, i)
            values += 3
    assert len(rows) == len(render_registry.series[hub_series[0]].x) and values


def test_a_seed_band_is_drawn_only_where_seeds_differ(render_content, render_tiny,
                                                      render_registry):
    single = render_registry.series["curve.B"]
    render_registry.series["curve.B"] = type(single)(
        single.id, single.x, single.y, dict(single.extra, lo=single.y, hi=single.y),
        single.kind, single.sources, single.locator, single.computation)
    site = render_tiny(render_content(), render_registry)
    fig = script_json(page_text(site, "index.html"), "fig-loss-curves-json")
    bands = {t["legendgroup"]: t for t in fig["data"] if t.get("fill") == "toself"}
    assert sorted(bands) == ["curve.A", "curve.C.2d64"]
    for sid, t in bands.items():
        assert t["meta"] == "band" and t["showlegend"] is False and "x" not in t
    html = page_text(site, "index.html")
    row = re.search(r'<tr><th scope="row">[^<]*</th>(.*?)</tr>', html).group(1)
    cells = dict(zip(re.findall(r'data-series="([^"]+)"', html), re.findall(r"<td>([^<]*)</td>", row)))
    assert cells["curve.B"] == fmt(single.y[0], 3) and " to " in cells["curve.A"]


def test_variant_colours_are_the_same_in_every_chart(site):
    from tests.conftest import study_palette
    hub = script_json(page_text(site, "index.html"), "fig-loss-curves-json")
    sweep = script_json(page_text(site, "decks/01-sources/index.html"), "fig-sweep-json")
    colour = {}
    for fig in (hub, sweep):
        for t in fig["data"]:
            if t.get("mode") == "lines" and t["line"]["dash"] == "solid":
                colour.setdefault(t["name"][0], set()).add(t["line"]["color"])
    assert colour["A"] == {study_palette().chart_colour("A", "test")}


def test_the_sweep_marks_float_break_evens_and_skips_text_ones(site, render_registry):
    html = page_text(site, "decks/01-sources/index.html")
    fig = script_json(html, "fig-sweep-json")
    assert fig["layout"]["xaxis"]["type"] == "log"
    assert [s["x0"] for s in fig["layout"]["shapes"]] == [render_registry.numbers["sim.breakeven.E_vs_A"].value]
    assert 'data-id="sim.breakeven.E_vs_A"' in html and 'data-id="sim.breakeven.B_vs_A"' not in html


def test_a_chart_block_whose_series_are_absent_fails(render_content, render_tiny, render_registry):
    for sid in [i for i in render_registry.series if i.startswith("sim.sweep.")]:
        del render_registry.series[sid]
    with pytest.raises(BuildError) as e:
        render_tiny(render_content(), render_registry)
    assert e.value.where.startswith("content/decks/01-sources.md:")
    assert "sim.sweep" in e.value.message


def test_a_series_block_that_picks_no_series_names_what_it_needs(render_registry):
    from cit.blocks import BlockInputs
    from cit.blocks.charts import ChartAxis, ChartSpec, series_block
    from tests.conftest import ROOT
    spec = ChartSpec("nothing", "Nothing", ChartAxis("Step", "int"), ChartAxis("Loss", "dec3"))
    block = series_block(BlockInputs(render_registry, ROOT, ROOT / "content", ROOT / "templates"),
                         spec, lambda s: False, 'series "none.*"')
    with pytest.raises(BuildError) as e:
        block.function(None)
    assert e.value.where == "chart:nothing"
    assert 'needs series "none.*"' in e.value.message


def test_a_family_dash_is_kept_and_the_other_series_of_the_variant_avoid_it():
    """`dash` in a series' extra: the first optics design's runs all dotted, the repaired
    runs of the same colour cycling through the other dashes; an unknown dash fails."""
    from cit.blocks.charts import DASHES, _styles
    from cit.palette import Palette, Swatch
    from cit.registry import Series

    palette = Palette((Swatch("E", "#d55e00", ("#d55e00",) * 3, ("#d55e00",) * 3),))
    def s(i, **extra):
        return Series(f"s{i}", (0,), (1.0,), {"variant": "E", **extra}, "measured", (), "", "")
    series = [s(i, dash="dot") if i % 2 else s(i) for i in range(8)]
    styles = _styles(series, palette)
    assert all(styles[x.id][1] == "dot" for x in series if x.extra.get("dash"))
    others = [styles[x.id][1] for x in series if not x.extra.get("dash")]
    assert "dot" not in others and len(set(others)) == len(others)
    assert set(others) <= set(DASHES)
    with pytest.raises(BuildError, match="dash 'wavy'"):
        _styles([s(0, dash="wavy")], palette)


def test_highlight_colours_the_series_it_names_and_greys_the_rest(render_content, render_tiny,
                                                                    render_registry):
    """`@[chart:NAME highlight=ID,...]`: the named series keep their colour, the others are
    grey context in the preview (thin, first, unlabelled) and in the plotly figure."""
    from conftest import RENDER_CONTENT
    from cit.blocks.charts import CONTEXT_COLOUR
    hub = RENDER_CONTENT["hub.md"].replace("@[chart:loss-curves]", "@[chart:loss-curves highlight=curve.A]")
    site = render_tiny(render_content({"hub.md": hub}), render_registry)
    html = page_text(site, "index.html")
    svg = re.search(r'<svg class="svg-figure" id="loss-curves-wide".*?</svg>', html, re.S).group(0)
    classes = re.findall(r'<path class="(fig-line[^"]*)"', svg)
    assert classes[-1] == "fig-line c-A" and all("fig-context c-muted" in c for c in classes[:-1])
    assert len(classes) == sum(1 for i in render_registry.series if i.startswith("curve.")
                               and render_registry.series[i].extra.get("role") == "hub")
    fig = script_json(html, "fig-loss-curves-json")
    lines = [t for t in fig["data"] if t.get("mode") == "lines"]
    assert [t["legendgroup"] for t in lines if t["line"]["color"] != CONTEXT_COLOUR] == ["curve.A"]


@pytest.mark.parametrize("line,says", [
    ("@[chart:loss-curves highlight=curve.Nope]", "highlight names 'curve.Nope', not a series"),
    ("@[chart:loss-curves colour=A]", "takes no option 'colour'"),
    ("@[chart:loss-curves highlight=curve.A highlight=curve.B]", "option 'highlight' is given twice"),
])
def test_a_bad_block_option_fails_at_its_line(render_content, render_tiny, render_registry, line, says):
    from conftest import RENDER_CONTENT
    hub = RENDER_CONTENT["hub.md"]
    lineno = hub.splitlines().index("@[chart:loss-curves]") + 1
    with pytest.raises(BuildError) as e:
        render_tiny(render_content({"hub.md": hub.replace("@[chart:loss-curves]", line)}), render_registry)
    assert e.value.where.startswith(f"content/hub.md:{lineno}")
    assert says in e.value.message
