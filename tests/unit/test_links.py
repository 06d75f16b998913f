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
