"""Shared fixtures for browser tests: a static directory served over HTTP on localhost in
a thread, Debian's Chromium driven by Playwright, and pages that fail their test on any
console error, any uncaught script error, or any request to a host other than the local
server (the site must work offline and make no outside request).

Fixtures:
- `serve_dir(directory, prefix="/", not_found=False) -> base_url` (session): serve a
  folder at the path `prefix` (a project site's "/repo/"); base_url ends with "/". With
  `not_found`, a missing path gets the folder's 404.html with status 404, as GitHub
  Pages serves it.
- `browser` (session): Chromium at /usr/bin/chromium.
- `make_page(**context_options) -> Page`: a page in a new context (e.g.
  `reduced_motion="reduce"`, `java_script_enabled=False`, `has_touch=True`); its guard
  fails the test at teardown. `make_page.guard(page)` gives the page's `PageGuard`.
- `page`: `make_page()` with default options.
- `axe_js` (session): axe.min.js of the installed axe-playwright-python package.
- `site_audits` (session): axe-core's findings on every page of the built site in each
  of the four `STATES`, and on every deck slide that holds a figure in the states
  where scripts run; test_a11y and test_figures read them (one audit per page state).

Helpers shared by several test modules: `site_pages`, `pdf_pages`, the axe states and
`audit` (one page in one state, start to finish).
"""

from __future__ import annotations

import functools
import http.server
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest

CHROMIUM = "/usr/bin/chromium"
HERE = Path(__file__).resolve().parent


# The modules that read the session's axe audits: they run last, when the other worker
# has usually finished the tests that need no browser, since the audits keep both cores busy.
AUDIT_MODULES = ("test_a11y", "test_figures")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Every test under tests/browser/ is a browser test: `-m "not browser"` leaves them
    out. On workers (--dist loadgroup) the browser tests run on one worker, one after
    another, the audit modules last (docs/testing.md)."""
    browser_items = []
    for item in items:
        path = Path(str(item.path)).resolve()
        if HERE in path.parents:
            item.add_marker(pytest.mark.browser)
            item.add_marker(pytest.mark.xdist_group("browser"))
            browser_items.append(item)
    late = [i for i in browser_items if Path(str(i.path)).stem in AUDIT_MODULES]
    if late:
        late_ids = {id(i) for i in late}
        items[:] = [i for i in items if id(i) not in late_ids] + late


CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1", "[::1]"}
INERT_SCHEMES = {"data", "blob", "about"}


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves files without logging every request to stderr; under `prefix` only, and
    with the folder's 404.html for a missing file when `not_found` (see serve_dir)."""
    prefix = "/"
    not_found = False

    def log_message(self, format, *args):  # noqa: A002 (the base class's name)
        pass

    def translate_path(self, path):
        if not path.startswith(self.prefix):
            return str(Path(self.directory) / ".outside-the-prefix" / "none")   # a 404
        return super().translate_path("/" + path[len(self.prefix):])

    def send_error(self, code, message=None, explain=None):
        page = Path(self.directory) / "404.html"
        if code != 404 or not self.not_found or not page.is_file():
            return super().send_error(code, message, explain)
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


@pytest.fixture(scope="session")
def serve_dir():
    """Return a function that serves a directory on 127.0.0.1 (a free port) in a thread
    and returns its base URL. Servers stop at the end of the session."""
    servers: list[http.server.ThreadingHTTPServer] = []

    def _serve(directory, prefix: str = "/", not_found: bool = False) -> str:
        directory = Path(directory)
        if not directory.is_dir():
            raise FileNotFoundError(f"cannot serve {directory}: not a directory")
        handler_class = type("Handler", (_QuietHandler,),
                             {"prefix": prefix, "not_found": not_found})
        handler = functools.partial(handler_class, directory=str(directory))
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}{prefix}"

    yield _serve
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium, launched once per session (never a downloaded browser)."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium package")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


