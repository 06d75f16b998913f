"""The whole built site in Chromium, page by page: every page found by crawling the built
folder for index.html is served on 127.0.0.1 and opened once. On each page:

- no console error and no uncaught script error;
- every request goes to the local server (a route handler aborts and records any other),
  and none fails (no 404); the icon the page links is there;
- every chart (`div.chart[data-figure-id]`, drawn by static/charts.js) holds as many
  Plotly traces as its embedded figure JSON, each trace has drawn SVG paths, and every
  trace type, trace attribute and layout attribute the figure uses is in the loaded
  plotly.js bundle (a partial bundle ignores what it lacks without a word);
- every number (`data.num`) carries the kind and value numbers.json records, and its
  provenance card says the kind, sources, locator, computation and raw value recorded
  there: for every number through the fields the card is drawn from, and by a real click
  on a sample that covers every shape of card on the page (the card may fetch its
  provenance lazily: the check waits for it).

The hub is also opened from file:// with the same checks. The checks themselves are
tested: a page that asks another host, a page whose Plotly never loads and a page whose
provenance was tampered with must each be reported.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from cit.markup import SHAPED_KINDS
from cit.plotlybundle import SCRIPT as PLOTLY_SCRIPT

from .conftest import icon_problems, site_pages

ROOT = Path(__file__).resolve().parents[2]
INERT_SCHEMES = {"data", "blob", "about"}
# How long a card or a chart may take to fill in (lazy provenance, deferred scripts).
SETTLE_MS = 5_000
# A chart in the HTML: any element that names its embedded figure (charts.js draws each).
CHART_DIV = re.compile(r"<div\b[^>]*\bdata-figure-id=")


def content_pages(content: Path) -> list[str]:
    """The pages the content folder asks for: the hub, one per pages/*.md and one per
    decks/*.md (the render stage's URL scheme)."""
    out = [""] if (content / "hub.md").is_file() else []
    out += [f"{p.stem}/" for p in (content / "pages").glob("*.md")]
    out += [f"decks/{p.stem}/" for p in (content / "decks").glob("*.md")]
    return sorted(out)


# ---------------------------------------------------------------- the watch on a page

@dataclass
class Watch:
    """What one page did: every request it made, those that left the allowed origin
    (aborted), those that failed (a status of 400 or more, a missing file, a network
    error), its console errors and its uncaught errors."""
    allowed: str                      # URL prefix every request must start with
    requests: list[str] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)

    def on_route(self, route):
        url = route.request.url
        self.requests.append(url)
        if urlsplit(url).scheme in INERT_SCHEMES or url.startswith(self.allowed):
            route.continue_()
        else:
            self.outside.append(url)
            route.abort()

    def on_response(self, response):
        if response.status >= 400:
            self.failed.append(f"{response.status} {response.url}")

    def on_request_failed(self, request):
        if request.url not in self.outside:      # those were aborted on purpose
            self.failed.append(f"{request.failure} {request.url}")

    def on_console(self, msg):
        if msg.type == "error":
            loc = msg.location or {}
            self.console_errors.append(f"{msg.text} ({loc.get('url', '')}:{loc.get('lineNumber', '')})")

    def problems(self) -> list[str]:
        return ([f"console error: {m}" for m in self.console_errors]
                + [f"uncaught error: {m}" for m in self.page_errors]
                + [f"request to another host (aborted): {u}" for u in self.outside]
                + [f"failed request: {u}" for u in self.failed])


def open_watched(browser, url: str, allowed: str, *, routes=(), bypass_csp: bool = False):
    """A fresh context and page whose every request is checked against `allowed`;
    `routes` are extra (pattern, handler) pairs registered before the watch's own;
    `bypass_csp` sets the page's Content-Security-Policy aside (to test the watch on a
    request the policy would stop first). Returns (context, page, watch) once the page
    has loaded."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 800}, bypass_csp=bypass_csp)
    watch = Watch(allowed)
    ctx.route("**/*", watch.on_route)
    for pattern, handler in routes:
        ctx.route(pattern, handler)   # later routes run first
    page = ctx.new_page()
    page.set_default_timeout(30_000)
    page.on("console", watch.on_console)
    page.on("pageerror", lambda exc: watch.page_errors.append(str(exc)))
    page.on("response", watch.on_response)
    page.on("requestfailed", watch.on_request_failed)
    page.goto(url, wait_until="load")
    return ctx, page, watch


