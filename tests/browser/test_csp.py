"""The site under its own Content-Security-Policy, in Chromium: every page, over HTTP and
from file://, loaded and then used as a reader uses it (every chart reached for until
plotly has drawn it, and hovered; a number's card opened; every explorer control moved;
a deck's slides stepped through; the chain's toggle pressed), with every
`securitypolicyviolation` event and every console message of a refusal counted as a
failure. The policy itself is read from each page (templates/base.html writes it), and
must be a strict one: docs/output.md, "Content-Security-Policy".
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.browser.conftest import site_pages

POLICY_RE = re.compile(
    r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">')

# Recorded from the first moment of each document, before any of the page's scripts.
WATCH_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.__cspViolations.push(`${e.violatedDirective} blocked ${e.blockedURI || 'inline'} `
    + `at ${e.sourceFile || document.URL}:${e.lineNumber}`);
}, true);
"""

# What a reader does on a page, each where the page has it; returns what it did, so
# the test can tell that the page was really used (a chart drawn, a card opened).
USE_THE_PAGE = """async () => {
  const wait = async (ok, ms) => {
    const t0 = performance.now();
    while (!ok()) {
      if (performance.now() - t0 > ms) return false;
      await new Promise(r => setTimeout(r, 20));
    }
    return true;
  };
  const did = {charts: 0, cards: 0, controls: 0, slides: 0, toggles: 0};
  for (const gd of document.querySelectorAll('div.chart[data-figure-id]')) {
    gd.scrollIntoView();
    gd.dispatchEvent(new PointerEvent('pointerenter', {bubbles: false}));
    if (await wait(() => gd.querySelector('svg.main-svg g.trace'), 20000)) {
      const box = gd.querySelector('.nsewdrag') || gd;
      const r = box.getBoundingClientRect();
      box.dispatchEvent(new MouseEvent('mousemove', {bubbles: true,
        clientX: r.left + r.width / 2, clientY: r.top + r.height / 2}));
      await new Promise(res => setTimeout(res, 100));
      did.charts += 1;
    }
  }
  const num = document.querySelector('main data.num');
  if (num) {
    num.scrollIntoView();
    num.click();
    if (await wait(() => document.querySelector('.prov-card:not([hidden])'), 5000))
      did.cards += 1;
    document.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape', bubbles: true}));
  }
  for (const form of document.querySelectorAll('form.explorer-controls')) {
    for (const input of form.querySelectorAll('input')) {
      if (input.type === 'range') input.value = String((Number(input.min) + Number(input.max)) / 2);
      else input.checked = !input.checked;
      input.dispatchEvent(new Event('input', {bubbles: true}));
      input.dispatchEvent(new Event('change', {bubbles: true}));
      did.controls += 1;
    }
    const reset = form.querySelector('[data-action="reset"]');
    if (reset) reset.click();
  }
  for (const _ of document.querySelectorAll('section.slide')) {
    document.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight', bubbles: true}));
    await new Promise(res => setTimeout(res, 20));
    did.slides += 1;
  }
  for (const b of document.querySelectorAll('.chain button, .chain input')) {
    b.click();
    did.toggles += 1;
  }
  await new Promise(res => setTimeout(res, 200));
  return did;
}"""


def page_policies(site: Path) -> dict[str, list[str]]:
    out = {}
    for rel in site_pages(site):
        html = (site / rel / "index.html").read_text(encoding="utf-8")
        out[rel] = POLICY_RE.findall(html)
    return out


def directives(policy: str) -> dict[str, list[str]]:
    out = {}
    for part in policy.split(";"):
        words = part.split()
        if words:
            out[words[0]] = words[1:]
    return out


def test_every_page_carries_one_strict_policy_before_anything_it_governs(built_site):
    policies = page_policies(built_site)
    assert len(policies) >= 12, sorted(policies)
    assert all(len(p) == 1 for p in policies.values()), policies
    assert len({p[0] for p in policies.values()}) == 1, "the policy differs between pages"
    d = directives(next(iter(policies.values()))[0])
    for name in ("script-src", "style-src"):
        assert "'self'" in d[name] and "'unsafe-inline'" not in d[name], d[name]
        assert not {"'unsafe-eval'", "'unsafe-hashes'", "*", "data:"} & set(d[name]), d[name]
    assert d["object-src"] == ["'none'"] and d["base-uri"] == ["'none'"]
    assert d["default-src"] == ["'self'"]
    for rel in policies:
        head = (built_site / rel / "index.html").read_text(encoding="utf-8").split("</head>")[0]
        meta = head.index("Content-Security-Policy")
        first = min((head.find(t) for t in ("<script", "<link", "<style") if t in head),
                    default=len(head))
        assert meta < first, f"{rel or 'hub'}: the policy comes after what it governs"