class PageGuard:
    """Records what must never happen on the site's pages."""

    def __init__(self):
        self.console_errors: list[str] = []
        self.page_errors: list[str] = []
        self.outside_requests: list[str] = []

    def problems(self) -> list[str]:
        return ([f"console error: {m}" for m in self.console_errors]
                + [f"uncaught error: {m}" for m in self.page_errors]
                + [f"request to a non-local host: {u}" for u in self.outside_requests])

    def clear(self):
        self.console_errors.clear()
        self.page_errors.clear()
        self.outside_requests.clear()

    def assert_clean(self):
        found = self.problems()
        assert not found, "the page misbehaved:\n" + "\n".join(found)

    def _on_route(self, route):
        url = route.request.url
        parts = urlsplit(url)
        if parts.scheme in INERT_SCHEMES:
            route.continue_()
        elif parts.scheme in ("http", "https") and parts.hostname in LOCAL_HOSTS:
            route.continue_()
        else:
            self.outside_requests.append(url)
            route.abort()

    def _on_console(self, msg):
        if msg.type == "error":
            loc = msg.location or {}
            where = f" ({loc.get('url', '')}:{loc.get('lineNumber', '')})" if loc else ""
            self.console_errors.append(msg.text + where)


class _PageFactory:
    def __init__(self, browser):
        self._browser = browser
        self._opened: list[tuple] = []
        self._guards: dict[int, PageGuard] = {}

    def __call__(self, **context_options):
        context_options.setdefault("viewport", {"width": 1280, "height": 800})
        ctx = self._browser.new_context(**context_options)
        guard = PageGuard()
        ctx.route("**/*", guard._on_route)
        page = ctx.new_page()
        page.on("console", guard._on_console)
        page.on("pageerror", lambda exc: guard.page_errors.append(str(exc)))
        page.set_default_timeout(10_000)
        self._opened.append((ctx, page, guard))
        self._guards[id(page)] = guard
        return page

    def guard(self, page) -> PageGuard:
        return self._guards[id(page)]

    def close_all(self) -> list[str]:
        found = []
        for ctx, page, guard in self._opened:
            found += [f"{page.url}: {p}" for p in guard.problems()]
            ctx.close()
        self._opened.clear()
        return found


@pytest.fixture
def make_page(browser):
    """Open pages in fresh contexts; the test fails if any of them logged a console
    error, threw, or asked for anything but the local server."""
    factory = _PageFactory(browser)
    yield factory
    found = factory.close_all()
    if found:
        pytest.fail("browser guard:\n" + "\n".join(found), pytrace=False)


@pytest.fixture
def page(make_page):
    return make_page()


# ---------------------------------------------------------------- pages of a built site

def tab_to(page, selector: str, presses: int):
    """Press Tab (at most `presses` times) until the focused element matches
    `selector`; returns the locator of the focused match (count 0 if none was reached)."""
    for _ in range(presses):
        page.keyboard.press("Tab")
        if page.evaluate("s => document.activeElement.matches(s)", selector):
            break
    return page.locator(f"{selector}:focus")


def site_pages(site: Path) -> list[str]:
    """Every page of a built site, as a URL path relative to its root ("" for the hub,
    "decks/01-sources/" for a deck), found by crawling for index.html."""
    out = []
    for f in sorted(Path(site).rglob("index.html")):
        rel = f.parent.relative_to(site).as_posix()
        out.append("" if rel == "." else rel + "/")
    return sorted(out)


def icon_problems(page, allowed: str) -> tuple[str, list[str]]:
    """The icon the page links (relative to `allowed`), and what is wrong with it: no
    link, or a file that is not there (fetched over HTTP; looked for from file://)."""
    icon = page.eval_on_selector_all("link[rel=icon]", "ls => ls.length ? ls[0].href : ''")
    if not icon:
        return "", ["no icon link"]
    if icon.startswith("file://"):
        ok = Path(urlsplit(icon).path).is_file()
    else:
        ok = page.request.get(icon).status == 200
    return icon.replace(allowed, ""), [] if ok else [f"the icon {icon} is missing"]


def pdf_pages(pdf: bytes) -> int:
    """How many pages a PDF that Chromium printed has."""
    return len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", pdf))


# ---------------------------------------------------------------- axe-core
# The states, the rules each runs and why are described in test_a11y's docstring.

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

# Takes out every table row that an earlier row of the page already shows in the same
# computed colours, backgrounds, fonts and opacity, element by element, leaving a comment
# in its place; returns how many and a function that puts them back.
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
  const holes = twins.map(tr => { const c = document.createComment('twin row'); tr.replaceWith(c); return c; });
  return {count: twins.length, restore: () => holes.forEach((c, i) => c.replaceWith(twins[i]))};
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

