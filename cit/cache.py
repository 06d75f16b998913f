"""The data-stage cache in `.cache/`: a convenience, never a source of truth.

One file per key (the hash of every input of the data stages, code included):

    cit-data-stages <format> <key> <sha256 of the body>\\n<body: a pickle>

Before anything is unpickled the header is checked: our format, the key this build
expects (a file from another version of the code or other inputs is refused even when
renamed), and the SHA-256 of the body (a truncated or garbled file is refused). The
body is then read by an unpickler that only builds the classes of the registry
(dataclasses of cit.registry and cit.claims) and of the module prefixes site.yaml's
`unpickle` names, so even a well-formed pickle made elsewhere cannot run code. A refused cache is reported in one
line and the build goes on cold, writing a fresh one.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import io
import json
import os
import pickle
import re
import sys
from pathlib import Path
from typing import Callable, Iterable

from . import atomic

MAGIC = b"cit-data-stages"
FORMAT = b"1"
PREFIX = "data-stages-"
ALLOWED_MODULES = ("cit.registry", "cit.claims")   # claims: checked claims


class CacheRefused(Exception):
    """The cache file may not be used; the message says why."""


class _RegistryUnpickler(pickle.Unpickler):
    """Builds only data classes of the registry and of the `allowed` module prefixes;
    refuses any other global (a function, a builtin like eval, a class from elsewhere)."""

    def __init__(self, file, allowed: tuple[str, ...] = ()):
        super().__init__(file)
        self.allowed = tuple(allowed)

    def find_class(self, module: str, name: str):
        # a prefix is a module and what lies under it: `study` is not `studyx`
        if module in ALLOWED_MODULES or any(module == p or module.startswith(p + ".")
                                            for p in self.allowed if p):
            obj = super().find_class(module, name)
            # a pydantic model's module has imported pydantic; otherwise none is allowed
            pydantic = sys.modules.get("pydantic")
            if isinstance(obj, type) and (dataclasses.is_dataclass(obj) or (
                    pydantic is not None and issubclass(obj, pydantic.BaseModel))):
                return obj
        raise CacheRefused(f"it names {module}.{name}, which a cache of ours never holds")


def pickled(value) -> bytes:
    """`value` as a pickle to nest in a cache value (read back by restricted_loads)."""
    return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


def restricted_loads(data: bytes, allowed: tuple[str, ...] = ()):
    """A pickle nested in a verified cache file, read by the same restricted unpickler."""
    return _RegistryUnpickler(io.BytesIO(data), allowed).load()


def cache_file(root: Path, key: str) -> Path:
    return Path(root) / ".cache" / f"{PREFIX}{key}.pickle"


def _file_bytes(path: Path) -> bytes | None:
    """A cache file's bytes; None when there is none, CacheRefused when unreadable."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as e:
        raise CacheRefused(f"unreadable ({e.strerror})") from e


def _body(data: bytes, key: str, magic: bytes = MAGIC) -> bytes:
    """The verified body bytes of a cache file, or CacheRefused."""
    head, newline, body = data.partition(b"\n")
    fields = head.split(b" ")
    if not newline or len(fields) != 4 or fields[0] != magic:
        raise CacheRefused("not a cache file of this build (no valid header)")
    if fields[1] != FORMAT:
        raise CacheRefused(f"cache format {fields[1].decode(errors='replace')!r}, this "
                           f"build reads {FORMAT.decode()!r}")
    if fields[2] != key.encode():
        raise CacheRefused("written for other inputs or another version of the code")
    if hashlib.sha256(body).hexdigest().encode() != fields[3]:
        raise CacheRefused("its SHA-256 does not match (damaged or truncated)")
    return body


def read(root: Path, key: str, valid: Callable[[object], bool], allowed: tuple[str, ...] = ()):
    """The cached value for `key`, or None (no cache, or one refused with a line on
    stderr). `valid(value)` checks the value's shape after loading; `allowed`: module
    prefixes whose data classes may be built besides the registry's."""
    path = cache_file(root, key)
    try:
        data = _file_bytes(path)
        if data is None:
            return None
        value = restricted_loads(_body(data, key), allowed)
    except CacheRefused as e:
        return _refuse(path, root, str(e))
    except Exception as e:     # noqa: BLE001 - any failure to load means: build cold
        return _refuse(path, root, f"cannot be loaded ({type(e).__name__}: {e})")
    if not valid(value):
        return _refuse(path, root, "it does not hold the data stages' results")
    return value


def _refuse(path: Path, root: Path, why: str, then: str = "building cold") -> None:
    try:
        shown = path.relative_to(root).as_posix()
    except ValueError:
        shown = str(path)
    print(f"cache {shown} discarded: {why}; {then}", file=sys.stderr)
    return None


def write(root: Path, key: str, value, writes: "Writes | None" = None,
          keep: Iterable[str] = ()) -> None:
    """Store `value` for `key`, replacing any older data-stage cache but those of the
    keys in `keep` (the other stages' current ones). A cache that cannot be written is
    reported in one line; the build does not depend on it."""
    path = cache_file(root, key)
    kept = {cache_file(root, k).name for k in keep}
    (writes or Writes(root)).store(path, _framed(MAGIC, key, pickled(value)), stale=(
        p for p in path.parent.glob(f"{PREFIX}*.pickle") if p.name not in kept))


