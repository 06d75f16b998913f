"""The site served where GitHub Pages serves a project site: under a sub-path
(/compute-in-transit/), built with that base URL, with 404.html for any missing
address. In Chromium: a search result goes to its page under the sub-path; a missing
address at any depth shows the site's 404 page styled, with search and links that
work; the share image is the hub's figure in the site's colours."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from cit import sharing
from tests.conftest import ROOT, run_in_process
from tests.browser.test_search import _search

PREFIX = "/compute-in-transit/"
BASE = "https://example.org" + PREFIX


@pytest.fixture(scope="module")
def sub_path_site(tmp_path_factory, vendored_files, serve_dir) -> tuple[Path, str]:
    """The site built cold with --base-url BASE, served at PREFIX with its 404.html."""
    from cit import build
    out = tmp_path_factory.mktemp("subpath") / "site"
    r = run_in_process(build.main, ["--out", str(out), "--no-cache", "--base-url", BASE],
                       ROOT, None)
    assert r.returncode == 0, r.stderr
    return out, serve_dir(out, prefix=PREFIX, not_found=True)


def test_under_a_sub_path_a_search_result_goes_to_its_page(make_page, sub_path_site):
    site, base = sub_path_site
    import json
    numbers = json.loads((site / "numbers.json").read_text(encoding="utf-8"))["numbers"]
    target = numbers[len(numbers) // 2]["id"]
    page = make_page()
    page.goto(base + "decks/02-training-traffic/index.html", wait_until="load")
    links = _search(page, target)
    want = f"{PREFIX}method/index.html#n-{target}"
    assert want in links, links
    assert all(h.startswith(PREFIX) for h in links), links
    page.click(f"dialog .search-results a[href='{want}']")
    row = page.locator(f"tr[id='n-{target}']")
    row.wait_for()
    assert "is-target" in row.get_attribute("class")
    assert page.url == "http://" + base.split("//")[1].split("/")[0] + want


def _not_found_error_only(page, make_page) -> None:
    """The one console line a 404 response makes (Chromium logs the status); anything
    else stays for the guard."""
    guard = make_page.guard(page)
    rest = [m for m in guard.console_errors
            if "status of 404" not in m or "/static/" in m or "/pagefind/" in m]
    guard.console_errors[:] = rest


@pytest.mark.parametrize("missing", ["nothing-here", "decks/09-none/slide/", "a/b/c/d/e.html"])
def test_a_missing_address_at_any_depth_shows_the_styled_404_page_whose_links_work(
        make_page, sub_path_site, missing):
    _, base = sub_path_site
    page = make_page()
    response = page.goto(base + missing, wait_until="load")
    assert response.status == 404
    assert page.title().startswith("Page not found")
    _not_found_error_only(page, make_page)
    loaded = page.evaluate("() => performance.getEntriesByType('resource')"
                           ".filter(e => e.responseStatus === 200).map(e => e.name)")
    assert any(u.endswith(PREFIX + "static/site.css") for u in loaded), loaded
    assert any(u.endswith(PREFIX + "static/site.js") for u in loaded), loaded
    # the site's sheet applies: the header is laid out as on every page
    assert page.evaluate("() => getComputedStyle(document.querySelector('.site-header'))"
                         ".display") != "block"
    links = _search(page, "optics")
    assert links and all(h.startswith(PREFIX) for h in links), links
    page.click("dialog .search-close")
    page.click("#site-nav a:text-is('Optics')")
    page.wait_for_load_state("load")
    assert page.url.endswith(PREFIX + "optics/index.html")
    assert page.title().startswith("The optics")


def test_the_share_image_is_the_hubs_figure_in_the_sites_colours(make_page, sub_path_site):
    """Each variant line's colour on the card (the site's light-mode colours, resolved
    at build time) is on the PNG in solid pixels."""
    site, base = sub_path_site
    figure = yaml.safe_load((ROOT / "site.yaml").read_text(encoding="utf-8"))["share_figure"]
    svg = sharing.figure_svg((site / "index.html").read_text(encoding="utf-8"), figure)
    # the sheets as shipped: the build appends the palette to site.css (cit/palette.py)
    css = "\n".join(f.read_text(encoding="utf-8") for f in sorted(
        (site / "static").glob("*.css"), key=lambda f: f.name != "site.css"))
    card, _ = sharing.card_svg(svg, css, "test")
    colours = sorted(set(re.findall(r'class="fig-line[^"]*"[^>]*style="[^"]*stroke:(#[0-9a-f]{6})',
                                    card)))
    assert len(colours) >= 4, colours
    page = make_page()
    page.goto(base + "index.html", wait_until="load")
    counts = page.evaluate("""async (colours) => {
      const img = new Image();
      img.src = 'share.png';
      await img.decode();
      const c = document.createElement('canvas');
      c.width = img.naturalWidth; c.height = img.naturalHeight;
      const g = c.getContext('2d');
      g.drawImage(img, 0, 0);
      const d = g.getImageData(0, 0, c.width, c.height).data;
      const hex = (i) => '#' + [d[i], d[i + 1], d[i + 2]].map(v => v.toString(16).padStart(2, '0')).join('');
      const n = Object.fromEntries(colours.map(k => [k, 0]));
      for (let i = 0; i < d.length; i += 4) { const k = hex(i); if (k in n) n[k] += 1; }
      return [c.width, c.height, n];
    }""", colours)
    width, height, found = counts
    assert (width, height) == (sharing.CARD_W, sharing.CARD_H)
    assert all(v >= 50 for v in found.values()), found
