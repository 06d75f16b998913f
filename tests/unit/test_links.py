"""The link crawler (cit.links.broken_links): it passes a rendered site and finds each
kind of broken link. Point it at a real build with `broken_links("site")`."""

from pathlib import Path

from cit.links import broken_links


def _write(files: dict, out: Path) -> Path:
    for rel, data in files.items():
        p = out / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data if isinstance(data, bytes) else data.encode())
    return out


def _html(body: str) -> str:
    return f'<!doctype html><html lang="en"><body><main id="main">{body}</main></body></html>'


def test_every_internal_link_and_anchor_in_a_rendered_site_resolves(render_content, render_tiny, tmp_path):
    site = render_tiny(render_content())
    out = _write(site.files, tmp_path / "site")
    assert broken_links(out) == []
    # the crawler did look: the site has relative links, anchors and assets
    hub = (out / "index.html").read_text()
    assert 'href="glossary/index.html#term-' in hub and 'src="static/' in hub


def test_a_link_to_a_missing_page_is_reported(tmp_path):
    out = _write({"index.html": _html('<a href="nowhere/index.html">x</a>')}, tmp_path)
    assert broken_links(out) == ["index.html: a 'nowhere/index.html': no such file"]


def test_a_missing_anchor_is_reported(tmp_path):
    out = _write({"index.html": _html('<a href="b/index.html#gone">x</a><a href="#main">m</a>'),
                  "b/index.html": _html('<h2 id="here">h</h2>')}, tmp_path)
    fails = broken_links(out)
    assert len(fails) == 1 and "no element with id 'gone' in b/index.html" in fails[0]


def test_a_folder_link_is_reported_because_file_urls_need_the_file(tmp_path):
    out = _write({"index.html": _html('<a href="b/">x</a>'), "b/index.html": _html("")}, tmp_path)
    fails = broken_links(out)
    assert len(fails) == 1 and "points at a folder" in fails[0]


def test_a_root_relative_link_is_reported(tmp_path):
    out = _write({"index.html": _html('<a href="/b/index.html">x</a>'), "b/index.html": _html("")}, tmp_path)
    assert "root-relative" in broken_links(out)[0]


def test_an_external_script_is_reported_but_an_outside_link_is_not(tmp_path):
    body = ('<a href="https://arxiv.org/abs/2411.19870">paper</a>'
            '<script src="https://cdn.example/plotly.js"></script>')
    fails = broken_links(_write({"index.html": _html(body)}, tmp_path))
    assert fails == ["index.html: script 'https://cdn.example/plotly.js': external resource "
                     "(the site must make no outside request)"]


def test_a_missing_static_asset_is_reported(tmp_path):
    out = _write({"index.html": _html('<link rel="stylesheet" href="static/site.css">')}, tmp_path)
    assert broken_links(out) == ["index.html: link 'static/site.css': no such file"]


def test_duplicate_ids_and_dangling_aria_references_are_reported(tmp_path):
    body = ('<h2 id="a">one</h2><h2 id="a">two</h2>'
            '<section aria-labelledby="missing"></section><div class="chart" data-figure-id="fig-x"></div>')
    fails = broken_links(_write({"index.html": _html(body)}, tmp_path))
    assert sorted(fails) == sorted([
        "index.html: id 'a' used more than once",
        "index.html: aria-labelledby names missing id 'missing'",
        "index.html: data-figure-id names missing id 'fig-x-json'",
    ])


def test_an_empty_or_missing_site_folder_is_a_failure_not_a_pass(tmp_path):
    assert broken_links(tmp_path / "absent")
    assert broken_links(tmp_path)


def test_the_build_checks_only_the_pages_it_is_given():
    from cit.links import check_links
    files = {"a.html": _html('<a href="gone.html">x</a>').encode(),
             "b.html": _html('<a href="a.html#main">ok</a>').encode()}
    assert check_links(files, {"b.html"}) == []
    assert [str(b) for b in check_links(files, {"a.html"})] == [
        "a.html: a 'gone.html': no such file"]


def test_a_problem_is_named_by_its_markdown_line_when_found_there():
    from cit.links import Broken, describe
    md = "---\ntitle: t\n---\n\nIntro.\n\nSee [the repair](../optics/#fix).\n"
    got = describe([Broken("notebook/index.html", "no element with id 'fix' in optics/index.html",
                           "a", "../optics/index.html#fix"),
                    Broken("notebook/index.html", "id 'x' used more than once")],
                   {"notebook/index.html": ("content/pages/notebook.md", md)})
    assert got == [("content/pages/notebook.md:7", "broken link '../optics/#fix': no element "
                    "with id 'fix' in optics/index.html (built page notebook/index.html, a "
                    "'../optics/index.html#fix')"),
                   ("built page notebook/index.html", "id 'x' used more than once")]


def test_outside_links_not_pinned_to_a_version_are_listed():
    from cit.links import unpinned_links
    urls = ["https://example.org/page",
            "https://github.com/o/r/tree/0123456789abcdef0123456789abcdef01234567",
            "https://web.archive.org/web/20240101000000/https://example.org/",
            "https://doi.org/10.1000/xyz", "https://arxiv.org/abs/2411.19870v2",
            "https://arxiv.org/abs/2411.19870", "mailto:someone@example.org"]
    body = "".join(f'<a href="{u}">x</a>' for u in urls)
    assert unpinned_links({"i.html": _html(body).encode()}, ["i.html"]) == [
        "i.html: https://example.org/page", "i.html: https://arxiv.org/abs/2411.19870"]


def test_the_scanner_reads_what_an_html_parser_reads(built_site):
    """The regular-expression scanner against html.parser on every built page: the same
    ids, links and id references, in the same order."""
    from html.parser import HTMLParser
    from cit.links import IDREF_ATTRS, LINK_ATTRS, scan

    class Reference(HTMLParser):
        def __init__(self):
            super().__init__(convert_charrefs=True)
            self.ids, self.links, self.idrefs = [], [], []

        def handle_starttag(self, tag, attrs):
            a = dict(attrs)
            self.ids += [a["id"]] if a.get("id") else []
            self.ids += [a["name"]] if tag == "a" and a.get("name") else []
            if LINK_ATTRS.get(tag) and a.get(LINK_ATTRS[tag]) is not None:
                self.links.append((tag, a[LINK_ATTRS[tag]]))
            self.idrefs += [(n, r) for n in IDREF_ATTRS for r in (a.get(n) or "").split()]
            self.idrefs += [("label for", a["for"])] if tag == "label" and a.get("for") else []
            if a.get("data-figure-id"):
                self.idrefs.append(("data-figure-id", a["data-figure-id"] + "-json"))

        handle_startendtag = handle_starttag

    tricky = ('<!-- <a href="in-comment.html"> --><script>let s = "<a href=\'x.html\'>";'
              '</script><p title="a > b" id="p1">t</p><a href=\'q.html?a=1&amp;b=2\'>q</a>'
              '<style>a[id="no"]{}</style><IMG SRC="i.png"><label for=p1>l</label>')
    pages = [p.read_text() for p in sorted(built_site.rglob("*.html"))] + [_html(tricky)]
    for text in pages:
        ref = Reference()
        ref.feed(text)
        ref.close()
        got = scan(text)
        assert (got.ids, got.links, got.idrefs) == (ref.ids, ref.links, ref.idrefs)
