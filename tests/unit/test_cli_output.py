"""What `python build.py` tells its user (cit/progress.py) and what `--diff` reports
(cit/numbersdiff.py): stage lines in order, a summary whose counts are the build's
own, nothing under --quiet, and every moved number and claim of a planted change."""

from __future__ import annotations

import copy
import io
import json
import shutil
import subprocess
import sys

import yaml

from cit import numbersdiff
from cit.progress import Progress
from tests.conftest import ROOT, give_caches, run_build

STAGES = ("vendor", "experiment", "simulator", "render", "checks", "write")


def test_a_stage_on_a_terminal_shows_a_line_as_it_starts_and_rewrites_it_when_done():
    out = io.StringIO()
    p = Progress(out, tty=True)
    with p.stage("render", "rendering the pages"):
        assert out.getvalue() == "\u2026 render: rendering the pages"
        p.done("what it did")
    assert out.getvalue().endswith("\r\x1b[2K\u2713 render: what it did (0.00 s)\n")


def test_a_stage_off_a_terminal_prints_one_plain_line_when_it_ends_and_quiet_prints_none():
    plain, quiet = io.StringIO(), io.StringIO()
    for p in (Progress(plain, tty=False), Progress(quiet, quiet=True, tty=True)):
        with p.stage("vendor", "verifying"):
            p.done("files verified")
    assert plain.getvalue() == "vendor: files verified (0.00 s)\n"
    assert quiet.getvalue() == ""


def test_a_build_prints_its_stages_in_order_and_a_summary_with_its_own_counts(
        project_copy, tmp_path):
    out = tmp_path / "site"
    r = run_build(out, root=project_copy)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    starts = [next(i for i, line in enumerate(lines) if line.startswith(s + ": "))
              for s in STAGES]
    assert starts == sorted(starts), lines
    record = json.loads((out / "numbers.json").read_text())
    b = record["build"]
    text = r.stdout
    assert f"{len(record['numbers']):,} numbers on the site, each with its provenance" in text
    assert (f"{b['claims_verified']:,} of {b['claims_total']:,} checked claims verified"
            in text)
    assert f"{b['sim_cells']:,} cells of data/sim/results.md recomputed and matched" in text
    assert f"open {out}/index.html" in text
    # cold (--no-cache): every page rendered, counted by the pages written
    pages = sum(1 for _ in out.rglob("index.html"))
    assert f"render: {pages} of {pages} pages rendered (" in text, text
    assert "unchanged since" not in text and "Reused" not in text


def test_quiet_prints_nothing_on_success(project_copy, tmp_path):
    from cit import build
    from tests.conftest import run_in_process
    r = run_in_process(build.main, ["--out", str(tmp_path / "site"), "--quiet",
                                    "--no-cache"], project_copy, None)
    assert r.returncode == 0, r.stderr
    assert r.stdout == ""


def test_check_on_a_warm_cache_says_what_it_reused(project_copy, warm_copy, tmp_path):
    give_caches(warm_copy, project_copy)
    from cit import build
    from tests.conftest import run_in_process
    r = run_in_process(build.main, ["--check"], project_copy, None)
    assert r.returncode == 0, r.stderr
    reused = next(line for line in r.stdout.splitlines() if line.startswith("Reused"))
    assert "experiment, simulator, benchmarks (from the verified cache" in reused
    assert "pages (kept from the last good build" in reused
    assert "Nothing written (--check)." in r.stdout


def _planted(record: dict) -> tuple[dict, str, str]:
    """A copy of numbers.json with one number's text and one claim's evidence changed."""
    after = copy.deepcopy(record)
    number = next(n for n in after["numbers"] if n["id"].startswith("final_loss."))
    number["text"] += "9"
    claim = next(c for c in after["claims"] if c.get("evidence"))
    claim["evidence"][0]["text"] += "9"
    return after, number["id"], claim["id"]


def test_diff_lists_a_changed_number_and_a_changed_claim_and_nothing_else(warm_copy):
    before = json.loads((warm_copy[1] / "numbers.json").read_text())
    after, number_id, claim_id = _planted(before)
    changes = numbersdiff.compare(before, after)
    assert [n["id"] for _, n in changes["numbers"]] == [number_id]
    assert [c["id"] for _, c in changes["claims"]] == [claim_id]
    assert not any(changes[k] for k in ("added", "removed", "claims_added", "claims_removed"))
    text = numbersdiff.report(changes, before, after, "old")
    old = next(n for n in before["numbers"] if n["id"] == number_id)
    new = next(n for n in after["numbers"] if n["id"] == number_id)
    assert f"| `{number_id}` | {old['text']} | {new['text']} | {new['kind']} |" in text
    assert f"| `{claim_id}` |" in text
    assert f"| claims_verified | {before['build']['claims_verified']} |" in text
    assert numbersdiff.compare(before, before) == {k: [] for k in changes}


def test_diff_against_a_built_site_reports_an_edited_benchmark_figure(
        project_copy, warm_copy, tmp_path):
    give_caches(warm_copy, project_copy)
    path = project_copy / "data" / "benchmarks.yaml"
    bench = yaml.safe_load(path.read_text())
    old_value = bench["figures"]["cold_build_s"]
    text = path.read_text().replace(f"cold_build_s: {old_value}\n",
                                    f"cold_build_s: {old_value * 2}\n")
    path.write_text(text)
    from cit import build
    from tests.conftest import run_in_process
    r = run_in_process(build.main, ["--diff", str(warm_copy[1])], project_copy, None)
    assert r.returncode == 0, r.stderr
    assert "1 number changed, 0 added, 0 removed; 0 claims changed" in r.stdout
    assert "| `bench.cold_build_s` |" in r.stdout
    again = run_in_process(build.main, ["--diff", str(warm_copy[1]), "--fail-on-change"],
                           project_copy, None)
    assert again.returncode == 1


def test_diff_against_a_git_revision_builds_it_in_a_worktree(project_copy, tmp_path):
    git = shutil.which("git")

    def run(*args):
        return subprocess.run([git, *args], cwd=project_copy, check=True,
                              capture_output=True, text=True)
    shutil.copy(ROOT / ".gitignore", project_copy / ".gitignore")    # vendored/ stays out
    run("init", "-q")
    run("-c", "user.name=t", "-c", "user.email=t@t", "add", "-A")
    run("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    bench = project_copy / "data" / "benchmarks.yaml"
    value = yaml.safe_load(bench.read_text())["figures"]["noop_rebuild_s"]
    bench.write_text(bench.read_text().replace(f"noop_rebuild_s: {value}\n",
                                               f"noop_rebuild_s: {value * 3}\n"))
    r = subprocess.run([sys.executable, "build.py", "--diff", "HEAD"], cwd=project_copy,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "| `bench.noop_rebuild_s` |" in r.stdout
    assert run("worktree", "list").stdout.count("\n") == 1     # its worktree is gone


def test_the_diff_lists_any_study_s_stage_figures_between_the_engine_s():
    """The engine names no stage's figure: whatever a study's stages verified (here a
    made-up study's `report_numbers`) is listed after the upstream files and before the
    claims, by name; kind counts, the stamp and the engine's other figures are not."""
    build = {"naked_numbers": 0, "report_numbers": 7, "claims_total": 2, "commit": "c",
             "kind_count.measured": 9, "glossary_terms": 4, "upstream_files": 3,
             "claims_verified": 2, "a_stage.cells": 5, "site_numbers": 11}
    assert [k for k, _ in numbersdiff._verified(build)] == [
        "upstream_files", "a_stage.cells", "report_numbers", "claims_verified",
        "claims_total", "site_numbers", "naked_numbers"]
