"""The reader's path, measured in Chromium:

- the hub's first screen holds its title, its one-sentence verdict and the loss chart's
  plot area, at 1280x800 and on a 390x844 phone (element bounding boxes);
- every page loads from file:// with no missing file (the favicon included) and no
  console error (over HTTP, test_site's sweep checks the same);
- plotly is fetched only when a reader reaches for a chart (pointer, focus or tap), never
  for being on screen; the interactive chart takes the preview's box exactly; the bytes
  a chart page transfers at load stay within budget.

Figures are printed (pytest -s shows them) for the record.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from .conftest import icon_problems, site_pages

ROOT = Path(__file__).resolve().parents[2]


FIRST_SCREENS = [(1280, 800), (390, 844)]
CHART_PAGES = ["index.html", "optics/index.html", "transit/index.html"]

# The plot area of a chart: the visible preview's grid (every grid line spans it), or,
# once plotly has drawn, plotly's drag layer over the plot.
PLOT_AREA = """(chart) => {
  const live = chart.querySelector('.nsewdrag');
  const rects = live ? [live.getBoundingClientRect()]
    : [...chart.querySelectorAll('.fig-grid')].map(g => g.getBoundingClientRect())
        .filter(r => r.width > 0 || r.height > 0);
  if (!rects.length) return null;
  return {top: Math.min(...rects.map(r => r.top)), bottom: Math.max(...rects.map(r => r.bottom)),
          left: Math.min(...rects.map(r => r.left)), right: Math.max(...rects.map(r => r.right))};
}"""

BYTES = """() => [performance.getEntriesByType('navigation')[0],
                 ...performance.getEntriesByType('resource')]
  .reduce((sum, e) => sum + e.transferSize, 0)"""


def box(page, selector: str) -> dict:
    b = page.eval_on_selector(selector, "el => { const r = el.getBoundingClientRect(); "
                                        "return {top: r.top, bottom: r.bottom}; }")
    return {k: round(v, 1) for k, v in b.items()}


@pytest.fixture(scope="module")
def served(built_site, serve_dir) -> tuple[Path, str]:
    return Path(built_site), serve_dir(built_site)


@pytest.mark.parametrize("width,height", FIRST_SCREENS)
def test_the_hub_first_screen_holds_the_title_the_verdict_and_the_plot_area(
        make_page, served, width, height, measured):
    _, base = served
    page = make_page(viewport={"width": width, "height": height})
    page.goto(base + "index.html")
    title = box(page, "main.hub > h1")
    verdict = box(page, "main.hub > h1 + p")
    plot = page.eval_on_selector("main.hub div.chart", PLOT_AREA)
    assert plot, "the hub's chart has no visible plot area"
    measured(f"hub first screen at {width}x{height}: title {title}, verdict {verdict}, "
             f"plot area top {plot['top']:.1f} bottom {plot['bottom']:.1f} "
             f"left {plot['left']:.1f} right {plot['right']:.1f}")
    assert page.evaluate("window.scrollY") == 0
    for name, b in (("title", title), ("verdict", verdict), ("plot area", plot)):
        assert 0 <= b["top"] and b["bottom"] <= height, f"the {name} is not on the first screen: {b}"
    assert title["bottom"] <= verdict["top"] <= plot["top"]
    assert plot["right"] <= width and plot["left"] >= 0, f"the plot area is wider than the screen: {plot}"
    # the chart's labels fit the screen's width too (no sideways scrolling)
    assert page.evaluate("document.documentElement.scrollWidth") <= width


# Elements whose right edge passes the viewport's, outside a box that scrolls on its own
# (a wide table's wrap, a figure's scroller): what makes a page scroll sideways.
WIDER_THAN_SCREEN = """() => {
  const w = document.documentElement.clientWidth;
  const scrolls = e => { const o = getComputedStyle(e).overflowX; return o === 'auto' || o === 'scroll'; };
  const inScroller = e => { for (let p = e.parentElement; p; p = p.parentElement) if (scrolls(p)) return true; return false; };
  return [...document.body.querySelectorAll('*')]
    .filter(e => e.getBoundingClientRect().right > w + 0.5 && !inScroller(e))
    .map(e => `${e.tagName.toLowerCase()} ${(e.textContent || '').trim().slice(0, 60)}`).slice(0, 5);
}"""


def test_no_page_scrolls_sideways_on_a_390px_phone(make_page, served, measured):
    site, base = served
    page = make_page(**{"viewport": {"width": 390, "height": 844}, "is_mobile": True,
                        "has_touch": True})
    widths = {}
    problems = []
    for rel in site_pages(site):
        page.goto(base + rel + "index.html", wait_until="load")
        widths[rel or "/"] = page.evaluate("document.documentElement.scrollWidth")
        if widths[rel or "/"] > 390:
            problems.append(f"/{rel}: {widths[rel or '/']} px wide; {page.evaluate(WIDER_THAN_SCREEN)}")
    measured(f"page widths at 390 px: widest {max(widths.values())} px ({len(widths)} pages)")
    assert not problems, "\n".join(problems)


def _watched_page(browser, root: str, problems: list[str]):
    """A page in a fresh context that records, in `problems`: every failed request
    (a 404 over HTTP, a missing file from file://), every request outside `root`, every
    console error and every uncaught script error. Returns (context, page)."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    page = ctx.new_page()
    page.on("response", lambda r: problems.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    page.on("requestfailed", lambda r: problems.append(f"failed ({r.failure}) {r.url}"))
    page.on("request", lambda r: None if r.url.startswith((root, "data:", "about:"))
            else problems.append(f"outside request {r.url}"))
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}")
            if m.type == "error" else None)
    page.on("pageerror", lambda exc: problems.append(f"uncaught: {exc}"))
    return ctx, page


