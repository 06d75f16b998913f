"""Benchmark the build and record the figures the /tested page shows.

    python benchmarks/bench_build.py [--runs 5] [--no-write]

Measures, each as the median of --runs runs on this machine, in a copy of the project
(so content can be edited), every build `python build.py` in a fresh process:
- cold build: `--no-cache`, into an empty output folder, every stage and check;
- no-op rebuild: the same again with nothing changed (caches verified and reused);
- content-only rebuild: after appending a sentence to one page's Markdown; side by side,
  run for run, with `mkdocs build` of the same Markdown after the same edit, and the
  ratio of the two medians; then the same rebuild after editing each page in turn;
- simulator regeneration: `python -m study.sim --out <tmp>` (full sweep), a figure of
  this study's, so its row's words are written beside it (`figure_labels`);
- page weights: per page, HTML + CSS + own JS, and the plotly bundle separately.
Writes data/benchmarks.yaml (committed; the build reads it for /tested), keeping the
`scaling:` record of benchmarks/bench_scale.py and the `lighthouse:` one of
benchmarks/bench_lighthouse.py.
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
from cit.buildrecord import measured_at  # noqa: E402

PY = sys.executable


def python_env() -> dict:
    """The environment every timed command runs in, ours and mkdocs alike: Python's
    default of keeping compiled bytecode. A sandbox that sets PYTHONDONTWRITEBYTECODE
    makes our modules recompile on every run while mkdocs's installed ones do not,
    which would time the sandbox, not the two builds."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def timed(cmd, cwd=ROOT, env=None) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL,
                   env=env if env is not None else python_env())
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


FIGURES = ("cold_build_s", "noop_rebuild_s", "content_rebuild_s", "mkdocs_build_s",
           "ratio_to_mkdocs", "sim_regen_s")
EDITED = "pages/tested.md"      # the page whose Markdown the content-only rebuild edits


def mkdocs_project(tmp: Path) -> Path:
    """The same Markdown content as an mkdocs project (our syntax left as plain text)."""
    docs = tmp / "docs"
    for md in sorted((ROOT / "content").rglob("*.md")):
        rel = md.relative_to(ROOT / "content")
        dst = docs / ("index.md" if rel.as_posix() == "hub.md" else rel)
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(md, dst)
    (tmp / "mkdocs.yml").write_text("site_name: Compute in Transit\n")
    return tmp


def project_copy(tmp: Path) -> Path:
    # the tests' project copy (as bench_serve.py uses): one list of what a project holds
    from tests.conftest import _copy_project
    proj = _copy_project(tmp / "proj")
    # the copy's /tested shows the record; a figure this benchmark adds is provisional
    # (zero) there until the record is written at the end
    bench = proj / "data" / "benchmarks.yaml"
    record = yaml.safe_load(bench.read_text())
    for key in FIGURES:
        record.setdefault("figures", {}).setdefault(key, 0)
    pages = record.setdefault("content_rebuild_by_page_s", {})
    for md in sorted((ROOT / "content").rglob("*.md")):
        pages.setdefault(md.relative_to(ROOT / "content").as_posix(), 0)
    bench.write_text(yaml.safe_dump(record, sort_keys=False))
    return proj


def append_sentence(path: Path, k: int) -> None:
    """An edit as a writer makes one: a sentence at the end that the words check passes
    (its reason mark, no digits, no number words, nothing of the study: docs/claims.md).
    A new sentence changes the count /tested and /method show, so both render again."""
    words = ("alder", "birch", "cedar", "elm", "fir", "hazel", "larch", "maple", "oak", "pine")
    path.write_text(path.read_text() + f"\nA sentence added by the benchmark, edit {words[k % 10]} :x[scope].\n")


def content_vs_mkdocs(proj: Path, mk: Path, site: Path, runs: int) -> tuple[float, float]:
    """Medians of the content-only rebuild and of mkdocs build, run for run."""
    ours, theirs = [], []
    build = [PY, "build.py", "--out", str(site)]
    timed(build, cwd=proj)          # caches filled for the content as it is
    for k in range(runs):
        append_sentence(proj / "content" / EDITED, k)
        ours.append(timed(build, cwd=proj))
        append_sentence(mk / "docs" / EDITED, k)
        theirs.append(timed([PY, "-m", "mkdocs", "build", "-q", "-d", str(mk / "out")], cwd=mk))
    return statistics.median(ours), statistics.median(theirs)


def rebuild_by_page(proj: Path, site: Path, runs: int) -> dict[str, float]:
    """Median content-only rebuild after editing each page's Markdown (content path ->
    seconds): pages differ in what their edit makes the build do again (a page with a
    late block, the number index, brings the other late pages with it)."""
    build = [PY, "build.py", "--out", str(site)]
    timed(build, cwd=proj)
    out = {}
    for md in sorted((proj / "content").rglob("*.md")):
        rel = md.relative_to(proj / "content").as_posix()
        times = []
        for k in range(runs):
            append_sentence(md, k)
            times.append(timed(build, cwd=proj))
        out[rel] = round(statistics.median(times), 3)
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--no-write", action="store_true")
    a = ap.parse_args()
    record_path = ROOT / "data" / "benchmarks.yaml"
    out = Path(tempfile.mkdtemp(prefix="cit-bench-"))
    proj, site = project_copy(out), out / "site"
    mk = mkdocs_project(out / "mkdocs")
    load = round(os.getloadavg()[0], 2)

    def cold():
        shutil.rmtree(site, ignore_errors=True)
        return timed([PY, "build.py", "--no-cache", "--out", str(site)], cwd=proj)

    figures = {"cold_build_s": round(median_of(a.runs, cold), 3)}
    timed([PY, "build.py", "--out", str(site)], cwd=proj)   # fill the caches
    figures["noop_rebuild_s"] = round(median_of(a.runs, lambda: timed(
        [PY, "build.py", "--out", str(site)], cwd=proj)), 3)
    weights = page_weights(site)
    content, mkdocs = content_vs_mkdocs(proj, mk, site, a.runs)
    figures["content_rebuild_s"] = round(content, 3)
    figures["mkdocs_build_s"] = round(mkdocs, 3)
    figures["ratio_to_mkdocs"] = round(content / mkdocs, 2)
    by_page = rebuild_by_page(proj, site, a.runs)
    labels = {}     # the rows' words on /tested of the figures beyond the engine's own
    if (ROOT / "study" / "sim" / "__main__.py").exists():
        simout = out / "sim-results.md"
        figures["sim_regen_s"] = round(median_of(a.runs, lambda: timed(
            [PY, "-m", "study.sim", "--out", str(simout)])), 3)
        labels["sim_regen_s"] = "Simulator regeneration, full sweep, median"
    old = yaml.safe_load(record_path.read_text()) if record_path.exists() else {}
    record = {
        "measured_at": measured_at(ROOT),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "load_average_at_start": load,
        "runs": a.runs,
        "figures": figures,
        "figure_labels": labels,
        "page_weights": weights,
        "content_rebuild_by_page_s": by_page,
    }
    # the other scripts' records (scaling: bench_scale.py, serve: bench_serve.py, ...)
    record |= {k: v for k, v in (old or {}).items() if k not in record}
    print(yaml.safe_dump(record, sort_keys=False))
    if not a.no_write:
        record_path.write_text(
            "# Written by benchmarks/bench_build.py (scaling: bench_scale.py; serve: bench_serve.py); "
            "medians on the machine named below.\n" + yaml.safe_dump(record, sort_keys=False))
    shutil.rmtree(out, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
