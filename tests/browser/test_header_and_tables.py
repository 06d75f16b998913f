"""The page frame at a phone's width and tables at a laptop's, in Chromium: at 390x844
the site header is one bar with a Menu button that opens the site's links, with and
without JavaScript; at 1280x800 every table shown at load on the hub, /transit, /optics
and /tested fits its column (nothing to scroll sideways), and so do the data tables of
the hub's and /transit's charts once opened; and at 390 px a wide table scrolls inside its own box,
never the page. The header's height and the tables' widths are measured."""

from __future__ import annotations

import pytest

from .conftest import PHONE

# one line of the header's text: its padding, the bar and a button's border, at most
ONE_BAR = """() => {
  const h = document.querySelector('.site-header');
  const name = h.querySelector('.site-name');
  const lh = parseFloat(getComputedStyle(name).lineHeight);
  return {height: h.getBoundingClientRect().height, limit: 2.4 * lh};
}"""
TABLES = """() => [...document.querySelectorAll('main table')].filter(t => t.checkVisibility()).map(t => {
  const box = t.closest('.table-wrap') || t.parentElement;
  return {id: t.id || (t.caption ? t.caption.textContent.trim().slice(0, 60) : t.className),
          table: Math.ceil(t.getBoundingClientRect().width), column: box.clientWidth,
          scroll: box.scrollWidth};
})"""
PAGES = ("index.html", "transit/index.html", "optics/index.html", "tested/index.html")
# pages whose charts' data tables are opened too (on /optics, the chart of 15 runs has a
# data table of 15 columns, wider than 1280 px: one of the crowded charts)
OPENED = ("index.html", "transit/index.html")


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


def test_at_1280_every_table_fits_its_column(make_page, base, measured):
    page = make_page()
    wide = []
    for rel in PAGES:
        page.goto(base + rel, wait_until="load")
        page.wait_for_timeout(300)        # the explorer's tables are drawn after load
        if rel in OPENED:   # and the data behind each chart, as a reader who opens it sees it
            page.evaluate("document.querySelectorAll('details.chart-data').forEach(d => d.open = true)")
        for t in page.evaluate(TABLES):
            if t["table"] > t["column"] or t["scroll"] > t["column"]:
                wide.append((rel, t))
        assert page.evaluate("document.documentElement.scrollWidth") <= 1280, rel
    measured(f"tables wider than their column at 1280x800 on {len(PAGES)} pages: {len(wide)}")
    assert not wide, wide


def test_at_390_a_wide_table_scrolls_in_its_own_box(make_page, base):
    page = make_page(**PHONE)
    page.goto(base + "transit/index.html", wait_until="load")
    page.wait_for_timeout(300)
    tables = page.evaluate(TABLES)
    assert any(t["scroll"] > t["column"] for t in tables), "no table is wider than a phone"
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
