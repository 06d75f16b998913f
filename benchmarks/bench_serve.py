"""Save -> reloaded page under `python build.py --serve` and, side by side, under
`mkdocs serve` of the same Markdown, in Chromium: 5 saves alternated between the two
(ours, then mkdocs', the same sentence appended to the same page), each timed from the
write until the open page shows the new words; the medians and their ratio recorded
under `serve:` in data/benchmarks.yaml (which /tested shows) beside the budget in
data/budgets.yaml.

The test suite proves the reload happens (tests/browser/test_serve.py); only this
script times it, so a busy machine cannot turn a test red.

    python benchmarks/bench_serve.py
"""

from __future__ import annotations

import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_build import mkdocs_project, python_env  # noqa: E402
from tests.browser.test_serve import PAGE, SAVES, URL, Server, reload_times  # noqa: E402
from tests.conftest import _copy_project  # noqa: E402
from cit.buildrecord import measured_at  # noqa: E402

MKDOCS_PAGE = "docs/pages/notebook.md"      # PAGE in the mkdocs copy (bench_build's layout)
MKDOCS_URL = "pages/notebook/"


class MkdocsServer:
    """`mkdocs serve` of the same Markdown on a free port, its live reload on."""

    def __init__(self, root: Path):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "serve", "-a", f"127.0.0.1:{self.port}",
             "--livereload"], cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env=python_env())
        self.base = f"http://127.0.0.1:{self.port}/"

    def wait_ready(self, timeout: float = 180) -> None:
        import urllib.request
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            try:
                urllib.request.urlopen(self.base + MKDOCS_URL, timeout=5).read()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("mkdocs serve did not answer")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def measure() -> tuple[list[float], list[float]]:
    """Save -> reload times, ours and mkdocs', alternated save for save."""
    from playwright.sync_api import sync_playwright
    with tempfile.TemporaryDirectory(prefix="cit-bench-serve-") as tmp:
        proj = _copy_project(Path(tmp) / "proj")
        mk = mkdocs_project(Path(tmp) / "mkdocs")
        ours, theirs = Server(proj), MkdocsServer(mk)
        try:
            ours.wait_for("serving http://127.0.0.1:", timeout=600)
            theirs.wait_ready()
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=[
                    "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
                page, mk_page = browser.new_page(), browser.new_page()
                page.goto(ours.base + URL, wait_until="load")
                mk_page.goto(theirs.base + MKDOCS_URL, wait_until="load")
                times, mk_times = [], []
                for k in range(SAVES):
                    tag = "abcdefghij"[k]
                    times += reload_times(page, proj / PAGE, 1, tag=f"o{tag}")
                    mk_times += reload_times(mk_page, mk / MKDOCS_PAGE, 1, tag=f"m{tag}")
                browser.close()
        finally:
            ours.stop()
            theirs.stop()
    return times, mk_times


def main() -> int:
    load = os.getloadavg()[0]
    stamp = measured_at(ROOT)
    times, mk_times = measure()
    median, mk_median = statistics.median(times), statistics.median(mk_times)
    path = ROOT / "data" / "benchmarks.yaml"
    text = path.read_text()
    record = yaml.safe_load(text)
    record["serve"] = {"measured_at": stamp, "save_to_reload_s": round(median, 3),
                       "saves": [round(t, 3) for t in times],
                       "mkdocs_serve_save_to_reload_s": round(mk_median, 3),
                       "mkdocs_saves": [round(t, 3) for t in mk_times],
                       "ratio_to_mkdocs_serve": round(median / mk_median, 2),
                       "load_average_at_start": round(load, 2)}
    head = "".join(line + "\n" for line in text.splitlines() if line.startswith("#"))
    path.write_text(head + yaml.safe_dump(record, sort_keys=False))
    print(f"save -> reloaded page: ours median {median:.3f} s "
          f"({', '.join(f'{t:.3f}' for t in times)}); mkdocs serve median {mk_median:.3f} s "
          f"({', '.join(f'{t:.3f}' for t in mk_times)}); ratio {median / mk_median:.2f}; "
          f"load {load:.2f} at start")
    return 0


if __name__ == "__main__":
    sys.exit(main())
