"""A second researcher's study, standing alone (docs/tutorial.md, docs/install.md): `cit
new` makes a study named after its folder, whole or not at all; relative paths mean the
same from every command; the vendor lock pins what site.yaml names; `--diff` of a study
compares that study; the pull-request workflow's own diff step writes its table; and, in
a fresh virtual environment (marked slow), the engine installs alone and the README's
new-study commands run verbatim."""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT

TOY = ROOT / "examples" / "toyopt"
# the distributions a study's build must not need (the main study's, or no one's)
STUDY_ONLY = ("pandas", "numpy", "simpy", "plotly", "pydantic")


def _cit(*args, cwd: Path, **kw) -> subprocess.CompletedProcess:
    """`cit ARGS` as the console script runs it (cit.cli:main), with this checkout's code."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "cit", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, **kw)


def test_cit_new_names_the_package_after_the_folder_and_two_studies_keep_their_own_code(tmp_path):
    for name in ("alpha", "beta"):
        r = _cit("new", name, cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        study = tmp_path / name
        assert (study / name / "stage.py").is_file() and not (study / "toyopt").exists()
        assert f"run: {name}.stage:run" in (study / "site.yaml").read_text()
        assert f'packages = ["{name}"]' in (study / "pyproject.toml").read_text()
        assert "site/" in (study / ".gitignore").read_text().split("\n")
    # built in one process, each study runs its own stage
    from cit.build import run_stages
    (tmp_path / "beta" / "beta" / "stage.py").write_text(
        (tmp_path / "beta" / "beta" / "stage.py").read_text().replace(
            "def run(", "BETA_WAS_HERE = True\n\n\ndef run(", 1))
    a = run_stages(tmp_path / "alpha", use_cache=False)
    b = run_stages(tmp_path / "beta", use_cache=False)
    assert sys.modules["alpha.stage"].__file__.startswith(str(tmp_path / "alpha"))
    assert getattr(sys.modules["beta.stage"], "BETA_WAS_HERE", False)
    assert a.registry.claims.keys() == b.registry.claims.keys()


@pytest.mark.parametrize("name", ["my-study", "3d", "class", "json", "cit"])
def test_cit_new_refuses_a_folder_whose_name_is_no_package_name(tmp_path, name):
    r = _cit("new", name, cwd=tmp_path)
    assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert r.stderr.startswith(f"cit new: {name!r}") and "Traceback" not in r.stderr
    assert list(tmp_path.iterdir()) == []


def test_cit_new_on_a_read_only_or_full_disk_leaves_nothing_and_a_retry_works(tmp_path):
    """Issue 32's N7: one line, exit 1, no half-made study to block the retry."""
    import resource
    import signal
    parent = tmp_path / "ro"
    parent.mkdir()
    parent.chmod(0o555)
    try:
        if os.access(parent, os.W_OK):
            # root writes anywhere: the same failure by a file-size limit (a full disk)
            def small_files():
                signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
                resource.setrlimit(resource.RLIMIT_FSIZE, (2000, 2000))
            r = subprocess.run([sys.executable, "-m", "cit", "new", "mine"], cwd=parent,
                               env=dict(os.environ, PYTHONPATH=str(ROOT)),
                               capture_output=True, text=True, preexec_fn=small_files)
        else:
            r = _cit("new", "mine", cwd=parent)
        assert r.returncode == 1, r.stdout + r.stderr
        [line] = r.stderr.strip().splitlines()
        assert line.startswith("cit new: cannot write ") and "nothing was left behind" in line
        assert list(parent.iterdir()) == []
    finally:
        parent.chmod(0o755)
    again = _cit("new", "mine", cwd=parent)
    assert again.returncode == 0, again.stderr
    assert (parent / "mine" / "site.yaml").is_file()


