"""The render stage over a tiny content tree: pages, embedded JSON, blocks, charts,
glossary, number index, determinism and errors."""

import json
import posixpath
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest

from cit.errors import BuildError
from cit.fmt import fmt, fmt_int
from cit.assets import plotly_js
from cit.plotlybundle import SCRIPT as PLOTLY_SCRIPT

PAGES = ("index.html", "optics/index.html", "method/index.html", "tested/index.html",
         "glossary/index.html", "decks/01-sources/index.html", "decks/02-traffic/index.html")


def _text(site, path):
    return site.files[path].decode("utf-8")


def _script_json(html, script_id):
    m = re.search(rf'<script type="application/json" id="{script_id}">(.*?)</script>', html, re.S)
    assert m, script_id
    return json.loads(m.group(1))


class _Elements(HTMLParser):
    def __init__(self):
        super().__init__()
        self.found = []

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, dict(attrs)))


def _elements(html):
    p = _Elements()
    p.feed(html)
    return p.found


@pytest.fixture
def site(render_content, render_tiny):
    return render_tiny(render_content())


def test_pages_are_folders_with_an_index_file(site):
    assert set(PAGES) <= set(site.files)
    assert site.pages == {"/": "Can an optical link compress gradients?", "/optics/": "Optics",
                          "/method/": "Method", "/tested/": "Tested", "/glossary/": "Glossary",
                          "/decks/01-sources/": "Sources", "/decks/02-traffic/": "Training traffic"}


def test_every_link_and_asset_reference_is_relative(site):
    for path in PAGES:
        for tag, attrs in _elements(_text(site, path)):
            for key in ("href", "src"):
                url = attrs.get(key)
                if url is None or url.startswith(("http://", "https://", "mailto:")):
                    continue
                assert not url.startswith("/"), (path, url)
                assert not url.split("#")[0].endswith("/"), (path, url)


def _prov(site, path):
    """The page's provenance script, decoded here independently of site.js: the
    numbers (id -> the fields numbers.json gives) and the terms (key -> term, definition)."""
    html = _text(site, path)
    m = re.search(r'<body[^>]* data-page="([^"]*)" data-prov="([^"]*)"', html)
    assert m, path
    page, src = m.groups()
    target = posixpath.normpath(posixpath.join(posixpath.dirname(path), src))
    script = site.files[target].decode("utf-8")
    m = re.fullmatch(r'/\*[^*]*\*/\n\(window\.CIT_PROV=window\.CIT_PROV\|\|\{\}\)\[(".*?")\]=(.*);\n',
                     script, re.S)
    assert m and json.loads(m.group(1)) == page, path
    p = json.loads(m.group(2))
    t = p["t"]

    def source(k):
        path_i, *shas = p["s"][k]
        out = {"path": t[path_i]}
        for key, i in zip(("commit", "blob_sha1"), shas):
            if i is not None:
                out[key] = t[i]
        return out

    numbers = {i: {"kind": t[e[0]], "value": e[1], "text": e[2], "unit": t[e[3]],
                   "provenance": {"sources": [source(k) for k in e[4]], "locator": t[e[5]],
                                  "computation": t[e[6]]}}
               for i, e in p["n"].items()}
    terms = {k: {"term": v[0], "definition": v[1]} for k, v in p["g"].items()}
    return numbers, terms


def test_each_page_embeds_the_numbers_it_shows_with_their_provenance(site, render_registry):
    for path in PAGES:
        html = _text(site, path)
        assert 'id="cit-numbers"' not in html, "provenance is loaded on demand, not inline"
        shown = set(re.findall(r'<data class="num" value="[^"]*" data-id="([^"]+)"', html))
        embedded, _ = _prov(site, path)
        assert set(embedded) == shown, path
        for i, entry in embedded.items():
            n = render_registry.numbers[i]
            assert entry == {"kind": n.kind, "value": n.as_json([])["value"], "text": n.text,
                             "unit": n.unit, "provenance": n.provenance()}


