"""What search costs: the seconds Pagefind adds to a cold build, and the bytes the search
box adds to each page at load. Writes the `search:` section of data/benchmarks.yaml
(the other scripts keep theirs).

- cold build: `python build.py --no-cache` into an empty folder (every stage, search
  included), median of --runs;
- index: the search stage alone on that build's pages (cit/search.py search_records and
  search_files, no memo, so Pagefind runs each time), median of --runs, in the same run;
- at load, per page: the header's Search button in the page's HTML, plus the search
  button's rules of the shipped site.css and the lines of the shipped site.js that load
  the box (every page links both); the box's own script, sheet and Pagefind's files
  load only when a reader opens it (tests/browser/test_search.py).

    python benchmarks/bench_search.py [--runs 5] [--no-write]
"""

from __future__ import annotations

import argparse
import json
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
from types import SimpleNamespace

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cit import search  # noqa: E402
from cit.blocks import compute_now  # noqa: E402
from cit.buildrecord import measured_at  # noqa: E402

BUTTON_RE = re.compile(rb'<button[^>]*class="search-open"[^>]*>.*?</button>\n?', re.S)


def cold_build(out: Path) -> float:
    shutil.rmtree(out, ignore_errors=True)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "build.py", "--no-cache", "--quiet", "--out", str(out)],
                   cwd=ROOT, check=True, capture_output=True)
    return time.perf_counter() - t0


def index_once(site: Path) -> float:
    files = {p.relative_to(site).as_posix(): p.read_bytes()
             for p in site.rglob("*.html")}
    numbers = {n["id"]: SimpleNamespace(text=n["text"], unit=n["unit"], kind=n["kind"])
               for n in json.loads((site / "numbers.json").read_text())["numbers"]}
    t0 = time.perf_counter()
    search.search_files(search.search_records(files, numbers), compute_now)
    return time.perf_counter() - t0


def at_load_bytes(site: Path) -> dict:
    """Per page, the bytes of the search box that every page view carries."""
    css = (site / "static" / "site.css").read_text()
    css_bytes = sum(len(r.encode()) for r in re.findall(r"[^{}]*search-open[^{}]*\{[^}]*\}", css))
    js = (site / "static" / "site.js").read_text().split("\n")
    js_bytes = sum(len(line.encode()) + 1 for line in js if re.search(r"[Ss]earch", line))
    pages = {}
    for p in sorted(site.rglob("index.html")):
        rel = "/" + p.parent.relative_to(site).as_posix().strip(".") + "/"
        html = sum(len(m) for m in BUTTON_RE.findall(p.read_bytes()))
        pages[rel.replace("//", "/")] = html + css_bytes + js_bytes
    return {"css_bytes": css_bytes, "js_bytes": js_bytes, "per_page": pages}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--no-write", action="store_true")
    a = ap.parse_args()
    load = round(os.getloadavg()[0], 2)
    stamp = measured_at(ROOT)             # the code measured, before anything is written
    tmp = Path(tempfile.mkdtemp(prefix="cit-bench-search-"))
    site = tmp / "site"
    try:
        cold = statistics.median(cold_build(site) for _ in range(a.runs))
        index = statistics.median(index_once(site) for _ in range(a.runs))
        weights = at_load_bytes(site)
    finally:
        files = sum(1 for p in (site / "pagefind").rglob("*") if p.is_file()) \
            if (site / "pagefind").is_dir() else 0
        size = sum(p.stat().st_size for p in (site / "pagefind").rglob("*") if p.is_file()) \
            if (site / "pagefind").is_dir() else 0
    record_path = ROOT / "data" / "benchmarks.yaml"
    section = {
        "measured_at": stamp,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "load_average_at_start": load,
        "runs": a.runs,
        "cold_build_s": round(cold, 3),
        "index_s": round(index, 3),
        "index_share_of_cold_build": round(index / cold, 3),
        "pagefind_files": files,
        "pagefind_bytes": size,
        "at_load": weights,
    }
    shutil.rmtree(tmp, ignore_errors=True)
    print(yaml.safe_dump({"search": section}, sort_keys=False))
    if not a.no_write:
        text = record_path.read_text()
        old = yaml.safe_load(text) or {}
        old["search"] = section
        lines = text.split("\n")
        lead = next(i for i, line in enumerate(lines) if not line.startswith("#"))
        head = "".join(line + "\n" for line in lines[:lead])
        record_path.write_text(head + yaml.safe_dump(old, sort_keys=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
