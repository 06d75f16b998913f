"""The output folder: what the build may replace, and the atomic swap that replaces it.

The build's mark on a folder is its `numbers.json` with a `build` block (the commit and
commit date of the build that wrote it), written into every output folder. An existing
`--out` is replaced only when it carries that mark; anything else (a folder of the
user's, the project's own `content/`, a file) is refused with a one-line error naming
the path, and nothing is moved or deleted. See docs/output.md.

Folders and files are created with the mode the user's umask allows (0755 and 0644
under umask 022): no temporary-folder call that forces 0700.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import secrets
import shutil
import signal
import stat
from dataclasses import dataclass
from pathlib import Path

from . import atomic
from .errors import BuildError

MARK_FILE = "numbers.json"


MARK_PREFIX = 65536     # bytes read for the mark: the build block, not the whole file


def made_by_build(folder: Path) -> bool:
    """Does `folder` carry the build's mark: a numbers.json whose first key (the file's
    keys are sorted) is a `build` block with the commit and commit date? Only that block
    is read and parsed: the whole file is over a megabyte, and this check runs up to
    three times a build (docs/output.md)."""
    try:
        with open(folder / MARK_FILE, "rb") as f:
            head = f.read(MARK_PREFIX).decode("utf-8", errors="replace")
        m = re.match(r'\{\s*"build"\s*:\s*', head)
        build = json.JSONDecoder().raw_decode(head, m.end())[0] if m else None
    except (OSError, ValueError):
        return False
    return (isinstance(build, dict) and isinstance(build.get("commit"), str)
            and isinstance(build.get("commit_date"), str))


def check_target(out: Path, project: Path | None = None, inputs=()) -> Path:
    """Refuse an output path the build must not write; returns it resolved.

    Allowed: a path that does not exist yet, in an existing folder; or a folder a
    previous build made. Refused, with nothing touched: a file, a folder without the
    build's mark, a missing parent or a parent that is not a folder, a symlink loop, a
    folder that holds the `project`, and a folder that holds one of the `inputs` (what
    the build reads: the project's inputs, the upstream mirror) or lies inside one."""
    shown = str(out)
    try:
        out = Path(os.path.realpath(os.path.abspath(out), strict=False))
        if os.path.islink(out):
            out.resolve(strict=True)        # a loop realpath left unresolved
    except (OSError, RuntimeError):
        raise BuildError(f"--out {shown}", "is a symlink loop (or a symlink that cannot "
                         "be followed); nothing was changed") from None
    _refuse_inputs(out, shown, project, inputs)
    parent = out.parent
    if out == parent:
        raise BuildError(f"--out {shown}", "the file system root is never an output folder")
    if not parent.exists():
        raise BuildError(f"--out {shown}", f"its parent folder {parent} does not exist")
    if not parent.is_dir():
        raise BuildError(f"--out {shown}", f"its parent {parent} is not a folder")
    if out.exists() or out.is_symlink():
        if not out.is_dir():
            raise BuildError(f"--out {shown}", "is an existing file, not a folder this "
                             "build made; refusing to replace it (nothing was changed)")
        if not made_by_build(out):
            raise BuildError(f"--out {shown}", f"is an existing folder without the build's "
                             f"{MARK_FILE}; refusing to replace what this build did not make "
                             "(nothing was changed; choose a new path or remove it yourself)")
    return out


def _refuse_inputs(out: Path, shown: str, project: Path | None, inputs) -> None:
    """BuildError when `out` holds the project or an input, or lies inside an input
    (docs/output.md: a build that replaced such a folder would delete what it reads, or
    publish its own output inside the next site)."""
    def real(p: Path) -> Path:
        return Path(os.path.realpath(p))
    if project is not None and real(project).is_relative_to(out):
        raise BuildError(f"--out {shown}", f"holds the project ({real(project)}); refusing "
                         "to write there (nothing was changed; choose a folder outside it)")
    for p in inputs:
        r = real(p)
        named = _named(r, project)
        if r == out:
            raise BuildError(f"--out {shown}", f"is {named}, which the build reads; "
                             "refusing to replace it (nothing was changed)")
        if r.is_relative_to(out):
            raise BuildError(f"--out {shown}", f"holds {named}, which the build reads; "
                             "refusing to write there (nothing was changed)")
        if out.is_relative_to(r):
            raise BuildError(f"--out {shown}", f"is inside {named}, which the build reads; "
                             "refusing to write there (nothing was changed; choose a folder "
                             "outside the build's inputs)")


def _named(p: Path, project: Path | None) -> str:
    """An input as a message names it: relative to the project when inside it."""
    real = Path(os.path.realpath(project)) if project is not None else None
    if real is not None and p.is_relative_to(real):
        return p.relative_to(real).as_posix() + ("/" if p.is_dir() else "")
    return str(p)


LEFTOVER = r"\.{name}-(?:new|old)-(\d+)-[0-9a-f]+"    # atomic.sweep's pattern for `out`
ASIDE = r"\.{name}-old-(\d+)-[0-9a-f]+"      # where atomic.exchange's fallback moves `out`


def recover(out: Path) -> str | None:
    """Put back the previous output a killed build left aside, then remove what killed
    builds left beside `out`. Where the system has no exchange, the swap is two renames
    (atomic.exchange): a build killed between them leaves no `out`, the previous output
    under `.NAME-old-PID-HEX`. A later build restores it before anything else, so that a
    build which then fails leaves it in place (docs/output.md). Returns the name put
    back, or None. `out` is a path check_target accepted."""
    rx = re.compile(ASIDE.format(name=re.escape(out.name)))
    restored = None
    if not os.path.lexists(out):
        try:
            names = os.listdir(out.parent)
        except OSError:
            names = []
        aside = [out.parent / n for n in names if (m := rx.fullmatch(n))
                 and not atomic.pid_alive(int(m.group(1)))]
        aside = [p for p in aside if p.is_dir() and not p.is_symlink() and made_by_build(p)]
        if aside:
            newest = max(aside, key=lambda p: p.stat().st_mtime_ns)
            try:
                atomic.place(newest, out)
            except OSError:
                return None     # left as it is, and nothing swept: never lose it
            restored = newest.name
    atomic.sweep(out.parent, LEFTOVER.format(name=re.escape(out.name)))
    return restored


def _new_folder(parent: Path, prefix: str) -> Path:
    """A fresh, uniquely named folder in `parent`, its mode left to the umask."""
    for _ in range(100):
        p = parent / f"{prefix}{os.getpid()}-{secrets.token_hex(4)}"
        try:
            p.mkdir()
            return p
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(parent))


