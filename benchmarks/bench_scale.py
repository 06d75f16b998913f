"""Benchmark: how the data stages' cost grows with the study.

    python benchmarks/bench_scale.py [--sizes 1 4 16] [--runs 3]

For each size k it lays out a temporary project whose upstream mirror holds k times the
study's run logs, in the same schema (study/runs.py): every real log, plus k - 1 synthetic
siblings of it, each a further seed of the same run (its name, file name and `seed`
moved on, its losses nudged by a fixed small factor so no two seeds agree). The
mirror's results.md files and the simulator's data/sim/results.md are rewritten from
our own recomputation of the synthetic logs (so the build's checks pass; they are never
published), and the temporary project gets its own vendored/lock.yaml pinning the
synthetic files. Nothing of the project is touched but data/benchmarks.yaml.

Then, in a fresh process per measurement, it times the data stages exactly as the build
runs them (vendor verification, the experiment stage with its results.md checks, the
simulator stage with its check) and reads the process's peak resident memory. Imports
are done before the clock starts. Medians of --runs measurements are recorded under
`scaling:` in data/benchmarks.yaml, which /tested shows.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cit import vendor, yamlio  # noqa: E402  (the checkout's cit)
from cit.buildrecord import measured_at  # noqa: E402
from cit.siteconfig import load_site  # noqa: E402
from study import resultsmd, tables  # noqa: E402
from study.runs import SEED_SUFFIX, load_folder  # noqa: E402

BENCH = ROOT / "data" / "benchmarks.yaml"
SEED_STEP = 100          # synthetic seed j of a run seeded s is s + j * SEED_STEP
NUDGE = 0.0005           # relative change of the losses per synthetic seed
BUDGETS = ROOT / "data" / "budgets.yaml"   # scale_ratio_16x: the 16x size's allowed time ratio


def nudge(j: int, k: int) -> int:
    """Steps of NUDGE for synthetic seed j of k - 1: +1 each but the last, which takes
    the opposite of their sum, so a group's mean loss over its seeds stays the study's."""
    return 1 if j < k - 1 else -(k - 2)


def synthetic_log(text: str, j: int, k: int) -> tuple[str, str]:
    """Seed j (1 .. k-1) of the run logged in `text`: (its run name, its log text)."""
    lines = text.rstrip("\n").split("\n")
    cfg = json.loads(lines[0])
    seed = cfg["config"]["seed"] + j * SEED_STEP
    base = SEED_SUFFIX.sub("", cfg["name"])
    name = f"{base}-s{seed}"
    cfg["name"] = name
    cfg["config"]["seed"] = seed
    out = [json.dumps(cfg)]
    factor = 1 + NUDGE * nudge(j, k)
    for line in lines[1:]:
        rec = json.loads(line)
        if rec.get("type") == "eval":
            rec["val_loss"] *= factor
            rec["train_loss"] *= factor
        out.append(json.dumps(rec))
    return name, "\n".join(out) + "\n"


def scale_folder(src: Path, dst: Path, k: int) -> int:
    """Copy a folder of run logs, adding k - 1 synthetic seeds of every log. Returns the
    number of logs written."""
    dst.mkdir(parents=True, exist_ok=True)
    n = 0
    for f in sorted(src.iterdir()):
        if not f.is_file():
            continue
        shutil.copy(f, dst / f.name)
        if f.suffix != ".jsonl":
            continue
        n += 1
        text = f.read_text()
        stem = SEED_SUFFIX.sub("", f.stem)
        for j in range(1, k):
            name, log = synthetic_log(text, j, k)
            seed = name.rsplit("-s", 1)[1]
            (dst / f"{stem}-s{seed}.jsonl").write_text(log)
            n += 1
    return n


def rewrite_results_md(text: str, doc: tables.ResultsDoc) -> str:
    """The results.md `text` with every checked table and prose number replaced by our
    recomputation from the (synthetic) logs: tables take the recomputed header and rows;
    a prose line's numbers, in order, take the recomputed texts."""
    parsed = resultsmd.parse_results_md(text)
    lines = text.split("\n")
    for (_, start, _, body), t in reversed(list(zip(parsed.tables, doc.tables))):
        rows = []
        for (_, cells), row in zip(body, t.rows):
            rows.append([cells[i] if isinstance(c, tables.NumbersOnly) else
                         (c.text if isinstance(c, tables.Quantity) else str(c)) for i, c in enumerate(row)])
        rows += [[c.text if isinstance(c, tables.Quantity) else str(c) for c in row]
                 for row in t.rows[len(body):]]
        new = ["| " + " | ".join(t.columns) + " |", lines[start], *("| " + " | ".join(r) + " |" for r in rows)]
        end = body[-1][0] if body else start + 1
        lines[start - 1:end] = new
    numbered = [(n, line) for n, line in enumerate(lines) if not line.startswith("|")
                and not resultsmd.HEADING.match(line) and resultsmd.TOKEN.search(line)]
    for (n, line), quantities in zip(numbered, doc.prose):
        texts = iter(q.text for q in quantities)
        lines[n] = resultsmd.TOKEN.sub(lambda m: next(texts, m.group(0)), line)
    return "\n".join(lines)


