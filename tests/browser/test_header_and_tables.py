"""The page frame at a phone's width and tables at a laptop's, in Chromium: at 390x844
the site header is one bar with a Menu button that opens the site's links, with and
without JavaScript; at 1280x800 every table of every page fits its box (nothing to
scroll sideways), those inside a fold or a chart's data too once opened; the hub reads
within its budget of screens (data/budgets.yaml, hub_screens); and at 390 px a wide
table scrolls inside its own box, never the page. The header's height, the tables'
widths and the hub's height are measured."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from .conftest import PHONE, site_pages

ROOT = Path(__file__).resolve().parents[2]

# one line of the header's text: its padding, the bar and a button's border, at most
ONE_BAR = """() => {
  const h = document.querySelector('.site-header');
  const name = h.querySelector('.site-name');
  const lh = parseFloat(getComputedStyle(name).lineHeight);
  return {height: h.getBoundingClientRect().height, limit: 2.4 * lh};
}"""
# each visible table's width and its box's (sub-pixel widths kept: a box's clientWidth
# is rounded, so the box's own rectangle is compared, to half a pixel)
TABLES = """() => [...document.querySelectorAll('main table')].filter(t => t.checkVisibility()).map(t => {
  const box = t.closest('.table-wrap') || t.parentElement;
  return {id: t.id || (t.caption ? t.caption.textContent.trim().slice(0, 60) : t.className),
          table: t.getBoundingClientRect().width, column: box.getBoundingClientRect().width,
          scroll: box.scrollWidth, client: box.clientWidth};
})"""


@pytest.fixture(scope="module")
def base(built_site, serve_dir) -> str:
    return serve_dir(built_site)


@pytest.mark.parametrize("scripts", [True, False], ids=["with JavaScript", "without"])
def test_on_a_phone_the_header_is_one_bar_with_a_menu_button(make_page, base, measured, scripts):
    page = make_page(**PHONE, java_script_enabled=scripts)
    page.goto(base + "transit/index.html")
    bar = page.evaluate(ONE_BAR)
    assert bar["height"] <= bar["limit"], bar
    links = page.locator("#site-nav a")
    assert links.count() >= 8 and not links.first.is_visible()
    page.click(".site-menu > summary")
    links.first.wait_for(state="visible")
    assert page.locator("#site-nav a:text-is('Optics')").is_visible()
    measured(f"header at 390x844 ({'with' if scripts else 'without'} JavaScript): "
             f"{bar['height']:.1f} px, menu closed")
    page.click("#site-nav a:text-is('Optics')")
    page.wait_for_url("**/optics/**")


def test_on_a_laptop_the_menu_is_the_header_row(make_page, base):
    page = make_page()
    page.goto(base + "transit/index.html")
    assert page.locator(".site-menu > summary").is_hidden()
    assert page.locator("#site-nav a:text-is('Optics')").is_visible()
    bar = page.evaluate(ONE_BAR)
    assert bar["height"] <= bar["limit"], bar


def test_at_1280_every_table_fits_its_column(make_page, base, built_site, measured):
    page = make_page()
    wide, seen = [], 0
    pages = site_pages(built_site)
    for rel in pages:
        page.goto(base + rel + "index.html", wait_until="load")
        page.wait_for_timeout(300)        # the explorer's tables are drawn after load
        # every fold and every chart's data open, as a reader who opens them sees them
        page.evaluate("document.querySelectorAll('main details').forEach(d => d.open = true)")
        page.wait_for_timeout(50)
        tables = page.evaluate(TABLES)
        seen += len(tables)
        for t in tables:
            if t["table"] > t["column"] + 0.5 or t["scroll"] > t["client"]:
                wide.append((rel, t))
        assert page.evaluate("document.documentElement.scrollWidth") <= 1280, rel
    measured(f"tables wider than their column at 1280x800: {len(wide)} of {seen} "
             f"on {len(pages)} pages")
    assert seen, "no table was measured"
    assert not wide, wide


def test_the_hub_reads_within_its_budget_of_screens(make_page, base, measured):
    """The hub's height at 1280x800 as it loads (folds closed), in screens of 800 px."""
    budget = yaml.safe_load((ROOT / "data" / "budgets.yaml").read_text())["hub_screens"]["value"]
    page = make_page(viewport={"width": 1280, "height": 800})
    page.goto(base + "index.html", wait_until="load")
    page.wait_for_timeout(300)
    screens = page.evaluate("document.documentElement.scrollHeight") / 800
    folds = page.locator("main.hub details.more").count()
    measured(f"the hub at 1280x800: {screens:.2f} screens ({folds} folds closed), budget {budget}")
    assert screens <= budget, f"the hub is {screens:.2f} screens at 1280x800 (budget {budget})"


def test_at_390_a_wide_table_scrolls_in_its_own_box(make_page, base):
    page = make_page(**PHONE)
    page.goto(base + "transit/index.html", wait_until="load")
    page.wait_for_timeout(300)
    tables = page.evaluate(TABLES)
    assert any(t["scroll"] > t["column"] for t in tables), "no table is wider than a phone"
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
