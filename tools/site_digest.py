"""Digest of the whole built site, for showing that a change leaves the output
byte-identical.

    python tools/site_digest.py [--root DIR] [--vendor-from DIR] [--stamp-of REV]

Runs a cold build of the checkout at --root (default: this one) in memory and prints
one SHA-256 over every output file (path and bytes, in path order) and the file count.
Every page carries the build stamp (the commit and its date), which differs between
two commits by design; --stamp-of REV builds both sides with the stamp of one
commit, so that two checkouts can be compared. Without it the stamp is the checkout's
own HEAD, as `python build.py` writes it.
"""
import argparse
import hashlib
import importlib
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]


def stamp_of(rev: str, repo: Path) -> dict:
    out = subprocess.run(["git", "log", "-1", "--format=%H %cI", rev], cwd=repo,
                         capture_output=True, text=True, check=True).stdout.split()
    return {"commit": out[0], "commit_date": out[1]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=HERE)
    ap.add_argument("--vendor-from")
    ap.add_argument("--stamp-of", help="a commit of this repository whose stamp both sides use")
    a = ap.parse_args(argv)
    root = a.root.resolve()
    sys.path.insert(0, str(root))
    build = importlib.import_module("cit.build")
    if a.stamp_of:
        stamp = stamp_of(a.stamp_of, HERE)
        # the stamp function moved from cit.build to cit.buildrecord; patch where it is
        holder = (importlib.import_module("cit.buildrecord")
                  if (root / "cit" / "buildrecord.py").exists() else build)
        holder.git_stamp = lambda _root: dict(stamp)
    run = getattr(build, "run_stages", None) or build.compute   # its name before the split
    result = run(root, a.vendor_from, use_cache=False)
    h = hashlib.sha256()
    for rel in sorted(result.files):
        h.update(rel.encode() + b"\0" + hashlib.sha256(result.files[rel]).digest())
    print(f"{h.hexdigest()}  {len(result.files)} files  (built by {Path(build.__file__).parent})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
