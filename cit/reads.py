"""Every file the build reads is opened here (docs/output.md, "What the build reads").

`Reads(root)` opens the files of the project at `root`, and nothing else:

- a path that resolves outside the project (a symlink to /etc/passwd, `../x`) is
  refused, naming the path inside the project and where it leads;
- anything but a regular file (a folder, a FIFO, a device) is refused; a FIFO is opened
  without blocking, so it cannot hang the build;
- text is UTF-8, decoded here whatever the locale: a bad byte is reported as
  `path:line: not UTF-8 (byte 0xe9 at column 3)`.

Every read is recorded: a file's path and the SHA-256 of its bytes (or that it is
missing), a listing's folder and pattern and the names it found. `scope()` collects
the reads made inside it, so a cache can be keyed by what a computation actually read
(`unchanged(recorded)` says whether those files and listings are still as recorded)
rather than by inputs listed by hand (cit/cache.py, cit/incremental.py).
"""

from __future__ import annotations

import contextlib
import fnmatch
import hashlib
import io
import os
import stat
from pathlib import Path
from typing import Iterator, Mapping

from .errors import BuildError

MISSING = "missing"


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _signature(file: str | int) -> tuple | None:
    """What says a file (a path, links followed, or a descriptor) is as it was when read:
    its size, modification time, device and inode; None when there is none."""
    try:
        st = os.stat(file)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns, st.st_dev, st.st_ino


def _size(source) -> int:
    return (len(source.getbuffer()) if isinstance(source, io.BytesIO)
            else os.fstat(source.fileno()).st_size)


def _utf8_line(raw: bytes, where: str, n: int) -> str:
    """Line `n` of a file decoded (utf8's message, at that line)."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BuildError(f"{where}:{n}", f"not UTF-8 (byte 0x{raw[e.start]:02x} at column "
                         f"{e.start + 1}); save the file as UTF-8") from None


def utf8(data: bytes, where: str) -> str:
    """`data` decoded as UTF-8; a bad byte is a BuildError naming `where`'s line and
    column (a leading byte-order mark is dropped)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        column = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise BuildError(f"{where}:{line}", f"not UTF-8 (byte 0x{data[e.start]:02x} at "
                         f"column {column}); save the file as UTF-8") from None
    return text[1:] if text.startswith("\ufeff") else text