# ---------------------------------------------------------------- checks run in the page

CHECK_CHARTS = """async ({settleMs}) => {
  const wait = async (ok) => {
    const t0 = performance.now();
    while (!ok()) {
      if (performance.now() - t0 > settleMs) return false;
      await new Promise(r => setTimeout(r, 20));
    }
    return true;
  };
  const drawnTraces = (gd) => [...gd.querySelectorAll('svg.main-svg g.trace')];
  const tracePaths = (g) => [...g.querySelectorAll('path')]
    .filter(p => /[0-9]/.test(p.getAttribute('d') || '')).length;
  // Everything the figure asks for is in the loaded plotly.js bundle: its trace types,
  // each trace attribute and each layout attribute (shapes, annotations, legend, ...).
  // A partial bundle silently ignores what it lacks, so drawing alone would not tell.
  const unsupported = (fid, fig) => {
    const schema = window.Plotly.PlotSchema.get();
    const out = [];
    for (const t of fig.data) {
      const type = t.type || 'scatter';
      const known = schema.traces[type];
      if (!known) { out.push(`${fid}: trace type ${type} is not in the plotly.js bundle`); continue; }
      for (const k of Object.keys(t))
        if (!(k in known.attributes)) out.push(`${fid}: ${type} attribute ${k} is not in the bundle`);
    }
    for (const k of Object.keys(fig.layout || {}))
      if (!(k in schema.layout.layoutAttributes)) out.push(`${fid}: layout attribute ${k} is not in the bundle`);
    return out;
  };
  const failures = [];
  let traces = 0;
  const charts = [...document.querySelectorAll('div.chart[data-figure-id]')];
  for (const gd of charts) {
    const fid = gd.getAttribute('data-figure-id');
    const script = document.getElementById(fid + '-json');
    if (!script) { failures.push(`${fid}: no embedded figure JSON (#${fid}-json)`); continue; }
    let want, fig;
    try { fig = JSON.parse(script.textContent); want = fig.data.length; }
    catch (err) { failures.push(`${fid}: figure JSON does not parse: ${err}`); continue; }
    gd.scrollIntoView();
    // plotly loads only when a reader reaches for a chart: the pointer enters it
    gd.dispatchEvent(new PointerEvent('pointerenter', {bubbles: false}));
    const ok = await wait(() => gd.data && gd.data.length === want &&
                                drawnTraces(gd).length === want &&
                                drawnTraces(gd).every(g => tracePaths(g) > 0));
    if (!ok) {
      const drawn = drawnTraces(gd);
      failures.push(`${fid}: figure has ${want} traces; Plotly holds ` +
        `${gd.data ? gd.data.length : 'none'}, SVG draws ${drawn.length}, ` +
        `${drawn.filter(g => tracePaths(g) === 0).length} of them without a path`);
      continue;
    }
    traces += want;
    failures.push(...unsupported(fid, fig));
  }
  return {charts: charts.length, traces, failures};
}"""

# The two helpers both card checks start with: wait until a condition holds (or give
# up after ms), and read a card field by its data-field.
CARD_JS_HELPERS = """  const wait = async (ok, ms) => {
    const t0 = performance.now();
    while (!ok()) {
      if (performance.now() - t0 > ms) return false;
      await new Promise(r => setTimeout(r, 10));
    }
    return true;
  };
  const field = (card, f) => {
    const d = card && card.querySelector(`[data-field="${f}"]`);
    return d ? d.textContent.trim() : null;
  };
"""

