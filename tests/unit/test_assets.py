"""Assets over the tiny site: stylesheets and scripts a page links, minifying, and the
per-page provenance scripts (cit/assets.py)."""

import json
import posixpath
import re
from pathlib import Path

import pytest

from tests.conftest import ROOT, TINY_PAGES, page_text

# the engine's static files, then the study's (site.yaml `static`)
STATIC_DIRS = (ROOT / "templates" / "static", ROOT / "study" / "static")


def _prov(site, path):
    """The page's provenance script, decoded here independently of site.js: the
    numbers (id -> the fields numbers.json gives) and the terms (key -> term, definition)."""
    html = page_text(site, path)
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


def _sheets_linked(html):
    return re.findall(r'<link rel="stylesheet" href="(?:\.\./)*static/([^"]+)">', html)


def test_each_page_embeds_the_numbers_it_shows_with_their_provenance(site, render_registry):
    for path in TINY_PAGES:
        html = page_text(site, path)
        assert 'id="cit-numbers"' not in html, "provenance is loaded on demand, not inline"
        shown = set(re.findall(r'<data class="num" value="[^"]*" data-id="([^"]+)"', html))
        if 'id="number-index"' in html:   # its rows are built from the script: every number
            shown |= set(render_registry.numbers)
        embedded, _ = _prov(site, path)
        assert set(embedded) == shown, path
        for i, entry in embedded.items():
            n = render_registry.numbers[i]
            assert entry == {"kind": n.kind, "value": n.as_json([])["value"], "text": n.text,
                             "unit": n.unit, "provenance": n.provenance()}


def test_each_page_embeds_the_terms_it_links(site):
    for path in TINY_PAGES:
        html = page_text(site, path)
        linked = set(re.findall(r'<a class="term" href="[^"]*" data-term="([^"]+)"', html))
        _, embedded = _prov(site, path)
        assert set(embedded) == linked, path
        for entry in embedded.values():
            assert set(entry) == {"term", "definition"} and entry["definition"]


def test_a_page_with_no_number_and_no_term_loads_no_provenance(render_content, render_tiny):
    deck = "---\ntitle: Plain\ndescription: D.\nlayout: deck\norder: 3\n---\n# Plain words\n"
    site = render_tiny(render_content({"decks/03-plain.md": deck}))
    html = page_text(site, "decks/03-plain/index.html")
    assert "data-prov" not in html and "static/prov/decks/03-plain.js" not in site.files
    assert "static/prov/decks/01-sources.js" in site.files


def test_provenance_scripts_name_every_string_once(site):
    script = site.files["static/prov/optics.js"].decode("utf-8")
    p = json.loads(script[script.index("]=") + 2:-2])
    assert p["t"] == sorted(set(p["t"])) and len(p["s"]) == len({tuple(s) for s in p["s"]})


def test_each_page_links_the_base_sheet_and_only_the_feature_sheets_it_uses(site):
    from cit.assets import sheet_needs
    from cit.htmlscan import features as page_features
    needs = {p.name: sheet_needs(p.read_text()) for d in STATIC_DIRS for p in d.glob("*.css")}
    assert needs["site.css"] is None and all(needs[n] for n in needs if n != "site.css")
    for path in TINY_PAGES:
        html = page_text(site, path)
        linked = _sheets_linked(html)
        assert linked[0] == "site.css", path
        feats = page_features(html)
        assert set(linked[1:]) == {n for n, w in needs.items() if w and feats & set(w)}, path
    assert "deck.css" in _sheets_linked(page_text(site, "decks/02-traffic/index.html"))
    assert "tables.css" not in _sheets_linked(page_text(site, "decks/02-traffic/index.html"))
    assert {"charts.css", "tables.css"} <= set(_sheets_linked(page_text(site, "index.html")))


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
    from tests.conftest import study_palette
    for f in sorted(f for d in STATIC_DIRS for f in d.iterdir()):
        out = site.files["static/" + f.name].decode("utf-8")
        if f.suffix == ".css":
            # the base sheet ends with the palette the build writes (cit/palette.py)
            extra = "\n" + study_palette().css() if f.name == "site.css" else ""
            assert out == minify_css(f.read_text() + extra) and "/*" not in out
        elif f.suffix == ".js":
            assert out == strip_js(f.read_text()) and len(out) < len(f.read_text())


def test_the_studys_static_files_ship_beside_the_engines_and_may_not_replace_one(tmp_path):
    """site.yaml's `static` folder ships under static/ with the engine's templates/static;
    a study file named like an engine file fails the build, naming the study's file."""
    from cit.assets import static_files
    from cit.errors import BuildError
    (tmp_path / "templates" / "static").mkdir(parents=True)
    (tmp_path / "templates" / "static" / "site.css").write_text("a{}")
    own = tmp_path / "study" / "static"
    own.mkdir(parents=True)
    (own / "own.js").write_text("f();")
    files = static_files(tmp_path / "templates", study_static=own)
    assert files == {"static/site.css": b"a{}", "static/own.js": b"f();"}
    (own / "site.css").write_text("b{}")
    with pytest.raises(BuildError) as e:
        static_files(tmp_path / "templates", study_static=own)
    assert str(e.value).startswith("study/static/site.css: the engine's templates ship "
                                   "static/site.css already")


def test_the_engine_ships_none_of_the_studys_scripts():
    """The chain's and the explorer's scripts and styles are the study's (site.yaml
    `static`), not the engine's: templates/static/ holds none of them."""
    study = {p.name for p in STATIC_DIRS[1].iterdir()}
    assert {"chain.js", "explorer.js", "explorer-boot.js"} <= study
    assert not study & {p.name for p in STATIC_DIRS[0].iterdir()}


def test_minified_static_files_come_from_the_memo_under_a_key_of_their_sources(tmp_path):
    """The build's memo keeps the minified texts; the key changes with any source."""
    import shutil
    from cit.assets import static_assets
    templates = tmp_path / "templates"
    shutil.copytree(ROOT / "templates" / "static", templates / "static")
    kept: dict = {}

    def memo(name, key, compute):
        if (name, key) not in kept:
            kept[(name, key)] = compute()
        return kept[(name, key)]
    first = static_assets(templates, False, memo)
    assert static_assets(templates, False, memo).files == first.files == \
        static_assets(templates, False).files
    assert len(kept) == 1
    css = templates / "static" / "site.css"
    css.write_text(css.read_text() + "\n.added-by-test { color: red; }\n")
    assert b".added-by-test{color:red}" in static_assets(templates, False, memo).files[
        "static/site.css"] and len(kept) == 2
