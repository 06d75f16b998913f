"""The import contracts of .importlinter (import-linter, every import counted, those
inside functions too): the engine never imports the study, its layers keep their order,
and no two sibling modules import each other; and no function is longer than a screen."""

import configparser
import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT = [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
        "sys.exit(lint_imports_command())", "--no-cache"]


def _lint(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run(LINT, cwd=root, capture_output=True, text=True,
                          env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin",
                               "LANG": "C.UTF-8", "COLUMNS": "200"})


def _copy(tmp_path: Path) -> Path:
    for name in ("cit", "study"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / ".importlinter", tmp_path / ".importlinter")
    return tmp_path


def test_every_contract_is_kept():
    r = _lint(ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "3 kept, 0 broken" in r.stdout


def test_every_module_of_the_engine_is_in_a_layer():
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / ".importlinter")
    layers = cfg["importlinter:contract:engine-layers"]["layers"].split()
    named = {n for n in layers if n not in (":", "|")}
    modules = {p.stem if p.parent.name == "cit" else p.parent.name
               for p in (ROOT / "cit").rglob("*.py") if p.name != "__init__.py"}
    assert modules - named == set()


def test_an_engine_import_of_the_study_breaks_the_contract_even_inside_a_function(tmp_path):
    root = _copy(tmp_path)
    with open(root / "cit" / "render.py", "a") as f:
        f.write("\n\ndef _late():\n    from study import tables\n")
    r = _lint(root)
    assert r.returncode == 1
    assert "The engine (cit) never imports the study (study) BROKEN" in r.stdout
    assert "cit.render -> study.tables" in r.stdout


def test_an_upward_import_is_reported_with_both_modules(tmp_path):
    root = _copy(tmp_path)
    with open(root / "cit" / "fmt.py", "a") as f:
        f.write("\n\ndef _late():\n    from .render import render_site\n")
    r = _lint(root)
    assert r.returncode == 1
    assert "cit.fmt -> cit.render" in r.stdout


@pytest.mark.parametrize("where, text, broken", [
    ("study/sim/calibrate.py", "from .compute import compute", ".compute -> .calibrate"),
    ("cit/registry.py", "from .claims import ClaimBook", ".registry -> .claims"),
    ("cit/claimrefs.py", "from .markdown import make_markdown", ".markdown -> .claimrefs"),
])
def test_the_three_former_cycles_would_each_be_reported(tmp_path, where, text, broken):
    root = _copy(tmp_path)
    with open(root / where, "a") as f:
        f.write(f"\n\ndef _late():\n    {text}\n")
    r = _lint(root)
    assert r.returncode == 1
    assert broken in r.stdout


def test_no_function_in_cit_is_longer_than_a_screen():
    spec = importlib.util.spec_from_file_location("fl", ROOT / "tools" / "function_lengths.py")
    fl = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fl)
    rows = list(fl.function_lengths(sorted([*(ROOT / "cit").rglob("*.py"),
                                            *(ROOT / "study").rglob("*.py")])))
    assert len(rows) > 100
    assert [r for r in rows if r[0] > 80] == []
