"""Sharing (docs/sharing.md) on the real site built once with a base URL under a
sub-path (`--base-url`, as the Pages workflow passes it) and on the session's site
built without one: the sitemap lists exactly the site's pages, each page's canonical
link and og:url are the base plus its URL, og:image is the hub's figure site.yaml names,
drawn as a PNG of the size the meta says, 404.html's links resolve from the site's
root path, robots.txt names the sitemap; without a base URL nothing that needs an
absolute address is written. The Open Graph meta is valid HTML to the W3C checker and
a digit in it is held to the naked-number check like any text."""

from __future__ import annotations

import re
import struct
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from cit import links, naked, sharing, siteconfig
from cit.errors import BuildError
from cit.htmlscan import link_attributes, parse
from cit.siteconfig import parse_site
from tests.conftest import ROOT, run_build, run_in_process

BASE = "https://example.org/compute-in-transit/"
SITEMAP_NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


@pytest.fixture(scope="module")
def shared_site(tmp_path_factory, vendored_files) -> Path:
    """The real site built cold with --base-url BASE (one build for the module)."""
    from cit import build
    out = tmp_path_factory.mktemp("shared") / "site"
    r = run_in_process(build.main, ["--out", str(out), "--no-cache", "--base-url",
                                    BASE.rstrip("/")], ROOT, None)
    assert r.returncode == 0, r.stderr
    return out


def pages_of(site: Path) -> dict[str, str]:
    """Each page's URL as the site links it ("/", "/optics/") -> its output file: every
    index.html of the site (404.html is no page of the site's)."""
    return {"/" + p.relative_to(site).parent.as_posix().lstrip(".") + "/" if
            p.parent != site else "/": p.relative_to(site).as_posix()
            for p in sorted(site.rglob("index.html")) if "pagefind" not in p.parts}


def head_meta(html: str) -> dict[str, list[str]]:
    """The head's meta content by name or property, and link hrefs as 'link:REL'."""
    out: dict[str, list[str]] = {}
    for n in parse(html).css("head meta, head link"):
        a = n.attributes
        key = (a.get("name") or a.get("property") if n.tag == "meta"
               else "link:" + (a.get("rel") or ""))
        if key and key != "link:":
            out.setdefault(key, []).append(a.get("content") if n.tag == "meta" else a.get("href"))
    return out


def test_the_sitemap_lists_exactly_the_sites_pages(shared_site):
    tree = ET.parse(shared_site / "sitemap.xml")
    locs = [e.text for e in tree.getroot().iter(SITEMAP_NS + "loc")]
    urls = pages_of(shared_site)
    assert len(urls) >= 12, urls
    assert sorted(locs) == sorted(BASE + u.lstrip("/") for u in urls)
    assert len(set(locs)) == len(locs)


def test_each_pages_canonical_link_and_og_url_are_the_base_plus_its_url(shared_site):
    for url, out in pages_of(shared_site).items():
        meta = head_meta((shared_site / out).read_text(encoding="utf-8"))
        want = BASE + url.lstrip("/")
        assert meta["link:canonical"] == [want], out
        assert meta["og:url"] == [want], out
        assert meta["og:description"] == meta["description"], out
        assert meta["og:title"][0] and meta["og:site_name"] and meta["og:type"], out
        assert meta["twitter:card"] == ["summary_large_image"], out


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", data[16:24])


def test_og_image_is_the_hubs_answer_figure_drawn_as_a_png(shared_site):
    site_yaml = yaml.safe_load((ROOT / "site.yaml").read_text(encoding="utf-8"))
    figure = site_yaml["share_figure"]
    hub = (shared_site / "index.html").read_text(encoding="utf-8")
    svg = sharing.figure_svg(hub, figure)
    assert svg is not None, f"the hub shows no figure {figure!r}"
    for url, out in pages_of(shared_site).items():
        meta = head_meta((shared_site / out).read_text(encoding="utf-8"))
        assert meta["og:image"] == [BASE + "share.png"], out
        assert meta["og:image:alt"] == [sharing.figure_title(svg)], out
        size = (int(meta["og:image:width"][0]), int(meta["og:image:height"][0]))
    png = (shared_site / "share.png").read_bytes()
    assert png_size(png) == size
    # the file is that figure, drawn from the built hub's markup and the site's sheets
    from tests.conftest import study_palette
    sheets = [f.read_text(encoding="utf-8") for f in sorted(
        (ROOT / "templates" / "static").glob("*.css"), key=lambda f: f.name != "site.css")]
    sheets.insert(1, study_palette().css())     # the palette, as the build appends it
    css = "\n".join(sheets)
    assert png == sharing.share_png(svg, css, "test")
    blank, _ = sharing.card_svg('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 2 1"/>',
                                css, "test")
    import resvg_py
    assert png != bytes(resvg_py.svg_to_bytes(svg_string=blank))


