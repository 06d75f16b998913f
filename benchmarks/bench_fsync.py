"""What making a rebuilt site durable costs, three ways (docs/output.md, "The output
folder"): a sync of every file and folder of the new tree, a sync of only the files
written plus every folder, and one syncfs(2). The tree is a built site's files, about
one in fourteen written and the rest hard-linked from a previous copy, as after a
one-page edit. Prints medians; records nothing.

    python benchmarks/bench_fsync.py [SITE] [REPEATS]
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cit import atomic  # noqa: E402


def _sync(path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def every_file(tree: Path, written) -> None:
    for dirpath, _, names in os.walk(tree):
        for name in names:
            _sync(os.path.join(dirpath, name))
        _sync(dirpath)


def written_only(tree: Path, written) -> None:
    for p in written:
        _sync(p)
    for dirpath, _, _ in os.walk(tree):
        _sync(dirpath)


def one_syncfs(tree: Path, written) -> None:
    if not atomic._syncfs(tree):
        raise SystemExit("this system offers no syncfs(2)")


def main() -> None:
    site = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "site"
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    files = {p.relative_to(site).as_posix(): p.read_bytes() for p in site.rglob("*") if p.is_file()}
    fresh = set(sorted(files)[::14])
    ways = {"every file and folder": every_file, "written files and folders": written_only,
            "one syncfs": one_syncfs}
    times: dict[str, list[float]] = {k: [] for k in ways}
    print(f"load {os.getloadavg()[0]:.2f}; {len(files)} files, {len(fresh)} written")
    with tempfile.TemporaryDirectory(dir=ROOT) as scratch:     # the project's file system
        old = Path(scratch) / "old"
        for rel, data in files.items():
            (old / rel).parent.mkdir(parents=True, exist_ok=True)
            (old / rel).write_bytes(data)
        os.sync()
        for i in range(repeats):
            for name, way in ways.items():
                tree, written = Path(scratch) / f"new{i}", []
                for rel, data in files.items():
                    (tree / rel).parent.mkdir(parents=True, exist_ok=True)
                    if rel in fresh:
                        (tree / rel).write_bytes(data)
                        written.append(tree / rel)
                    else:
                        os.link(old / rel, tree / rel)
                t = time.perf_counter()
                way(tree, written)
                times[name].append(time.perf_counter() - t)
                shutil.rmtree(tree)
    for name, ts in times.items():
        print(f"{name:28s} median {statistics.median(ts) * 1000:7.1f} ms"
              f"  (min {min(ts) * 1000:.1f}, max {max(ts) * 1000:.1f})")


if __name__ == "__main__":
    main()
