"""Shared fixtures for browser tests: a static directory served over HTTP on localhost in
a thread, Debian's Chromium driven by Playwright, and pages that fail their test on any
console error, any uncaught script error, or any request to a host other than the local
server (the site must work offline and make no outside request).

Fixtures:
- `serve_dir(directory) -> base_url` (session): serve a folder; base_url ends with "/".
- `browser` (session): Chromium at /usr/bin/chromium.
- `make_page(**context_options) -> Page`: a page in a new context (e.g.
  `reduced_motion="reduce"`, `java_script_enabled=False`, `has_touch=True`); its guard
  fails the test at teardown. `make_page.guard(page)` gives the page's `PageGuard`.
- `page`: `make_page()` with default options.
"""

from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path
from urllib.parse import urlsplit

import pytest

CHROMIUM = "/usr/bin/chromium"
HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config, items):
    """Every test under tests/browser/ is a browser test: `-m "not browser"` leaves them out."""
    for item in items:
        if HERE in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.browser)
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1", "[::1]"}
INERT_SCHEMES = {"data", "blob", "about"}


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves files without logging every request to stderr."""

    def log_message(self, format, *args):  # noqa: A002 (the base class's name)
        pass


@pytest.fixture(scope="session")
def serve_dir():
    """Return a function that serves a directory on 127.0.0.1 (a free port) in a thread
    and returns its base URL. Servers stop at the end of the session."""
    servers: list[http.server.ThreadingHTTPServer] = []

    def _serve(directory) -> str:
        directory = Path(directory)
        if not directory.is_dir():
            raise FileNotFoundError(f"cannot serve {directory}: not a directory")
        handler = functools.partial(_QuietHandler, directory=str(directory))
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/"

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
