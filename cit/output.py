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

import errno
import json
import os
import re
import secrets
import shutil
from pathlib import Path

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


def check_target(out: Path) -> Path:
    """Refuse an output path the build must not write; returns it resolved.

    Allowed: a path that does not exist yet, in an existing folder; or a folder a
    previous build made. Refused, with nothing touched: a file, a folder without the
    build's mark, a missing parent or a parent that is not a folder."""
    shown = str(out)
    out = Path(os.path.abspath(out))
    if out.is_symlink():
        out = out.resolve()
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


def _swap(tmp: Path, out: Path, shown: str) -> None:
    """Put `tmp` at `out`; a marked previous output is moved aside, then deleted once the
    new one is in place (or moved back if it could not be)."""
    for _ in range(5):
        old = None
        if out.exists():
            check_target(out)   # it may have changed since the first check
            old = out.parent / f".{out.name}-old-{os.getpid()}-{secrets.token_hex(4)}"
            out.rename(old)
        try:
            tmp.rename(out)
        except OSError as e:
            if old is not None and not out.exists():
                old.rename(out)
                old = None
            # a concurrent build put its own site at `out` between our two renames
            if e.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                raise
            continue
        finally:
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
        return
    raise BuildError(f"--out {shown}", "another build kept replacing this folder; try again")


def write_site(files: dict[str, bytes], out: Path) -> None:
    """Write `files` into a sibling temporary folder, then swap it in. On any failure
    the previous output is untouched and the temporary folder is removed."""
    shown = str(out)
    out = check_target(out)
    try:
        tmp = _new_folder(out.parent, f".{out.name}-new-")
    except OSError as e:
        raise BuildError(f"--out {shown}", f"cannot create a folder in {out.parent} "
                         f"({e.strerror})") from None
    try:
        for rel, data in sorted(files.items()):
            p = tmp / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
        _swap(tmp, out, shown)
    except OSError as e:
        raise BuildError(f"--out {shown}", f"writing the site failed ({e.strerror}: "
                         f"{e.filename}); the previous output is untouched") from None
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
