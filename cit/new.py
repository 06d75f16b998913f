"""`python -m cit new DIR`: start a study of your own from the example study.

Copies examples/toyopt (its site.yaml, content, data, its logs and their lock, the
script that wrote them, its data stage and its test; not its expected output) and the
engine's templates into DIR, which must not exist or be empty, and points site.yaml at
the copied templates. The result builds at once (`python build.py --root DIR`) and
passes its own test (`python -m pytest DIR/tests`); docs/site-config.md says what to
change next.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

ENGINE_ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ENGINE_ROOT / "examples" / "toyopt"
SKIP = shutil.ignore_patterns("__pycache__", ".cache", ".pytest_cache", "expected", "site")


def scaffold(target: Path, example: Path = EXAMPLE) -> Path:
    """Copy the example into `target` (refused when it holds anything); returns it."""
    target = Path(target)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise SystemExit(f"cit new: {target} exists and is not empty; give a new folder")
    shutil.copytree(example, target, ignore=SKIP, dirs_exist_ok=True)
    shutil.copytree(ENGINE_ROOT / "templates", target / "templates", ignore=SKIP)
    site = target / "site.yaml"
    lines = [("templates: templates  # the copied engine templates: yours to change\n"
              if line.startswith("templates:") else line)
             for line in site.read_text(encoding="utf-8").splitlines(True)]
    site.write_text("".join(lines), encoding="utf-8")
    return target


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m cit", description="The engine's commands.")
    sub = ap.add_subparsers(dest="command", required=True)
    new = sub.add_parser("new", help="start a study of your own from the example")
    new.add_argument("dir", help="the new study's folder (must not exist, or be empty)")
    a = ap.parse_args(argv)
    target = scaffold(Path(a.dir))
    print(f"a new study in {target}: build it with `python build.py --root {target}`, "
          f"test it with `python -m pytest {target}/tests`; docs/site-config.md says what "
          "each part declares")
    return 0


if __name__ == "__main__":
    sys.exit(main())
