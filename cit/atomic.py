"""Every file and folder we own is replaced in one step (docs/output.md, "Writing").

    write_file(path, data)       a file: a temporary file beside it, fsync, rename
    exchange(new, old)           two folders swap names in one system call
    sweep(folder, pattern)       leftovers of killed writers removed at the next start

A reader (or a web server) sees the old bytes or the new ones, never a truncated file
and never a missing folder; a kill, a full disk or Ctrl-C at any moment leaves the old
file or folder as it was. Temporary names carry the writer's process id
(`.NAME.PID-HEX.part` for a file), so a later writer can tell a dead writer's leftover
from a live one's.
"""

from __future__ import annotations

import ctypes
import errno
import os
import re
import secrets
import shutil
import sys
from pathlib import Path

PART = ".part"
AT_FDCWD = -100
RENAME_NOREPLACE, RENAME_EXCHANGE = 1, 2


def part_name(path: Path) -> Path:
    """A fresh temporary name beside `path`, carrying this process's id."""
    return path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}{PART}")


def write_file(path: Path, data: bytes | str) -> None:
    """Replace `path` by `data` (str is written as UTF-8): a temporary file in the same
    folder is written, flushed to disk and renamed over `path`, and the folder flushed.
    A file that existed keeps its mode; a new one gets the umask's. On any failure the
    temporary file is removed and `path` is as it was; the OSError is raised."""
    path = Path(path)
    if isinstance(data, str):
        data = data.encode("utf-8")
    sweep(path.parent, rf"\.{re.escape(path.name)}\.(\d+)-[0-9a-f]+{re.escape(PART)}")
    tmp = part_name(path)
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
    except OSError as e:
        raise OSError(e.errno, e.strerror, str(path)) from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        _keep_mode(path, tmp)
        os.replace(tmp, path)
    except BaseException as e:
        tmp.unlink(missing_ok=True)
        if isinstance(e, OSError):     # named by the file meant, not the temporary one
            raise OSError(e.errno, e.strerror, str(path)) from None
        raise
    fsync_folder(path.parent)


def _keep_mode(path: Path, tmp: Path) -> None:
    try:
        os.chmod(tmp, os.stat(path).st_mode & 0o7777)
    except FileNotFoundError:
        pass


def fsync_folder(folder: Path) -> None:
    """Flush a folder's entries (a rename in it) to disk, where the system allows."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def flush_written(folder: Path, written) -> None:
    """Make durable what a build wrote under `folder` (a new tree, before it is swapped
    in): the bytes of the files in `written` and every folder's entries. A file
    hard-linked from the previous output needs no sync of its bytes: they were made
    durable when that output was. One syncfs(2) of the file system where Linux offers it
    (one journal commit: 1 to 4 ms against 10 to 170 ms for a sync per written file and
    folder, docs/output.md "Writing"), else one fsync per written file and folder. An
    OSError (a disk that failed to take the bytes) is raised."""
    if _syncfs(folder):
        return
    for path in written:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    for dirpath, _, _ in os.walk(folder):
        fsync_folder(Path(dirpath))


def _syncfs(folder: Path) -> bool:
    """syncfs(2) of the file system holding `folder` through the C library; False where
    it is not offered, OSError when the system reports a write that failed."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        fn = ctypes.CDLL(None, use_errno=True).syncfs
    except (AttributeError, OSError):
        return False
    fn.argtypes = [ctypes.c_int]
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        if fn(fd) == 0:
            return True
        err = ctypes.get_errno()
    finally:
        os.close(fd)
    if err == errno.ENOSYS:
        return False
    raise OSError(err, os.strerror(err), str(folder))


def _renameat2(src: Path, dst: Path, flags: int) -> bool:
    """renameat2(2) through the C library; False where it is not offered (not Linux, an
    old C library, or a file system without the flag), OSError on a real failure."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        fn = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if fn(AT_FDCWD, os.fsencode(src), AT_FDCWD, os.fsencode(dst), flags) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), str(dst))


def exchange(new: Path, old: Path) -> None:
    """Swap the names of two existing folders in one step: afterwards `old` holds what
    `new` held and `new` holds the previous `old`. Where the system offers no exchange,
    two renames (a moment with no `old`; docs/output.md says where)."""
    if _renameat2(new, old, RENAME_EXCHANGE):
        return
    aside = old.with_name(f".{old.name}-old-{os.getpid()}-{secrets.token_hex(4)}")
    os.rename(old, aside)
    try:
        os.rename(new, old)
    except OSError:
        os.rename(aside, old)
        raise
    os.rename(aside, new)


def place(new: Path, target: Path) -> None:
    """Rename `new` to `target`, which must not exist (a concurrent writer may have made
    it meanwhile: then FileExistsError, and nothing moved)."""
    if _renameat2(new, target, RENAME_NOREPLACE):
        return
    if os.path.lexists(target):
        raise FileExistsError(errno.EEXIST, "exists", str(target))
    os.rename(new, target)


def pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep(folder: Path, pattern: str) -> list[str]:
    """Remove the entries of `folder` whose whole name matches `pattern` (its first group
    a process id) when that process is gone: what a killed writer left. Returns their
    names. Symlinks are removed as links, never followed."""
    rx = re.compile(pattern)
    gone = []
    try:
        names = os.listdir(folder)
    except OSError:
        return gone
    for name in names:
        m = rx.fullmatch(name)
        if not m or pid_alive(int(m.group(1))):
            continue
        p = Path(folder) / name
        try:
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p)
            else:
                p.unlink()
            gone.append(name)
        except OSError:
            pass
    return gone
