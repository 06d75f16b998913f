"""`python build.py --serve` in Chromium: saving a Markdown file reloads the open page
with the change after one rebuild per save (its speed is benchmarks/bench_serve.py's), and a failed
rebuild shows its error, with file and line, over the last good page and in the
terminal; fixed, the page reloads.

The server runs in a project copy (tests/conftest.py's `_copy_project`) as a user runs
it, on a free port of 127.0.0.1; both tests share one server."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import _copy_project


PAGE = "content/pages/notebook.md"
URL = "notebook/index.html"
SAVES = 5


class Server:
    """`python build.py --serve --port N` in `root`, its output collected as it comes."""

    def __init__(self, root: Path):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.proc = subprocess.Popen(
            [sys.executable, str(root / "build.py"), "--serve", "--port", str(self.port)],
            cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.port}/"

    def _read(self):
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, text: str, timeout: float = 180) -> str:
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            for line in self.lines:
                if text in line:
                    return line
            if self.proc.poll() is not None:
                break
            time.sleep(0.02)
        raise AssertionError(f"no line with {text!r} from the server:\n" + "\n".join(self.lines))

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


@pytest.fixture(scope="module")
def project_copy(tmp_path_factory, vendored_files) -> Path:
    """One project copy for this module's server (tests/conftest.py's, made once): each
    test reads the page's Markdown as it finds it and only appends to it."""
    return _copy_project(tmp_path_factory.mktemp("serve") / "proj")


@pytest.fixture(scope="module")
def server(project_copy):
    """One `--serve` process for both tests (starting one builds the site)."""
    s = Server(project_copy)
    try:
        # the first build is a cold one: minutes on a loaded machine
        s.wait_for("serving http://127.0.0.1:", timeout=600)
        yield s
    finally:
        s.stop()


def _save(path: Path, text: str) -> float:
    """Write the file as an editor saves it; returns the time just before the write."""
    t = time.perf_counter()
    path.write_text(text)
    return t


def _copy_in(path: Path, text: str, tmp: Path) -> float:
    """Save as `cp` does: truncate the file, then write it (shutil.copyfile)."""
    src = tmp / path.name
    src.write_text(text)
    t = time.perf_counter()
    shutil.copyfile(src, path)
    return t


def reload_times(page, md: Path, saves: int, save=_save, tag: str = "w") -> list[float]:
    """Save `md` `saves` times, each with a new marker word, and wait (generously: a
    loaded machine is slow) for the open page to show it; seconds from save to reloaded
    page. benchmarks/bench_serve.py times the same loop."""
    original = md.read_text()
    times = []
    for k in range(saves):
        word = f"Reloadmarker{tag}{'abcdefghij'[k]}"
        t0 = save(md, original + f"\nA sentence ending in {word} :x[scope].\n")
        page.wait_for_function(f"() => document.body && document.body.textContent.includes({word!r})"
                               " && document.readyState === 'complete'", timeout=180_000)
        times.append(time.perf_counter() - t0)
        page.wait_for_timeout(100)   # the page's script is polling again
    return times


def _rebuilds(server) -> int:
    return sum(line.startswith("rebuilt after") for line in server.lines)


@pytest.mark.timeout(2700)   # its own bounds: 600 s for the first build, 180 s per reload (10)
def test_each_save_reloads_the_open_page_with_one_rebuild(server, project_copy, browser,
                                                          tmp_path):
    """Behaviour, not speed (the speed is benchmarks/bench_serve.py's): every save, an
    editor's write or a `cp` (truncate, then write), reloads the page with the new text
    after exactly one rebuild."""
    page = browser.new_page()
    try:
        page.goto(server.base + URL, wait_until="load")
        md = project_copy / PAGE
        before = _rebuilds(server)
        reload_times(page, md, SAVES)
        reload_times(page, md, SAVES, save=lambda p, t: _copy_in(p, t, tmp_path), tag="cp")
        page.wait_for_timeout(500)     # a late second rebuild would have started by now
    finally:
        page.close()
    assert _rebuilds(server) - before == 2 * SAVES, "\n".join(server.lines)


def test_a_failed_rebuild_shows_its_error_and_keeps_the_last_good_page(server, project_copy,
                                                                       browser):
    page = browser.new_page()
    try:
        page.goto(server.base + URL, wait_until="load")
        md = project_copy / PAGE
        text = md.read_text()
        bad = text + "\nA reference to :n[no.such.number] here.\n"
        line = len(bad.rstrip("\n").split("\n"))
        md.write_text(bad)
        where = f"{PAGE}:{line}"
        box = page.locator("#cit-build-error")
        box.wait_for(timeout=180_000)
        assert where in box.text_content() and "no.such.number" in box.text_content()
        # the error itself is one line, under the overlay's own heading line
        assert box.text_content().split("\n\n", 1)[1].strip().count("\n") == 0
        assert "no.such.number" not in page.locator("main").text_content()
        assert server.wait_for("build failed:").count(where) == 1
        # the last good site is still served, to a new visitor too
        other = browser.new_page()
        other.goto(server.base + URL, wait_until="load")
        assert other.locator("main h1, main h2").count() > 0
        other.locator("#cit-build-error").wait_for(timeout=180_000)
        other.close()
        # fixed: the page reloads, without the error
        md.write_text(text + "\nFixed again :x[scope].\n")
        page.wait_for_function("() => document.body.textContent.includes('Fixed again.')",
                               timeout=180_000)
        assert page.locator("#cit-build-error").count() == 0
    finally:
        page.close()