def _load(page, url: str) -> None:
    """Load `url`, and wait a little after its load event for late errors."""
    page.goto(url, wait_until="load")
    page.wait_for_timeout(50)


def test_every_page_loads_from_file_with_no_missing_file_and_no_console_error(browser, served,
                                                                             measured):
    """From file://, one context goes from page to page as a reader opening the folder
    does. (Over HTTP, test_site's sweep watches every page for the same, and more.)"""
    site, _ = served
    root = site.resolve().as_uri() + "/"
    pages = site_pages(site)
    problems: list[str] = []
    icons = set()
    ctx, page = _watched_page(browser, root, problems)
    try:
        for rel in pages:
            _load(page, root + rel + "index.html")
            icon, missing = icon_problems(page, root)
            icons.add(icon)
            problems += [f"{rel}: {m}" for m in missing]
    finally:
        ctx.close()
    measured(f"file: {len(pages)} pages, {len(problems)} missing files or console errors, "
             f"icon {sorted(icons)}")
    assert not problems, "\n".join(problems)


def test_the_watch_reports_a_missing_file_and_a_console_error(browser, served):
    """The watch above can fail: a missing file and a console error on a page are seen,
    over HTTP and from file://."""
    site, base = served
    for root in (base, site.resolve().as_uri() + "/"):
        problems: list[str] = []
        ctx, page = _watched_page(browser, root, problems)
        try:
            _load(page, root + "index.html")
            page.evaluate("() => { const l = document.createElement('link'); l.rel = 'stylesheet'; "
                          "l.href = 'static/no-such-file.css'; document.head.appendChild(l); "
                          "console.error('made to fail'); }")
            page.wait_for_timeout(300)
        finally:
            ctx.close()
        assert any(p.endswith("static/no-such-file.css") for p in problems), (root, problems)
        assert "console error: made to fail" in problems, (root, problems)


def _plotly_requests(page) -> list[str]:
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "plotly" in r.url.rsplit("/", 1)[-1] else None)
    return asked


def _wait_drawn(page, chart):
    page.wait_for_function("el => el.getAttribute('data-state') === 'drawn'", arg=chart,
                           timeout=30_000)


