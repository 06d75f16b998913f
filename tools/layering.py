"""Which modules of cit/ import which, and whether any lower stage imports a higher one.

    python tools/layering.py            the check; exit 1 on a violation
    python tools/layering.py --list     also every module's imports from the package

Stages, lowest first (docs/architecture.md, "Layers"). A module may import modules of
its own stage or a lower one, never a higher one. Every import counts, including those
inside functions (deferred imports still tie the modules together).
"""
import argparse
import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "cit"

LAYERS = (
    ("foundation", ("errors", "atomic", "yamlio", "fieldcheck", "htmlscan", "reads", "fmt",
                    "markup", "progress", "pipetable")),
    ("registry and vendoring", ("registry", "claims", "vendor", "plotlybundle")),
    ("reading the data", ("runs", "sweeplog", "tables", "resultsmd")),
    ("data stages", ("experiment", "experiment_claims", "sim", "benchfigures")),
    ("content", ("frontmatter", "glossary", "markdown", "claimrefs")),
    ("blocks", ("svgplot", "blocks")),
    ("render", ("assets", "incremental", "render")),
    ("checks and record", ("naked", "sentences", "links", "buildrecord", "search")),
    ("cache and output", ("cache", "output")),
    ("build", ("build", "serve", "numbersdiff", "__init__")),
)


def stage_of(module: str) -> int:
    """Layer index of a dotted module name under cit ("sim.des" -> the "sim" stage)."""
    top = module.split(".")[0]
    for k, (_, names) in enumerate(LAYERS):
        if top in names:
            return k
    raise KeyError(f"cit.{module} is in no stage of tools/layering.py's LAYERS")


def module_name(path: Path, package: Path = PACKAGE) -> str:
    rel = path.relative_to(package).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" and len(rel.parts) > 1 else rel.parts
    return ".".join(parts)


def package_imports(path: Path, package: Path = PACKAGE) -> set[str]:
    """Modules of cit that `path` imports (as names relative to cit)."""
    here = module_name(path, package).split(".")
    is_pkg = path.name == "__init__.py"
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name[4:] for a in node.names if a.name.startswith("cit.")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here if is_pkg else here[:-1]
                base = base[: len(base) - (node.level - 1)]
            elif node.module and node.module.startswith("cit."):
                base = []
            else:
                continue
            module = node.module[4:] if node.module and not node.level else node.module
            if module:
                found.add(".".join(base + [module]))
            else:   # `from . import x, y`: x and y are modules beside this one
                found |= {".".join(base + [a.name]) for a in node.names}
    return found


def check(package: Path = PACKAGE, list_all: bool = False) -> list[str]:
    """One line per import of a higher stage by a module of `package` (a cit/ folder)."""
    problems = []
    for path in sorted(package.rglob("*.py")):
        name = module_name(path, package) or "__init__"
        mine = stage_of(name)
        imports = sorted(package_imports(path, package))
        if list_all:
            print(f"cit.{name} [{LAYERS[mine][0]}]: " + (", ".join(imports) or "-"))
        for target in imports:
            theirs = stage_of(target)
            if theirs > mine:
                problems.append(f"cit.{name} ({LAYERS[mine][0]}) imports cit.{target} "
                                f"({LAYERS[theirs][0]}), a higher stage")
    return problems


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args(argv)
    problems = check(list_all=a.list)
    for p in problems:
        print(p)
    print(f"{len(problems)} imports of a higher stage")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
