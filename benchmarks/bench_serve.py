"""Save -> reloaded page under `python build.py --serve`, in Chromium: the median of 5
saves of a Markdown file in a project copy, recorded under `serve:` in
data/benchmarks.yaml (which /tested shows) beside the budget in data/budgets.yaml.

The test suite proves the reload happens (tests/browser/test_serve.py); only this
script times it, so a busy machine cannot turn a test red.

    python benchmarks/bench_serve.py
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.browser.test_serve import PAGE, SAVES, URL, Server, reload_times  # noqa: E402
from tests.conftest import _copy_project  # noqa: E402
from cit.buildrecord import measured_at  # noqa: E402


def measure() -> list[float]:
    from playwright.sync_api import sync_playwright
    with tempfile.TemporaryDirectory(prefix="cit-bench-serve-") as tmp:
        proj = _copy_project(Path(tmp) / "proj")
        server = Server(proj)
        try:
            server.wait_for("serving http://127.0.0.1:")
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=[
                    "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
                page = browser.new_page()
                page.goto(server.base + URL, wait_until="load")
                times = reload_times(page, proj / PAGE, SAVES)
                browser.close()
        finally:
            server.stop()
    return times


def main() -> int:
    load = os.getloadavg()[0]
    stamp = measured_at(ROOT)
    times = measure()
    median = statistics.median(times)
    path = ROOT / "data" / "benchmarks.yaml"
    text = path.read_text()
    record = yaml.safe_load(text)
    record["serve"] = {"measured_at": stamp, "save_to_reload_s": round(median, 3),
                       "saves": [round(t, 3) for t in times],
                       "load_average_at_start": round(load, 2)}
    head = "".join(line + "\n" for line in text.splitlines() if line.startswith("#"))
    path.write_text(head + yaml.safe_dump(record, sort_keys=False))
    print(f"save -> reloaded page: median {median:.3f} s of {len(times)} "
          f"({', '.join(f'{t:.3f}' for t in times)}); load {load:.2f} at start")
    return 0


if __name__ == "__main__":
    sys.exit(main())