@pytest.mark.parametrize("rel", CHART_PAGES)
def test_a_chart_page_loads_plotly_only_when_a_chart_is_reached_and_keeps_its_boxes(
        make_page, served, rel, measured):
    _, base = served
    page = make_page()
    asked = _plotly_requests(page)
    page.goto(base + rel, wait_until="load")
    charts = page.query_selector_all("div.chart[data-figure-id]")
    assert charts, f"{rel} has no chart"
    # on screen is not a reach: scroll every chart into view, touch none
    for chart in charts:
        chart.scroll_into_view_if_needed()
    page.mouse.move(0, 0)
    page.wait_for_timeout(300)
    at_load = page.evaluate(BYTES)
    assert asked == [], f"plotly was fetched without a reach: {asked}"
    assert all(c.query_selector(".chart-preview svg") for c in charts)
    shifts = []
    for chart in charts:
        chart.scroll_into_view_if_needed()
        before = chart.bounding_box()
        chart.hover()
        _wait_drawn(page, chart)
        after = chart.bounding_box()
        shifts.append((before, after))
        assert chart.query_selector(".chart-preview") is None, "the preview stayed beside the chart"
    page.wait_for_timeout(200)
    after_hover = page.evaluate(BYTES)
    measured(f"{rel}: {at_load:,} bytes transferred at load, {after_hover:,} after hovering "
             f"{len(charts)} chart(s); plotly fetched {len(asked)} time(s); boxes "
             + "; ".join(f"{b['height']:.1f} -> {a['height']:.1f}" for b, a in shifts))
    assert len(asked) == 1, f"plotly fetched {len(asked)} times"
    for before, after in shifts:
        assert before == after, f"the chart moved or resized when plotly drew it: {before} -> {after}"
    budgets = yaml.safe_load((ROOT / "data" / "budgets.yaml").read_text())
    at_load_budget = budgets["hub_bytes"]["value"]      # each chart page, the hub's budget
    after_budget = budgets["chart_page_bytes_after_hover"]["value"]
    assert at_load <= at_load_budget, f"{rel}: {at_load:,} bytes at load (budget {at_load_budget:,})"
    assert after_hover <= after_budget, \
        f"{rel}: {after_hover:,} bytes after hovering every chart (budget {after_budget:,})"


def test_focus_on_a_chart_or_a_tap_loads_it_too(make_page, served):
    _, base = served
    page = make_page()
    asked = _plotly_requests(page)
    page.goto(base + "index.html")
    chart = page.query_selector("main.hub div.chart")
    chart.focus()
    _wait_drawn(page, chart)
    assert len(asked) == 1
    touch = make_page(has_touch=True, viewport={"width": 390, "height": 844})
    page.wait_for_timeout(10)
    touch.goto(base + "transit/index.html")
    tapped = touch.query_selector("div.chart")
    tapped.scroll_into_view_if_needed()
    tapped.tap()
    _wait_drawn(touch, tapped)


def test_without_javascript_a_chart_is_its_preview_with_marks_that_carry_registry_ids(
        make_page, served, site_numbers):
    _, base = served
    page = make_page(java_script_enabled=False)
    page.goto(base + "index.html")
    marks = page.eval_on_selector_all(
        "main.hub div.chart .chart-svg-wide .fig-mark",
        "ms => ms.map(m => [m.getAttribute('data-id'), m.querySelector('title').textContent])")
    assert marks, "the hub's preview has no marks"
    for nid, title in marks:
        assert nid in site_numbers and site_numbers[nid]["text"] in title, (nid, title)
    assert page.eval_on_selector("main.hub div.chart .chart-svg-wide svg",
                                 "s => s.getBoundingClientRect().height") > 100


@pytest.fixture(scope="module")
def site_numbers(built_site) -> dict:
    import json
    return {n["id"]: n for n in json.loads((Path(built_site) / "numbers.json").read_text())["numbers"]}


