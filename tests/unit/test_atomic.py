"""cit/atomic.py: the one writer of files we own, and the folder exchange."""

import errno
import os

import pytest

from cit import atomic


def test_a_file_is_replaced_whole_and_keeps_its_mode(tmp_path):
    p = tmp_path / "lock.yaml"
    p.write_bytes(b"old\n")
    os.chmod(p, 0o640)
    atomic.write_file(p, "new ✓\n")
    assert p.read_bytes() == "new ✓\n".encode() and p.stat().st_mode & 0o777 == 0o640
    assert sorted(os.listdir(tmp_path)) == ["lock.yaml"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary_one(tmp_path, monkeypatch):
    """A full disk part way through the write: the old bytes stay, the error names the
    file meant (not the temporary one), nothing else is left."""
    p = tmp_path / "results.md"
    p.write_bytes(b"the record\n")

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(atomic.os, "fsync", full)
    with pytest.raises(OSError) as e:
        atomic.write_file(p, b"x" * 100_000)
    assert (e.value.errno, e.value.filename) == (errno.ENOSPC, str(p))
    assert p.read_bytes() == b"the record\n" and sorted(os.listdir(tmp_path)) == ["results.md"]


def test_a_dead_writers_temporary_file_is_swept_and_a_live_ones_kept(tmp_path):
    import subprocess
    import sys
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    p = tmp_path / "scenario.yaml"
    (tmp_path / f".scenario.yaml.{dead}-0badcafe.part").write_text("half")
    (tmp_path / f".scenario.yaml.{os.getppid()}-0badcafe.part").write_text("a live writer's")
    atomic.write_file(p, "whole\n")
    assert sorted(os.listdir(tmp_path)) == [f".scenario.yaml.{os.getppid()}-0badcafe.part",
                                           "scenario.yaml"]


def test_two_folders_swap_names_in_one_step(tmp_path):
    a, b = tmp_path / "new", tmp_path / "site"
    a.mkdir()
    b.mkdir()
    (a / "x").write_text("new")
    (b / "x").write_text("old")
    assert atomic._renameat2(a, b, atomic.RENAME_EXCHANGE)     # Linux: one system call
    assert (b / "x").read_text() == "new" and (a / "x").read_text() == "old"


def test_the_fallback_exchange_leaves_the_same_result(tmp_path, monkeypatch):
    monkeypatch.setattr(atomic, "_renameat2", lambda *a: False)
    a, b = tmp_path / "new", tmp_path / "site"
    a.mkdir()
    b.mkdir()
    (a / "x").write_text("new")
    (b / "x").write_text("old")
    atomic.exchange(a, b)
    assert (b / "x").read_text() == "new" and (a / "x").read_text() == "old"
    assert sorted(os.listdir(tmp_path)) == ["new", "site"]


def test_placing_a_folder_never_replaces_one_made_meanwhile(tmp_path):
    a, b = tmp_path / "new", tmp_path / "site"
    a.mkdir()
    b.mkdir()      # a concurrent build's, empty: a plain rename would replace it
    with pytest.raises(FileExistsError):
        atomic.place(a, b)
    assert a.is_dir() and b.is_dir()


def test_without_syncfs_each_written_file_and_every_folder_is_synced(tmp_path, monkeypatch):
    """Where syncfs(2) is not offered, flush_written syncs the files it is given and
    every folder of the tree (their new entries, the links among them), and no other
    file."""
    tree = tmp_path / "new"
    (tree / "a" / "b").mkdir(parents=True)
    for rel in ("w.html", "a/linked.html", "a/b/w.css"):
        (tree / rel).write_bytes(b"x")
    monkeypatch.setattr(atomic, "_syncfs", lambda folder: False)
    opened, real_open = {}, os.open
    synced = []

    def track_open(path, flags, *args):
        fd = real_open(path, flags, *args)
        opened[fd] = os.path.relpath(path, tree)
        return fd
    monkeypatch.setattr(atomic.os, "open", track_open)
    monkeypatch.setattr(atomic.os, "fsync", lambda fd: synced.append(opened[fd]))
    atomic.flush_written(tree, [tree / "w.html", tree / "a/b/w.css"])
    assert sorted(synced) == sorted(["w.html", "a/b/w.css", ".", "a", "a/b"])


def test_syncfs_is_one_call_for_the_whole_tree(tmp_path, monkeypatch):
    """On Linux, one syncfs(2) replaces the per-file syncs (no fsync at all)."""
    assert atomic._syncfs(tmp_path), "Linux offers syncfs(2): CI runs on Linux"
    monkeypatch.setattr(atomic.os, "fsync", lambda fd: pytest.fail("fsync called"))
    (tmp_path / "f").write_bytes(b"x")
    atomic.flush_written(tmp_path, [tmp_path / "f"])
