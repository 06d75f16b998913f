"""Accessibility: axe-core on every page of the built site, in four states, with no
serious or critical violation allowed; the rest are counted by impact and printed.

States (each page in a fresh browser context, served on 127.0.0.1):
- desktop, light: every rule, with the first checked claim's card open (or, on a page
  without claims, the first number's provenance card) so the card is audited too;
- desktop, dark: colour contrast only (the one rule the colour scheme changes), with
  the first number's card open;
- phone (390 x 844, touch): every rule but colour contrast (layout rules: scrolling
  regions, target sizes, reflow);
- without JavaScript: every rule but colour contrast, on the HTML with its scripts
  removed (the stacked decks, the data tables behind the charts).

axe comes from an installed package, never from a network: the PyPI package
axe-playwright-python (pinned in pyproject.toml's `test` extra) ships axe.min.js, which is
injected with page.add_script_tag(path=...).

Colour contrast is slow on long tables (about 3 ms a cell), so rows that look exactly like
an earlier row of the same page (the same computed colours, backgrounds, fonts and
opacity on every element of the row) are left out of the contrast rule only: the
contrast run comes last and removes them from the page first. Every other rule sees
every row. The number left out is printed.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from .test_site import site_pages

FAILING_IMPACTS = ("critical", "serious")


LIGHT, DARK, PHONE_STATE, NO_JS = ("desktop, light, a card open", "desktop, dark, a card open",
                                   "phone", "without JavaScript")
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
DESKTOP = {"viewport": {"width": 1280, "height": 800}}


@dataclass(frozen=True)
class State:
    name: str
    context: dict
    rules: str            # "all", "contrast" (colour contrast only) or "layout" (all but it)
    scripts: bool = True  # False: the page's own scripts are removed before it loads
    open_card: bool = False


STATES = (
    State(LIGHT, {**DESKTOP, "color_scheme": "light"}, "all", open_card=True),
    State(DARK, {**DESKTOP, "color_scheme": "dark"}, "contrast", open_card=True),
    State(PHONE_STATE, {**PHONE, "color_scheme": "light"}, "layout"),
    State(NO_JS, {**DESKTOP, "color_scheme": "light"}, "layout", scripts=False),
)

# Removes every table row that an earlier row of the page already shows in the same
# computed colours, backgrounds, fonts and opacity, element by element; returns how many.
# (Telling axe to exclude them costs nearly as much as checking them.)
DROP_TWIN_ROWS = """() => {
  const props = ['color', 'backgroundColor', 'backgroundImage', 'fontSize', 'fontWeight',
                 'fontStyle', 'opacity', 'textShadow', 'visibility', 'display', 'mixBlendMode'];
  const look = (el) => [el, ...el.querySelectorAll('*')].map(e => {
    const s = getComputedStyle(e);
    return e.tagName + ':' + props.map(p => s[p]).join('|');
  }).join(';');
  const seen = new Set();
  const twins = [];
  for (const tr of document.querySelectorAll('tr')) {
    const key = look(tr);
    if (seen.has(key)) twins.push(tr);
    else seen.add(key);
  }
  twins.forEach(tr => tr.remove());
  return twins.length;
}"""

RUN_AXE = """async ({rules}) => {
  const opts = {resultTypes: ['violations']};
  if (rules === 'contrast') opts.runOnly = {type: 'rule', values: ['color-contrast']};
  if (rules === 'layout') opts.rules = {'color-contrast': {enabled: false}};
  const r = await axe.run(document, opts);
  return {engine: r.testEngine.version,
          violations: r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.map(n => ({target: n.target.join(' '), html: n.html.slice(0, 200),
                                      summary: (n.failureSummary || '').slice(0, 300)}))}))};
}"""

SCRIPT_TAG = re.compile(r"<script\b(?![^>]*type=\"application/json\")[^>]*>.*?</script>\s*",
                        re.S | re.I)


def without_scripts(html: str) -> str:
    """The page as a reader without JavaScript gets it: every script that would run is
    gone (data blocks stay; they are inert)."""
    return SCRIPT_TAG.sub("", html)


@dataclass
class Finding:
    page: str
    state: str
    rule: str
    impact: str
    help: str
    nodes: list

    def describe(self) -> str:
        where = "; ".join(f"{n['target']}: {n['summary']}" for n in self.nodes[:3])
        more = f" (+{len(self.nodes) - 3} more)" if len(self.nodes) > 3 else ""
        return (f"[{self.impact}] {self.rule} on {self.page or '/'} ({self.state}): "
                f"{self.help}. {len(self.nodes)} element(s): {where}{more}")


@pytest.fixture(scope="session")
def axe_js() -> Path:
    """axe.min.js from the installed axe-playwright-python package."""
    try:
        from axe_playwright_python.base import AXE_FILE_PATH
    except ImportError as err:
        pytest.fail(f"axe-core is not installed ({err}). Install the test dependencies: "
                    "python -m pip install -e '.[test]' (the `test` extra pins "
                    "axe-playwright-python, which ships axe.min.js).", pytrace=False)
    path = Path(AXE_FILE_PATH)
    if not path.is_file():
        pytest.fail(f"{path} is missing from the installed axe-playwright-python", pytrace=False)
    return path


def audit(browser, url: str, state: State, axe_js: Path) -> tuple[list[dict], int, str]:
    """Open `url` in `state`, run axe, return (violations, contrast twins left out,
    axe version)."""
    ctx = browser.new_context(**state.context)
    try:
        if not state.scripts:
            def strip(route):
                if route.request.resource_type == "document":
                    resp = route.fetch()
                    route.fulfill(response=resp, body=without_scripts(resp.text()))
                elif route.request.resource_type == "script":
                    route.abort()
                else:
                    route.continue_()
            ctx.route("**/*", strip)
        page = ctx.new_page()
        page.set_default_timeout(30_000)
        page.goto(url, wait_until="load")
        # Light: a checked claim's card where the page has one (its evidence list), else
        # a number's; dark: a number's card. Each is the first a reader can see (a deck
        # shows one slide), else the first.
        sel, field = "main data.num", "locator"
        if state.name == LIGHT and page.locator("main data.claim-mark").count():
            sel, field = "main data.claim-mark", "evidence"
        if state.open_card and page.locator(sel).count():
            shown = page.locator(sel + ":visible")
            num = shown.first if shown.count() else page.locator(sel).first
            num.dispatch_event("click")
            page.wait_for_function(
                """([num, field]) => { const c = document.getElementById(num.getAttribute('aria-controls'));
                              return c && !c.hidden && c.getAttribute('aria-busy') !== 'true'
                                     && c.querySelector(`[data-field="${field}"]`); }""",
                arg=[num.element_handle(), field])
        page.add_script_tag(path=str(axe_js))
        found, twins = [], 0
        if state.rules in ("all", "layout"):
            r = page.evaluate(RUN_AXE, {"rules": "layout"})
            found += r["violations"]
        if state.rules in ("all", "contrast"):
            twins = page.evaluate(DROP_TWIN_ROWS)
            r = page.evaluate(RUN_AXE, {"rules": "contrast"})
            found += r["violations"]
        return found, twins, r["engine"]
    finally:
        ctx.close()


@pytest.fixture(scope="module")
def site_url(built_site, serve_dir) -> tuple[list[str], str]:
    pages = site_pages(Path(built_site))
    assert pages, f"no index.html under {built_site}"
    return pages, serve_dir(built_site)


@pytest.mark.parametrize("state", STATES, ids=lambda s: s.name)
def test_no_page_has_a_serious_or_critical_accessibility_violation(state, browser, site_url,
                                                                   axe_js, capsys):
    pages, base = site_url
    findings: list[Finding] = []
    twins = 0
    engine = ""
    for rel in pages:
        violations, t, engine = audit(browser, base + rel, state, axe_js)
        twins += t
        findings += [Finding(rel, state.name, v["id"], v["impact"] or "unknown", v["help"], v["nodes"])
                     for v in violations]
    by_impact = Counter(f.impact for f in findings)
    by_rule = Counter(f"{f.rule} ({f.impact})" for f in findings)
    with capsys.disabled():
        print(f"\naxe {engine}, {state.name}: {len(pages)} pages; violations by impact "
              + (", ".join(f"{k} {by_impact[k]}" for k in ("critical", "serious", "moderate", "minor"))
                 + (f"; rules: {', '.join(f'{r} x{n}' for r, n in sorted(by_rule.items()))}" if by_rule else ""))
              + (f"; {twins} look-alike table rows left out of the contrast rule" if twins else ""))
    failing = [f.describe() for f in findings if f.impact in FAILING_IMPACTS]
    assert not failing, "\n".join(failing)


def test_the_audit_reports_a_serious_violation_on_a_page_made_to_have_one(
        browser, tmp_path_factory, serve_dir, axe_js):
    """The harness runs axe for real: a page with an unlabelled image, grey-on-grey text
    and a scrolling box no keyboard can reach is reported in each state that checks it."""
    d = tmp_path_factory.mktemp("a11y-bad")
    rows = "".join("<tr><td>row</td><td>cell</td></tr>" for _ in range(3))
    (d / "index.html").write_text(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>bad</title></head>'
        '<body><main><h1>A bad page</h1><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">'
        f'<table><tbody>{rows}</tbody></table>'
        '<p style="color:#aaa;background:#bbb">faint words</p>'
        '<div style="overflow:auto;height:40px;width:80px"><p>' + "scroll " * 60 + "</p></div>"
        "<script>document.title = 'still bad';</script></main></body></html>", encoding="utf-8")
    url = serve_dir(d)
    rules = {s.name: {v["id"] for v in audit(browser, url, s, axe_js)[0]
                      if v["impact"] in FAILING_IMPACTS} for s in STATES}
    light, dark, phone, nojs = (rules[s.name] for s in STATES)
    assert {"image-alt", "color-contrast", "scrollable-region-focusable"} <= light
    assert dark == {"color-contrast"}
    assert {"image-alt", "scrollable-region-focusable"} <= phone and "color-contrast" not in phone
    assert {"image-alt", "scrollable-region-focusable"} <= nojs


def test_look_alike_rows_are_left_out_of_the_contrast_rule_but_a_different_row_is_not(
        browser, tmp_path_factory, serve_dir, axe_js):
    d = tmp_path_factory.mktemp("a11y-rows")
    same = "".join("<tr><td>alike</td></tr>" for _ in range(4))
    (d / "index.html").write_text(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>rows</title></head>'
        f'<body><main><h1>Rows</h1><table><tbody>{same}'
        '<tr><td style="color:#ccc">faint row</td></tr></tbody></table></main></body></html>',
        encoding="utf-8")
    found, twins, _ = audit(browser, serve_dir(d), STATES[0], axe_js)
    assert twins == 3
    contrast = [v for v in found if v["id"] == "color-contrast"]
    assert len(contrast) == 1 and "faint row" in contrast[0]["nodes"][0]["html"]


def test_a_page_without_its_scripts_keeps_its_data_blocks_and_loses_every_script():
    html = ('<script type="application/json" id="d">{"a": 1}</script>'
            '<script src="static/site.js" defer></script>'
            '<script type="module">import "./x.js";</script><p>kept</p>')
    assert without_scripts(html) == '<script type="application/json" id="d">{"a": 1}</script><p>kept</p>'