def test_each_page_embeds_the_terms_it_links(site):
    for path in PAGES:
        html = _text(site, path)
        linked = set(re.findall(r'<a class="term" href="[^"]*" data-term="([^"]+)"', html))
        _, embedded = _prov(site, path)
        assert set(embedded) == linked, path
        for entry in embedded.values():
            assert set(entry) == {"term", "definition"} and entry["definition"]


def test_a_page_with_no_number_and_no_term_loads_no_provenance(render_content, render_tiny):
    deck = "---\ntitle: Plain\ndescription: D.\nlayout: deck\norder: 3\n---\n# Plain words\n"
    site = render_tiny(render_content({"decks/03-plain.md": deck}))
    html = _text(site, "decks/03-plain/index.html")
    assert "data-prov" not in html and "static/prov/decks/03-plain.js" not in site.files
    assert "static/prov/decks/01-sources.js" in site.files


def test_provenance_scripts_name_every_string_once(site):
    script = site.files["static/prov/optics.js"].decode("utf-8")
    p = json.loads(script[script.index("]=") + 2:-2])
    assert p["t"] == sorted(set(p["t"])) and len(p["s"]) == len({tuple(s) for s in p["s"]})


def test_appears_lists_the_pages_where_each_number_is_shown(site, render_registry):
    assert set(site.appears) == set(render_registry.numbers)
    assert site.appears["final_loss.A"] == ["/", "/optics/"]
    # the glossary definition of DeMo shows final_loss.B; the index listing is not an appearance
    assert site.appears["final_loss.B"] == ["/glossary/", "/optics/"]
    assert site.appears["runs.completed"] == ["/decks/01-sources/"]
    assert site.appears["build.checked"] == ["/tested/"]


def test_the_number_index_lists_every_number_with_where_it_appears(site, render_registry):
    html = _text(site, "method/index.html")
    rows = re.findall(r'<tr id="n-([^"]+)">(.*?)</tr>', html, re.S)
    assert [r[0] for r in rows] == sorted(render_registry.numbers)
    row = dict(rows)["final_loss.A"]
    assert '<a href="../index.html">' in row and '<a href="../optics/index.html">Optics</a>' in row
    assert render_registry.numbers["final_loss.A"].locator in row


def test_the_number_index_lists_each_file_and_shared_computation_once(site, render_registry):
    import html as html_mod
    page = _text(site, "method/index.html")
    files = {ref: (html_mod.unescape(p), c, b) for ref, p, c, b in re.findall(
        r'<tr id="(f\d+)"><th scope="row" class="prov">F\d+</th><td class="prov"><code>([^<]*)</code>'
        r'</td><td class="prov">([^<]*)</td><td class="prov">([^<]*)</td></tr>', page)}
    hows = {ref: html_mod.unescape(c) for ref, c in re.findall(
        r'<tr id="(c\d+)"><th scope="row" class="prov">C\d+</th><td class="prov">([^<]*)</td></tr>', page)}
    assert files and hows and len(set(files.values())) == len(files)
    assert len(set(hows.values())) == len(hows)
    used = set()
    for i, row in re.findall(r'<tr id="n-([^"]+)">(.*?)</tr>', page, re.S):
        n = render_registry.numbers[i]
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
        refs = re.findall(r'href="#(f\d+)"', cells[4])
        assert [files[r] for r in refs] == [(s.path, s.commit or "this repository", s.blob_sha1 or "")
                                           for s in n.sources], i
        how = re.fullmatch(r'<a href="#(c\d+)">C\d+</a>', cells[6])
        assert (hows[how.group(1)] if how else html_mod.unescape(cells[6])) == n.computation, i
        used |= set(refs) | ({how.group(1)} if how else set())
    assert used == set(files) | set(hows), "every listed file and computation is used"
    shared = [c for c in hows.values()]
    assert all(sum(n.computation == c for n in render_registry.numbers.values()) > 1 for c in shared)


