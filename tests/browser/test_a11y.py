"""Accessibility: axe-core on every page of the built site, in four states, with no
serious or critical violation allowed; the rest are counted by impact and printed.

States (the pages served on 127.0.0.1; the session fixture `site_audits` in conftest.py
keeps one browser context per state, which goes from page to page as a reader does, and
audits a page in its four states at once; test_figures reads the same audits for the
decks' figure slides):
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
contrast run comes last, takes them out of the page first and puts them back after.
Every other rule sees every row. The number left out is printed.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import pytest

from .conftest import (FAILING_IMPACTS, STATES, audit, audit_result, open_for_audit, site_pages,
                       start_audit, without_scripts)


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


@pytest.mark.parametrize("state", STATES, ids=lambda s: s.name)
def test_no_page_has_a_serious_or_critical_accessibility_violation(state, built_site,
                                                                   site_audits, measured):
    pages = site_pages(built_site)
    assert pages, f"no index.html under {built_site}"
    findings: list[Finding] = []
    twins = 0
    engine = ""
    for rel in pages:
        a = site_audits[(rel, "", state.name)]
        twins += a.twins
        engine = a.engine
        findings += [Finding(rel, state.name, v["id"], v["impact"] or "unknown", v["help"], v["nodes"])
                     for v in a.violations]
    by_impact = Counter(f.impact for f in findings)
    by_rule = Counter(f"{f.rule} ({f.impact})" for f in findings)
    measured(f"axe {engine}, {state.name}: {len(pages)} pages; violations by impact "
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
    ctx, page, _ = open_for_audit(browser, serve_dir(d), STATES[0])
    try:
        start_audit(page, STATES[0], axe_js)
        found, twins, _ = audit_result(page)
        # put back after the contrast rule: a later audit of the same page sees every row
        assert page.locator("tr").count() == 5
    finally:
        ctx.close()
    assert twins == 3
    contrast = [v for v in found if v["id"] == "color-contrast"]
    assert len(contrast) == 1 and "faint row" in contrast[0]["nodes"][0]["html"]


def test_a_page_without_its_scripts_keeps_its_data_blocks_and_loses_every_script():
    html = ('<script type="application/json" id="d">{"a": 1}</script>'
            '<script src="static/site.js" defer></script>'
            '<script type="module">import "./x.js";</script><p>kept</p>')
    assert without_scripts(html) == '<script type="application/json" id="d">{"a": 1}</script><p>kept</p>'