# Starts the audit of the page as it now is and returns at once, so that pages in other
# contexts (other renderer processes) audit at the same time; `AUDIT_RESULT` awaits it.
# Every rule but colour contrast first, on every row; then colour contrast with the
# look-alike rows out, which are put back afterwards.
START_AUDIT = """({rules}) => {
  const runAxe = """ + RUN_AXE + """;
  const dropTwins = """ + DROP_TWIN_ROWS + """;
  // axe works synchronously for long stretches: begin after this evaluation returns
  const later = new Promise(resolve => setTimeout(resolve, 0));
  window.__citAudit = later.then(async () => {
    const found = [];
    let twins = 0, engine = '';
    if (rules === 'all' || rules === 'layout') {
      const r = await runAxe({rules: 'layout'});
      found.push(...r.violations); engine = r.engine;
    }
    if (rules === 'all' || rules === 'contrast') {
      const t = dropTwins();
      twins = t.count;
      try {
        const r = await runAxe({rules: 'contrast'});
        found.push(...r.violations); engine = r.engine;
      } finally { t.restore(); }
    }
    return {found, twins, engine};
  });
  return true;
}"""
AUDIT_RESULT = "() => window.__citAudit"

SCRIPT_TAG = re.compile(r"<script\b(?![^>]*type=\"application/json\")[^>]*>.*?</script>\s*",
                        re.S | re.I)


def without_scripts(html: str) -> str:
    """The page as a reader without JavaScript gets it: every script that would run is
    gone (data blocks stay; they are inert)."""
    return SCRIPT_TAG.sub("", html)


@pytest.fixture(scope="session")
def axe_js() -> Path:
    """axe.min.js from the installed axe-playwright-python package."""
    try:
        from axe_playwright_python.base import AXE_FILE_PATH
    except ImportError as err:
        pytest.fail(f"axe-core is not installed ({err}). Install the test dependencies: "
                    "python -m pip install -e './engine[test]' -e '.[test]' (the `test` extra pins "
                    "axe-playwright-python, which ships axe.min.js).", pytrace=False)
    path = Path(AXE_FILE_PATH)
    if not path.is_file():
        pytest.fail(f"{path} is missing from the installed axe-playwright-python", pytrace=False)
    return path


def _strip_scripts(route):
    if route.request.resource_type == "document":
        resp = route.fetch()
        route.fulfill(response=resp, body=without_scripts(resp.text()))
    elif route.request.resource_type == "script":
        route.abort()
    else:
        route.continue_()


def open_for_audit(browser, url: str | None, state: State, axe_js: Path | None = None):
    """A fresh context in `state` with `url` loaded (its scripts removed first when the
    state has none; no page loaded when `url` is None). With `axe_js`, axe is added to
    every page the context loads, before the page's own scripts: a context that goes on
    to other pages compiles it once. Returns (context, page, errors): errors collects
    the page's console errors and uncaught errors where its scripts run."""
    ctx = browser.new_context(**state.context)
    errors: list[str] = []
    if not state.scripts:
        ctx.route("**/*", _strip_scripts)
    if axe_js is not None:
        ctx.add_init_script(path=str(axe_js))
    page = ctx.new_page()
    if state.scripts:
        page.on("console", lambda m: errors.append(f"console error: {m.text}")
                if m.type == "error" else None)
        page.on("pageerror", lambda exc: errors.append(f"uncaught error: {exc}"))
    page.set_default_timeout(30_000)
    if url is not None:
        page.goto(url, wait_until="load")
    return ctx, page, errors


OPEN_CARD_OWNER = "[aria-controls][aria-expanded='true']"