def make_project(k: int, base: Path) -> Path:
    """A temporary project at size k: data/ copied, a synthetic mirror, its own lock."""
    proj, mirror = base / f"x{k}" / "proj", base / f"x{k}" / "mirror"
    upstream = vendor.mirror_dir(None, ROOT)
    if upstream is None:
        raise SystemExit("no upstream mirror beside the project (shared/upstream in the folder that holds the clone)")
    shutil.copytree(ROOT / "data", proj / "data")
    study = yamlio.load((proj / "data" / "study.yaml").read_text())
    folders = [study["headline"], *study["learning_rate_runs"], study["shakespeare"]["folder"]]
    logs = sum(scale_folder(upstream / rel, mirror / rel, k) for rel in folders)
    for f in (upstream / "results").iterdir():
        if f.is_file():
            shutil.copy(f, mirror / "results" / f.name)
    head = load_folder(mirror / study["headline"], study["headline"])
    shakes_rel = study["shakespeare"]["folder"]
    shakes = load_folder(mirror / shakes_rel, shakes_rel)
    for doc in (tables.tinystories_doc(head, f"{head.rel}/results.md"),
                tables.shakespeare_doc(shakes, f"{shakes_rel}/results.md",
                                       study["shakespeare"]["rows"])):
        md = mirror / doc.file
        md.write_text(rewrite_results_md(md.read_text(), doc))
    _synthetic_whys(proj / "data" / "sim" / "quoted.yaml")
    vendor.write_lock(mirror, proj / "vendored" / "lock.yaml",
                      vendor.read_lock(ROOT / "vendored" / "lock.yaml"),   # its upstream
                      load_site(ROOT).pinned)                              # site.yaml's `pinned`
    vendor.materialise(mirror, proj)
    # the simulator's fitted inputs and recorded results, redone from the synthetic logs
    # by its own commands, as its docs say to after new data
    for args in (["calibrate"], []):
        r = subprocess.run([sys.executable, "-m", "study.sim", *args, "--root", str(proj)],
                           cwd=ROOT, capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit(f"python -m study.sim {' '.join(args)} failed at {proj}:\n{r.stderr}")
    (proj / "logs.txt").write_text(f"{logs}\n")
    return proj


def _synthetic_whys(path: Path) -> None:
    """Our simulator's figures from synthetic logs may differ from the original page's
    quoted ones; the build asks for a reason, which the temporary project gives."""
    if not path.exists():
        return
    quoted = yaml.safe_load(path.read_text())
    for f in (quoted.get("figures") or {}).values():
        if isinstance(f, dict) and f.get("ours") and not f.get("why"):
            f["why"] = "synthetic logs of the scaling benchmark"
    path.write_text(yaml.safe_dump(quoted, sort_keys=False))


MEASURE = r"""
import json, resource, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
proj = Path(sys.argv[2])
import pandas, simpy  # imports before the clock starts
from cit import vendor, yamlio
from study import experiment, sim
from cit.registry import Registry
t0 = time.perf_counter()
vendored = vendor.materialise(None, proj)
study = yamlio.load((proj / "data" / "study.yaml").read_text())
reg = Registry()
exp = experiment.load_experiment(vendored, proj, study, reg)
cells, _ = sim.build_stage(reg, exp.groups, proj)
seconds = time.perf_counter() - t0
peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": seconds, "peak_kib": peak_kib, "numbers": len(reg),
                  "files": len(vendored)}))
"""


def measure(proj: Path) -> dict:
    env = dict(os.environ, CIT_VENDOR_MIRROR="")
    out = subprocess.run([sys.executable, "-c", MEASURE, str(ROOT), str(proj)],
                         capture_output=True, text=True, env=env)
    if out.returncode != 0:
        raise SystemExit(f"the data stages failed at {proj}:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


# One log read as the experiment stage reads it (study/runs.py load_run), in a fresh
# process, after one read of the real log (so imports and first uses are done): the
# resident memory just before, the peak during it (Linux's VmHWM, reset first), the time.
MEASURE_LOG = r"""
import gc, json, sys, time
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from cit.reads import Reads
from study.runs import load_run
path, warm = Path(sys.argv[2]), Path(sys.argv[3])
def status(key):
    line = next(l for l in open("/proc/self/status") if l.startswith(key + ":"))
    return int(line.split()[1])
load_run(warm, warm.name, Reads(warm.parent))      # every import and first use done
gc.collect()
open("/proc/self/clear_refs", "w").write("5")      # the peak (VmHWM) starts again here
before = status("VmRSS")
t0 = time.perf_counter()
run = load_run(path, path.name, Reads(path.parent))
seconds = time.perf_counter() - t0
print(json.dumps({"seconds": seconds, "before_kib": before, "peak_kib": status("VmHWM"),
                  "evals": len(run.evals), "diags": len(run.diags)}))
"""


def longer_log(text: str, k: int) -> str:
    """The log `text` k times as long: its eval and diag records given k times, each
    copy's steps moved past the last one's, then its done record."""
    lines = [json.loads(l) for l in text.rstrip("\n").split("\n")]
    body = [r for r in lines[1:] if r["type"] in ("eval", "diag")]
    done = [r for r in lines[1:] if r["type"] == "done"]
    span = max(r["step"] for r in body) + 1
    out = [json.dumps(lines[0])]
    for j in range(k):
        out += [json.dumps(dict(r, step=r["step"] + j * span)) for r in body]
    out += [json.dumps(dict(r, step=r["step"] + (k - 1) * span)) for r in done]
    return "\n".join(out) + "\n"


def measure_log_lengths(lengths: list[int], runs: int) -> dict:
    """Peak memory and time of reading the study's largest log made k times longer, for
    each k of `lengths` (docs/faults.md, N20: at most 3x the log's size above what the
    process held before)."""
    largest = max((ROOT / "vendored" / "results").rglob("*.jsonl"),
                  key=lambda p: p.stat().st_size)
    rows = {}
    with tempfile.TemporaryDirectory(prefix="cit-log-") as tmp:
        for k in lengths:
            path = Path(tmp) / f"x{k}" / largest.name
            path.parent.mkdir()
            path.write_text(longer_log(largest.read_text(), k))
            found = [json.loads(subprocess.run(
                [sys.executable, "-c", MEASURE_LOG, str(ROOT), str(path), str(largest)],
                check=True,
                capture_output=True, text=True).stdout) for _ in range(runs)]
            size = path.stat().st_size
            grew = max(f["peak_kib"] - f["before_kib"] for f in found) * 1024
            rows[k] = {"log_bytes": size, "records": found[0]["evals"] + found[0]["diags"],
                       "seconds": round(statistics.median(f["seconds"] for f in found), 3),
                       "peak_rss_mib": round(max(f["peak_kib"] for f in found) / 1024, 1),
                       "growth_mib": round(grew / 2 ** 20, 2),
                       "growth_over_log": round(grew / size, 2)}
            print(f"{k:>3}x the largest log ({largest.name}): {size:,} bytes, "
                  f"{rows[k]['records']} records, {rows[k]['seconds']} s, peak RSS "
                  f"{rows[k]['peak_rss_mib']} MiB, {rows[k]['growth_mib']} MiB above the "
                  f"process before the read = {rows[k]['growth_over_log']}x the log",
                  flush=True)
    return rows


def record(scaling: dict) -> None:
    """Write `scaling:` into data/benchmarks.yaml, keeping what bench_build.py wrote."""
    data = yaml.safe_load(BENCH.read_text()) if BENCH.exists() else {}
    data["scaling"] = scaling
    head = [line for line in (BENCH.read_text().splitlines() if BENCH.exists() else [])
            if line.startswith("#")][:1] or ["# Written by the benchmarks in benchmarks/."]
    BENCH.write_text("\n".join(head) + "\n" + yaml.safe_dump(data, sort_keys=False))


def _memory_target(rows: dict) -> None:
    """The memory target of docs/faults.md (N20), printed: the data stages' peak may
    grow from the smallest size to the largest by at most 3x the largest log they read
    (every log read one at a time and reduced; only then would more logs cost nothing
    beyond what they publish). Our synthetic seeds copy the real logs, so the largest
    log is the same at every size."""
    largest = max(p.stat().st_size for p in (ROOT / "vendored" / "results").rglob("*.jsonl"))
    lo, hi = min(rows), max(rows)
    grew = (rows[hi]["peak_rss_mib"] - rows[lo]["peak_rss_mib"]) * 2 ** 20
    print(f"peak grew {grew / 2 ** 20:.1f} MiB from {lo}x to {hi}x = {grew / largest:.0f}x the "
          f"largest log ({largest:,} bytes); target <= 3x: {'met' if grew <= 3 * largest else 'NOT met'}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python benchmarks/bench_scale.py")
    ap.add_argument("--sizes", type=int, nargs="+", default=[1, 4, 16])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-record", action="store_true", help="print, write nothing")
    ap.add_argument("--log-lengths", type=int, nargs="+", metavar="K",
                    help="instead: read the largest log made K times longer and print its "
                    "peak memory and time (writes nothing)")
    a = ap.parse_args(argv)
    if a.log_lengths:
        measure_log_lengths(a.log_lengths, a.runs)
        return 0
    rows = {}
    load = round(os.getloadavg()[0], 2)   # other work on the machine when we started
    stamp = measured_at(ROOT)             # the code measured, before anything is written
    print(f"1-minute load average at the start: {load}")
    with tempfile.TemporaryDirectory(prefix="cit-scale-") as tmp:
        for k in a.sizes:
            proj = make_project(k, Path(tmp))
            found = [measure(proj) for _ in range(a.runs)]
            rows[k] = {
                "run_logs": int((proj / "logs.txt").read_text()),
                "upstream_files": found[0]["files"],
                "registry_numbers": found[0]["numbers"],
                "data_stages_s": round(statistics.median(f["seconds"] for f in found), 3),
                "peak_rss_mib": round(max(f["peak_kib"] for f in found) / 1024, 1),
            }
            print(f"{k:>3}x: {rows[k]['run_logs']} run logs, {rows[k]['upstream_files']} files, "
                  f"data stages {rows[k]['data_stages_s']:.3f} s (median of {a.runs}), "
                  f"peak RSS {rows[k]['peak_rss_mib']} MiB", flush=True)
    _memory_target(rows)
    base = rows[min(rows)]["data_stages_s"]
    for k, row in rows.items():
        row["time_ratio_to_1x"] = round(row["data_stages_s"] / base, 2)
    top = max(rows)
    target = yaml.safe_load(BUDGETS.read_text())["scale_ratio_16x"]["value"] * top / 16
    ok = rows[top]["time_ratio_to_1x"] <= target
    print(f"{top}x costs {rows[top]['time_ratio_to_1x']}x the {min(rows)}x time "
          f"(budget <= {target:g}x): {'met' if ok else 'NOT met'}")
    if not a.no_record:
        record({"measured_at": stamp,
                "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
                           f"{platform.python_version()}",
                "load_average_at_start": load,
                "runs": a.runs, "sizes": {f"x{k}": row for k, row in rows.items()}})
        print(f"recorded in {BENCH.relative_to(ROOT)}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
