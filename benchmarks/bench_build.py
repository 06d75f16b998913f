"""Benchmark the build and record the figures the /tested page shows.

    python benchmarks/bench_build.py [--runs 5] [--no-write]

Measures, each as the median of --runs runs on this machine:
- cold build: `python build.py` in a fresh process into an empty output folder;
- no-op rebuild: the same again with nothing changed;
- simulator regeneration: `python -m cit.sim --out <tmp>` (full sweep), when the
  simulator is present;
- page weights: per page, HTML + CSS + own JS, and the plotly bundle separately;
- mkdocs: `mkdocs build` of the same Markdown content, and our time ÷ its time.
Writes data/benchmarks.yaml (committed; the build reads it for /tested).
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from cit import plotlybundle  # noqa: E402  (the checkout's cit, not an installed one)

PY = sys.executable


def timed(cmd, cwd=ROOT, env=None) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL, env=env)
    return time.perf_counter() - t


def median_of(n, fn) -> float:
    return statistics.median(fn() for _ in range(n))


def page_weights(site: Path) -> dict:
    """Bytes per page: its HTML plus the css/js files it references (plotly apart)."""
    out = {}
    for html in sorted(site.rglob("index.html")):
        url = "/" + html.parent.relative_to(site).as_posix().strip(".") 
        url = url if url.endswith("/") else url + "/"
        text = html.read_text()
        own, plotly = len(text.encode()), 0
        for ref in sorted(set(re.findall(r'(?:src|href)="([^"]+\.(?:js|css))"', text))):
            f = (html.parent / ref).resolve()
            if not f.exists():
                continue
            if f.name == plotlybundle.SCRIPT:
                plotly = f.stat().st_size
            else:
                own += f.stat().st_size
        out[url.replace("//", "/")] = {"own_bytes": own, "plotly_bytes": plotly}
    return out


def mkdocs_time(n: int) -> float:
    """mkdocs build of the same Markdown content (our syntax left as plain text)."""
    tmp = Path(tempfile.mkdtemp(prefix="cit-mkdocs-"))
    docs = tmp / "docs"
    for md in sorted((ROOT / "content").rglob("*.md")):
        rel = md.relative_to(ROOT / "content")
        dst = docs / ("index.md" if rel.as_posix() == "hub.md" else rel)
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(md, dst)
    (tmp / "mkdocs.yml").write_text("site_name: Compute in Transit\n")
    try:
        return median_of(n, lambda: timed([PY, "-m", "mkdocs", "build", "-q", "-d",
                                           str(tmp / "out")], cwd=tmp))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--no-write", action="store_true")
    a = ap.parse_args()
    record_path = ROOT / "data" / "benchmarks.yaml"
    if not record_path.exists():
        # The build shows the last recorded figures on /tested, so it needs a record to
        # build at all; on a first run, a provisional one (zeros, replaced below).
        keys = ("cold_build_s", "noop_rebuild_s", "sim_regen_s", "mkdocs_build_s",
                "ratio_to_mkdocs")
        record_path.write_text("# provisional: replaced when this benchmark finishes\n"
                               + yaml.safe_dump({"machine": "not yet measured", "runs": 0,
                                                 "figures": {k: 0 for k in keys},
                                                 "page_weights": {}}, sort_keys=False))
    out = Path(tempfile.mkdtemp(prefix="cit-bench-"))
    site = out / "site"

    def cold():
        shutil.rmtree(site, ignore_errors=True)
        return timed([PY, "build.py", "--no-cache", "--out", str(site)])

    figures = {"cold_build_s": round(median_of(a.runs, cold), 3)}
    timed([PY, "build.py", "--out", str(site)])   # fill the data-stage cache
    figures["noop_rebuild_s"] = round(median_of(a.runs, lambda: timed(
        [PY, "build.py", "--out", str(site)])), 3)
    if (ROOT / "cit" / "sim" / "__main__.py").exists():
        simout = out / "sim-results.md"
        figures["sim_regen_s"] = round(median_of(a.runs, lambda: timed(
            [PY, "-m", "cit.sim", "--out", str(simout)])), 3)
    weights = page_weights(site)
    figures["mkdocs_build_s"] = round(mkdocs_time(a.runs), 3)
    figures["ratio_to_mkdocs"] = round(figures["cold_build_s"] / figures["mkdocs_build_s"], 2)
    record = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "runs": a.runs,
        "figures": figures,
        "page_weights": weights,
    }
    print(yaml.safe_dump(record, sort_keys=False))
    if not a.no_write:
        record_path.write_text(
            "# Written by benchmarks/bench_build.py; medians on the machine named below.\n"
            + yaml.safe_dump(record, sort_keys=False))
    shutil.rmtree(out, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