# Every number's card, checked against numbers.json in one page evaluation. The card is
# drawn from its fields (static/cards.js: window.CIT_CARDS.fields(num), which fillCard
# lays out): every number's fields are compared; and a real click opens the card of the
# first and last number and of each number whose card has a shape not seen before on the
# page (kind, number of sources, commit or not, raw value type, unit or not), and the
# card drawn on the page is compared field by field. Opening each of /method's cards
# would take about 35 ms of layout each; the cards' layout does not depend on the data.
CHECK_NUMBERS = """async ({expected, settleMs, SHAPED}) => {
""" + CARD_JS_HELPERS + """  const sameRaw = (shown, want) => {
    if (want === null) return shown !== null && shown !== '';
    if (typeof want === 'number') return shown !== '' && Number(shown) === want;
    return shown === String(want);
  };
  const sameAttr = (attr, want) => {
    if (want === null) return attr === '';
    if (typeof want === 'number') return attr !== '' && Number(attr) === want;
    if (typeof want === 'string') return attr === want;
    return true;   // lists and booleans: Python's and JSON's spellings differ
  };
  // `say(f)`: what the card says in field f (kind, locator, computation, value, sources)
  const differences = (say, want) => {
    const out = [];
    const kind = say('kind');
    if (kind !== want.kind) out.push(`kind ${JSON.stringify(kind)} != ${JSON.stringify(want.kind)}`);
    const loc = say('locator');
    if (loc !== want.provenance.locator) out.push(`locator ${JSON.stringify(loc)} != ${JSON.stringify(want.provenance.locator)}`);
    const how = say('computation');
    if (how !== want.provenance.computation) out.push(`computation ${JSON.stringify(how)} != ${JSON.stringify(want.provenance.computation)}`);
    const raw = say('value');
    if (!sameRaw(raw, want.value)) out.push(`raw value ${JSON.stringify(raw)} != ${JSON.stringify(want.value)}`);
    const src = say('sources');
    const srcs = want.provenance.sources || [];
    if (src === null || !srcs.length) out.push('no sources');
    for (const s of srcs) {
      const parts = typeof s === 'string' ? [s] : [s.path, s.commit && s.commit.slice(0, 7),
                                                    s.blob_sha1 && s.blob_sha1.slice(0, 7)];
      for (const p of parts.filter(Boolean)) {
        if (src === null || !src.includes(p)) out.push(`source ${JSON.stringify(p)} not shown`);
      }
    }
    return out;
  };
  const opened = (num, card, id, want) => {
    if (!card) return ['no card: aria-controls names no element'];
    const out = [];
    if (card.hidden || card.getClientRects().length === 0) out.push('card not visible');
    if (!card.textContent.includes(id)) out.push('card does not name the number');
    if (num.getAttribute('aria-expanded') !== 'true') out.push('aria-expanded is not true');
    return out.concat(differences(f => field(card, f), want));
  };
  const fromFields = (fs) => (f) => f === 'value' ? fs.raw : f === 'sources'
    ? fs.sources.map(s => [s.path, s.commit, s.blob_sha1].filter(Boolean).join(' ')).join('\\n')
    : fs[f];
  const shape = (want) => {
    const srcs = want.provenance.sources || [];
    return JSON.stringify([want.kind, srcs.length, srcs.some(s => s && s.commit),
                           want.value === null ? 'null' : typeof want.value, !!want.unit]);
  };
  const nums = [...document.querySelectorAll('data.num')];
  const found = nums.map(() => []);
  const seen = new Set();
  let clicked = 0, timeouts = 0;
  for (const [i, num] of nums.entries()) {
    const id = num.getAttribute('data-id') || '';
    const want = expected[id];
    if (!want) { found[i].push('not in numbers.json'); continue; }
    const shaped = SHAPED.includes(want.kind) ? want.kind : null;
    if (num.getAttribute('data-kind') !== shaped)
      found[i].push(`data-kind ${num.getAttribute('data-kind')} != ${shaped} (kind ${want.kind})`);
    if (!sameAttr(num.getAttribute('value'), want.value))
      found[i].push(`value attribute ${JSON.stringify(num.getAttribute('value'))} != ${JSON.stringify(want.value)}`);
    // a number inside a formula is a plain MathML token (its children may take no focus
    // nor a button's ARIA: axe); its card is its row's in /method's number index
    if (num.closest('math')) continue;
    if (num.tabIndex < 0) found[i].push(`not reachable by keyboard (tabindex ${num.tabIndex})`);
    if (seen.has(shape(want)) && i > 0 && i < nums.length - 1) continue;
    seen.add(shape(want));
    num.click();
    clicked += 1;
    const card = () => document.getElementById(num.getAttribute('aria-controls') || '');
    // After a few cards that never settle, stop waiting so a broken page fails fast.
    const ok = await wait(() => opened(num, card(), id, want).length === 0,
                          timeouts < 5 ? settleMs : 0);
    if (!ok) {
      timeouts += 1;
      found[i].push(...opened(num, card(), id, want));
    }
  }
  const ui = window.CIT_CARDS;
  for (const [i, num] of nums.entries()) {
    const want = expected[num.getAttribute('data-id') || ''];
    if (!want) continue;
    if (!ui || !ui.fields) { found[i].push('static/cards.js never loaded'); continue; }
    found[i].push(...differences(fromFields(ui.fields(num)), want));
  }
  const failures = [];
  for (const [i, num] of nums.entries()) {
    if (!found[i].length) continue;
    const where = `${num.getAttribute('data-id') || '(no data-id)'} (number ${i + 1} of ${nums.length})`;
    failures.push(`${where}: ${[...new Set(found[i])].join('; ')}`);
  }
  document.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape', bubbles: true}));
  return {numbers: nums.length, checked: nums.length, clicked, failures};
}"""


