"""The plotly.js the charts load: npm's `plotly.js-basic-dist-min` partial bundle (scatter,
bar, pie; log axes, shapes, annotations, legends), committed under vendored/plotly/ with
its licence and pinned in vendored/plotly/lock.yaml (version, size, SHA-256, the npm
tarball's file name and its integrity).

`SCRIPT` is the one name of the plotly script file in the code: the chart blocks ask
for it and the render stage copies `bundle_bytes()` to static/ under it.

The build verifies the file against the lock before use, and fails when the bundle's
plotly.js version is not the lock's, or not of the major version whose figure schema
the charts are written in (`FIGURES_FOR`: the engine writes the figures as plain data
and needs no Python plotly package).

    python -m cit.plotlybundle refresh [--version V]   fetch the npm tarball (default: the
                                                       lock's version), rewrite the lock
    python -m cit.plotlybundle check                   verify the committed bundle
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import io
import json
import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import yaml

from . import atomic, yamlio
from .errors import BuildError

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "plotly.js-basic-dist-min"
SCRIPT = "plotly-basic.min.js"
LICENCE = "LICENSE"
BUNDLE_DIR = Path("vendored") / "plotly"
LOCK_NAME = "lock.yaml"
HEADER_RE = re.compile(rb"\A/\*\*?\s*\*?\s*plotly\.js(?: \(basic - minified\))? v(\d+\.\d+\.\d+)")
# the plotly.js major version whose figure schema cit/blocks/charts.py writes
FIGURES_FOR = "4"
LOCK_KEYS = ("package", "version", "file", "size", "sha256", "licence", "licence_sha256",
             "tarball", "integrity")


def bundle_version(data: bytes, where: str) -> str:
    """The plotly.js version named in the bundle's opening comment."""
    m = HEADER_RE.match(data[:200])
    if not m:
        raise BuildError(where, "no plotly.js version in the file's opening comment")
    return m.group(1).decode()


def read_lock(root: Path) -> dict:
    path = root / BUNDLE_DIR / LOCK_NAME
    rel = (BUNDLE_DIR / LOCK_NAME).as_posix()
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise BuildError(rel, "missing; run `python -m cit.plotlybundle refresh`") from None
    try:
        yamlio.load(text, rel)               # valid YAML, no key given twice
        node = yamlio.compose(text, rel)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        raise BuildError(f"{rel}:{mark.line + 1 if mark else 1}", f"not valid YAML: "
                         f"{getattr(e, 'problem', e)}") from None
    if not isinstance(node, yaml.MappingNode):
        raise BuildError(f"{rel}:1", "expected a mapping of " + ", ".join(LOCK_KEYS))
    lock: dict = {}
    for k, v in node.value:              # each value as written (a hash stays text)
        if k.value not in LOCK_KEYS or not isinstance(v, yaml.ScalarNode):
            raise BuildError(f"{rel}:{k.start_mark.line + 1}", f"expected one `key: value` "
                             f"line per key of {', '.join(LOCK_KEYS)}")
        lock[k.value] = v.value.strip()
    missing = [k for k in LOCK_KEYS if k not in lock]
    if missing:
        raise BuildError(rel, f"missing keys: {', '.join(missing)}")
    if not lock["size"].isdigit():
        raise BuildError(rel, f"size is not a whole number: {lock['size']!r}")
    lock["size"] = int(lock["size"])
    return lock


def _verified(root: Path, name: str, sha256: str, size: int | None = None) -> bytes:
    rel = (BUNDLE_DIR / name).as_posix()
    try:
        data = (root / BUNDLE_DIR / name).read_bytes()
    except FileNotFoundError:
        raise BuildError(rel, "missing; run `python -m cit.plotlybundle refresh`") from None
    got = hashlib.sha256(data).hexdigest()
    if got != sha256 or (size is not None and len(data) != size):
        raise BuildError(rel, f"does not match {BUNDLE_DIR.as_posix()}/{LOCK_NAME}: "
                              f"{len(data)} bytes, sha256 {got}; the lock says "
                              f"{size} bytes, sha256 {sha256}")
    return data


