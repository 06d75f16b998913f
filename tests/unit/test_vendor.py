"""The vendor step: every upstream file is verified by git blob SHA-1 before use."""

import hashlib
import shutil
import subprocess

import pytest
import yaml

from cit.errors import BuildError
from cit.vendor import git_blob_sha1, materialise, read_lock
from tests.conftest import ROOT


def test_the_blob_hash_is_the_one_git_computes(tmp_path):
    f = tmp_path / "x.txt"
    f.write_bytes(b"compute in transit\n")
    got = subprocess.run(["git", "hash-object", str(f)], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert git_blob_sha1(f.read_bytes()) == got


def test_the_lock_agrees_with_the_mirror_manifest(vendored_files, upstream_mirror):
    """The lock against the mirror's MANIFEST.tsv (path, commit, size, blob SHA-1 and
    SHA-256 of each file). CI's mirror is the vendored/ folder its build downloaded,
    which has no manifest: there every file the lock pins must be in the mirror with the
    lock's size and git blob SHA-1 (what the upstream host's git answers for), and no
    other run log beside them."""
    lock = read_lock()
    if not (upstream_mirror / "MANIFEST.tsv").exists():
        from cit.vendor import unpinned
        assert upstream_mirror.resolve() == (ROOT / "vendored").resolve()
        for f in lock.files:
            data = (upstream_mirror / f.path).read_bytes()
            assert (len(data), git_blob_sha1(data)) == (f.size, f.blob_sha1)
        assert unpinned(ROOT, [f.path for f in lock.files]) == []
        return
    manifest = (upstream_mirror / "MANIFEST.tsv").read_text().splitlines()[1:]
    rows = {l.split("\t")[0]: l.split("\t") for l in manifest}
    assert sorted(rows) == sorted(f.path for f in lock.files)
    for f in lock.files:
        path, commit, size, sha1, sha256 = rows[f.path]
        assert (f.commit, f.size, f.blob_sha1) == (commit, int(size), sha1)
        data = (vendored_files[f.path].local).read_bytes()
        assert hashlib.sha256(data).hexdigest() == sha256


def _copy_vendored(project_copy):
    return project_copy / "vendored"


def test_one_changed_byte_fails_with_the_file_name_and_both_hashes(project_copy):
    lock = read_lock(project_copy / "vendored" / "lock.yaml")
    f = lock.files[3]
    p = project_copy / "vendored" / f.path
    data = bytearray(p.read_bytes())
    data[10] ^= 1
    p.write_bytes(bytes(data))
    with pytest.raises(BuildError) as e:
        materialise(root=project_copy)
    msg = str(e.value)
    assert f.path in msg and f.blob_sha1 in msg and git_blob_sha1(bytes(data)) in msg


def test_a_missing_vendored_file_is_taken_from_the_mirror_and_verified(project_copy,
                                                                       upstream_mirror):
    lock = read_lock(project_copy / "vendored" / "lock.yaml")
    f = lock.files[0]
    (project_copy / "vendored" / f.path).unlink()
    files = materialise(vendor_from=upstream_mirror, root=project_copy)
    assert git_blob_sha1(files[f.path].local.read_bytes()) == f.blob_sha1


def test_a_missing_vendored_file_with_no_mirror_and_no_network_names_the_file(project_copy,
                                                                              monkeypatch):
    lock = read_lock(project_copy / "vendored" / "lock.yaml")
    f = lock.files[0]
    (project_copy / "vendored" / f.path).unlink()
    monkeypatch.delenv("CIT_VENDOR_MIRROR", raising=False)
    # point the download at a closed local port so no real network is tried
    raw = yaml.safe_load((project_copy / "vendored" / "lock.yaml").read_text())
    raw["host"] = "http://127.0.0.1:9"
    (project_copy / "vendored" / "lock.yaml").write_text(yaml.safe_dump(raw))
    with pytest.raises(BuildError) as e:
        materialise(root=project_copy)
    assert f.path in str(e.value) and "no mirror" in str(e.value)


def test_a_mirror_with_a_bad_file_is_refused_not_used(project_copy, tmp_path, upstream_mirror):
    mirror = tmp_path / "mirror"
    shutil.copytree(upstream_mirror, mirror)
    lock = read_lock(project_copy / "vendored" / "lock.yaml")
    f = lock.files[5]
    (project_copy / "vendored" / f.path).unlink()
    (mirror / f.path).write_bytes((mirror / f.path).read_bytes() + b" ")
    with pytest.raises(BuildError) as e:
        materialise(vendor_from=mirror, root=project_copy)
    assert f.path in str(e.value) and f.blob_sha1 in str(e.value)


@pytest.mark.parametrize("old, new, owner", [
    ("host:", "hostx:", "lock file: unknown key `hostx`"),
    ("  size:", "  sise:", "lock file entry: unknown key `sise`"),
    ("  size: ", "  size: x", "lock file entry `size`: must be a whole number"),
])
def test_a_malformed_lock_names_the_line_of_the_key(tmp_path, old, new, owner):
    from cit.vendor import LOCK
    text = LOCK.read_text()
    assert old in text
    bad = text.replace(old, new, 1)
    path = tmp_path / "lock.yaml"
    path.write_text(bad)
    with pytest.raises(BuildError) as e:
        read_lock(path)
    line = next(i for i, s in enumerate(bad.splitlines(), 1) if s.startswith(new))
    assert str(e.value).startswith(f"{path.parent.name}/lock.yaml:{line}: {owner}")


# ---- the upstream is the lock's, not the engine's ----------------------------------------

def _mirror(tmp_path, files: dict[str, bytes]):
    mirror = tmp_path / "mirror"
    for rel, data in files.items():
        (mirror / rel).parent.mkdir(parents=True, exist_ok=True)
        (mirror / rel).write_bytes(data)
    return mirror


def test_a_relock_keeps_the_repository_commit_and_host_of_the_lock(tmp_path):
    from cit.vendor import ROOT, write_lock
    old = read_lock(ROOT / "vendored" / "lock.yaml")
    lock_path = tmp_path / "vendored" / "lock.yaml"
    lock_path.parent.mkdir()
    shutil.copy(ROOT / "vendored" / "lock.yaml", lock_path)
    new = write_lock(_mirror(tmp_path, {"results/a.log": b"one\n"}), lock_path, patterns=["results/*"])
    assert (new.repository, new.commit, new.host) == (old.repository, old.commit, old.host)
    assert [(f.path, f.commit) for f in read_lock(lock_path).files] == [("results/a.log", old.commit)]


def test_a_first_lock_takes_its_upstream_as_given_and_without_one_names_the_lock(tmp_path):
    from cit.vendor import RAW_HOST, Lock, write_lock
    mirror = _mirror(tmp_path, {"results/a.log": b"one\n"})
    lock_path = tmp_path / "vendored" / "lock.yaml"
    with pytest.raises(BuildError) as e:
        write_lock(mirror, lock_path, patterns=["results/*"])
    assert e.value.where == str(lock_path) and "--repository OWNER/NAME --commit SHA" in e.value.message
    assert not lock_path.exists()
    write_lock(mirror, lock_path, Lock("someone/their-study", "c" * 40, RAW_HOST, []),
               ["results/*"])
    got = read_lock(lock_path)
    assert (got.repository, got.commit, [f.commit for f in got.files]) == (
        "someone/their-study", "c" * 40, ["c" * 40])


@pytest.mark.parametrize("repository, expect", [
    ("someone/their-study", "their-study"), ("none, a made-up study", None)])
def test_the_default_mirror_is_named_by_the_lock_s_repository(tmp_path, repository, expect):
    from cit.vendor import default_mirror
    root = tmp_path / "proj"
    assert default_mirror(root) is None      # no lock yet
    (root / "vendored").mkdir(parents=True)
    (root / "vendored" / "lock.yaml").write_text(yaml.safe_dump(
        {"repository": repository, "commit": "c", "host": "h", "files": []}))
    want = tmp_path / "shared" / "upstream" / expect if expect else None
    assert default_mirror(root) == want
