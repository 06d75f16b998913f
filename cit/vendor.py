"""Vendoring: pin the upstream data files in vendored/lock.yaml, materialise them into
vendored/ and verify every file's git blob SHA-1 before anything reads it.

Lookup order for the bytes (README, "Where the upstream data comes from"): the
--vendor-from option, the CIT_VENDOR_MIRROR environment variable,
`shared/upstream/<repo name>/` in the folder that holds the clone, beside the
project, else a download of the pinned commit's files from the upstream host.

    python -m cit.vendor lock [--from DIR] [--repository OWNER/NAME --commit SHA]
                                               write vendored/lock.yaml from a mirror
    python -m cit.vendor fetch [--from DIR]    materialise and verify

The engine names no upstream: the repository, commit and host are the lock's own
(`repository`, `commit`, `host`); a re-lock keeps them, and a study's first lock is
given them (`--repository`, `--commit`, optionally `--host`).
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import os
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import yaml

from . import atomic, yamlio

from .errors import BuildError
from .fieldcheck import FieldRule, check_fields, key_places
from .reads import Reads

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "vendored" / "lock.yaml"
RAW_HOST = "https://raw.githubusercontent.com"
# A lock's raw-file host -> the host whose pages show a file at a commit, with line anchors
WEB_HOSTS = {RAW_HOST: "https://github.com"}


@dataclass(frozen=True)
class LockedFile:
    """One pinned upstream file."""
    path: str
    size: int
    blob_sha1: str
    commit: str


@dataclass(frozen=True)
class Lock:
    """vendored/lock.yaml: where the files come from, and each file's pin."""
    repository: str
    commit: str
    host: str
    files: list[LockedFile]


LOCK_RULES = {"repository": FieldRule(str), "commit": FieldRule(str), "host": FieldRule(str),
              "files": FieldRule(list)}
LOCKED_FILE_RULES = {"path": FieldRule(str), "size": FieldRule(int),
                     "blob_sha1": FieldRule(str), "commit": FieldRule(str)}


@dataclass(frozen=True)
class VendoredFile:
    """A verified upstream file: where it lies here and what pins it."""
    rel: str
    local: Path
    commit: str
    blob_sha1: str
    size: int


