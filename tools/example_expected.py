"""Write the example study's expected output (its golden tree) for the golden test.

    python tools/example_expected.py [NAME]      (default: toyopt)

Builds examples/NAME cold, in memory, with a fixed build stamp, and writes every output
file under examples/NAME/expected/, except the plotly bundle, Pagefind's output (its
own script and WebAssembly, and the index; outside code, not ours to commit) and the
engine's static files (copies of templates/static/), whose SHA-256 the manifest
(expected/MANIFEST, every file's) records instead. Run it after an engine
change that alters the example's output on purpose, and review the diff before
committing it (tests/golden/test_example_study.py compares the two).
"""
import hashlib
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
STAMP = {"commit": "0" * 40, "commit_date": "2026-01-01T00:00:00+00:00"}
# kept by their SHA-256 only: Pagefind's output (cit/search.py) and the static files
# (the plotly bundle, cit/plotlybundle.py, and templates/static/'s), not the pages'
# provenance scripts
BY_HASH = ("pagefind/", "static/")


def by_hash(rel: str) -> bool:
    return rel.startswith(BY_HASH) and not rel.startswith("static/prov/")


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
        if by_hash(rel):
            continue
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_bytes(data)
    (out / "MANIFEST").write_text(manifest(files))
    print(f"{len(files)} files -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