# For each checked claim's mark in turn: click it, wait until its card shows kind
# "claim" and what numbers.json records for the claim (what was checked, the verdict,
# every evidence figure, the sources, the computation, and what each loose word was
# tested as).
CHECK_CLAIMS = """async ({expected, settleMs}) => {
""" + CARD_JS_HELPERS + """  const mismatches = (mark, card, id, want) => {
    const out = [];
    if (!card) return ['no card'];
    if (card.hidden || card.getClientRects().length === 0) out.push('card not visible');
    if (!card.textContent.includes(id)) out.push('card does not name the claim');
    if (field(card, 'kind') !== 'claim') out.push(`kind ${JSON.stringify(field(card, 'kind'))}`);
    if (field(card, 'checked') !== want.checked) out.push(`checked ${JSON.stringify(field(card, 'checked'))}`);
    const verdict = field(card, 'verdict') || '';
    if (!verdict.startsWith('holds')) out.push(`verdict ${JSON.stringify(verdict)}`);
    if (want.hypothesis !== verdict.includes('hypothesis')) out.push('hypothesis not said');
    const ev = field(card, 'evidence') || '';
    for (const e of want.evidence) {
      if (!ev.includes(`${e.label}: ${e.text}`)) out.push(`evidence ${JSON.stringify(e.label)} not shown`);
    }
    const src = field(card, 'sources') || '';
    for (const s of want.provenance.sources) {
      if (!src.includes(s.path)) out.push(`source ${JSON.stringify(s.path)} not shown`);
    }
    if (field(card, 'computation') !== want.provenance.computation) out.push('computation differs');
    const words = field(card, 'words') || '';
    for (const w of want.words || []) {
      if (!words.includes(`\u201c${w.word}\u201d: ${w.tested_as}`)) out.push(`word ${JSON.stringify(w.word)} not shown`);
    }
    return out;
  };
  const marks = [...document.querySelectorAll('data.claim-mark')];
  const failures = [];
  for (const [i, mark] of marks.entries()) {
    const id = mark.getAttribute('data-id') || '';
    const where = `claim ${id} (${i + 1} of ${marks.length})`;
    const want = expected[id];
    if (!want) { failures.push(`${where}: not in numbers.json`); continue; }
    if (want.verdict !== 'verified') failures.push(`${where}: verdict ${want.verdict}`);
    if (!mark.closest('span.claim')) failures.push(`${where}: not inside its sentence`);
    if (mark.tabIndex < 0) failures.push(`${where}: not reachable by keyboard`);
    if (mark.getAttribute('role') !== 'button') failures.push(`${where}: role ${mark.getAttribute('role')}`);
    // its name says what it opens, and a one-seed hypothesis says so (docs/claims.md)
    const name = mark.getAttribute('aria-label') || '';
    const namePrefix = want.hypothesis ? 'One-seed hypothesis' : 'Checked claim';
    if (!name.startsWith(namePrefix)) failures.push(`${where}: named ${JSON.stringify(name)}`);
    mark.click();
    const card = () => document.getElementById(mark.getAttribute('aria-controls') || '');
    if (!(await wait(() => mismatches(mark, card(), id, want).length === 0, settleMs)))
      failures.push(`${where}: ${mismatches(mark, card(), id, want).join('; ')}`);
  }
  document.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape', bubbles: true}));
  return {claims: marks.length, failures};
}"""


