"""The data-stage cache is verified before use and cannot run code."""

import hashlib
import os
import pickle

from cit import cache
from cit.registry import Registry


class _RunsACommand:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def _store(root, key, body: bytes):
    path = cache.cache_file(root, key)
    path.parent.mkdir(parents=True, exist_ok=True)
    head = b" ".join((cache.MAGIC, cache.FORMAT, key.encode(),
                      hashlib.sha256(body).hexdigest().encode()))
    path.write_bytes(head + b"\n" + body)


def test_a_stored_value_comes_back(tmp_path):
    reg = Registry()
    reg.add("x.y", 1.5, "1.5", kind="derived", sources=(), locator="here", computation="none")
    cache.write(tmp_path, "k1", (reg, {"a": (1, 2)}, 3, None))
    got = cache.read(tmp_path, "k1", lambda v: isinstance(v, tuple))
    assert got[0].numbers["x.y"].text == "1.5" and got[1:] == ({"a": (1, 2)}, 3, None)


def test_a_well_formed_pickle_that_would_run_code_is_refused(tmp_path, capsys):
    """A header and a checksum anyone can compute do not make a file ours: the
    unpickler builds only the registry's and the simulator's data classes."""
    marker = tmp_path / "ran"
    _store(tmp_path, "k1", pickle.dumps(_RunsACommand(marker)))
    assert cache.read(tmp_path, "k1", lambda v: True) is None
    assert not marker.exists()
    err = capsys.readouterr().err
    assert err == ("cache .cache/data-stages-k1.pickle discarded: it names posix.system, "
                   "which a cache of ours never holds; building cold\n")


def test_a_value_of_the_wrong_shape_is_refused(tmp_path, capsys):
    cache.write(tmp_path, "k1", {"not": "ours"})
    assert cache.read(tmp_path, "k1", lambda v: isinstance(v, tuple)) is None
    assert "it does not hold the data stages' results; building cold" in capsys.readouterr().err


def test_an_unwritable_cache_folder_does_not_stop_the_build(tmp_path, capsys):
    (tmp_path / ".cache").write_text("a file where the folder should be")
    cache.write(tmp_path, "k1", (1, 2))
    assert capsys.readouterr().err.startswith("cache not written (")


def test_a_nested_pickle_that_would_run_code_is_refused(tmp_path):
    """The simulator's values are a pickle inside the verified cache value, unpickled
    on first use by the same restricted unpickler."""
    import pytest
    marker = tmp_path / "ran"
    with pytest.raises(cache.CacheRefused):
        cache.restricted_loads(cache.pickled(_RunsACommand(marker)))
    assert not marker.exists()


def test_after_one_cache_write_fails_the_build_writes_no_more_and_says_so_once(
        tmp_path, monkeypatch, capsys):
    """Issue 23's review (C3): a full disk gave one `cache not written` line per cache
    file (eight in the review's run). The first failure is one line naming the file; the
    build's later cache writes are not tried; --check's writes are never tried."""
    import errno
    import os
    from cit import atomic
    tried = []

    def full(path, data):
        tried.append(path.name)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
    monkeypatch.setattr(atomic, "write_file", full)
    writes = cache.Writes(tmp_path)
    cache.write(tmp_path, "k1", (1, 2), writes)
    cache.write_json(tmp_path, "pages", "k", {"a": 1}, writes)
    cache.write_blob(tmp_path, b"a page", writes)
    cache.json_memo(tmp_path, writes=writes)("figure", "k", lambda: [1])
    assert tried == ["data-stages-k1.pickle"]
    assert capsys.readouterr().err == (
        "cache not written (No space left on device: .cache/data-stages-k1.pickle); this "
        "build writes no more of .cache/, and the next one computes again what is missing\n")
    checking = cache.Writes(tmp_path, enabled=False)
    cache.write_json(tmp_path, "pages", "k", {"a": 1}, checking)
    assert tried == ["data-stages-k1.pickle"] and capsys.readouterr().err == ""