def test_a_relative_root_and_out_mean_the_folder_the_command_runs_in(tmp_path):
    assert _cit("new", "mine2", cwd=tmp_path).returncode == 0
    for root in ("mine2", "./mine2"):
        r = _cit("build", "--root", root, "--out", "out", "--no-cache", "--quiet", cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        assert (tmp_path / "out" / "index.html").is_file()
    r = subprocess.run([sys.executable, str(ROOT / "build.py"), "--root", "mine2", "--check",
                        "--quiet"], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def _toy_copy(tmp_path: Path) -> Path:
    assert _cit("new", "toy", cwd=tmp_path).returncode == 0
    return tmp_path / "toy"


def test_the_lock_pins_the_patterns_of_site_yaml_and_refuses_an_empty_lock(tmp_path):
    study = _toy_copy(tmp_path)
    mirror = tmp_path / "mirror"
    shutil.copytree(study / "vendored", mirror)
    (mirror / "notes.txt").write_text("not a log\n")
    (study / "vendored" / "stray.jsonl").write_text("{}\n")
    old = (study / "vendored" / "lock.yaml").read_text()
    r = _cit("vendor", "lock", "--from", mirror, cwd=study)
    assert r.returncode == 0, r.stderr
    pinned = sorted(f["path"] for f in yaml.safe_load((study / "vendored" / "lock.yaml")
                                                      .read_text())["files"])
    assert pinned == sorted(f["path"] for f in yaml.safe_load(old)["files"])
    assert "notes.txt" not in pinned
    assert "vendored/stray.jsonl: not pinned by the lock" in r.stderr
    site = study / "site.yaml"
    site.write_text(re.sub(r"^pinned: .*$", "pinned: [nothing/*]", site.read_text(), flags=re.M))
    before = (study / "vendored" / "lock.yaml").read_bytes()
    r = _cit("vendor", "lock", "--from", mirror, cwd=study)
    assert r.returncode == 1 and "name no file of the mirror" in r.stderr
    assert r.stderr.startswith("error: site.yaml:")
    assert (study / "vendored" / "lock.yaml").read_bytes() == before
    # the build names the stray file too
    b = _cit("build", "--no-cache", "--quiet", cwd=study)
    assert b.returncode == 0 and "stray.jsonl" in b.stderr


def test_a_relock_then_vendor_from_replaces_a_stale_copy_after_checking_it(tmp_path):
    study = _toy_copy(tmp_path)
    mirror = tmp_path / "mirror"
    shutil.copytree(study / "vendored", mirror)
    log = "logs/sgd-s1.jsonl"
    lines = (mirror / log).read_text().splitlines(True)
    # the upstream's newer file: the same records, spaced otherwise
    (mirror / log).write_text("".join([lines[0].replace(": ", ":  ", 1), *lines[1:]]))
    assert _cit("vendor", "lock", "--from", mirror, cwd=study).returncode == 0
    stale = _cit("build", "--no-cache", "--quiet", cwd=study)
    assert stale.returncode == 1 and "git blob SHA-1 mismatch" in stale.stderr
    r = _cit("build", "--no-cache", "--quiet", "--vendor-from", mirror, cwd=study)
    assert r.returncode == 0, r.stderr
    assert f"vendored/{log}: not the file the lock pins; replaced" in r.stderr
    assert (study / "vendored" / log).read_bytes() == (mirror / log).read_bytes()
    # a mirror whose copy does not match the lock either replaces nothing
    (mirror / log).write_text("{}\n")
    (study / "vendored" / log).write_text("".join(lines))
    r = _cit("build", "--no-cache", "--quiet", "--vendor-from", mirror, cwd=study)
    assert r.returncode == 1 and "mismatch (mirror" in r.stderr
    assert (study / "vendored" / log).read_text() == "".join(lines)


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.email=t@example.org", "-c", "user.name=t",
                           *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout.strip()


def test_cit_diff_of_a_study_in_its_own_repository_compares_its_own_history(tmp_path):
    study = _toy_copy(tmp_path)
    _git(study, "init", "-q")
    _git(study, "add", "-A")
    _git(study, "commit", "-qm", "first")
    r = _cit("diff", "HEAD", cwd=study)
    assert r.returncode == 0, r.stderr
    assert "0 numbers changed, 0 added, 0 removed" in r.stdout
    rows = {k for k, _, _ in re.findall(r"^\| (\w+) \| ([^|]+) \| ([^|]+) \|$", r.stdout, re.M)}
    assert "report_numbers" in rows and "experiment_numbers" not in rows


def test_diff_for_examples_toyopt_names_only_toyopts_numbers(tmp_path):
    """`python build.py --root examples/toyopt --diff HEAD` builds toyopt on both sides."""
    r = subprocess.run([sys.executable, "build.py", "--root", "examples/toyopt", "--diff",
                        "HEAD"], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    toy = json.loads((TOY / "expected" / "numbers.json").read_text())
    rows = dict(re.findall(r"^\| (\w+) \| ([^|]+) \| [^|]+ \|$", r.stdout, re.M))
    assert int(rows["site_numbers"].strip()) == toy["build"]["site_numbers"]
    assert "report_numbers" in rows and "experiment_numbers" not in r.stdout


def _workflow_step(name_start: str) -> dict:
    wf = yaml.safe_load((ROOT / ".github" / "workflows" / "check.yml").read_text())
    return next(s for s in wf["jobs"]["check"]["steps"] if s.get("name", "").startswith(name_start))


def test_the_readme_names_the_tier_github_runs():
    step = _workflow_step("Tests")
    tier = re.search(r'python -m pytest -m "([^"]+)"', step["run"])[1]
    readme = (ROOT / "README.md").read_text()
    assert f'GitHub runs the tier `-m "{tier}"`' in readme


@pytest.mark.slow
def test_the_workflows_diff_step_writes_its_table_to_the_job_summary(tmp_path, vendored_files,
                                                                    measured):
    """The pull-request check's own step, read from check.yml, in a clean clone with BASE
    an earlier commit and GITHUB_STEP_SUMMARY a file, as GitHub runs it."""
    step = _workflow_step("Numbers and claims")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    for f in vendored_files.values():       # what the workflow's cold build downloaded
        (clone / "vendored" / f.rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(f.local, clone / "vendored" / f.rel)
    (clone / ".venv" / "bin").mkdir(parents=True)
    (clone / ".venv" / "bin" / "activate").write_text(
        f'PATH="{Path(sys.executable).parent}:$PATH"\n')
    base = _git(clone, "rev-parse", "HEAD~1")
    summary = tmp_path / "summary.md"
    env = {k: v for k, v in os.environ.items() if k != "CIT_VENDOR_MIRROR"}
    env |= {"BASE": base, "GITHUB_STEP_SUMMARY": str(summary)}
    r = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=clone, env=env,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    text = summary.read_text()
    measured(f"workflow diff step against {base[:7]}: {len(text.splitlines())} summary lines")
    assert text.startswith(f"## Numbers and claims: `{base}` → this build\n")
    rows = dict((k, (b, a)) for k, b, a in re.findall(
        r"^\| (\w+) \| ([^|]+) \| ([^|]+) \|$", text, re.M))
    assert {"upstream_files", "claims_verified", "claims_total", "site_numbers"} <= set(rows)
    for side in (0, 1):
        assert rows["claims_verified"][side] == rows["claims_total"][side]
        assert int(rows["upstream_files"][side].strip()) == len(vendored_files)


def _readme_blocks(path: Path, marker: str) -> list[str]:
    text = path.read_text()
    return [m.strip() for m in re.findall(rf"<!-- {marker} -->\s*```sh\n(.*?)\n```", text, re.S)]


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_the_readmes_new_study_commands_run_verbatim_in_a_fresh_venv(tmp_path, measured):
    """From a fresh clone: a virtual environment with the engine alone (no pandas, numpy,
    simpy, plotly, pydantic), `cit new` outside the clone, `cit build` and the study's own
    tests, then docs/tutorial.md's commands, each as written."""
    clone = tmp_path / "engine-clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    blocks = _readme_blocks(clone / "README.md", "new-study-command")
    assert len(blocks) >= 2
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = "/usr/bin:/bin"
    script = "set -e\n" + "\n".join(blocks) + "\npython -m pip list --format=freeze > pip-list.txt\n"
    r = subprocess.run(["bash", "-c", script], cwd=clone, env=env, capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    study = tmp_path / "mine"
    assert (study / "site" / "index.html").is_file()
    assert re.search(r"\b\d+ passed\b", r.stdout)
    names = {line.split("==")[0].split(" @ ")[0].lower()
             for line in (study / "pip-list.txt").read_text().splitlines()}
    assert "cit-engine" in names and "pytest" in names
    assert not names & set(STUDY_ONLY), sorted(names & set(STUDY_ONLY))
    measured(f"fresh venv, engine alone: {len(names)} distributions in pip list")
    env |= {"GIT_AUTHOR_NAME": "A researcher", "GIT_AUTHOR_EMAIL": "r@example.org",
            "GIT_COMMITTER_NAME": "A researcher", "GIT_COMMITTER_EMAIL": "r@example.org"}
    # the commands `cit new` printed, as printed (their comments are shell comments)
    said = r.stdout[r.stdout.index("a new study in "):].splitlines()[1:]
    printed = [line.strip() for line in itertools.takewhile(lambda l: l.startswith("  "), said)]
    assert printed[0] == f"cd {study}" and any("pip install" in p for p in printed)
    p = subprocess.run(["bash", "-c", f"set -e\n. {tmp_path}/.venv/bin/activate\n"
                        + "\n".join(printed) + "\ngit log --oneline | wc -l"],
                       cwd=tmp_path, env=env, capture_output=True, text=True)
    assert p.returncode == 0 and re.search(r"\b\d+ passed\b", p.stdout), p.stdout[-3000:] + p.stderr[-3000:]
    assert p.stdout.strip().endswith("1")
    tutorial = _readme_blocks(clone / "docs" / "tutorial.md", "tutorial-command")
    assert len(tutorial) >= 5
    t = subprocess.run(["bash", "-c", f"set -e\n. {tmp_path}/.venv/bin/activate\n"
                        + "\n".join(tutorial)], cwd=tmp_path, env=env, capture_output=True,
                       text=True)
    assert t.returncode == 0, t.stdout[-3000:] + t.stderr[-3000:]
    first = tmp_path / "first_study"
    assert (first / "site" / "notes" / "index.html").is_file()
    assert "sitemap.xml" in os.listdir(first / "site")
    # the page moves none of the study's numbers: only the build's own counts of the
    # sentences its check found (docs/tutorial.md says so)
    moved = re.findall(r"^\| `([^`]+)` \| [^|]+ \| [^|]+ \| ", t.stdout, re.M)
    assert moved and all(m.startswith("build.") for m in moved), moved


def test_the_cit_command_names_its_commands_and_builds_the_working_folder(tmp_path):
    assert _cit(cwd=tmp_path).returncode == 2
    usage = _cit("--help", cwd=tmp_path)
    assert usage.returncode == 0
    assert all(f"cit {c}" in usage.stdout for c in ("build", "serve", "check", "diff", "new"))
    bad = _cit("publish", cwd=tmp_path)
    assert bad.returncode == 2 and bad.stderr.startswith("cit: unknown command 'publish'")
    no_old = _cit("diff", cwd=tmp_path)
    assert no_old.returncode == 2 and "cit diff OLD" in no_old.stderr
    study = _toy_copy(tmp_path)
    r = _cit("check", cwd=study)
    assert r.returncode == 0, r.stderr
    assert "Nothing written (--check)." in r.stdout and not (study / "site").exists()
    # build.py's own options, under cit's name
    opts = _cit("build", "--help", cwd=study)
    assert opts.stdout.startswith("usage: cit build") and "--vendor-from" in opts.stdout
