"""Shared fixtures. Sections are marked by owner stage so edits don't collide."""

# ---- foundation fixtures (vendor, runs, tables) ------------------------------------
import shutil
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def vendored_files():
    """The upstream files, materialised and verified (the build's own vendor step)."""
    from cit.vendor import materialise
    return materialise()


@pytest.fixture(scope="session")
def vendored_root(vendored_files) -> Path:
    return ROOT / "vendored"


@pytest.fixture(scope="session")
def study() -> dict:
    return yaml.safe_load((ROOT / "data" / "study.yaml").read_text())


@pytest.fixture
def project_copy(tmp_path, vendored_files) -> Path:
    """A throwaway copy of the project (code, content, data, templates, verified vendored
    files) for tests that break inputs on purpose."""
    dst = tmp_path / "proj"
    for name in ("cit", "content", "data", "templates", "vendored"):
        if (ROOT / name).exists():
            shutil.copytree(ROOT / name, dst / name,
                            ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "build.py", dst / "build.py") if (ROOT / "build.py").exists() else None
    return dst
# ---- end foundation fixtures --------------------------------------------------------