# /method's number index: every group opened (numindex.js builds its rows from the page's
# provenance script); returns how many rows were built, once every group has its rows.
OPEN_INDEX = """async () => {
  const groups = [...document.querySelectorAll('details.index-group')];
  groups.forEach(g => { g.open = true; });
  for (let t = 0; t < 200 && groups.some(g => !g.hasAttribute('data-built')); t++)
    await new Promise(r => setTimeout(r, 50));
  return groups.every(g => g.hasAttribute('data-built'))
    ? document.querySelectorAll('details.index-group tbody tr').length : -1;
}"""


@dataclass
class PageResult:
    url: str
    seconds: float
    requests: int
    problems: list[str]
    charts: int
    traces: int
    chart_failures: list[str]
    numbers: int
    number_failures: list[str]
    claims: int = 0
    claim_failures: list[str] = field(default_factory=list)
    icon: str = ""                    # the page's icon, relative to the allowed origin
    index_rows: int = 0               # rows of the number index built (on /method)


def check_page(browser, url: str, allowed: str, numbers: dict, *, routes=(),
               settle_ms: int = SETTLE_MS) -> PageResult:
    """Open `url` watched, run the chart and number checks, and return what was found."""
    t0 = time.perf_counter()
    ctx, page, watch = open_watched(browser, url, allowed, routes=routes)
    try:
        icon, icon_missing = icon_problems(page, allowed)
        index_rows = page.evaluate(OPEN_INDEX)
        ids = page.eval_on_selector_all("data.num", "els => els.map(e => e.getAttribute('data-id'))")
        expected = {i: numbers[i] for i in set(ids) if i in numbers}
        charts = page.evaluate(CHECK_CHARTS, {"settleMs": settle_ms})
        nums = page.evaluate(CHECK_NUMBERS, {"expected": expected, "settleMs": settle_ms,
                                               "SHAPED": sorted(SHAPED_KINDS)})
        cids = page.eval_on_selector_all("data.claim-mark",
                                         "els => els.map(e => e.getAttribute('data-id'))")
        claims = page.evaluate(CHECK_CLAIMS, {"expected": {i: numbers[i] for i in set(cids)
                                                           if i in numbers},
                                              "settleMs": settle_ms})
        # Errors thrown while the checks ran (a card or chart script failing) count too.
        page.wait_for_timeout(50)
    finally:
        ctx.close()
    return PageResult(url, time.perf_counter() - t0, len(watch.requests),
                      watch.problems() + icon_missing,
                      charts["charts"], charts["traces"], charts["failures"],
                      nums["checked"], nums["failures"], claims["claims"], claims["failures"],
                      icon, index_rows)


# ---------------------------------------------------------------- fixtures

@pytest.fixture(scope="module")
def site_numbers(built_site) -> dict:
    """site/numbers.json, by id: its numbers and its checked claims."""
    path = Path(built_site) / "numbers.json"
    assert path.is_file(), f"{path} is missing: the build writes it"
    data = json.loads(path.read_text(encoding="utf-8"))
    return {n["id"]: n for n in data["numbers"] + data.get("claims", [])}


@pytest.fixture(scope="module")
def served(built_site, serve_dir) -> tuple[Path, str]:
    return Path(built_site), serve_dir(built_site)


@pytest.fixture(scope="module")
def sweep(browser, served, site_numbers) -> list[PageResult]:
    """Every page of the built site, opened once over HTTP and checked."""
    site, base = served
    pages = site_pages(site)
    assert pages, f"no index.html under {site}"
    return [check_page(browser, base + rel, base, site_numbers) for rel in pages]


