"""`cit new DIR` (or `python -m cit new DIR`): start a study of your own, in a folder
of its own, from the example study (docs/tutorial.md).

Copies examples/toyopt (its site.yaml, content, data, its logs and their lock, the
script that wrote them, its data stage and its tests; not its expected output) and the
engine's templates into DIR, which must not exist or be empty. The study's package is
named after DIR (so DIR's last part must be a Python identifier, and not the name of a
module Python or the engine already has): two studies built in one process each run
their own code. DIR gets its own pyproject.toml (depending on the engine, with the
engine's test extra for its tests) and a .gitignore, so it can be a git repository of
its own, built, tested and diffed (`cit diff HEAD`) against its own history.

DIR is made whole or not at all: the copy is written into a hidden sibling folder and
renamed into place; a failure (a read-only or full disk) removes it, prints one line
and exits 1, so the same command can simply be run again.
"""

from __future__ import annotations

import argparse
import keyword
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

ENGINE_ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ENGINE_ROOT / "examples" / "toyopt"
EXAMPLE_PACKAGE = "toyopt"
ENGINE_DIST, ENGINE_VERSION = "cit-engine", "0.1.0"
SKIP = shutil.ignore_patterns("__pycache__", ".cache", ".pytest_cache", "expected", "site",
                              "*.egg-info")
# the example package's name where code or site.yaml refers to it as a module
MODULE_REF = re.compile(rf"(?<![\w/.-]){EXAMPLE_PACKAGE}(?=\.\w)")
IGNORED = """\
# what a build, a test run or an install makes (cit new wrote this file)
site/
.site-*/
.cache/
__pycache__/
.pytest_cache/
*.egg-info/
.venv/
"""


class NewStudyError(Exception):
    """Why the study was not made: one line."""


def package_name(target: Path) -> str:
    """The study's package: DIR's last part, checked to be a name Python can import."""
    name = Path(target).resolve().name
    if not name.isidentifier() or keyword.iskeyword(name):
        hint = re.sub(r"\W", "_", name)
        hint = hint if hint.isidentifier() and not keyword.iskeyword(hint) else "my_study"
        raise NewStudyError(f"{name!r} cannot name the study's Python package (its folder's "
                            f"name is the package's): use letters, digits and _, not "
                            f"first a digit, e.g. {hint}")
    if name in sys.stdlib_module_names or name in ("cit", "site", "study", "tests"):
        raise NewStudyError(f"{name!r} is the name of a module Python or the engine already "
                            "has; the study's package is named after its folder: choose "
                            "another name")
    return name


def pyproject(name: str) -> str:
    """The new study's pyproject.toml: its package, the engine, and pytest's settings."""
    return f'''# The study {name}, made by `cit new` (docs/tutorial.md). Install with the engine, from
# the engine's clone: python -m pip install -e 'ENGINE/engine[test]' -e .
[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "{name.replace('_', '-')}"
version = "0.1.0"
requires-python = ">=3.11"
# the engine; add what your own data stage imports (pinned)
dependencies = ["{ENGINE_DIST}=={ENGINE_VERSION}"]

[project.optional-dependencies]
test = ["{ENGINE_DIST}[test]=={ENGINE_VERSION}"]

[tool.setuptools]
packages = ["{name}"]

[tool.pytest.ini_options]
testpaths = ["tests"]
pythonpath = ["."]
'''


def _fill(tmp: Path, name: str, example: Path) -> None:
    """The study, written into `tmp`: the example's files with its package renamed."""
    shutil.copytree(example, tmp, ignore=SKIP, dirs_exist_ok=True)
    shutil.copytree(ENGINE_ROOT / "templates", tmp / "templates", ignore=SKIP)
    (tmp / EXAMPLE_PACKAGE).rename(tmp / name)
    (tmp / "tests" / f"test_{EXAMPLE_PACKAGE}_study.py").rename(
        tmp / "tests" / f"test_{name}_study.py")
    for path in sorted(tmp.rglob("*")):
        if path.suffix in (".py", ".yaml") and path.is_file():
            text = path.read_text(encoding="utf-8")
            renamed = MODULE_REF.sub(name, text)
            if path == tmp / "site.yaml":
                renamed = "".join(
                    "templates: templates  # the copied engine templates: yours to change\n"
                    if line.startswith("templates:") else line
                    for line in renamed.splitlines(True))
            if renamed != text:
                path.write_text(renamed, encoding="utf-8")
    (tmp / "pyproject.toml").write_text(pyproject(name), encoding="utf-8")
    (tmp / ".gitignore").write_text(IGNORED, encoding="utf-8")


def scaffold(target: Path, example: Path = EXAMPLE) -> Path:
    """Make the study at `target` (refused when it holds anything), whole or not at all;
    returns it. NewStudyError says why not."""
    target = Path(os.path.abspath(target))     # `..` folded, links kept
    name = package_name(target)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise NewStudyError(f"{target} exists and is not empty; give a new folder")
    if not example.is_dir():
        raise NewStudyError(f"the example study {example} is missing: install the engine "
                            "from its clone, editable (python -m pip install -e ENGINE/engine)")
    tmp = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.new-", dir=target.parent))
        _fill(tmp, name, example)
        os.chmod(tmp, 0o777 & ~_umask())
        if target.exists():
            target.rmdir()      # empty, checked above
        tmp.rename(target)
    except OSError as e:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        raise NewStudyError(f"cannot write {e.filename or target} ({e.strerror}); nothing "
                            "was left behind, run the command again once it can be "
                            "written") from None
    return target


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def next_steps(target: Path) -> str:
    """What to run next, as commands that work from any folder (they are tested)."""
    shown = os.path.relpath(target) if target.is_relative_to(Path.cwd()) else str(target)
    engine = ENGINE_ROOT / "engine"
    return "\n".join([
        f"a new study in {shown} (its package: {target.name}). Next, in a virtual environment:",
        f"  cd {shown}",
        f"  python -m pip install -e '{engine}[test]' -e .",
        "  cit build             # the site, into site/",
        "  python -m pytest      # the study's own tests",
        "  git init -q && git add -A && git commit -qm 'A new study'   # then: cit diff HEAD",
        f"{ENGINE_ROOT / 'docs' / 'tutorial.md'} goes on from here; "
        f"{ENGINE_ROOT / 'docs' / 'site-config.md'} says what site.yaml declares"])


def main(argv=None, prog: str = "python -m cit") -> int:
    ap = argparse.ArgumentParser(prog=prog, description="The engine's commands.")
    sub = ap.add_subparsers(dest="command", required=True)
    new = sub.add_parser("new", help="start a study of your own from the example")
    new.add_argument("dir", help="the new study's folder (must not exist, or be empty); its "
                     "name names the study's Python package")
    a = ap.parse_args(argv)
    try:
        target = scaffold(Path(a.dir))
    except NewStudyError as e:
        print(f"cit new: {e}", file=sys.stderr)
        return 1
    print(next_steps(target))
    return 0


if __name__ == "__main__":
    sys.exit(main())
