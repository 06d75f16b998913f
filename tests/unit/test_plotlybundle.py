"""The committed plotly.js bundle: pinned by its lock, verified before use, and of the
plotly.js major version the engine's figures are written for (no Python plotly package
is needed); the refresh path unpacks an npm tarball and rewrites the lock."""

import gzip
import hashlib
import io
import shutil
import tarfile
from pathlib import Path

import pytest

from cit import plotlybundle as pb
from cit.errors import BuildError

ROOT = Path(__file__).resolve().parents[2]


def _copy_bundle(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / pb.BUNDLE_DIR, tmp_path / pb.BUNDLE_DIR)
    return tmp_path


def _tarball(version: str, body: bytes = b"(function(){})();\n", licence=b"MIT\n") -> bytes:
    """A tarball laid out like npm's: package/<file>."""
    script = (f"/**\n* plotly.js (basic - minified) v{version}\n* MIT\n*/\n").encode() + body
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        for name, data in ((f"package/{pb.SCRIPT}", script), (f"package/{pb.LICENCE}", licence),
                           ("package/package.json", b"{}")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return gzip.compress(raw.getvalue())


def test_the_committed_bundle_matches_its_lock_and_the_figures_schema():
    lock = pb.read_lock(ROOT)
    data = pb.bundle_bytes(ROOT)
    assert len(data) == lock["size"]
    assert hashlib.sha256(data).hexdigest() == lock["sha256"]
    assert pb.bundle_version(data, "bundle") == lock["version"]
    assert lock["version"].split(".")[0] == pb.FIGURES_FOR
    assert lock["package"] == pb.PACKAGE and lock["file"] == pb.SCRIPT
    assert (ROOT / pb.BUNDLE_DIR / pb.LICENCE).read_text().startswith("MIT License")


def test_a_changed_bundle_fails_naming_the_file_and_both_hashes(tmp_path):
    root = _copy_bundle(tmp_path)
    path = root / pb.BUNDLE_DIR / pb.SCRIPT
    data = bytearray(path.read_bytes())
    data[-2] ^= 1
    path.write_bytes(bytes(data))
    with pytest.raises(BuildError) as e:
        pb.bundle_bytes(root)
    assert e.value.where == f"vendored/plotly/{pb.SCRIPT}"
    assert hashlib.sha256(bytes(data)).hexdigest() in e.value.message
    assert pb.read_lock(root)["sha256"] in e.value.message


def test_a_bundle_of_another_plotly_js_major_version_fails_naming_both(tmp_path):
    other = f"{int(pb.FIGURES_FOR) - 1}.9.9"
    tgz = _tarball(other)
    pb.install_tarball(tgz, pb.integrity_of(tgz), "x.tgz", other, root=tmp_path)
    with pytest.raises(BuildError) as e:
        pb.bundle_bytes(tmp_path)
    assert f"plotly.js {other}" in e.value.message
    assert f"written for plotly.js {pb.FIGURES_FOR}.x" in e.value.message


def test_install_writes_bundle_licence_and_a_lock_the_build_accepts(tmp_path):
    version = pb.read_lock(ROOT)["version"]
    tgz = _tarball(version, licence=b"MIT License\n")
    lock = pb.install_tarball(tgz, pb.integrity_of(tgz), "p.tgz", version, root=tmp_path)
    assert pb.read_lock(tmp_path) == lock
    data = pb.bundle_bytes(tmp_path)
    assert data.startswith(b"/**\n* plotly.js (basic - minified) v" + version.encode())
    assert (tmp_path / pb.BUNDLE_DIR / pb.LICENCE).read_bytes() == b"MIT License\n"


def test_a_tarball_that_fails_its_integrity_is_refused(tmp_path):
    tgz = _tarball("1.2.3")
    with pytest.raises(BuildError, match="integrity"):
        pb.install_tarball(tgz, pb.integrity_of(tgz + b"x"), "p.tgz", "1.2.3", root=tmp_path)
    assert not (tmp_path / pb.BUNDLE_DIR).exists()


def test_a_malformed_lock_names_its_line(tmp_path):
    root = _copy_bundle(tmp_path)
    lock = root / pb.BUNDLE_DIR / pb.LOCK_NAME
    lines = lock.read_text().splitlines()
    n = next(i for i, line in enumerate(lines) if line.startswith("size:"))
    lines[n] = "sise: 12"
    lock.write_text("\n".join(lines) + "\n")
    with pytest.raises(BuildError) as e:
        pb.read_lock(root)
    assert e.value.where == f"vendored/plotly/lock.yaml:{n + 1}"