@dataclass
class Staged:
    """A new output written and flushed beside its target, not yet in place."""
    tmp: Path
    out: Path
    shown: str
    project: Path | None
    inputs: tuple


def stage_site(files: dict[str, bytes], out: Path, project: Path | None = None,
               inputs=()) -> Staged:
    """Check `out`, remove what killed builds left beside it, and write `files` into a
    new hidden folder there, flushed to disk. The caller then calls `commit` (with the
    signals held: `signals_held`) or `discard`. On a failure here the folder is removed
    and the previous output is untouched."""
    shown = str(out)
    out = check_target(out, project, inputs)
    recover(out)
    try:
        tmp = _new_folder(out.parent, f".{out.name}-new-")
    except OSError as e:
        raise BuildError(f"--out {shown}", f"cannot create a folder in {out.parent} "
                         f"({e.strerror})") from None
    staged = Staged(tmp, out, shown, project, tuple(inputs))
    try:
        mode = tmp.stat().st_mode & 0o666       # a new file's under the umask
        written = []        # what a sync must make durable: not the files linked
        for rel, data in sorted(files.items()):
            p = tmp / rel
            try:
                p.parent.mkdir(parents=True, exist_ok=True)
                if not _linked(out / rel, p, data, mode):
                    p.write_bytes(data)
                    written.append(p)
            except OSError as e:    # named as the user will look for it, in --out
                raise OSError(e.errno, e.strerror, str(out / rel)) from None
        atomic.flush_written(tmp, written)
    except BaseException as e:
        discard(staged)
        if isinstance(e, OSError):
            raise BuildError(f"--out {shown}", f"writing the site failed ({_why(e)}); the "
                             "previous output is untouched") from None
        raise
    return staged


def _linked(old: Path, new: Path, data: bytes, mode: int) -> bool:
    """Hard-link `new` to the previous output's `old` when what is linked is a regular
    file with exactly `data` as its bytes and `mode` as its mode, linked nowhere else;
    False (and nothing left at `new`) otherwise, or where the file system refuses links.
    A file the rebuild did not change is not written again (docs/output.md). What is
    checked is the file linked, after linking (the same inode whatever happens to `old`
    meanwhile); `old` must be its own real path (no link on the way out of the folder)."""
    try:
        if os.path.realpath(old) != str(old):
            return False
        os.link(old, new, follow_symlinks=False)
    except OSError:
        return False
    try:
        st = os.lstat(new)
        if (stat.S_ISREG(st.st_mode) and st.st_nlink == 2 and st.st_size == len(data)
                and st.st_mode & 0o777 == mode and new.read_bytes() == data):
            return True
    except OSError:
        pass
    new.unlink()
    return False


def _why(e: OSError) -> str:
    return e.strerror + (f": {e.filename}" if e.filename else "")


def commit(staged: Staged) -> None:
    """Put the staged folder at its target in one step: exchanged with a marked previous
    output (checked again, in case it changed), or renamed to a free path; then the
    previous output, now in the hidden folder, is deleted."""
    try:
        for _ in range(5):
            if os.path.lexists(staged.out):
                check_target(staged.out, staged.project, staged.inputs)
                atomic.exchange(staged.tmp, staged.out)
                return
            try:
                atomic.place(staged.tmp, staged.out)
                return
            except FileExistsError:
                continue    # a concurrent build put its site there meanwhile
        raise BuildError(f"--out {staged.shown}", "another build kept replacing this folder; "
                         "try again")
    except OSError as e:
        raise BuildError(f"--out {staged.shown}", f"writing the site failed ({_why(e)}); "
                         "the previous output is untouched") from None
    finally:
        discard(staged)


def discard(staged: Staged) -> None:
    """Remove the hidden folder: the unused new output, or the replaced previous one."""
    if os.path.lexists(staged.tmp):
        shutil.rmtree(staged.tmp, ignore_errors=True)


@contextlib.contextmanager
def signals_held():
    """Ctrl-C and SIGTERM wait while the block runs (the swap and its flag), and are
    delivered when it ends; outside the main thread, or where signals cannot be held,
    the block runs as it is."""
    held = {signal.SIGINT, signal.SIGTERM}
    try:
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    except (AttributeError, ValueError, OSError):
        yield
        return
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def write_site(files: dict[str, bytes], out: Path, project: Path | None = None,
               inputs=()) -> None:
    """Write `files` into a sibling temporary folder, then swap it in. On any failure
    the previous output is untouched and the temporary folder is removed."""
    staged = stage_site(files, out, project, inputs)
    with signals_held():
        commit(staged)