def _framed(magic: bytes, key: str, body: bytes) -> bytes:
    """A cache file's bytes: the header `_body` checks, then `body`."""
    return b" ".join((magic, FORMAT, key.encode(),
                      hashlib.sha256(body).hexdigest().encode())) + b"\n" + body


class Writes:
    """The cache files one build writes, each through the atomic writer (a temporary
    file beside it, flushed, renamed: no reader sees half a file; cit/atomic.py). The
    first write that fails (a full disk) is reported in one line, and the build writes
    no more of them: each would fail the same way, and the next build computes again
    whatever they would have held (docs/output.md, "Caches"). `enabled` False (--check)
    writes none."""

    def __init__(self, root: Path, enabled: bool = True):
        self.root, self.enabled = Path(root), enabled
        self.failed: OSError | None = None

    def store(self, path: Path, data: bytes, stale=()) -> bool:
        """Write `data` at `path` after deleting the `stale` files; False when nothing
        was written (a failure leaves no temporary file)."""
        if not self.enabled or self.failed is not None:
            return False
        try:
            path.parent.mkdir(exist_ok=True)
            for old in list(stale):
                old.unlink()
            atomic.write_file(path, data)
        except OSError as e:
            self.failed = e
            named = Path(e.filename) if e.filename else path
            try:
                named = named.relative_to(self.root)
            except ValueError:
                pass
            print(f"cache not written ({e.strerror}: {named.as_posix()}); this build "
                  "writes no more of .cache/, and the next one computes again what is "
                  "missing", file=sys.stderr)
            return False
        return True


def usable(root: Path) -> bool:
    """Whether `.cache` can hold the caches: absent or a folder. Anything else (a file
    in its place) is reported once, and the build runs cold without writing a cache."""
    folder = Path(root) / ".cache"
    if not os.path.lexists(folder) or (folder.is_dir() and not folder.is_symlink()):
        return True
    print(f"cache folder {folder.name} is not a folder; building cold, no cache written",
          file=sys.stderr)
    return False


# ---- plain JSON records under the same verified header (the incremental render's
# page records, cit/incremental.py): nothing in them is code, so no unpickler is needed

JSON_MAGIC = b"cit-json"


def json_file(root: Path, name: str) -> Path:
    return Path(root) / ".cache" / f"{name}.json"


def read_json(root: Path, name: str, key: str):
    """The JSON value stored as `name` for `key`, or None (none, or refused in a line)."""
    path = json_file(root, name)
    try:
        data = _file_bytes(path)
        if data is None:
            return None
        return json.loads(_body(data, key, JSON_MAGIC))
    except CacheRefused as e:
        if "other inputs" in str(e):
            return None     # an older site: expected after most edits, not worth a line
        return _refuse(path, root, str(e))
    except ValueError as e:
        return _refuse(path, root, f"cannot be loaded ({e})")


def write_json(root: Path, name: str, key: str, value, writes: Writes | None = None) -> None:
    """Store `value` as `name` for `key`; a failure is reported in one line."""
    body = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
    (writes or Writes(root)).store(json_file(root, name), _framed(JSON_MAGIC, key, body))


def json_memo(root: Path, store: bool = True, writes: Writes | None = None):
    """A memo for values made of JSON (a chart's figure): `memo(name, key, compute)`
    returns the value stored as `name` for `key` (verified like every cache file), else
    `compute()`, stored for the next build (unless `store` is False: --check) through
    the build's `writes`."""
    writes = writes or Writes(root, store)

    def memo(name: str, key: str, compute):
        value = read_json(root, name, key)
        if value is None:
            value = compute()
            write_json(root, name, key, value, writes)
        return value
    return memo


# ---- blobs: large texts (a page's HTML, numbers.json) in files named by their SHA-256,
# so the JSON records above stay small; a blob is used only when its bytes hash to its
# name, and is written once (docs/output.md, "Caches")

BLOB_PREFIX = "blob-"


def blob_file(root: Path, digest: str) -> Path:
    return Path(root) / ".cache" / f"{BLOB_PREFIX}{digest}"


def write_blob(root: Path, data: bytes, writes: Writes | None = None) -> str:
    """Store `data` (once) and return its SHA-256, the name to read it back by."""
    digest = hashlib.sha256(data).hexdigest()
    path = blob_file(root, digest)
    if not path.exists():
        (writes or Writes(root)).store(path, data)
    return digest


def read_blob(root: Path, digest: str) -> bytes | None:
    """The blob named `digest`; None when there is none, or (with a line) when its bytes
    do not hash to its name."""
    if not re.fullmatch(r"[0-9a-f]{64}", digest):
        return None      # not a name write_blob gives: never a path to follow
    path = blob_file(root, digest)
    try:
        data = _file_bytes(path)
    except CacheRefused as e:
        return _refuse(path, root, str(e))
    if data is None:
        return None
    if hashlib.sha256(data).hexdigest() != digest:
        with contextlib.suppress(OSError):
            path.unlink()       # so that the page's next write stores it afresh
        return _refuse(path, root, "its SHA-256 does not match its name (damaged)",
                       "it is made again")
    return data


def prune_blobs(root: Path, keep: set[str]) -> None:
    """Delete the blobs not in `keep` (those the records just written name)."""
    folder = Path(root) / ".cache"
    for path in folder.glob(f"{BLOB_PREFIX}*"):
        if path.name[len(BLOB_PREFIX):] not in keep:
            try:
                path.unlink()
            except OSError:
                pass
