"""The explorer's JSDoc types, checked by TypeScript's compiler (`tsc --checkJs --strict`,
npm `typescript` pinned in package.json, installed by the README's test command with
`npm ci --ignore-scripts`): tsconfig.json names the file and the options, nothing is
emitted. A script with a type error is shown to fail the same check.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT

TSC = ROOT / "node_modules" / "typescript" / "bin" / "tsc"


def tsc(project: Path) -> subprocess.CompletedProcess:
    if not shutil.which("node"):
        pytest.fail("node is missing: the README's test command installs nodejs",
                    pytrace=False)
    if not TSC.is_file():
        pytest.fail(f"{TSC.relative_to(ROOT)} is missing: run `npm ci --ignore-scripts` "
                    "(the README's test command does)", pytrace=False)
    return subprocess.run(["node", str(TSC), "-p", str(project)], capture_output=True,
                          text=True, cwd=project.parent)


def test_the_explorer_type_checks_under_strict(measured):
    config = json.loads((ROOT / "tsconfig.json").read_text())
    opts = config["compilerOptions"]
    assert opts["strict"] and opts["checkJs"] and opts["allowJs"] and opts["noEmit"]
    files = [ROOT / f for f in config["files"]]
    assert files and all(f.is_file() for f in files), files
    r = tsc(ROOT / "tsconfig.json")
    measured(f"tsc --checkJs --strict: {len(files)} file(s), "
             f"{r.stdout.count('error TS')} errors")
    assert r.returncode == 0 and not r.stdout.strip(), r.stdout + r.stderr


def test_a_type_error_fails_the_check(tmp_path):
    config = json.loads((ROOT / "tsconfig.json").read_text())
    (tmp_path / "bad.js").write_text(
        '"use strict";\n/** @param {number} x */\nfunction f(x) { return x.toUpperCase(); }\n'
        "f(1);\n", encoding="utf-8")
    config["files"] = ["bad.js"]
    (tmp_path / "tsconfig.json").write_text(json.dumps(config), encoding="utf-8")
    r = tsc(tmp_path / "tsconfig.json")
    assert r.returncode != 0 and "toUpperCase" in r.stdout, r.stdout