def test_the_card_svg_carries_the_sites_colours_and_no_var(shared_site):
    """resvg reads no custom properties: the card's lines carry the colours the site's
    sheets give them in light mode (site.css's --var-A for variant A's line)."""
    hub = (shared_site / "index.html").read_text(encoding="utf-8")
    svg = sharing.figure_svg(hub, yaml.safe_load(
        (ROOT / "site.yaml").read_text(encoding="utf-8"))["share_figure"])
    # site.css as the build ships it ends with the palette (cit/palette.py)
    site_css = (shared_site / "static" / "site.css").read_text(encoding="utf-8")
    css = site_css + (ROOT / "templates" / "static" / "figures.css").read_text(encoding="utf-8")
    card, _ = sharing.card_svg(svg, css, "test")
    assert "var(" not in card
    var_a = re.search(r"--fig-A:\s*(#[0-9a-fA-F]{6})", site_css).group(1)
    lines_a = re.findall(r'<path class="fig-line c-A"[^>]*style="([^"]*)"', card)
    assert lines_a and all(f"stroke:{var_a}" in s for s in lines_a), lines_a[:2]


def test_the_404_page_is_in_the_sites_layout_and_its_links_resolve_from_the_root_path(
        shared_site):
    html = (shared_site / "404.html").read_text(encoding="utf-8")
    root_path = sharing.base_path(BASE)
    assert links.broken_links(shared_site, root_path) == []
    hrefs = [a.get("href") or a.get("src") for tag, a in link_attributes(html)
             if tag in ("a", "link", "script") and (a.get("href") or a.get("src"))]
    # the footer's commit links the project's repository (docs/site-config.md, "Links to
    # our own source"): the one address that is not the site's
    repo = parse_site((ROOT / "site.yaml").read_text(encoding="utf-8")).repository
    outside = [h for h in hrefs if repo and h.startswith(repo[0] + "/commit/")]
    assert len(outside) <= 1
    assert hrefs and all(h.startswith((root_path, "#")) for h in hrefs if h not in outside), hrefs
    listed = {h for h in re.findall(r'<li><a href="([^"]+)">', html)}
    assert {root_path + out for out in pages_of(shared_site).values()} <= listed
    meta = head_meta(html)
    assert meta["robots"] == ["noindex"] and "link:canonical" not in meta
    assert 'class="site-header"' in html and 'class="site-footer"' in html


def test_the_404_page_links_are_checked_from_the_root_path(shared_site, tmp_path):
    """A 404.html link outside the site's root path is refused by the link check."""
    import shutil
    site = tmp_path / "site"
    shutil.copytree(shared_site, site)
    page = site / "404.html"
    page.write_text(page.read_text(encoding="utf-8").replace(
        'href="/compute-in-transit/optics/index.html"', 'href="/optics/index.html"', 1),
        encoding="utf-8")
    found = links.broken_links(site, sharing.base_path(BASE))
    assert len(found) == 1 and "root path" in found[0], found
    page.write_text(page.read_text(encoding="utf-8").replace(
        'href="/optics/index.html"', 'href="/compute-in-transit/optics/nothing.html"', 1),
        encoding="utf-8")
    assert ["no such file" in f for f in links.broken_links(site, "/compute-in-transit/")] \
        == [True]


def test_robots_txt_names_the_sitemap(shared_site):
    robots = (shared_site / "robots.txt").read_text(encoding="utf-8").splitlines()
    assert f"Sitemap: {BASE}sitemap.xml" in robots
    assert (shared_site / "sitemap.xml").is_file()


def test_without_a_base_url_nothing_that_needs_an_absolute_address_is_written(built_site):
    site = Path(built_site)
    for name in ("sitemap.xml", "robots.txt", "share.png"):
        assert not (site / name).exists(), name
    for url, out in pages_of(site).items():
        html = (site / out).read_text(encoding="utf-8")
        meta = head_meta(html)
        assert not {"link:canonical", "og:url", "og:image"} & set(meta), out
        assert meta["og:title"] and meta["og:description"] == meta["description"], out
        assert meta["twitter:card"] == ["summary"], out
    assert links.broken_links(site, "/") == []
    assert 'href="/index.html"' in (site / "404.html").read_text(encoding="utf-8")