def open_first_card(page, state: State):
    """Light: a checked claim's card where the page has one (its evidence list), else a
    number's; dark: a number's card. Each is the first a reader can see (a deck shows
    one slide), else the first. A card left open from before is closed first."""
    if not state.open_card:
        return
    if page.locator(OPEN_CARD_OWNER).count():
        page.keyboard.press("Escape")
        page.wait_for_function(f"() => !document.querySelector({OPEN_CARD_OWNER!r})")
    sel, field = "main data.num", "locator"
    if state.name == LIGHT and page.locator("main data.claim-mark").count():
        sel, field = "main data.claim-mark", "evidence"
    if not page.locator(sel).count():
        return
    shown = page.locator(sel + ":visible")
    num = shown.first if shown.count() else page.locator(sel).first
    num.dispatch_event("click")
    page.wait_for_function(
        """([num, field]) => { const c = document.getElementById(num.getAttribute('aria-controls'));
                      return c && !c.hidden && c.getAttribute('aria-busy') !== 'true'
                             && c.querySelector(`[data-field="${field}"]`); }""",
        arg=[num.element_handle(), field])


def start_audit(page, state: State, axe_js: Path):
    """Open the state's card, then start axe on the page without waiting for it."""
    open_first_card(page, state)
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(path=str(axe_js))
    page.evaluate(START_AUDIT, {"rules": state.rules})


def audit_result(page) -> tuple[list[dict], int, str]:
    """(violations, contrast twins left out, axe version) of the audit started last."""
    r = page.evaluate(AUDIT_RESULT)
    return r["found"], r["twins"], r["engine"]


def audit(browser, url: str, state: State, axe_js: Path) -> tuple[list[dict], int, str]:
    """Open `url` in `state`, run axe, return (violations, contrast twins left out,
    axe version)."""
    ctx, page, _ = open_for_audit(browser, url, state)
    try:
        start_audit(page, state, axe_js)
        return audit_result(page)
    finally:
        ctx.close()


@dataclass
class Audit:
    """What axe found on one page state, and the page's script errors until then."""
    violations: list[dict]
    twins: int
    engine: str
    errors: list[str]


FIGURE_SLIDES = ("main.deck section.slide",
                 "ss => ss.filter(s => s.querySelector('svg.svg-figure')).map(s => s.id)")


def figure_slides(page) -> list[str]:
    """The ids of a deck's slides that hold a build-time SVG figure."""
    return page.eval_on_selector_all(*FIGURE_SLIDES)


def _collect(out: dict, rel: str, slide: str, opened: list, seen: dict) -> None:
    """Each state's audit of the page (or slide) into `out`, with the errors its page
    logged since `seen` (state name -> how many it had logged before this page)."""
    for _, page, errors, state in opened:
        found, twins, engine = audit_result(page)
        out[(rel, slide, state.name)] = Audit(found, twins, engine,
                                              list(errors[seen[state.name]:]))


def _audit_page(out: dict, rel: str, url: str, opened: list, axe_js: Path) -> None:
    """Load `url` in each state's page and audit the four at once; then a deck's figure
    slides, one after another, in the states where scripts run."""
    seen = {state.name: len(errors) for _, _, errors, state in opened}
    for _, page, _, state in opened:
        page.goto(url, wait_until="load")
        start_audit(page, state, axe_js)
    _collect(out, rel, "", opened, seen)
    if not rel.startswith("decks/"):
        return
    scripted = [o for o in opened if o[3].scripts]
    for slide in figure_slides(scripted[0][1]):
        for _, page, _, state in scripted:
            page.evaluate("h => { location.hash = h; }", "#" + slide)
            page.wait_for_selector(f"section#{slide}.is-current")
            start_audit(page, state, axe_js)
        _collect(out, rel, slide, scripted, seen)


@pytest.fixture(scope="session")
def site_audits(browser, built_site, serve_dir, axe_js) -> dict[tuple[str, str, str], Audit]:
    """{(page, slide, state name): Audit}. One context per state (its own renderer
    process) goes from page to page of the built site, as a reader following links
    does; each page is audited as loaded (slide ""), in the four states at once. A
    deck's figure slides are then shown in turn (its hash set, as a reader's link does)
    in the states where scripts run, each audited with its own card open. Without
    scripts a deck stacks every slide, so its one audit covers its figure slides."""
    site = Path(built_site)
    base = serve_dir(site)
    pages = site_pages(site)
    assert pages, f"no index.html under {site}"
    out: dict = {}
    opened = []
    try:
        for state in STATES:
            ctx, page, errors = open_for_audit(browser, None, state, axe_js)
            opened.append((ctx, page, errors, state))
        for rel in pages:
            _audit_page(out, rel, base + rel, opened, axe_js)
    finally:
        for ctx, *_ in opened:
            ctx.close()
    return out