class Reads:
    """The project's files, read and recorded (see the module docstring)."""

    def __init__(self, root: Path, *more: Path, only: tuple[Path, ...] = ()):
        """Files of the project at `root` (and of the folders `more`: a test renders its
        own content with the project's templates). `only`, when given: the folders a
        read may land in, when that is less than the bases (the engine's templates
        folder, named from its parent: docs/output.md, "What the build reads")."""
        self.root = Path(root).resolve()
        self._made_with = (root, more, only)
        # each place a path may name (paths may be built on the unresolved root too)
        self._bases = [(Path(os.path.abspath(r)), Path(r).resolve()) for r in (root, *more)]
        self._fences = [Path(f).resolve() for f in only] or [r for _, r in self._bases]
        self._scopes: list[dict[str, str]] = []       # the scopes open, outermost first
        self._private = 0                             # private scopes open
        self._shared: dict[str, str] = {}             # reads outside private scopes
        self._known: dict[str, str] = {}              # entry -> its value in this build
        self._given: dict[str, bytes] = {}            # files held in memory (`give`)
        # path -> (name, bytes, digest, stat signature) of each file read whole: what a
        # `fork` may give again while the file's signature is unchanged
        self.held: dict[str, tuple] = {}
        self._kept: Mapping[str, tuple] = {}

    # ---- names

    def rel(self, path: Path | str) -> str:
        """The path relative to the project as the build names it (no link followed)."""
        p = Path(path)
        p = Path(os.path.normpath(p if p.is_absolute() else self.root / p))
        for given, real in self._bases:
            for base in (real, given):
                if p == base or base in p.parents:
                    return p.relative_to(base).as_posix()
        raise BuildError(str(path), "outside the project; the build reads only the "
                         "project's own files")

    def _base(self, path: Path | str) -> Path:
        """The resolved place `path` lies in."""
        p = Path(path)
        p = Path(os.path.normpath(p if p.is_absolute() else self.root / p))
        return next(real for given, real in self._bases
                    if any(p == b or b in p.parents for b in (real, given)))

    def _inside(self, path: Path | str) -> tuple[str, Path]:
        """(name, resolved path), refusing a path that leads outside the project."""
        rel = self.rel(path)
        base = self._base(path)
        real = Path(os.path.realpath(base / rel))
        if not any(real == r or r in real.parents for r in self._fences):
            raise BuildError(rel, f"a link to {real}, outside the project; the build "
                             "reads only the project's own files")
        return rel, real

    # ---- recording

    def _note(self, entry: str, value: str) -> None:
        self._known[entry] = value
        for scope in self._scopes:
            scope[entry] = value
        if not self._private:
            self._shared[entry] = value

    @contextlib.contextmanager
    def scope(self, private: bool = False) -> Iterator[dict[str, str]]:
        """Collect the reads made inside the block (they are recorded outside it too;
        those of a `private` scope, one page's own, are left out of `shared()`)."""
        got: dict[str, str] = {}
        self._scopes.append(got)
        self._private += private
        try:
            yield got
        finally:
            self._private -= private
            self._scopes.remove(got)

    def fork(self, recorded: Mapping[str, str], held: Mapping[str, tuple] = {}) -> "Reads":
        """A new Reads of the same places that holds `recorded` (entries another build
        read, known to be unchanged: --serve's data part, cit/build.py) as read in it,
        and gives the files of `held` (an earlier Reads' `held`) from memory as long as
        each one's size, modification time and inode are as they were."""
        root, more, only = self._made_with
        new = Reads(root, *more, only=only)
        for entry, value in recorded.items():
            new._note(entry, value)
        new._kept = held
        return new

    def shared(self) -> dict[str, str]:
        """The reads of this build made outside any private scope."""
        return dict(self._shared)

    def unchanged(self, recorded: Mapping[str, str]) -> bool:
        """Whether every recorded read gives what it gave then (files re-hashed once per
        build, listings made again). The reads are recorded anew."""
        for entry, value in recorded.items():
            kind, _, name = entry.partition(":")
            if kind == "f":
                now = self._file_digest(name)
            elif kind == "g":
                folder, _, pattern = name.partition("|")
                now = self._listing_digest(folder, pattern)
            else:
                return False
            if now != value:
                return False
        return True

    def _file_digest(self, rel: str) -> str:
        known = self._known.get("f:" + rel)
        if known is not None:
            return known
        data = self.maybe_bytes(rel)
        return MISSING if data is None else _digest(data)

    def _listing_digest(self, folder: str, pattern: str) -> str:
        known = self._known.get(f"g:{folder}|{pattern}")
        if known is not None:
            return known
        self.glob(folder, pattern)
        return self._known[f"g:{folder}|{pattern}"]

    # ---- reading

    def give(self, path: Path | str, data: bytes) -> None:
        """Hold `data` as the file at `path` for this build, without writing it: it is
        read and listed as if it were there (`--check` verifies the upstream files it
        fetches this way, leaving vendored/ as it was)."""
        self._given[self._inside(path)[0]] = data

    def maybe_bytes(self, path: Path | str) -> bytes | None:
        """The file's bytes, or None when there is no file there (recorded as missing)."""
        key = os.path.normpath(os.path.join(self.root, path))
        kept = self.held.get(key) or self._kept.get(key)
        if kept is not None and kept[3] == _signature(key):
            self._note("f:" + kept[0], kept[2])
            self.held[key] = kept
            return kept[1]
        rel, real = self._inside(path)
        if rel in self._given:
            self._note("f:" + rel, _digest(self._given[rel]))
            return self._given[rel]
        try:
            fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        except FileNotFoundError:
            self._note("f:" + rel, MISSING)
            return None
        except OSError as e:
            raise BuildError(rel, f"cannot be read ({e.strerror})") from None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise BuildError(rel, "not a regular file (a folder, a FIFO or a device); "
                                 "the build reads only files here")
            signature = _signature(fd)       # before reading: a write meanwhile shows
            with os.fdopen(fd, "rb", closefd=False) as f:
                data = f.read()
        except OSError as e:
            raise BuildError(rel, f"cannot be read ({e.strerror})") from None
        finally:
            os.close(fd)
        self._note("f:" + rel, _digest(data))
        self.held[key] = (rel, data, self._known["f:" + rel], signature)
        return data

    def lines(self, path: Path | str, max_bytes: int | None = None,
              what: str = "file") -> Iterator[tuple[int, str, bool]]:
        """(line number, text without its newline, whether it ended in one) of each
        line of the file, decoded as
        UTF-8, read as it is used (a log is never held whole: docs/faults.md, N20) and
        recorded, like a whole read, once the last line is given. A file over
        `max_bytes` is refused before it is read; a missing one is a BuildError (named
        as `rel` names it, like every other read's errors)."""
        rel, real = self._inside(path)
        if rel in self._given:
            source, fd = io.BytesIO(self._given[rel]), None
        else:
            fd = self._open_file(rel, real)
            source = os.fdopen(fd, "rb", closefd=True)
        with source:
            if max_bytes is not None and _size(source) > max_bytes:
                raise BuildError(rel, f"{_size(source):,} bytes, over the {max_bytes:,} a "
                                 f"{what} may hold (docs/faults.md)")
            h = hashlib.sha256()
            for n, raw in enumerate(source, 1):
                h.update(raw)
                text = utf8(raw, rel) if n == 1 else _utf8_line(raw, rel, n)
                ended = text.endswith("\n")
                yield n, text[:-1] if ended else text, ended
        self._note("f:" + rel, h.hexdigest())

    def _open_file(self, rel: str, real: Path) -> int:
        """A descriptor on the regular file `real` (named `rel`), opened without
        blocking; BuildError when it is missing or not a file."""
        try:
            fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        except FileNotFoundError:
            raise BuildError(rel, "missing") from None
        except OSError as e:
            raise BuildError(rel, f"cannot be read ({e.strerror})") from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise BuildError(rel, "not a regular file (a folder, a FIFO or a device); "
                             "the build reads only files here")
        return fd

    def bytes(self, path: Path | str) -> bytes:
        data = self.maybe_bytes(path)
        if data is None:
            raise BuildError(self.rel(path), "missing")
        return data

    def maybe_text(self, path: Path | str) -> str | None:
        data = self.maybe_bytes(path)
        return None if data is None else utf8(data, self.rel(path))

    def text(self, path: Path | str) -> str:
        """The file as UTF-8 text (a bad byte: BuildError naming its line)."""
        return utf8(self.bytes(path), self.rel(path))

    def glob(self, folder: Path | str, pattern: str) -> list[Path]:
        """The entries of `folder` matching `pattern` (pathlib's glob; `**/*` for a
        tree), sorted, the folder's own links not followed out of the project; [] when
        the folder does not exist. The names found are recorded."""
        rel, real = self._inside(folder)
        base = self._base(folder) / rel
        found = sorted(base.glob(pattern)) if real.is_dir() else []
        names = [p.relative_to(base).as_posix() for p in found]
        prefix = "" if rel == "." else rel + "/"
        given = [g[len(prefix):] for g in self._given if g.startswith(prefix)]
        extra = sorted(n for n in given if n not in names and (
            pattern == "**/*" or ("/" not in n and fnmatch.fnmatchcase(n, pattern))))
        if extra:     # files held in memory (`give`), listed as if they were there
            found = sorted(found + [base / n for n in extra])
            names = [p.relative_to(base).as_posix() for p in found]
        self._note(f"g:{rel}|{pattern}", _digest("\0".join(names).encode()))
        return found

    def tree(self, folder: Path | str) -> list[Path]:
        """Every entry under `folder` but its subfolders, sorted (recorded as a
        listing); a link in it that leads out of the project is refused."""
        found = []
        for p in self.glob(folder, "**/*"):
            self._inside(p)
            if not (p.is_dir() and not p.is_symlink()):
                found.append(p)
        return found

    @classmethod
    def beside(cls, path: Path | str) -> "Reads":
        """Reads confined to the folder holding `path` (for a tool reading one file)."""
        return cls(Path(path).absolute().parent)