def test_the_open_graph_meta_is_valid_html(shared_site):
    from tests.unit.test_validator import vnu, where
    pages = [shared_site / "index.html", shared_site / "404.html",
             shared_site / "decks" / "01-sources" / "index.html"]
    errors = vnu(pages)
    assert not errors, "\n".join(where(m, shared_site.resolve()) for m in errors)


@pytest.mark.parametrize("meta", [
    '<meta property="og:description" content="We trained 12 models.">',
    '<meta property="og:title" content="12 models">',
    '<meta property="og:image:alt" content="Loss of 12 models">',
])
def test_a_digit_in_a_link_previews_words_is_a_naked_number(meta):
    page = (f'<!doctype html><html lang="en"><head><meta charset="utf-8">{meta}'
            '<title>t</title></head><body><p>Words.</p></body></html>')
    found = naked.check_pages({"x/index.html": page.encode()})
    assert len(found) == 1 and "'12'" in found[0], found


@pytest.mark.parametrize("value, problem", [
    ("ftp://example.org/", "http(s)"), ("example.org/site/", "http(s)"),
    ("https://example.org/?a=1", "query"), ("https:///path/", "host")])
def test_a_bad_base_url_is_refused_naming_where_it_was_given(value, problem):
    with pytest.raises(BuildError) as e:
        sharing.base_url(value, "site.yaml:3")
    assert e.value.where == "site.yaml:3" and problem in e.value.message


def test_the_option_wins_over_site_yaml_and_site_yaml_gives_the_default():
    text = (ROOT / "site.yaml").read_text(encoding="utf-8")
    cfg = siteconfig.parse_site(text.replace("base_url: null", "base_url: https://h.example/a"))
    assert sharing.chosen_base_url(None, cfg) == "https://h.example/a/"
    assert sharing.chosen_base_url("https://other.example", cfg) == "https://other.example/"
    assert sharing.chosen_base_url(None, siteconfig.parse_site(text)) is None


def test_a_bad_base_url_option_fails_the_build_in_one_line_before_any_stage(tmp_path):
    from cit import build
    r = run_in_process(build.main, ["--out", str(tmp_path / "out"), "--no-cache",
                                    "--base-url", "ftp://example.org/"], ROOT, None)
    assert r.returncode == 1
    assert r.stderr.strip().splitlines() == [
        "build failed: --base-url: base URL 'ftp://example.org/' is not an http(s) address "
        "with a host (e.g. https://user.github.io/repo/)"]
    assert not (tmp_path / "out").exists()


def test_a_share_figure_the_hub_does_not_show_fails_naming_its_site_yaml_line(
        project_copy):
    text = (project_copy / "site.yaml").read_text(encoding="utf-8")
    (project_copy / "site.yaml").write_text(
        text.replace("share_figure: loss-curves-wide", "share_figure: no-such-figure")
        .replace("base_url: null", f"base_url: {BASE}"), encoding="utf-8")
    line = next(n for n, s in enumerate(
        (project_copy / "site.yaml").read_text(encoding="utf-8").splitlines(), 1)
        if s.startswith("share_figure:"))
    r = run_build(project_copy / "out", root=project_copy)
    assert r.returncode == 1
    assert r.stderr.strip() == (f"build failed: site.yaml:{line}: share_figure: the hub shows "
                                "no figure with id 'no-such-figure' (an <svg> drawn at build "
                                "time, cit/svgplot.py)")


def test_a_rebuild_from_the_caches_with_a_base_url_equals_the_cold_build(project_copy):
    """With site.yaml's base_url: a second build reuses every page from its record
    (the share image then comes from the hub's recorded HTML) and writes the same
    bytes as the first, which rendered every page; --check lists no canonical link
    among the outside links that can change."""
    from tests.conftest import tree_digest
    text = (project_copy / "site.yaml").read_text(encoding="utf-8")
    (project_copy / "site.yaml").write_text(text.replace("base_url: null", f"base_url: {BASE}"),
                                            encoding="utf-8")
    first = run_build(project_copy / "one", root=project_copy, cold=False)
    assert first.returncode == 0, first.stderr
    again = run_build(project_copy / "two", root=project_copy, cold=False)
    assert again.returncode == 0, again.stderr
    assert re.search(r"\b0 of \d+ pages rendered", again.stdout), again.stdout
    assert tree_digest(project_copy / "one") == tree_digest(project_copy / "two")
    assert (project_copy / "two" / "share.png").is_file()
    from cit import build
    check = run_in_process(build.main, ["--check"], project_copy, None)
    assert check.returncode == 0 and BASE not in check.stdout, check.stdout
