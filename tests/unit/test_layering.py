"""tools/layering.py: no lower stage of cit/ imports a higher one."""

import importlib.util
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _layering():
    spec = importlib.util.spec_from_file_location("layering", ROOT / "tools" / "layering.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_no_module_of_cit_imports_a_higher_stage():
    assert _layering().check() == []


def test_every_module_of_cit_belongs_to_a_stage():
    lay = _layering()
    for path in (ROOT / "cit").rglob("*.py"):
        lay.stage_of(lay.module_name(path) or "__init__")   # KeyError when it has none


def test_a_planted_upward_import_is_reported_with_both_stages(tmp_path):
    lay = _layering()
    pkg = tmp_path / "cit"
    shutil.copytree(ROOT / "cit", pkg, ignore=shutil.ignore_patterns("__pycache__"))
    fmt = pkg / "fmt.py"
    fmt.write_text(fmt.read_text() + "\n\ndef _late():\n    from .render import render_site\n")
    problems = lay.check(pkg)
    assert problems == ["cit.fmt (foundation) imports cit.render (render), a higher stage"]


def test_relative_imports_resolve_to_the_module_they_name(tmp_path):
    lay = _layering()
    assert {"registry", "errors"} <= lay.package_imports(ROOT / "cit" / "blocks" / "generic.py")
    assert "blocks.spec" in lay.package_imports(ROOT / "cit" / "blocks" / "charts.py")


def test_no_function_in_cit_is_longer_than_a_screen():
    spec = importlib.util.spec_from_file_location("fl", ROOT / "tools" / "function_lengths.py")
    fl = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fl)
    rows = list(fl.function_lengths(sorted([*(ROOT / "cit").rglob("*.py"),
                                            *(ROOT / "study").rglob("*.py")])))
    assert len(rows) > 100
    assert [r for r in rows if r[0] > 80] == []