def _summary(results: list[PageResult]) -> str:
    rows = [f"  {r.url}: {r.numbers} numbers, {r.charts} charts ({r.traces} traces), "
            f"{r.requests} requests, {r.seconds:.1f} s" for r in results]
    return "\n".join(rows)


# ---------------------------------------------------------------- the sweep

def test_the_crawl_finds_one_page_for_each_content_file(built_site):
    assert site_pages(Path(built_site)) == content_pages(ROOT / "content")


def test_every_page_loads_with_no_failed_request_no_console_error_and_no_outside_request(
        sweep, measured):
    bad = [f"{r.url}: {p}" for r in sweep for p in r.problems]
    outside = sum(1 for r in sweep for p in r.problems if p.startswith("request to another host"))
    failed = sum(1 for r in sweep for p in r.problems if p.startswith("failed request"))
    measured(f"site sweep: {len(sweep)} pages visited, "
             f"{sum(r.requests for r in sweep)} requests, {outside} to another host, {failed} failed, "
             f"icon {sorted({r.icon for r in sweep})}, "
             f"{sum(r.numbers for r in sweep)} numbers checked, "
             f"{sum(r.charts for r in sweep)} charts ({sum(r.traces for r in sweep)} traces) drawn\n"
             + _summary(sweep))
    # the watch did see the pages' requests (a page and at least its stylesheet or script)
    assert all(r.requests >= 2 for r in sweep), _summary(sweep)
    assert not bad, "\n".join(bad)


def test_every_chart_draws_every_trace_of_its_embedded_figure(sweep, built_site):
    bad = [f"{r.url}: {f}" for r in sweep for f in r.chart_failures]
    assert not bad, "\n".join(bad)
    # every chart in the built HTML was found and drawn in the browser
    in_html = sum(len(CHART_DIV.findall(f.read_text(encoding="utf-8")))
                  for f in Path(built_site).rglob("index.html"))
    drawn = sum(r.charts for r in sweep)
    assert drawn == in_html and drawn > 0, f"{drawn} charts checked, {in_html} in the HTML"


def count_in_pages(built_site, marker: str) -> int:
    """How often `marker` occurs in the built pages' HTML."""
    return sum(f.read_text(encoding="utf-8").count(marker)
               for f in Path(built_site).rglob("index.html"))


def test_every_number_opens_a_card_with_its_kind_sources_locator_computation_and_raw_value(
        sweep, built_site):
    bad = [f"{r.url}: {f}" for r in sweep for f in r.number_failures]
    assert not bad, f"{len(bad)} numbers failed:\n" + "\n".join(bad[:50])
    in_html = count_in_pages(built_site, '<data class="num"')
    index_rows = sum(r.index_rows for r in sweep)
    registered = len(json.loads((Path(built_site) / "numbers.json").read_text())["numbers"])
    assert index_rows == registered, f"the number index built {index_rows} rows for {registered} numbers"
    checked = sum(r.numbers for r in sweep)
    assert checked == in_html + index_rows and checked > 0, (
        f"{checked} numbers checked, {in_html} in the HTML and {index_rows} in the number index")


def test_every_checked_claim_opens_a_card_with_its_evidence(sweep, built_site):
    bad = [f"{r.url}: {f}" for r in sweep for f in r.claim_failures]
    assert not bad, f"{len(bad)} claims failed:\n" + "\n".join(bad[:50])
    in_html = count_in_pages(built_site, '<data class="claim-mark')
    checked = sum(r.claims for r in sweep)
    assert checked == in_html and checked > 0, f"{checked} claims checked, {in_html} in the HTML"


def test_the_hub_works_from_a_file_url_with_its_charts_and_cards(browser, built_site, site_numbers, measured):
    site = Path(built_site).resolve()
    r = check_page(browser, (site / "index.html").as_uri(), site.as_uri() + "/", site_numbers)
    measured(f"hub from file://: {r.numbers} numbers, {r.charts} charts, {r.requests} requests, "
             f"{len(r.problems)} problems")
    assert r.problems == []
    assert r.chart_failures == [] and r.charts > 0
    assert r.number_failures == [] and r.numbers > 0


# ---------------------------------------------------------------- the checks can fail

