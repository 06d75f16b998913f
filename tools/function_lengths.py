"""List the longest functions in cit/ (lines from `def` to the last line of the body).

    python tools/function_lengths.py [--top N] [--limit 80] [paths...]

Exit status 1 when a function outside templates is longer than --limit lines and
--strict is given; the listing itself is always printed, longest first.
"""
import argparse
import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def function_lengths(paths):
    """Yield (lines, 'file:line', qualified name) for every def in the given files."""
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        yield from _walk(tree, path, "")


def _walk(node, path, prefix):
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = f"{prefix}{child.name}"
            if not isinstance(child, ast.ClassDef):
                first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                length = child.end_lineno - first + 1
                rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
                yield length, f"{rel}:{child.lineno}", name
            yield from _walk(child, path, name + ".")
        else:
            yield from _walk(child, path, prefix)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", type=Path)
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("--limit", type=int, default=80)
    ap.add_argument("--strict", action="store_true")
    a = ap.parse_args(argv)
    paths = a.paths or sorted((ROOT / "cit").rglob("*.py"))
    rows = sorted(function_lengths(paths), reverse=True)
    for length, where, name in rows[: a.top]:
        print(f"{length:5d}  {where}  {name}")
    over = [r for r in rows if r[0] > a.limit]
    print(f"{len(rows)} functions; {len(over)} over {a.limit} lines")
    return 1 if (a.strict and over) else 0


if __name__ == "__main__":
    sys.exit(main())
