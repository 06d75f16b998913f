"""The bad-input matrix: each bad input, fed to the whole build (`python build.py`), fails
with the exact error naming the file and line (or table cell) and leaves the previous
site untouched. Vendored files are edited with their lock entry updated (a re-pinned
upstream), so the hash check passes and the defect itself is what the build must catch.
"""

import json
import re
import shutil

import pytest
import yaml

from cit.vendor import git_blob_sha1
from tests.conftest import edit_cell, run_build, tree_digest

HEADLINE = "results/tinystories-gpu"


@pytest.fixture
def case(project_copy, built_site, tmp_path):
    """A project copy plus a previous site in place; `run()` builds over it and returns
    the stderr after checking the build failed and the previous site is unchanged."""
    out = tmp_path / "site"
    shutil.copytree(built_site, out)
    before = tree_digest(out)

    class Case:
        root = project_copy

        @staticmethod
        def run(expect_failure=True):
            r = run_build(out, root=project_copy, env={"CIT_VENDOR_MIRROR": ""})
            if expect_failure:
                assert r.returncode != 0, "the build should have failed"
                assert tree_digest(out) == before, "the previous site was changed"
                assert not [p for p in tmp_path.iterdir() if p.name.startswith(".site-")]
            return r

        @staticmethod
        def repin(rel: str, data: bytes):
            """Write a vendored file and re-pin it in the copy's lock."""
            (project_copy / "vendored" / rel).write_bytes(data)
            lock_path = project_copy / "vendored" / "lock.yaml"
            lock = yaml.safe_load(lock_path.read_text())
            for f in lock["files"]:
                if f["path"] == rel:
                    f["size"], f["blob_sha1"] = len(data), git_blob_sha1(data)
            lock_path.write_text(yaml.safe_dump(lock, sort_keys=False))

        @staticmethod
        def log(n=0):
            logs = sorted((project_copy / "vendored" / HEADLINE).glob("*.jsonl"))
            return logs[n], f"{HEADLINE}/{logs[n].name}"

    return Case


def _eval_line(lines):
    return next(i for i, l in enumerate(lines) if json.loads(l)["type"] == "eval")


def test_a_truncated_log_line(case):
    path, rel = case.log()
    text = path.read_text()
    case.repin(rel, text[:-25].encode())
    n = len(text[:-25].splitlines())
    assert f"build failed: {rel}:{n}: truncated last line" in case.run().stderr


def test_a_non_json_line(case):
    path, rel = case.log()
    lines = path.read_text().splitlines()
    lines.insert(3, "{oops")
    case.repin(rel, ("\n".join(lines) + "\n").encode())
    assert f"build failed: {rel}:4: not valid JSON" in case.run().stderr


def test_an_unknown_record_type(case):
    path, rel = case.log()
    lines = path.read_text().splitlines()
    lines.insert(2, json.dumps({"type": "heartbeat", "step": 7}))
    case.repin(rel, ("\n".join(lines) + "\n").encode())
    assert f"build failed: {rel}:3: unknown record type 'heartbeat'" in case.run().stderr


def test_a_run_without_done_is_left_out_so_the_recomputed_tables_differ(case):
    from cit.runs import load_run
    from cit.tables import label
    path, rel = case.log()
    run = load_run(path, rel)
    seeds = len(list(path.parent.glob(f"{run.group}-s*.jsonl")))
    lines = [l for l in path.read_text().splitlines() if json.loads(l)["type"] != "done"]
    case.repin(rel, ("\n".join(lines) + "\n").encode())
    # the incomplete run drops out of its group, so the first cell that differs is the
    # group's seed count in results.md §1
    assert (f"build failed: {HEADLINE}/results.md §1 row \"{label(run)}\" col \"Seeds\": "
            f"expected \"{seeds}\", recomputed \"{seeds - 1}\"") in case.run().stderr


@pytest.mark.parametrize("literal", ["NaN", "Infinity"])
def test_a_nan_or_infinite_loss(case, literal):
    path, rel = case.log()
    lines = path.read_text().splitlines()
    i = _eval_line(lines)
    rec = json.loads(lines[i])
    lines[i] = json.dumps(rec).replace(f'"val_loss": {rec["val_loss"]!r}', f'"val_loss": {literal}')
    case.repin(rel, ("\n".join(lines) + "\n").encode())
    assert f"build failed: {rel}:{i + 1}: not valid JSON: {literal}" in case.run().stderr


@pytest.mark.parametrize("change", ["duplicate", "decreasing"])
def test_duplicate_or_decreasing_steps(case, change):
    path, rel = case.log()
    lines = path.read_text().splitlines()
    idx = [i for i, l in enumerate(lines) if json.loads(l)["type"] == "eval"]
    prev = json.loads(lines[idx[2]])["step"]
    rec = json.loads(lines[idx[3]])
    rec["step"] = prev if change == "duplicate" else prev - 1
    lines[idx[3]] = json.dumps(rec)
    case.repin(rel, ("\n".join(lines) + "\n").encode())
    assert (f"build failed: {rel}:{idx[3] + 1}: eval step {rec['step']} does not increase "
            f"(previous eval step {prev})") in case.run().stderr