def test_a_deck_opens_with_its_site_header_in_view(make_page, served):
    _, base = served
    for width, height in FIRST_SCREENS:
        page = make_page(viewport={"width": width, "height": height})
        for frag in ("", "#slide-1", "#slide-2"):
            page.goto("about:blank")        # each fragment is a fresh load of the deck
            page.goto(base + "decks/01-sources/index.html" + frag)
            page.wait_for_timeout(100)
            page.evaluate("document.querySelector('section.slide.is-current').focus()")
            header = box(page, ".site-header")
            assert header["top"] == 0 and page.evaluate("window.scrollY") == 0, \
                f"{width}x{height}{frag}: header at {header}"


def test_method_is_light_at_load_and_a_group_s_rows_come_when_it_is_opened(
        make_page, served, measured):
    """/method's HTML at load is within its budget and holds no index row; opening a
    group fetches the page's provenance script once and builds that group's rows, each
    number opening its card; the bytes before and after are measured."""
    site, base = served
    budget = yaml.safe_load((ROOT / "data" / "budgets.yaml").read_text())["method_html_bytes"]["value"]
    page = make_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page.goto(base + "method/index.html", wait_until="load")
    page.wait_for_timeout(200)
    html = page.evaluate("performance.getEntriesByType('navigation')[0].transferSize")
    at_load = page.evaluate(BYTES)
    elements = page.evaluate("document.getElementsByTagName('*').length")
    assert page.locator("details.index-group").count() > 1
    assert page.locator("details.index-group tbody tr").count() == 0
    first = page.locator("details.index-group").first
    first.locator("summary").click()
    page.wait_for_selector("details.index-group[data-built]")
    rows = page.locator("details.index-group[open] tbody tr")
    assert rows.count() == int(first.get_attribute("data-built")) > 0
    after = page.evaluate(BYTES)
    rows.first.locator("data.num").click()
    page.wait_for_selector("#cit-prov-card:not([hidden])")
    assert rows.first.get_attribute("id")[2:] in page.inner_text("#cit-prov-card")
    measured(f"/method: HTML {html:,} bytes at load (budget {budget:,}), {at_load:,} bytes "
             f"transferred, {elements:,} elements; after opening the first group "
             f"({rows.count()} rows) {after:,} bytes")
    assert html <= budget, f"/method's HTML is {html:,} bytes at load (budget {budget:,})"


def test_a_link_to_a_number_s_row_opens_its_group_and_shows_the_row(make_page, served):
    site, base = served
    numbers = json.loads((site / "numbers.json").read_text(encoding="utf-8"))["numbers"]
    target = numbers[len(numbers) // 2]["id"]
    page = make_page()
    page.goto(base + "method/index.html#n-" + target)
    row = page.locator(f"tr[id='n-{target}']")
    row.wait_for()
    assert "is-target" in row.get_attribute("class")
    box_ = row.bounding_box()
    assert box_ and 0 <= box_["y"] < 800, f"the row is not in view: {box_}"
    assert row.locator("data.num").get_attribute("data-id") == target


def test_a_card_links_its_upstream_file_at_the_commit_and_the_record_s_line(make_page, served):
    """cards.js draws the link the page's provenance script gives (tests/unit/
    test_source_links.py checks that script against the vendored files)."""
    site, base = served
    script = (site / "static" / "prov" / "notebook.js").read_text(encoding="utf-8")
    payload = json.loads(script[script.index("]=") + 2:script.rindex(";")])
    t, sources = payload["t"], payload["s"]
    nid, entry = next((k, e) for k, e in sorted(payload["n"].items()) if len(e) > 7)
    path_i, commit_i, _ = sources[entry[7][0]]
    want = f"{payload['u']}{t[commit_i]}/{t[path_i]}#{entry[7][1]}"
    page = make_page()
    page.goto(base + "notebook/index.html")
    num = page.locator(f"main data.num[data-id='{nid}']").first
    num.scroll_into_view_if_needed()
    num.click()
    link = page.locator("#cit-prov-card:not([hidden]) a.prov-link").first
    link.wait_for()
    assert link.get_attribute("href") == want
    assert t[path_i] in link.inner_text() and "line" in link.inner_text()