def bundle_bytes(root: Path = ROOT) -> bytes:
    """The verified bundle: its bytes match the lock, and its plotly.js version is the
    lock's, of the major version the figures are written for."""
    lock = read_lock(root)
    if lock["file"] != SCRIPT:
        raise BuildError((BUNDLE_DIR / LOCK_NAME).as_posix(),
                         f"file is {lock['file']!r}; the charts load {SCRIPT!r}")
    data = _verified(root, SCRIPT, lock["sha256"], lock["size"])
    _verified(root, LICENCE, lock["licence_sha256"])
    version = bundle_version(data, (BUNDLE_DIR / SCRIPT).as_posix())
    if version != lock["version"] or version.split(".")[0] != FIGURES_FOR:
        raise BuildError((BUNDLE_DIR / SCRIPT).as_posix(),
                         f"plotly.js {version} (lock: {lock['version']}), but the charts "
                         f"are written for plotly.js {FIGURES_FOR}.x as the lock pins it; run "
                         f"`python -m cit.plotlybundle refresh --version {FIGURES_FOR}.X.Y`")
    return data


def integrity_of(data: bytes) -> str:
    """npm's integrity string (SRI, sha512) of a tarball."""
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


def install_tarball(tgz: bytes, integrity: str, tarball: str, version: str,
                    root: Path = ROOT) -> dict:
    """Check the tarball against npm's integrity, unpack the bundle and its licence into
    vendored/plotly/ and rewrite the lock. Returns the lock."""
    if integrity_of(tgz) != integrity:
        raise BuildError(tarball, f"integrity {integrity_of(tgz)} is not npm's {integrity}")
    with tarfile.open(fileobj=io.BytesIO(tgz), mode="r:gz") as tar:
        members = {m.name: m for m in tar.getmembers() if m.isfile()}
        wanted = {f"package/{SCRIPT}": SCRIPT, f"package/{LICENCE}": LICENCE}
        files = {}
        for member, name in wanted.items():
            if member not in members:
                raise BuildError(tarball, f"no {member} in the tarball")
            files[name] = tar.extractfile(members[member]).read()
    found = bundle_version(files[SCRIPT], f"{tarball}: package/{SCRIPT}")
    if found != version:
        raise BuildError(tarball, f"package/{SCRIPT} is plotly.js {found}, not {version}")
    lock = {"package": PACKAGE, "version": version, "file": SCRIPT,
            "size": len(files[SCRIPT]), "sha256": hashlib.sha256(files[SCRIPT]).hexdigest(),
            "licence": LICENCE, "licence_sha256": hashlib.sha256(files[LICENCE]).hexdigest(),
            "tarball": tarball, "integrity": integrity}
    out = root / BUNDLE_DIR
    out.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        atomic.write_file(out / name, data)
    atomic.write_file(out / LOCK_NAME,
        "# The plotly.js bundle the charts load; written by "
        "`python -m cit.plotlybundle refresh`.\n"
        "# tarball: the npm registry's file name for the package version; integrity: npm's.\n"
        + "".join(f"{k}: {lock[k]}\n" for k in LOCK_KEYS))
    return lock


def fetch_tarball(version: str) -> tuple[bytes, str, str]:
    """The npm package's tarball at `version`, through the npm client (`npm pack`), with
    the integrity npm's registry gives for it and the tarball's file name."""
    with tempfile.TemporaryDirectory() as tmp:
        try:
            out = subprocess.run(["npm", "pack", f"{PACKAGE}@{version}", "--json",
                                  "--pack-destination", tmp],
                                 cwd=tmp, capture_output=True, text=True, check=True).stdout
        except FileNotFoundError:
            raise BuildError("npm", "the npm client is needed to fetch the bundle") from None
        except subprocess.CalledProcessError as e:
            raise BuildError(f"npm pack {PACKAGE}@{version}", e.stderr.strip()) from None
        info = json.loads(out)[0]
        return (Path(tmp, info["filename"]).read_bytes(), info["integrity"], info["filename"])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m cit.plotlybundle")
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("refresh", help="fetch the npm tarball and rewrite the lock")
    r.add_argument("--version", help="plotly.js version (default: the lock's)")
    sub.add_parser("check", help="verify the committed bundle against the lock")
    a = ap.parse_args(argv)
    try:
        if a.cmd == "refresh":
            version = a.version or read_lock(ROOT)["version"]
            tgz, integrity, name = fetch_tarball(version)
            lock = install_tarball(tgz, integrity, name, version)
            print(f"{PACKAGE} {lock['version']}: {lock['size']} bytes, "
                  f"sha256 {lock['sha256']} -> {BUNDLE_DIR.as_posix()}/")
        else:
            data = bundle_bytes()
            print(f"{BUNDLE_DIR.as_posix()}/{SCRIPT}: {len(data)} bytes, matches the lock "
                  f"(plotly.js {bundle_version(data, SCRIPT)})")
    except BuildError as e:
        print(f"plotlybundle: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
