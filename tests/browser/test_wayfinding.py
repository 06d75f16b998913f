"""Finding one's way on a page, in Chromium: every heading of the hub and the pages
carries a visible link to itself; every page longer than two screens has an outline
whose links reach its sections; on a screen wide enough the outline sits open in the
margin, beside the text, not over it."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import site_pages

HEADINGS = """() => [...document.querySelectorAll('main :is(h2, h3, h4)')].map(h => {
  const a = h.querySelector(':scope > a.permalink');
  const r = a ? a.getBoundingClientRect() : null;
  return {id: h.id, href: a ? a.getAttribute('href') : null,
          visible: !!r && r.width > 0 && r.height > 0 && getComputedStyle(a).opacity > 0};
})"""

OUTLINE = """() => {
  const nav = document.querySelector('nav.page-outline');
  if (!nav) return null;
  const links = [...nav.querySelectorAll('a')].map(a => a.getAttribute('href'));
  return {links, missing: links.filter(h => !document.getElementById(h.slice(1))),
          h2: [...document.querySelectorAll('main h2[id]')].map(h => '#' + h.id)};
}"""


@pytest.fixture(scope="module")
def served(built_site, serve_dir) -> tuple[Path, str]:
    return Path(built_site), serve_dir(built_site)


def _pages(site: Path) -> list[str]:
    return [rel for rel in site_pages(site) if not rel.startswith("decks/")]


def test_every_heading_of_the_hub_and_the_pages_has_a_visible_permalink(page, served, measured):
    site, base = served
    count = 0
    for rel in _pages(site):
        page.goto(base + rel + "index.html")
        heads = page.evaluate(HEADINGS)
        assert heads, f"/{rel}: no headings"
        for h in heads:
            assert h["href"] == "#" + h["id"] and h["visible"], f"/{rel}: {h}"
        count += len(heads)
    measured(f"permalinks: {count} headings on {len(_pages(site))} pages, each with its visible link")


def test_every_page_longer_than_two_screens_has_an_outline_that_reaches_its_sections(
        page, served, measured):
    site, base = served
    long_pages = []
    for rel in _pages(site):
        page.goto(base + rel + "index.html")
        screens = page.evaluate("document.documentElement.scrollHeight / innerHeight")
        outline = page.evaluate(OUTLINE)
        if screens <= 2:
            continue
        long_pages.append(f"/{rel} {screens:.1f}")
        assert outline, f"/{rel} is {screens:.1f} screens long and has no outline"
        assert not outline["missing"], f"/{rel}: outline links to nothing: {outline['missing']}"
        if len(outline["h2"]) > 1:   # a page of sections lists every one
            assert outline["links"] == outline["h2"], f"/{rel}: {outline}"
        page.click(f"nav.page-outline summary")
        target = outline["links"][-1]
        page.click(f"nav.page-outline a[href='{target}']")
        page.wait_for_function("h => location.hash === h", arg=target)
        top = page.evaluate(f"document.getElementById({target[1:]!r}).getBoundingClientRect().top")
        assert 0 <= top < page.viewport_size["height"], f"/{rel}: {target} not brought into view"
    measured(f"outline on every page longer than two screens at 1280x800: {', '.join(long_pages)}")
    assert long_pages, "no page is longer than two screens: the test shows nothing"


def test_on_a_wide_screen_the_outline_is_open_in_the_margin_beside_the_text(make_page, served):
    _, base = served
    page = make_page(viewport={"width": 1700, "height": 900})
    page.goto(base + "transit/index.html")
    page.wait_for_function("() => document.querySelector('nav.page-outline details').open")
    nav = page.eval_on_selector("nav.page-outline", "n => n.getBoundingClientRect().toJSON()")
    wide = page.evaluate("""() => Math.min(...[...document.querySelectorAll('main > :not(section, nav), main > section > *')]
        .map(e => e.getBoundingClientRect()).filter(r => r.width > 0 && r.height > 0).map(r => r.left))""")
    assert nav["right"] <= wide, f"the outline ({nav}) reaches over the text (left edge {wide})"
    page.mouse.wheel(0, 3000)
    page.wait_for_function("() => scrollY > 1000")
    again = page.eval_on_selector("nav.page-outline", "n => n.getBoundingClientRect().top")
    assert again == nav["top"], "the outline should stay in place as the page scrolls"