def test_a_vendored_file_whose_hash_does_not_match(case):
    path, rel = case.log(4)
    lock = {f["path"]: f for f in yaml.safe_load(
        (case.root / "vendored" / "lock.yaml").read_text())["files"]}
    data = path.read_bytes().replace(b"val_loss", b"val_losS", 1)
    path.write_bytes(data)
    assert (f"build failed: {rel}: git blob SHA-1 mismatch (vendored/{rel}): lock has "
            f"{lock[rel]['blob_sha1']}, file has {git_blob_sha1(data)}") in case.run().stderr


def test_a_missing_vendored_file_with_no_mirror(case):
    path, rel = case.log(2)
    path.unlink()
    lock_path = case.root / "vendored" / "lock.yaml"
    lock = yaml.safe_load(lock_path.read_text())
    lock["host"] = "http://127.0.0.1:9"   # no network either: a closed local port
    lock_path.write_text(yaml.safe_dump(lock, sort_keys=False))
    err = case.run().stderr
    assert f"build failed: {rel}: not vendored, no mirror found, and the download of " in err


def test_an_edited_cell_of_the_tinystories_results_md(case):
    rel = f"{HEADLINE}/results.md"
    text, cells, col, old, new = edit_cell((case.root / "vendored" / rel).read_text(), 0, 2, 2)
    case.repin(rel, text.encode())
    assert (f"build failed: {rel} §1 row \"{cells[0]}\" col \"{col}\": expected \"{new}\", "
            f"recomputed \"{old}\"") in case.run().stderr


def test_an_edited_cell_of_the_shakespeare_results_md(case):
    rel = "results/shakespeare-optics-check/results.md"
    text, cells, col, old, new = edit_cell((case.root / "vendored" / rel).read_text(), 0, 1, 3)
    case.repin(rel, text.encode())
    assert (f"build failed: {rel} top row \"{cells[0]}\" col \"{col}\": expected \"{new}\", "
            f"recomputed \"{old}\"") in case.run().stderr


def test_an_edited_cell_of_the_simulator_results_md(case):
    p = case.root / "data" / "sim" / "results.md"
    text = p.read_text()
    # the first table cell of section 3 holding a decimal number
    sec = text.index("## 3.")
    m = re.search(r"\| (\d[\d,]*\.\d+) ", text[sec:])
    old = m.group(1)
    new = old[:-1] + str((int(old[-1]) + 1) % 10)
    start = sec + m.start(1)
    p.write_text(text[:start] + new + text[start + len(old):])
    line = text[:start].count("\n") + 1
    err = case.run().stderr
    assert f"build failed: data/sim/results.md:{line}: §3, table " in err
    assert f"recorded '{new}', recomputed '{old}'" in err


def test_an_unknown_number_id(case):
    p = case.root / "content" / "pages" / "optics.md"
    lines = p.read_text().splitlines()
    lines.insert(len(lines), "Here is :n[nowhere.to.be.found].")
    p.write_text("\n".join(lines) + "\n")
    assert (f"build failed: content/pages/optics.md:{len(lines)}: unknown number id "
            "'nowhere.to.be.found'") in case.run().stderr


def test_an_undefined_glossary_term(case):
    p = case.root / "content" / "pages" / "notebook.md"
    lines = p.read_text().splitlines()
    lines.append("The :t[flux-capacitor] matters.")
    p.write_text("\n".join(lines) + "\n")
    err = case.run().stderr
    assert f"build failed: content/pages/notebook.md:{len(lines)}:" in err
    assert "flux-capacitor" in err


def test_a_literal_number_in_content(case):
    p = case.root / "content" / "hub.md"
    p.write_text(p.read_text() + "\nThe band kept 42 of every chunk.\n")
    err = case.run().stderr
    assert "build failed: naked-number check" in err and "42" in err


def test_a_malformed_scenario_yaml(case):
    p = case.root / "data" / "sim" / "scenario.yaml"
    lines = p.read_text().splitlines()
    i = next(i for i, l in enumerate(lines) if l.strip() == "gpu_power:")
    j = next(k for k in range(i, len(lines)) if lines[k].strip().startswith("value:"))
    lines[j] = lines[j].split("value:")[0] + "value: lots"
    p.write_text("\n".join(lines) + "\n")
    err = case.run().stderr
    assert "build failed: data/sim/scenario.yaml:" in err and "gpu_power" in err


def test_a_script_tag_in_content_is_escaped_and_inert(case, tmp_path):
    p = case.root / "content" / "pages" / "method.md"
    p.write_text(p.read_text() + "\n<script>alert('owned')</script>\n")
    out = tmp_path / "fresh"
    r = run_build(out, root=case.root, env={"CIT_VENDOR_MIRROR": ""})
    assert r.returncode == 0, r.stderr
    html = (out / "method" / "index.html").read_text()
    assert "&lt;script&gt;alert(" in html
    assert "<script>alert(" not in html