def test_the_glossary_lists_every_term_and_the_pages_that_use_it(site):
    html = _text(site, "glossary/index.html")
    assert re.findall(r'<dt id="term-([^"]+)">', html) == ["adamw", "demo", "unused-term"]
    entry = html[html.index('id="term-adamw"'):html.index('id="term-demo"')]
    used = re.search(r'<p class="used-on">(.*?)</p>', entry).group(1)
    assert re.findall(r'href="([^"]+)"', used) == ["../decks/02-traffic/index.html", "../optics/index.html"]
    assert 'class="see-also"' in entry and 'data-term="demo"' in entry
    assert site.unused_terms == ["unused-term"]


def test_deck_slides_are_sections_inside_a_deck_main(site):
    html = _text(site, "decks/01-sources/index.html")
    assert '<main id="main" class="deck"' in html
    slides = re.findall(r'<section class="slide" id="(slide-\d+)"[^>]*aria-labelledby="([^"]+)"', html)
    assert [s[0] for s in slides] == ["slide-1", "slide-2"]
    for _, heading in slides:
        assert f'id="{heading}"' in html
    assert ('src="../../static/deck.js"' in html) == ("static/deck.js" in site.files)
    assert 'href="../../decks/02-traffic/index.html" rel="next"' in html


def test_chart_pages_name_plotly_for_later_and_never_load_it_up_front(site):
    """No page loads plotly with a <script>: each chart names the file in data-plotly-src
    (relative to the page) and charts.js fetches it when a reader reaches for the chart."""
    chart_pages = set()
    for path in PAGES:
        html = _text(site, path)
        has_chart = 'class="chart"' in html
        loads = [a.get("src", "") for t, a in _elements(html) if t == "script"]
        assert not any(s.endswith(PLOTLY_SCRIPT) for s in loads), path
        named = {a.get("data-plotly-src") for t, a in _elements(html) if a.get("data-plotly-src")}
        root = "../" * path.count("/")
        assert named == ({f"{root}static/{PLOTLY_SCRIPT}"} if has_chart else set()), path
        assert has_chart == any(s.endswith("static/charts.js") for s in loads), path
        if has_chart:
            chart_pages.add(path)
    assert chart_pages == {"index.html", "decks/01-sources/index.html"}
    assert site.files["static/" + PLOTLY_SCRIPT] == plotly_js()
    assert "cdn" not in "".join(_text(site, p) for p in PAGES).lower()


def test_no_plotly_file_is_copied_when_no_page_has_a_chart(render_content, render_tiny):
    hub = _hub_without_charts()
    deck = "---\ntitle: Sources\ndescription: D.\nlayout: deck\norder: 1\n---\n# Sources\n"
    site = render_tiny(render_content({"hub.md": hub, "decks/01-sources.md": deck}))
    assert "static/" + PLOTLY_SCRIPT not in site.files


def _hub_without_charts():
    from conftest import RENDER_CONTENT
    return RENDER_CONTENT["hub.md"].replace("@[chart:loss-curves]\n", "")


def test_a_chart_embeds_its_figure_and_a_fallback_of_registry_values(site, render_registry):
    html = _text(site, "index.html")
    fig = _script_json(html, "fig-loss-curves-json")
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
    fig = _script_json(_text(site, "index.html"), "fig-loss-curves-json")
    bands = {t["legendgroup"]: t for t in fig["data"] if t.get("fill") == "toself"}
    assert sorted(bands) == ["curve.A", "curve.C.2d64"]
    for sid, t in bands.items():
        assert t["meta"] == "band" and t["showlegend"] is False and "x" not in t
    html = _text(site, "index.html")
    row = re.search(r'<tr><th scope="row">[^<]*</th>(.*?)</tr>', html).group(1)
    cells = dict(zip(re.findall(r'data-series="([^"]+)"', html), re.findall(r"<td>([^<]*)</td>", row)))
    assert cells["curve.B"] == fmt(single.y[0], 3) and " to " in cells["curve.A"]


