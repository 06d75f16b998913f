"""Write the example study's expected output (its golden tree) for the golden test.

    python tools/example_expected.py [NAME]      (default: toyopt)

Builds examples/NAME cold, in memory, with a fixed build stamp, and writes every output
file under examples/NAME/expected/, except the plotly bundle and Pagefind's output
(its own script and WebAssembly, and the index; outside code, not ours to commit),
whose SHA-256 the manifest (expected/MANIFEST, every file's) records instead. Run it after an engine
change that alters the example's output on purpose, and review the diff before
committing it (tests/golden/test_example_study.py compares the two).
"""
import hashlib
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
STAMP = {"commit": "0" * 40, "commit_date": "2026-01-01T00:00:00+00:00"}
# the plotly bundle's file name starts so (cit/plotlybundle.py); Pagefind's (cit/search.py)
BUNDLED = ("static/plotly", "pagefind/")


def build(name: str) -> dict[str, bytes]:
    sys.path.insert(0, str(HERE))
    from cit import build as b, buildrecord
    saved = buildrecord.git_stamp
    buildrecord.git_stamp = lambda _root: dict(STAMP)
    try:
        return b.run_stages(HERE / "examples" / name, use_cache=False).files
    finally:
        buildrecord.git_stamp = saved


def manifest(files: dict[str, bytes]) -> str:
    return "".join(f"{hashlib.sha256(files[k]).hexdigest()}  {k}\n" for k in sorted(files))


def main(argv=None) -> int:
    name = (argv or sys.argv[1:] or ["toyopt"])[0]
    files = build(name)
    out = HERE / "examples" / name / "expected"
    shutil.rmtree(out, ignore_errors=True)
    for rel, data in files.items():
        if rel.startswith(BUNDLED):
            continue
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_bytes(data)
    (out / "MANIFEST").write_text(manifest(files))
    print(f"{len(files)} files -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