def test_a_request_to_another_host_is_aborted_and_reported(browser, served, site_numbers):
    site, base = served
    # the site's policy refuses another host before any request (tests/browser/test_csp.py);
    # this tests the watch behind it, so the policy is set aside
    ctx, page, watch = open_watched(browser, base, base, bypass_csp=True)
    try:
        outcome = page.evaluate("""() => new Promise(done => { const i = new Image();
            i.onload = () => done('loaded'); i.onerror = () => done('blocked');
            i.src = 'http://outside.invalid/pixel.png'; })""")
    finally:
        ctx.close()
    assert outcome == "blocked"
    assert watch.outside == ["http://outside.invalid/pixel.png"]
    assert any("another host" in p for p in watch.problems())


def test_a_missing_file_and_a_missing_icon_are_reported(browser, served, site_numbers):
    """The hub, served with a stylesheet that answers 404 and an icon link to a file that
    is not there: both are reported."""
    site, base = served
    hub = (site / "index.html").read_text(encoding="utf-8")
    assert hub.count('href="static/favicon.svg"') == 1

    def no_icon(route):
        route.fulfill(status=200, content_type="text/html; charset=utf-8",
                      body=hub.replace('href="static/favicon.svg"', 'href="static/no-icon.svg"'))

    gone = [("**/static/site.css", lambda route: route.fulfill(status=404, body="gone")),
            (base, no_icon)]
    r = check_page(browser, base, base, site_numbers, routes=gone, settle_ms=1_000)
    assert f"failed request: 404 {base}static/site.css" in r.problems, r.problems
    assert f"the icon {base}static/no-icon.svg is missing" in r.problems, r.problems


def test_a_chart_that_plotly_never_draws_is_reported(browser, served, site_numbers):
    site, base = served
    chart_pages = [rel for rel in site_pages(site)
                   if CHART_DIV.search((site / rel / "index.html").read_text(encoding="utf-8"))]
    assert chart_pages, "the built site has no chart to test the check with"
    # plotly is aborted, so no wait can draw a chart: a second is as good as SETTLE_MS
    r = check_page(browser, base + chart_pages[0], base, site_numbers,
                   routes=[("**/" + PLOTLY_SCRIPT, lambda route: route.abort())], settle_ms=1_000)
    assert r.charts > 0 and len(r.chart_failures) == r.charts
    assert all("Plotly holds none" in f for f in r.chart_failures)


def test_a_figure_asking_for_what_the_bundle_lacks_is_reported(browser, served, site_numbers):
    """A layout attribute of a trace module that the basic bundle leaves out (`geo`) is
    ignored by plotly.js without a word; the check must name it."""
    site, base = served
    rel = next(rel for rel in site_pages(site)
               if CHART_DIV.search((site / rel / "index.html").read_text(encoding="utf-8")))
    html = (site / rel / "index.html").read_text(encoding="utf-8")
    assert html.count('"layout":{') >= 1

    def tampered(route):
        route.fulfill(status=200, content_type="text/html; charset=utf-8",
                      body=html.replace('"layout":{', '"layout":{"geo":{"scope":"europe"},', 1))

    r = check_page(browser, base + rel, base, site_numbers,
                   routes=[(base + rel, tampered)])
    lacking = [f for f in r.chart_failures if "layout attribute geo is not in the bundle" in f]
    assert len(lacking) == 1, r.chart_failures


def test_a_card_that_shows_a_different_locator_is_reported(browser, served, site_numbers):
    """Hand the checker a numbers.json whose first number on the hub says something the
    card does not: exactly that number must fail, on its locator."""
    site, base = served
    hub = (site / "index.html").read_text(encoding="utf-8")
    start = hub.index('<data class="num"')
    first = hub[hub.index('data-id="', start) + 9:]
    first = first[:first.index('"')]
    tampered = json.loads(json.dumps(site_numbers))
    tampered[first]["provenance"]["locator"] += " (tampered)"
    count = hub.count(f'data-id="{first}"')
    r = check_page(browser, base, base, tampered, settle_ms=1_000)
    assert r.problems == []
    assert len(r.number_failures) == count
    assert all(f.startswith(first + " ") and "locator" in f for f in r.number_failures)