def test_variant_colours_are_the_same_in_every_chart(site):
    from cit.blocks.charts import VARIANT_COLOURS
    hub = _script_json(_text(site, "index.html"), "fig-loss-curves-json")
    sweep = _script_json(_text(site, "decks/01-sources/index.html"), "fig-sweep-json")
    colour = {}
    for fig in (hub, sweep):
        for t in fig["data"]:
            if t.get("mode") == "lines" and t["line"]["dash"] == "solid":
                colour.setdefault(t["name"][0], set()).add(t["line"]["color"])
    assert colour["A"] == {VARIANT_COLOURS["A"]}


def test_the_sweep_marks_float_break_evens_and_skips_text_ones(site, render_registry):
    html = _text(site, "decks/01-sources/index.html")
    fig = _script_json(html, "fig-sweep-json")
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


def test_a_registry_table_renders_with_scoped_headers_and_right_aligned_numbers(site, render_registry):
    html = _text(site, "optics/index.html")
    table = html[html.index('<table class="data" id="table-final-loss"'):]
    table = table[:table.index("</table>")]
    t = render_registry.tables["final-loss"]
    assert f'<caption id="table-{t.id}-caption">' + t.caption in table
    assert table.count('<th scope="row">') == len(t.rows)
    assert table.count('<td class="n"><data class="num"') == len(t.rows)
    assert '<th scope="col" class="n">' in table


def test_the_tested_table_shows_each_verification_figure(site, render_registry):
    html = _text(site, "tested/index.html")
    assert '<th scope="row">Things checked</th>' in html
    assert f'data-id="build.checked" data-kind="derived">{render_registry.numbers["build.checked"].text}<' in html


def test_the_build_stamp_shows_the_commit_and_its_date(site):
    from conftest import RENDER_BUILD_INFO
    html = _text(site, "index.html")
    stamp = re.search(r'<p class="build-stamp">(.*?)</p>', html, re.S).group(1)
    assert RENDER_BUILD_INFO["commit"][:12] in stamp and RENDER_BUILD_INFO["commit_date"] in stamp


def test_the_hub_findings_become_cards(site):
    html = _text(site, "index.html")
    section = html[html.index('<section class="section section-findings"'):]
    section = section[:section.index("</section>")]
    assert section.count('<article class="card finding"') == 1


def test_every_page_has_the_shell_a_reader_needs(site):
    for path in PAGES:
        html = _text(site, path)
        assert '<html lang="en">' in html and 'name="viewport"' in html
        assert '<a class="skip-link" href="#main">' in html and 'id="main"' in html
        for label in ("Hub", "Decks", "Optics", "Method", "Tested", "Glossary"):
            assert f">{label}</a>" in html, (path, label)


def test_rendering_twice_gives_identical_bytes(render_content, render_tiny):
    content = render_content()
    assert render_tiny(content).files == render_tiny(content).files


def test_an_undefined_template_variable_is_an_error(render_content, render_tiny, tmp_path):
    tdir = tmp_path / "templates"
    shutil.copytree(Path(__file__).resolve().parents[2] / "templates", tdir)
    (tdir / "page.html").write_text("{{ no_such_variable }}")
    with pytest.raises(BuildError) as e:
        render_tiny(render_content(), templates_dir=tdir)
    assert "no_such_variable" in e.value.message


def test_terms_linked_without_a_glossary_page_fail(render_content, render_tiny):
    with pytest.raises(BuildError) as e:
        render_tiny(render_content(drop=("pages/glossary.md",)))
    assert "@[glossary]" in e.value.message


def test_a_deck_whose_order_differs_from_its_file_name_fails(render_content, render_tiny):
    deck = "---\ntitle: T\ndescription: D.\nlayout: deck\norder: 3\n---\n# T\n"
    with pytest.raises(BuildError) as e:
        render_tiny(render_content({"decks/04-late.md": deck}))
    assert e.value.where == "content/decks/04-late.md:1"