class InlineCode(HTMLParser):
    """What the policy forbids in markup, some of which a browser reports only when it
    runs (an on* handler when its event fires, a javascript: link when followed)."""

    def __init__(self):
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        line = self.getpos()[0]
        if tag == "script" and "src" not in a and a.get("type") != "application/json":
            self.found.append(f"line {line}: an inline <script>")
        if tag == "style":
            self.found.append(f"line {line}: a <style> element")
        for name, value in attrs:
            if name == "style" or name.startswith("on"):
                self.found.append(f"line {line}: <{tag} {name}=...>")
            if (name in ("href", "src", "action", "formaction")
                    and re.sub(r"[\s\x00-\x1f]", "", value or "").lower()
                    .startswith("javascript:")):
                self.found.append(f"line {line}: <{tag} {name}=\"javascript:...\">")


def test_no_page_holds_inline_code_a_style_attribute_or_a_handler(built_site):
    found = {}
    for f in sorted(Path(built_site).rglob("*.html")):
        scan = InlineCode()
        scan.feed(f.read_text(encoding="utf-8"))
        if scan.found:
            found[f.relative_to(built_site).as_posix()] = scan.found
    assert not found, found


def test_the_markup_check_finds_each_kind_of_inline_code():
    scan = InlineCode()
    scan.feed('<p style="color:red" onclick="f()">x</p><script>f()</script>'
              '<script type="application/json">{}</script><script src="a.js"></script>'
              '<style>p{}</style><a href=" JavaScript:f()">y</a>')
    assert [f.split(": ", 1)[1] for f in scan.found] == [
        "<p style=...>", "<p onclick=...>", "an inline <script>", "a <style> element",
        '<a href="javascript:...">']


def used_under_policy(browser, url: str) -> tuple[list[str], dict]:
    """Open `url` in a fresh context, use it, and return the violations (events and
    console refusals) and what was done."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    ctx.add_init_script(WATCH_VIOLATIONS)
    page = ctx.new_page()
    page.set_default_timeout(30_000)
    refused = []
    page.on("console", lambda m: refused.append(f"console: {m.text}")
            if "Content Security Policy" in m.text or "Refused to" in m.text else None)
    try:
        page.goto(url, wait_until="load")
        did = page.evaluate(USE_THE_PAGE)
        events = page.evaluate("() => window.__cspViolations")
    finally:
        ctx.close()
    return events + refused, did


@pytest.mark.parametrize("scheme", ["http", "file"])
def test_no_page_breaks_the_policy_while_a_reader_uses_it(browser, built_site, serve_dir,
                                                         scheme, measured):
    base = serve_dir(built_site) if scheme == "http" else Path(built_site).as_uri() + "/"
    found, used = {}, {}
    for rel in site_pages(built_site):
        violations, did = used_under_policy(browser, base + rel + "index.html")
        found[rel or "hub"] = violations
        used[rel or "hub"] = did
    total = {k: sum(d[k] for d in used.values()) for k in next(iter(used.values()))}
    measured(f"CSP over {scheme}: {len(found)} pages, "
             + ", ".join(f"{(k or 'hub')} {len(v)}" for k, v in found.items())
             + f" violations; used: {total}")
    bad = {k: v for k, v in found.items() if v}
    assert not bad, bad
    # the pages were used, not only loaded: every chart drawn, a card opened, controls moved
    charts = sum((built_site / rel / "index.html").read_text(encoding="utf-8")
                 .count('class="chart"') for rel in site_pages(built_site))
    assert total["charts"] == charts > 0, (total, charts)
    assert total["cards"] == sum(1 for rel in site_pages(built_site)
                                 if "<data class=\"num\"" in
                                 (built_site / rel / "index.html").read_text(encoding="utf-8"))
    assert total["controls"] > 0 and total["slides"] > 0