def git_blob_sha1(data: bytes) -> str:
    """The id git gives a file's bytes: SHA-1 of `blob <size>\\0` + bytes."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def read_lock(path: Path = LOCK, reads: Reads | None = None) -> Lock:
    """The lock, checked: errors name the file and the line of the offending key; every
    path must stay inside vendored/ (materialise writes vendored/<path>)."""
    reads = reads or Reads(path.parent.parent)
    text, name = reads.maybe_text(path), reads.rel(path)
    if text is None:
        raise BuildError(name, "lock file missing; run `python -m cit.vendor lock`")
    try:
        raw = yamlio.load(text, name)
    except yaml.YAMLError as e:
        raise BuildError(name, f"malformed lock file: {e}") from None

    def where(entry: int | None = None):
        """Where a key of the lock (or of its files' entry `entry`) is: the node tree
        is composed only when there is an error to place, as for front matter."""
        def at(key):
            node = yamlio.compose(text, name)
            if entry is not None:
                node = next(v for k, v in node.value if k.value == "files").value[entry]
            return key_places(name, node)(key)
        return at
    check_fields(raw, LOCK_RULES, where(), "lock file")
    for i, item in enumerate(raw["files"]):
        check_fields(item, LOCKED_FILE_RULES, where(i), "lock file entry")
        if not _inside_vendored(item["path"]):
            raise BuildError(where(i)("path"), f"path {item['path']!r} leads outside "
                             "vendored/; a pinned file lies under it, by a relative path")
    return Lock(raw["repository"], raw["commit"], raw["host"],
                [LockedFile(**entry) for entry in raw["files"]])


def file_url_base(lock: Lock) -> str | None:
    """The web address an upstream file's page starts with, before "<commit>/<path>"
    (a card links each upstream source there, docs/numbers.md); None for a host whose
    pages we do not know."""
    web = WEB_HOSTS.get(lock.host.rstrip("/"))
    return f"{web}/{lock.repository}/blob/" if web else None


def _inside_vendored(rel: str) -> bool:
    """Whether vendored/<rel> names a file inside vendored/: a relative path with no
    empty, `.` or `..` part (and no backslash, which another system reads as a folder)."""
    parts = rel.split("/")
    return bool(rel) and "\\" not in rel and not rel.startswith("/") and all(
        p not in ("", ".", "..") for p in parts)


def default_mirror(root: Path = ROOT) -> Path | None:
    """The last place mirror_dir looks: `shared/upstream/<repository name>` in the
    folder that holds the clone, the name that of the lock's `repository` (OWNER/NAME);
    None when there is no lock yet or its repository is not of that form."""
    lock = root / "vendored" / "lock.yaml"
    if not lock.is_file():
        return None
    owner, _, name = read_lock(lock).repository.partition("/")
    if not owner or not name or "/" in name:
        return None
    return root.parent / "shared" / "upstream" / name


def mirror_dir(vendor_from: str | Path | None, root: Path = ROOT) -> Path | None:
    """The first mirror in the lookup order that exists, or None (then: download).
    The one place the order lives: the build and the tests (their `upstream_mirror`
    fixture) both call it, so the tests find the data wherever the build does."""
    for candidate in (vendor_from, os.environ.get("CIT_VENDOR_MIRROR")):
        if candidate:
            p = Path(candidate)
            if not p.is_dir():
                raise BuildError(str(p), "vendor mirror folder does not exist")
            return p
    p = default_mirror(root)
    return p if p is not None and p.is_dir() else None


def _manifest_commits(mirror: Path) -> dict[str, str]:
    """path -> commit the bytes were read at, from the mirror's MANIFEST.tsv."""
    manifest = mirror / "MANIFEST.tsv"
    if not manifest.exists():
        return {}
    out = {}
    for i, line in enumerate(manifest.read_text().splitlines()[1:], start=2):
        cols = line.split("\t")
        if len(cols) < 4:
            raise BuildError(f"{manifest}:{i}", "expected path, commit, bytes, blob SHA-1")
        out[cols[0]] = cols[1]
    return out


def _origin(lock_path: Path, origin: Lock | None) -> Lock:
    """Where the pinned files come from: `origin`, else the lock already at `lock_path`
    (so a re-lock keeps its repository, commit and host)."""
    if origin is not None:
        return origin
    if not lock_path.is_file():
        raise BuildError(str(lock_path), "no lock yet to take the upstream repository and "
                         "commit from: give them (`python -m cit.vendor lock --repository "
                         "OWNER/NAME --commit SHA`)")
    return read_lock(lock_path)


def mirror_files(mirror: Path, patterns) -> list[str]:
    """The mirror's files (relative, with /) that a pattern of site.yaml's `pinned`
    names: shell patterns over the whole relative path, `*` crossing folders
    (`results/*` is everything under results/); the mirror's .git/ is never looked in."""
    found = []
    for folder, dirs, names in os.walk(mirror):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        for n in sorted(names):
            rel = (Path(folder) / n).relative_to(mirror).as_posix()
            if any(fnmatch.fnmatchcase(rel, p) for p in patterns):
                found.append(rel)
    return sorted(found)


def write_lock(mirror: Path, lock_path: Path = LOCK, origin: Lock | None = None,
               patterns=(), where: str = "site.yaml") -> Lock:
    """Pin every file of the mirror that `patterns` name (mirror_files; path, size, blob
    SHA-1, commit: the mirror's MANIFEST.tsv's, else the lock's); the repository, commit
    and host are `origin`'s, else those of the lock at `lock_path` (_origin). A lock of
    no file is refused (`where`: the patterns' place) and the old one kept."""
    commits = _manifest_commits(mirror)
    found = []
    for rel in mirror_files(mirror, patterns):
        p = mirror / rel
        if p.is_symlink():
            raise BuildError(str(p), "a link in the mirror; the lock pins only the "
                             "mirror's own files")
        found.append((rel, p.read_bytes()))
    if not found:
        raise BuildError(where, f"the patterns of `pinned` ({', '.join(patterns) or 'none'}) "
                         f"name no file of the mirror {mirror}; the lock is as it was "
                         "(docs/site-config.md, \"Pinned files\")")
    head = _origin(lock_path, origin)
    files = [LockedFile(path=rel, size=len(data), blob_sha1=git_blob_sha1(data),
                        commit=commits.get(rel, head.commit)) for rel, data in found]
    lock = Lock(repository=head.repository, commit=head.commit, host=head.host, files=files)
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_file(lock_path,    # the whole new lock or the old one, never part of one
        "# Upstream data pinned for the build; written by `python -m cit.vendor lock`.\n"
        + yaml.safe_dump(asdict(lock), sort_keys=False))
    return lock


def unpinned(root: Path, pinned) -> list[str]:
    """Files in root/vendored/ that the lock does not pin, which no build reads: the
    lock itself, the plotly.js bundle (vendored/plotly/, its own lock) and the atomic
    writer's temporary files aside."""
    vdir = root / "vendored"
    pinned = set(pinned)
    out = []
    for folder, dirs, names in os.walk(vdir):
        here = Path(folder).relative_to(vdir)
        dirs[:] = sorted(d for d in dirs if not (here == Path(".") and d == "plotly"))
        for n in sorted(names):
            rel = (here / n).as_posix()
            if rel != "lock.yaml" and rel not in pinned and not n.endswith(".part"):
                out.append(rel)
    return sorted(out)


def _verify(f: LockedFile, data: bytes, origin: str) -> None:
    got = git_blob_sha1(data)
    if got != f.blob_sha1:
        raise BuildError(f.path, f"git blob SHA-1 mismatch ({origin}): lock has "
                         f"{f.blob_sha1}, file has {got}")
    if len(data) != f.size:
        raise BuildError(f.path, f"size mismatch ({origin}): lock has {f.size} bytes, "
                         f"file has {len(data)}")


def _matches(f: LockedFile, data: bytes) -> bool:
    return len(data) == f.size and git_blob_sha1(data) == f.blob_sha1


def _download(lock: Lock, f: LockedFile) -> bytes:
    url = f"{lock.host}/{lock.repository}/{f.commit}/{f.path}"
    try:
        import urllib.request   # only when a file must be downloaded
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.read()
    except OSError as e:
        raise BuildError(f.path, f"not vendored, no mirror found, and the download of "
                         f"{url} failed: {e}; give a copy of the upstream repository "
                         "with --vendor-from DIR or CIT_VENDOR_MIRROR=DIR") from None


def materialise(vendor_from: str | Path | None = None, root: Path = ROOT,
                lock_path: Path | None = None, reads: Reads | None = None,
                store: bool = True) -> dict[str, VendoredFile]:
    """Make every locked file present under root/vendored/ and verified; returns rel -> file.

    A file already in vendored/ is re-hashed and kept when it matches; a mismatch there is
    an error (never silently replaced), so an edited vendored file fails the build, unless
    `vendor_from` is given: then the mirror's copy, verified, replaces it, and a line on
    stderr says so (a re-lock leaves the old copies stale).
    With `store` False (--check) a file fetched is held in `reads` for this build
    (Reads.give) and vendored/ is left as it was.
    """
    reads = reads or Reads(root)
    lock = read_lock(lock_path or root / "vendored" / "lock.yaml", reads)
    vdir = root / "vendored"
    mirror = None
    out = {}
    for f in lock.files:
        local = vdir / f.path
        data = reads.maybe_bytes(local)
        if data is not None and vendor_from and not _matches(f, data):
            data = None     # stale after a re-lock: replaced below, if the mirror's matches
            print(f"vendored/{f.path}: not the file the lock pins; replaced from "
                  f"{vendor_from} (verified against the lock)", file=sys.stderr)
        if data is not None:
            _verify(f, data, f"vendored/{f.path}")
        else:
            if mirror is None:
                mirror = mirror_dir(vendor_from, root) or False
            if mirror:
                src = mirror / f.path
                if not src.exists():
                    raise BuildError(f.path, f"missing from the mirror {mirror}")
                data = src.read_bytes()
                _verify(f, data, f"mirror {mirror}")
            else:
                data = _download(lock, f)
                _verify(f, data, "download")
            if store:
                local.parent.mkdir(parents=True, exist_ok=True)
                _store(local, f.path, data)
            else:
                reads.give(local, data)
            reads.bytes(local)      # recorded as read, as the next build will read it
        out[f.path] = VendoredFile(f.path, local, f.commit, f.blob_sha1, f.size)
    return out


def _store(local: Path, rel: str, data: bytes) -> None:
    """A verified upstream file written in place (cit/atomic.py); a failure (a full disk)
    is one line naming the file."""
    try:
        atomic.write_file(local, data)
    except OSError as e:
        raise BuildError(rel, f"cannot be written into vendored/ ({e.strerror})") from None


def main(argv=None, prog: str = "python -m cit.vendor", default_root: Path = ROOT) -> int:
    ap = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n")[0])
    ap.add_argument("action", choices=["lock", "fetch"])
    ap.add_argument("--from", dest="vendor_from", help="mirror folder to read from")
    ap.add_argument("--root", type=Path, default=default_root,
                    help="the project (default: " + ("this checkout" if default_root == ROOT
                                                     else "the working folder") + ")")
    ap.add_argument("--repository", help="lock: the upstream OWNER/NAME (default: the lock's)")
    ap.add_argument("--commit", help="lock: the commit pinned (default: the lock's)")
    ap.add_argument("--host", default=RAW_HOST, help="lock, with --repository: the raw-file host")
    a = ap.parse_args(argv)
    a.root = a.root.resolve()     # relative: of the folder the command runs in
    try:
        if a.action == "lock":
            _lock_command(a)
        else:
            files = materialise(a.vendor_from, a.root)
            print(f"{len(files)} upstream files verified in vendored/")
    except BuildError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


def _lock_command(a) -> None:
    """`lock`: the lock of --root rewritten from the mirror found."""
    if bool(a.repository) != bool(a.commit):
        raise BuildError("vendor", "give --repository and --commit together, or neither "
                         "(then the lock's own are kept)")
    origin = Lock(a.repository, a.commit, a.host, []) if a.repository else None
    from .siteconfig import load_site
    site = load_site(a.root)
    mirror = mirror_dir(a.vendor_from, a.root)
    if mirror is None:
        raise BuildError("vendor", "no mirror found to write the lock from")
    lock_path = a.root / "vendored" / "lock.yaml"
    try:
        lock = write_lock(mirror, lock_path, origin, site.pinned,
                          site.where.get("pinned", "site.yaml (no `pinned` key)"))
    except OSError as e:
        raise BuildError(str(lock_path.relative_to(a.root)), f"not written ({e.strerror}); "
                         "the lock is as it was") from None
    print(f"locked {len(lock.files)} files from {mirror}")
    for rel in unpinned(a.root, (f.path for f in lock.files)):
        print(f"vendored/{rel}: not pinned by the lock (no pattern of `pinned` names it "
              "in the mirror); no build reads it", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