def test_a_page_with_the_wrong_layout_fails(render_content, render_tiny):
    page = "---\ntitle: T\ndescription: D.\nlayout: hub\n---\nText\n"
    with pytest.raises(BuildError) as e:
        render_tiny(render_content({"pages/extra.md": page}))
    assert e.value.where == "content/pages/extra.md:1"


def test_numbers_in_glossary_definitions_appear_even_without_a_number_index(render_content, render_tiny):
    site = render_tiny(render_content(drop=("pages/method.md",)))
    assert "/glossary/" in site.appears["final_loss.B"]


def _sheets_linked(html):
    return re.findall(r'<link rel="stylesheet" href="(?:\.\./)*static/([^"]+)">', html)


def test_each_page_links_the_base_sheet_and_only_the_feature_sheets_it_uses(site):
    from cit.assets import page_features, sheet_needs
    static = Path(__file__).resolve().parents[2] / "templates" / "static"
    needs = {p.name: sheet_needs(p.read_text()) for p in static.glob("*.css")}
    assert needs["site.css"] is None and all(needs[n] for n in needs if n != "site.css")
    for path in PAGES:
        html = _text(site, path)
        linked = _sheets_linked(html)
        assert linked[0] == "site.css", path
        feats = page_features(html)
        assert set(linked[1:]) == {n for n, w in needs.items() if w and feats & set(w)}, path
    assert "deck.css" in _sheets_linked(_text(site, "decks/02-traffic/index.html"))
    assert "tables.css" not in _sheets_linked(_text(site, "decks/02-traffic/index.html"))
    assert {"charts.css", "tables.css"} <= set(_sheets_linked(_text(site, "index.html")))


def test_stylesheets_lose_comments_and_needless_spaces_but_keep_strings_and_meaning():
    from cit.assets import minify_css
    css = ('/* when: .x */\na :is(b, c) > d {\n  margin: calc(1rem - 2px);\n'
           '  content: " <a>  /* kept */ ";\n}\n/* gone */\n@media (max-width: 40rem) {\n'
           '  .y .z { grid-template-areas: "a  b" ". c"; }\n}\n')
    assert minify_css(css) == ('a :is(b,c)>d{margin:calc(1rem - 2px);content:" <a>  /* kept */ "}'
                               '@media (max-width:40rem){.y .z{grid-template-areas:"a  b" ". c"}}\n')


def test_scripts_lose_comment_lines_and_indentation_but_no_code():
    from cit.assets import strip_js
    js = ("(function () {\n  /* a comment\n     over lines */\n  var a = '//kept';  // trailing, kept\n"
          "\n  // a comment line\n  /* inline */ b(a);\n  c(/x\\/\\/y/);\n})();\n")
    assert strip_js(js) == ("(function () {\nvar a = '//kept';  // trailing, kept\n"
                            "/* inline */ b(a);\nc(/x\\/\\/y/);\n})();\n")
    template = "f(`a\n  // in a literal\n  b`);\n  // a comment\n  g();\n"
    assert strip_js(template) == template
    assert strip_js("a(); /* open\n// */\nb();\n") == "a(); /* open\n// */\nb();\n"
    assert strip_js("a(); /* open\n  /* x */\nb();\n") == "a(); /* open\n/* x */\nb();\n"


def test_published_styles_and_scripts_are_the_stripped_sources(site):
    from cit.assets import minify_css, strip_js
    static = Path(__file__).resolve().parents[2] / "templates" / "static"
    for f in sorted(static.iterdir()):
        out = site.files["static/" + f.name].decode("utf-8")
        if f.suffix == ".css":
            assert out == minify_css(f.read_text()) and "/*" not in out
        elif f.suffix == ".js":
            assert out == strip_js(f.read_text()) and len(out) < len(f.read_text())
