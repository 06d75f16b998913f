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
from study.runs import LARGEST
from tests.conftest import (edit_cell, give_caches, run_build, run_build_process,
                            run_in_process, tree_digest)

from tests.golden.conftest import HEADLINE


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
    from study.runs import load_run
    from study.tables import label
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
    lines.insert(len(lines), "Here is :n[nowhere.to.be.found] :x[number].")
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


@pytest.mark.parametrize("added,message", [
    ("A claim of a source [@no-such-work].", "unknown citation key 'no-such-work'"),
    ("$$x$$ (eq:band)", "label 'eq:band' given twice"),
    ("A broken formula $\\frac{a}{b$ here.", "malformed TeX"),
    ("As in [@eq:no-such-label].", "unknown label 'eq:no-such-label'")],
    ids=["unknown-key", "duplicate-label", "malformed-tex", "unknown-label"])
def test_a_bad_citation_label_or_formula(case, added, message):
    """docs/math-citations.md: each fails the build in one line at its file and line."""
    p = case.root / "content" / "pages" / "method.md"
    lines = p.read_text().splitlines()
    lines += ["", added]
    p.write_text("\n".join(lines) + "\n")
    err = case.run().stderr
    line = next(l for l in err.splitlines() if l.startswith("build failed:"))
    assert line.startswith(f"build failed: content/pages/method.md:{len(lines)}: "), err
    assert message in line, err


def test_a_literal_number_in_content(case):
    p = case.root / "content" / "hub.md"
    p.write_text(p.read_text() + "\nThe band kept 42 values of a chunk.\n")
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
    r = run_build(out, root=case.root, env={"CIT_VENDOR_MIRROR": ""}, cold=False)
    assert r.returncode == 0, r.stderr
    html = (out / "method" / "index.html").read_text()
    assert "&lt;script&gt;alert(" in html
    assert "<script>alert(" not in html


# ---- the output folder: never replace what the build did not make -----------------------

def test_out_naming_a_folder_of_the_users(case, tmp_path):
    user = tmp_path / "userdir"
    user.mkdir()
    (user / "thesis.tex").write_text("precious\n")
    (user / "notes").mkdir()
    (user / "notes" / "a.md").write_bytes(b"\x00binary too\n")
    err = case.run_out(user, user).stderr
    assert (f"build failed: --out {user}: is an existing folder without the build's "
            "numbers.json; refusing to replace what this build did not make") in err
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".userdir")) == []


def test_out_naming_the_projects_own_content_folder(case):
    content = case.root / "content"
    err = case.run_out(content, content).stderr
    assert err == (f"build failed: --out {content}: is content/, which the build reads; "
                   "refusing to replace it (nothing was changed)\n")


def test_out_naming_a_file(case, tmp_path):
    f = tmp_path / "thesis.tex"
    f.write_text("precious\n")
    err = case.run_out(f, f).stderr
    assert (f"build failed: --out {f}: is an existing file, not a folder this build made; "
            "refusing to replace it (nothing was changed)") in err
    assert not (tmp_path / ".thesis.tex-old").exists()


def test_out_on_a_path_even_root_cannot_write(case):
    """Simulates a folder the user may not write: /sys refuses a new folder even to root
    (the tests run as root, so a chmod-ed folder would not stop them). A real process:
    what a user sees is one line and no traceback."""
    target = __import__("pathlib").Path("/sys/cit-site")
    err = case.run_out(target, process=True).stderr
    assert f"build failed: --out {target}: cannot create a folder in /sys (" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_out_under_a_parent_that_is_a_file(case, tmp_path):
    """Simulates a mistyped or missing parent: the parent path is a regular file."""
    f = tmp_path / "notes.txt"
    f.write_text("mine\n")
    target = f / "site"
    err = case.run_out(target, f).stderr
    assert f"build failed: --out {target}: its parent {f} is not a folder" in err


def test_out_under_a_missing_parent(case, tmp_path):
    target = tmp_path / "no" / "such" / "site"
    err = case.run_out(target).stderr
    assert f"build failed: --out {target}: its parent folder {target.parent} does not exist" in err
    assert not (tmp_path / "no").exists()


# ---- duplicate keys: every YAML file the build reads ----------------------------------

def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def duplicate_entry(text: str, key_re: str):
    """Repeat the first `key:` entry matching `key_re` (with its indented block) right
    after itself. Returns the new text, the key, and the 1-based lines of both."""
    lines = text.split("\n")
    i = next(k for k, l in enumerate(lines) if re.match(rf"^{key_re}:(\s|$)", l))
    key = lines[i].split(":")[0].strip()
    j = i + 1
    while j < len(lines) and (not lines[j].strip() or _indent(lines[j]) > _indent(lines[i])
                              or (_indent(lines[j]) == _indent(lines[i])
                                  and lines[j].lstrip().startswith("- "))):
        j += 1
    while not lines[j - 1].strip():
        j -= 1
    return "\n".join(lines[:j] + lines[i:j] + lines[j:]), key, i + 1, j + 1


# (file, key pattern): a top-level entry with its block, a nested one, a one-line one
DUPLICATES = [
    ("content/glossary.yaml", r"[a-z0-9-]+"),
    ("content/chain.yaml", r"title"),
    ("content/pages/optics.md", r"description"),      # front matter
    ("data/study.yaml", r"sim_target_group"),
    ("data/variants.yaml", r" +row_label"),
    ("data/allowlist.yaml", r" +reason"),
    ("data/sim/scenario.yaml", r" +gpu_power"),
    ("data/sim/quoted.yaml", r"citation"),
    ("data/budgets.yaml", r"hub_bytes"),
    ("data/benchmarks.yaml", r"runs"),
    ("vendored/lock.yaml", r"host"),
    ("vendored/plotly/lock.yaml", r"sha256"),
]


@pytest.mark.parametrize("rel,key_re", DUPLICATES, ids=[d[0] for d in DUPLICATES])
def test_a_duplicate_key(case, rel, key_re):
    p = case.root / rel
    text, key, first, again = duplicate_entry(p.read_text(), key_re)
    p.write_text(text)
    # the allow-list and the lock are named by the path the build was given
    shown = rel
    err = case.run().stderr
    # chain.yaml is read by the hub's @[chain] block, which prefixes the page and block
    assert err.startswith("build failed: ") and len(err.strip().splitlines()) == 1, err
    assert (f"{shown}:{again}: duplicate key '{key}': first given at line {first}, again "
            f"at line {again}\n") in err


# ---- the data-stage cache: verified before use, a refused one means a cold build --------

def _code_key(root):
    from cit.incremental import code_key
    from cit.siteconfig import load_site
    return code_key(root, load_site(root).packages())


def _stage_keys(root, code: str) -> dict:
    """Each stage's cache key, from the reads the last build recorded (cit/stages.py)."""
    from cit import cache as cache_mod
    from cit.stages import STAGE_READS, stage_key
    keys = {}
    for record in cache_mod.read_json(root, STAGE_READS, code):
        keys[record["name"]] = stage_key(code, record, keys)
    return keys


def _experiment_cache(root):
    """The experiment stage's cache file (each stage has its own)."""
    from cit import cache as cache_mod
    return cache_mod.cache_file(root, _stage_keys(root, _code_key(root))["experiment"])


def _other_version(cache, root):
    """A cache written by another version of the code, renamed to this version's key."""
    from cit import cache as cache_mod
    from cit.stages import STAGE_READS
    recorded = cache_mod.read_json(root, STAGE_READS, _code_key(root))
    fmt = root / "cit" / "fmt.py"
    fmt.write_text(fmt.read_text() + "\n# another version of the code\n")
    # the reads record re-keyed too, so the build looks for the pickle under the new key
    cache_mod.write_json(root, STAGE_READS, _code_key(root), recorded)
    moved = cache_mod.cache_file(root, _stage_keys(root, _code_key(root))["experiment"])
    cache.rename(moved)
    return moved


def _garble(cache, root):
    data = bytearray(cache.read_bytes())
    for k in range(len(data) // 2, len(data) // 2 + 64):
        data[k] ^= 0x5A
    cache.write_bytes(bytes(data))
    return cache


def _truncate(cache, root):
    cache.write_bytes(cache.read_bytes()[: cache.stat().st_size // 3])
    return cache


def _headerless(cache, root):
    """The bare pickle an earlier version of the build wrote."""
    cache.write_bytes(cache.read_bytes().partition(b"\n")[2])
    return cache


CACHE_DAMAGE = {
    "truncated": (_truncate, "its SHA-256 does not match (damaged or truncated)"),
    "garbled": (_garble, "its SHA-256 does not match (damaged or truncated)"),
    "another-version": (_other_version, "written for other inputs or another version of "
                                        "the code"),
    "headerless": (_headerless, "not a cache file of this build (no valid header)"),
}


@pytest.mark.parametrize("damage", sorted(CACHE_DAMAGE))
def test_a_damaged_or_foreign_cache_is_discarded_and_the_build_goes_on_cold(
        project_copy, warm_copy, tmp_path, damage):
    """Documented recovery: one line on stderr, a cold build, the same site byte for byte,
    and a fresh cache that the next build uses without a word."""
    out = tmp_path / "site"
    shutil.copytree(warm_copy[1], out)        # the site the cache-writing build made
    before = tree_digest(out)
    give_caches(warm_copy, project_copy)
    cache = _experiment_cache(project_copy)
    spoil, why = CACHE_DAMAGE[damage]
    cache = spoil(cache, project_copy)
    # another version of the code is an edit of the copy's cit/: only a process runs it
    run = run_build_process if damage == "another-version" else run_build
    r = run(out, root=project_copy, cold=False)
    assert r.returncode == 0, r.stderr
    rel = cache.relative_to(project_copy).as_posix()
    assert f"cache {rel} discarded: {why}; building cold\n" in r.stderr
    assert "Traceback" not in r.stderr and r.stderr.count("discarded") == 1
    assert tree_digest(out) == before
    r = run(out, root=project_copy, cold=False)
    assert r.returncode == 0 and "discarded" not in r.stderr, r.stderr
    assert tree_digest(out) == before


def _scenario_value_line(lines, key):
    i = next(i for i, l in enumerate(lines) if l.strip() == f"{key}:")
    return next(k for k in range(i, len(lines)) if lines[k].strip().startswith("value:"))


def test_a_fitted_value_edited_by_hand(case):
    """The build re-runs the calibration: a hand-tuned fitted input fails naming the
    input, its line and both values (the recorded one and the calibration's)."""
    from study.sim.scenario import load_scenario
    p = case.root / "data" / "sim" / "scenario.yaml"
    recorded = load_scenario(p).entries["module_budget"].value
    lines = p.read_text().splitlines()
    j = _scenario_value_line(lines, "module_budget")
    tuned = recorded * 1.1
    lines[j] = lines[j].split("value:")[0] + f"value: {tuned!r}"
    p.write_text("\n".join(lines) + "\n")
    key_line = next(i for i, l in enumerate(lines) if l.strip() == "module_budget:") + 1
    err = case.run().stderr
    assert f"build failed: data/sim/scenario.yaml:{key_line}: inputs.module_budget:" in err
    assert f"recorded fitted value {tuned!r} differs from the calibration's " \
           f"{recorded!r}" in err


def test_an_unknown_collective_layout(case):
    p = case.root / "data" / "sim" / "scenario.yaml"
    lines = p.read_text().splitlines()
    j = _scenario_value_line(lines, "collective_layout")
    lines[j] = lines[j].split("value:")[0] + "value: ring-of-rings"
    p.write_text("\n".join(lines) + "\n")
    key_line = next(i for i, l in enumerate(lines) if l.strip() == "collective_layout:") + 1
    err = case.run().stderr
    assert f"build failed: data/sim/scenario.yaml:{key_line}: inputs.collective_layout:" in err
    assert "'hierarchical' or 'flat-ring'" in err


def test_a_quoted_figure_the_paper_range_cannot_reach(case):
    """E's quoted time ten times over: only a module far slower than the paper's lowest
    budget gives it, so the calibration fails naming the figure and the original page's range."""
    from cit.fmt import fmt_sig
    from study.sim.quoted import load_quoted
    from study.sim.scenario import load_scenario
    p = case.root / "data" / "sim" / "quoted.yaml"
    q = load_quoted(p)
    old = q.figures["time.E"]
    text = p.read_text()
    i = text.index("  time.E:\n")
    j = text.index("    value:", i)
    k = text.index("\n", j)
    p.write_text(text[:j] + f"    value: {old.value * 10!r}" + text[k:])
    v = load_scenario(case.root / "data" / "sim" / "scenario.yaml").static
    err = case.run().stderr
    line = text[:i].count("\n") + 1
    assert f"build failed: data/sim/quoted.yaml:{line}: figures.time.E: the quoted" in err
    assert (f"cannot be reached with inputs.module_budget inside the original page's range "
            f"{fmt_sig(v.module_budget_min, 3)} to {fmt_sig(v.module_budget_max, 3)}") in err


# ---- links: the build checks the pages it rendered ------------------------------------

def test_a_broken_internal_link(case):
    p = case.root / "content" / "hub.md"
    p.write_text(p.read_text() + "\nSee [x](nowhere/) here.\n")
    line = len(p.read_text().splitlines())
    assert ("build failed: content/hub.md:{}: broken link 'nowhere/': no such file (built "
            "page index.html, a 'nowhere/index.html')\n".format(line)) in case.run().stderr


def test_a_broken_anchor_to_another_page(case):
    p = case.root / "content" / "pages" / "notebook.md"
    p.write_text(p.read_text() + "\nThe repair is [on optics](../optics/#no-such-part).\n")
    line = len(p.read_text().splitlines())
    assert (f"build failed: content/pages/notebook.md:{line}: broken link "
            "'../optics/#no-such-part': no element with id 'no-such-part' in "
            "optics/index.html (built page notebook/index.html, a "
            "'../optics/index.html#no-such-part')\n") in case.run().stderr


def test_a_broken_link_written_by_a_template_names_the_built_page(case):
    p = case.root / "templates" / "page.html"
    text = p.read_text()
    p.write_text(text.replace("</main>", '<a href="{{ root }}colophon.html">colophon</a></main>', 1))
    assert "</main>" in text
    err = case.run().stderr
    # every page made from page.html, in path order, the first one leading
    assert err.startswith("build failed: built page glossary/index.html: a "
                          "'../colophon.html': no such file\n")
    assert "\n  built page index.html: a 'colophon.html': no such file\n" in err


def _unpinned_listed(root) -> list[str]:
    """The lines `--check` lists under "external links to pages that can change"."""
    from cit import build
    r = run_in_process(build.main, ["--check"], root, None)
    assert r.returncode == 0, r.stderr
    block = r.stdout.split("external links to pages that can change (allowed): ", 1)[1]
    count, *lines = block.split("\n")
    listed = [ln.strip() for ln in lines[:int(count)]]
    assert all(ln.startswith("  ") for ln in lines[:int(count)]), block
    return listed


def test_an_unpinned_outside_link_is_allowed_and_listed_by_check(case, tmp_path):
    """A link to a page that can change is listed by --check (beside the site's own,
    e.g. its "edit this page" links); one pinned to a commit is not."""
    r = run_build(tmp_path / "before", root=case.root, env={"CIT_VENDOR_MIRROR": ""}, cold=False)
    assert r.returncode == 0, r.stderr
    before = _unpinned_listed(case.root)
    p = case.root / "content" / "pages" / "notebook.md"
    p.write_text(p.read_text() + "\nSee [the project](https://example.org/project) and "
                 "[a pinned tree](https://example.org/t/0123456789abcdef0123456789abcdef01234567) :x[scope]."
                 "\n")
    r = run_build(tmp_path / "fresh", root=case.root, env={"CIT_VENDOR_MIRROR": ""}, cold=False)
    assert r.returncode == 0, r.stderr
    after = _unpinned_listed(case.root)
    assert sorted(set(after) - set(before)) == ["notebook/index.html: https://example.org/project"]
    assert set(before) <= set(after)


# ---- faults (issue 23's review): --out over the project or its inputs, a killed or
# interrupted write, the commands that rewrite committed files ----------------------------

def test_out_holding_the_project_is_refused_and_nothing_is_lost(case, tmp_path, built_site):
    """D1: the folder holding the project carries the build's mark (an earlier --out);
    replacing it would delete the project, an uncommitted draft with it."""
    shutil.copy(built_site / "numbers.json", tmp_path / "numbers.json")    # the mark
    draft = case.root / "content" / "pages" / "draft.md"
    draft.write_text("---\ntitle: Draft\ndescription: Uncommitted.\nlayout: page\n---\n\n"
                     "## Draft\n\nWords.\n")
    err = case.run_out(tmp_path, case.root, tmp_path / "numbers.json").stderr
    assert err == (f"build failed: --out {tmp_path}: holds the project ({case.root}); "
                   "refusing to write there (nothing was changed; choose a folder outside "
                   "it)\n")


@pytest.mark.parametrize("inside", ["templates/static/site", "content/pages/out",
                                    "vendored/site", ".cache/site"])
def test_out_inside_the_builds_inputs_is_refused(case, inside):
    """C6: a site written into templates/static/ would be shipped inside the next one."""
    top = inside.split("/")[0]
    err = case.run_out(case.root / inside, case.root / top).stderr
    assert err == (f"build failed: --out {case.root / inside}: is inside {top}/, which the "
                   "build reads; refusing to write there (nothing was changed; choose a "
                   "folder outside the build's inputs)\n")
    assert not (case.root / inside).exists()


def test_out_holding_the_upstream_mirror_is_refused(case, tmp_path, upstream_mirror):
    """The mirror is read by the build too: an --out that holds it is refused."""
    mirror = tmp_path / "up" / "mirror"
    shutil.copytree(upstream_mirror, mirror)
    shutil.copy(case.root / "vendored" / "lock.yaml", tmp_path / "lock-before.yaml")
    from cit import build
    r = run_in_process(build.main, ["--out", str(tmp_path / "up"), "--vendor-from",
                                    str(mirror)], case.root, None)
    assert r.returncode == 1
    assert r.stderr == (f"build failed: --out {tmp_path / 'up'}: holds {mirror}, which the "
                        "build reads; refusing to write there (nothing was changed)\n")


def test_out_a_symlink_loop(case, tmp_path):
    """T5: a loop of symlinks is one line, not a RuntimeError traceback."""
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    err = case.run_out(tmp_path / "a", process=True).stderr
    assert err == (f"build failed: --out {tmp_path / 'a'}: is a symlink loop (or a symlink "
                   "that cannot be followed); nothing was changed\n")


# A process that runs one of our commands with a pause injected at `module:function`,
# just before or just after the call (the review's strace delay, in Python): it touches
# `marker` and sleeps `seconds`, so that the test can kill or interrupt it right there.
PAUSED = r"""
import importlib, os, sys, time
root, target, when, marker, seconds, entry = sys.argv[1:7]
sys.path.insert(0, root)
module, name = target.split(":")
mod = importlib.import_module(module)
real = getattr(mod, name)
def paused(*args, **kwargs):
    if when == "before":
        open(marker, "w").close(); time.sleep(float(seconds))
    value = real(*args, **kwargs)
    if when == "after":
        open(marker, "w").close(); time.sleep(float(seconds))
    return value
setattr(mod, name, paused)
sys.exit(importlib.import_module(entry).main(sys.argv[7:]))
"""


def _as_from_a_shell():
    """The child's Ctrl-C and SIGTERM as a shell gives them: delivered, not ignored. A
    child inherits its parent's signal mask and ignored signals, and the test worker may
    have SIGINT blocked or ignored (a full run left it so: the build then slept its
    pause out and exited 0)."""
    import signal
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def paused_process(root, target, when, marker, args, entry="cit.build", seconds=60):
    import subprocess
    import sys
    return subprocess.Popen([sys.executable, "-c", PAUSED, str(root), target, when,
                             str(marker), str(seconds), entry, *args], cwd=root,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_as_from_a_shell)


def wait_for(marker, proc):
    import time
    while not marker.exists():
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.01)


class SiteWatch:
    """A thread that looks at `out` as a web server would, every millisecond: counts
    the looks, and the looks that found no site (no folder or no numbers.json)."""

    def __init__(self, out):
        import threading
        self.out, self.looks, self.absent, self.stop = out, 0, 0, threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        import time
        while not self.stop.is_set():
            try:
                with open(self.out / "numbers.json", "rb") as f:
                    f.read(16)
            except OSError:
                self.absent += 1
            self.looks += 1
            time.sleep(0.001)

    def end(self):
        self.stop.set()
        self.thread.join()
        return self.looks, self.absent


def _leftovers(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".site-"))


def test_a_build_killed_at_the_swap_leaves_the_old_or_the_new_site_never_none(
        case, tmp_path, measured):
    """D3 and C1: the swap is one renameat2(RENAME_EXCHANGE). A build is SIGKILLed just
    before it, then another just after it; a reader looking every millisecond always
    finds a site: the old one byte for byte, then the new one; the next build removes
    what the killed ones left."""
    import os
    import signal
    out = tmp_path / "site"
    old = tree_digest(out)
    p = case.root / "content" / "pages" / "notebook.md"
    p.write_text(p.read_text() + "\nA changed sentence :x[scope].\n")
    watch = SiteWatch(out)
    for when in ("before", "after"):
        marker = tmp_path / f"paused-{when}"
        proc = paused_process(case.root, "cit.atomic:_renameat2", when, marker,
                              ["--out", str(out)])
        wait_for(marker, proc)
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate()
        assert _leftovers(tmp_path) == [f".site-new-{proc.pid}-" + _leftovers(tmp_path)[0]
                                        .rsplit("-", 1)[1]]
        if when == "before":
            assert tree_digest(out) == old
        else:
            new = tree_digest(out)
            assert new != old and new["notebook/index.html"] != old["notebook/index.html"]
    looks, absent = watch.end()
    measured(f"{looks} looks at site/ over two killed builds, {absent} without a site")
    assert looks > 100 and absent == 0
    r = run_build(out, root=case.root, cold=False)
    assert r.returncode == 0, r.stderr
    assert tree_digest(out) == new and _leftovers(tmp_path) == []


@pytest.mark.parametrize("when", ["during", "swap"])
def test_ctrl_c_prints_one_line_and_leaves_a_whole_site(case, tmp_path, when):
    """T8 and D3: Ctrl-C while the pages are rendered leaves the previous site as it
    was; Ctrl-C during the swap (signals are held for it) lets the swap finish. Either
    way one line on stderr, exit 130, no traceback, nothing left beside the site."""
    import os
    import signal
    out = tmp_path / "site"
    old = tree_digest(out)
    p = case.root / "content" / "pages" / "notebook.md"
    p.write_text(p.read_text() + "\nA changed sentence :x[scope].\n")
    marker = tmp_path / "paused"
    target = "cit.render:render_site" if when == "during" else "cit.atomic:_renameat2"
    # the pause is how long the test may take to send its signal: SIGINT ends a pause
    # in the render at once, so it can be long; in the swap the signal is held until the
    # swap is done, so that pause is always waited out (under two CPU burners a 2 s one
    # was too short: the build had ended before the signal came)
    proc = paused_process(case.root, target, "before", marker, ["--out", str(out)],
                          seconds=60 if when == "during" else 15)
    wait_for(marker, proc)
    os.kill(proc.pid, signal.SIGINT)
    _, err = proc.communicate()
    assert proc.returncode == 130
    if when == "during":
        assert err == f"build interrupted: {out} is as it was (nothing written)\n"
        assert tree_digest(out) == old
    else:
        assert err == f"build interrupted: {out} holds the new site (it was in place)\n"
        assert tree_digest(out)["notebook/index.html"] != old["notebook/index.html"]
    assert _leftovers(tmp_path) == []


def test_sigterm_ends_a_build_as_ctrl_c_does(case, tmp_path):
    import os
    import signal
    out = tmp_path / "site"
    old = tree_digest(out)
    marker = tmp_path / "paused"
    proc = paused_process(case.root, "cit.render:render_site", "before", marker,
                          ["--out", str(out)], seconds=5)
    wait_for(marker, proc)
    os.kill(proc.pid, signal.SIGTERM)
    _, err = proc.communicate()
    assert (proc.returncode, err) == (130, f"build interrupted: {out} is as it was "
                                           "(nothing written)\n")
    assert tree_digest(out) == old and _leftovers(tmp_path) == []


def _old_scenario(root):
    """The scenario with its first fitted value nudged: calibrate writes it back."""
    from study.sim.scenario import load_scenario
    p = root / "data" / "sim" / "scenario.yaml"
    s = load_scenario(p)
    key = next(k for k, e in s.entries.items() if e.source == "fitted")
    lines = p.read_text().split("\n")
    j = _scenario_value_line(lines, key)
    lines[j] = lines[j].split("value:")[0] + f"value: {s.entries[key].value * 1.01!r}"
    return "\n".join(lines)


# (command, its arguments, the file it rewrites, how to make that file differ first)
REWRITES = {
    "sim": ("study.sim.__main__", [], "data/sim/results.md",
            lambda root, text: text + "<!-- an older record -->\n"),
    "calibrate": ("study.sim.__main__", ["calibrate"], "data/sim/scenario.yaml",
                  lambda root, text: _old_scenario(root)),
    "lock": ("cit.vendor", ["lock"], "vendored/lock.yaml",
             lambda root, text: text + "# an older lock\n"),
}


def _rewrite_args(name, root, mirror):
    entry, args, rel, older = REWRITES[name]
    return entry, args + (["--from", str(mirror)] if name == "lock" else ["--root", str(root)])


@pytest.mark.parametrize("name", sorted(REWRITES))
def test_a_command_killed_while_rewriting_a_committed_file_leaves_it_whole(
        project_copy, upstream_mirror, tmp_path, name):
    """D2: `python -m study.sim`, `... calibrate` and `python -m cit.vendor lock` write
    through the atomic writer: SIGKILLed with the new bytes written but not yet renamed
    in, the file is its old self byte for byte; the next run replaces it and removes the
    killed run's temporary file."""
    import os
    import signal
    import subprocess
    import sys
    entry, _, rel, older = REWRITES[name]
    path = project_copy / rel
    old = older(project_copy, path.read_text()).encode()
    path.write_bytes(old)
    entry, args = _rewrite_args(name, project_copy, upstream_mirror)
    marker = tmp_path / "paused"
    proc = paused_process(project_copy, "cit.atomic:_keep_mode", "before", marker, args,
                          entry=entry)
    wait_for(marker, proc)
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate()
    assert path.read_bytes() == old
    [part] = [p.name for p in path.parent.iterdir() if p.name.startswith(f".{path.name}.")]
    assert part.startswith(f".{path.name}.{proc.pid}-") and part.endswith(".part")
    r = subprocess.run([sys.executable, "-m", entry, *args], cwd=project_copy,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert path.read_bytes() != old
    assert [p.name for p in path.parent.iterdir() if p.name.startswith(f".{path.name}.")] == []


def test_a_lock_that_cannot_be_written_whole_is_left_as_it_was(project_copy, upstream_mirror):
    """D2 on a full disk: the file-size limit (RLIMIT_FSIZE, SIGXFSZ ignored) makes the
    write fail part way, as a full disk does; the lock stays whole, one line, exit 1."""
    import resource
    import signal
    import subprocess
    import sys
    lock = project_copy / "vendored" / "lock.yaml"
    old = lock.read_bytes() + b"# an older lock\n"
    lock.write_bytes(old)

    def small_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (len(old) // 3, len(old) // 3))
    r = subprocess.run([sys.executable, "-B", "-m", "cit.vendor", "lock", "--from",
                        str(upstream_mirror)], cwd=project_copy, capture_output=True,
                       text=True, preexec_fn=small_files)
    assert (r.returncode, r.stderr) == (1, "error: vendored/lock.yaml: not written (File too "
                                           "large); the lock is as it was\n")
    assert lock.read_bytes() == old
    assert [p.name for p in lock.parent.iterdir() if p.name.startswith(".lock.yaml")] == []


# ---- --serve: a code error in the page, not an ended server; SIGTERM as Ctrl-C ---------

class ServeProcess:
    """`python build.py --serve --port 0` on a project copy, its output read as it comes."""

    def __init__(self, root):
        import subprocess
        import sys
        import threading
        self.proc = subprocess.Popen([sys.executable, "build.py", "--serve", "--port", "0"],
                                     cwd=root, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)
        self.lines = []
        threading.Thread(target=lambda: self.lines.extend(
            line.rstrip("\n") for line in self.proc.stdout), daemon=True).start()

    def line(self, pattern, timeout=120):
        import time
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            found = [m for m in map(re.compile(pattern).search, list(self.lines)) if m]
            if found:
                return found[0]
            assert self.proc.poll() is None, "\n".join(self.lines)
            time.sleep(0.05)
        raise AssertionError(f"no {pattern!r} in:\n" + "\n".join(self.lines))

    def get(self, port, path, host=None):
        import urllib.error
        import urllib.request
        req = urllib.request.Request(f"http://127.0.0.1:{port}{path}",
                                     headers={"Host": host} if host else {})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()


def test_serve_shows_a_syntax_error_in_the_code_and_stops_on_sigterm(case, tmp_path):
    """T7, S4, C8: with the preview running on the port the system chose (announced as
    such, not as 0), a syntax error saved into cit/fmt.py is shown, with file and line,
    in the terminal and to the page, and the last good site stays served; another Host
    is refused; SIGTERM stops it as Ctrl-C does."""
    import signal
    server = ServeProcess(case.root)
    try:
        port = int(server.line(r"serving http://127\.0\.0\.1:(\d+)/").group(1))
        assert port != 0
        status, hub = server.get(port, "/")
        assert status == 200 and b"<main" in hub
        assert server.get(port, "/", host="evil.example")[0] == 421
        fmt = case.root / "cit" / "fmt.py"
        lines = fmt.read_text().split("\n")
        fmt.write_text("\n".join(lines) + "def broken(:\n")
        message = f"cit/fmt.py:{len(lines)}: SyntaxError: invalid syntax"
        server.line(re.escape(f"build failed: {message}"))
        assert json.loads(server.get(port, "/__cit/wait?v=")[1])["error"] == message
        status, again = server.get(port, "/")
        token = re.compile(rb'data-token="[^"]*"')
        assert status == 200 and token.sub(b"", again) == token.sub(b"", hub)
        server.proc.send_signal(signal.SIGTERM)
        assert server.proc.wait(60) == 0
        server.line("^stopped$")
        assert "Traceback" not in "\n".join(server.lines)
    finally:
        if server.proc.poll() is None:
            server.proc.kill()


def test_superscript_digits_and_vulgar_fractions_are_naked_numbers(case):
    """W2: `⁴²` and `½` were published; every Unicode number form is a digit now."""
    p = case.root / "content" / "pages" / "optics.md"
    p.write_text(p.read_text() + "\nThere were ⁴² runs and ½ of them failed.\n")
    line = len(p.read_text().splitlines())          # the line the test added
    err = case.run().stderr
    assert err.startswith("build failed: naked-number check: digits outside number "
                          "elements (write each as a registered number, :n[id], or allow "
                          "it with a reason in data/allowlist.yaml; docs/numbers.md):\n  "
                          f"content/pages/optics.md:{line} (optics/index.html): naked "
                          "number '⁴²' in “")
    assert f"\n  content/pages/optics.md:{line} (optics/index.html): naked number '½' in “" in err
    assert "There were ⁴² runs and ½ of them failed. " in err


# ---- odd entries in the content folders (T4, C5): named, never hung on or skipped ------

def _make_odd(path, kind):
    import os
    if kind == "folder":
        path.mkdir(parents=True)
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("---\ntitle: Extra\ndescription: Extra.\nlayout: page\n---\n\nWords.\n")


ODD_ENTRIES = [
    ("content/pages/extra.MD", "file", "not read: only `*.md` files are pages here (this is "
                                       "a file with another suffix)"),
    ("content/pages/sub/extra.md", "file", "not read: only `*.md` files are pages here "
                                           "(this is a folder; sub-folders are not read)"),
]


@pytest.mark.parametrize("rel,kind,why", ODD_ENTRIES, ids=[o[0] for o in ODD_ENTRIES])
def test_an_odd_entry_in_a_content_folder(case, rel, kind, why):
    _make_odd(case.root / rel, kind)
    shown = rel if not rel.endswith("sub/extra.md") else "content/pages/sub"
    assert case.run().stderr == f"build failed: {shown}: {why}\n"


def test_an_editors_working_files_are_passed_over(case, tmp_path):
    pages = case.root / "content" / "pages"
    for name in (".optics.md.swp", "optics.md~", "#optics.md#"):
        (pages / name).write_text("half a save\n")
    r = run_build(tmp_path / "fresh", root=case.root, env={"CIT_VENDOR_MIRROR": ""},
                  cold=False)
    assert r.returncode == 0, r.stderr


# ---- the caches and the flags (C2, C7, C9) -----------------------------------------------

def test_a_damaged_page_blob_is_reported_once_and_repaired(case, tmp_path):
    """C2: the damaged blob was kept (write_blob skips a name that exists), so every
    later build reported it again, saying "building cold" when one page was rendered."""
    out = tmp_path / "site"
    r = run_build(out, root=case.root, cold=False)
    assert r.returncode == 0 and re.search(r"^render: 0 of \d+ pages rendered", r.stdout,
                                           re.M), r.stdout + r.stderr
    records = json.loads((case.root / ".cache" / "pages.json").read_bytes().split(b"\n", 1)[1])
    page, rec = sorted(records.items())[0]
    blob = case.root / ".cache" / f"blob-{rec['html']}"
    data = bytearray(blob.read_bytes())
    data[10] ^= 1
    blob.write_bytes(bytes(data))
    r = run_build(out, root=case.root, cold=False)
    assert r.returncode == 0, r.stderr
    assert r.stderr == (f"cache .cache/{blob.name} discarded: its SHA-256 does not match "
                        "its name (damaged); it is made again\n")
    assert f"\nrender: 1 of {len(records)} pages rendered ({page});" in r.stdout, r.stdout
    r = run_build(out, root=case.root, cold=False)
    assert (r.returncode, r.stderr) == (0, "")
    assert f"\nrender: 0 of {len(records)} pages rendered;" in r.stdout, r.stdout


def test_a_file_where_the_cache_folder_goes_is_one_line(case, tmp_path, warm_copy):
    """C9: a regular file named .cache gave one line per cache file (44)."""
    shutil.rmtree(case.root / ".cache")
    (case.root / ".cache").write_text("x\n")
    out = tmp_path / "fresh"
    r = run_build(out, root=case.root, cold=False)
    assert (r.returncode, r.stderr) == (0, "cache folder .cache is not a folder; building "
                                           "cold, no cache written\n")
    assert tree_digest(out) == tree_digest(warm_copy[1])     # a copy's site, as this one
    assert (case.root / ".cache").read_text() == "x\n"


def test_check_writes_no_site_and_no_cache(case, tmp_path, upstream_mirror):
    """C7: --check wrote 92 paths under .cache/ and vendored/ (the README says it writes
    nothing): with a warm cache it reads it, as it was; with no cache and no upstream
    files in vendored/ it fetches them from the mirror into memory, builds cold and
    writes nothing anywhere in the project."""
    from cit import build
    before = tree_digest(case.root / ".cache")
    r = run_in_process(build.main, ["--check"], case.root, None)
    assert r.returncode == 0 and "Nothing written (--check)." in r.stdout, r.stderr
    assert tree_digest(case.root / ".cache") == before
    shutil.rmtree(case.root / ".cache")
    for entry in (case.root / "vendored").iterdir():
        if entry.name not in ("lock.yaml", "plotly"):      # what a fresh clone holds
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    project = sorted(p.relative_to(case.root).as_posix() for p in case.root.rglob("*"))
    r = run_in_process(build.main, ["--check"], case.root,
                       {"CIT_VENDOR_MIRROR": str(upstream_mirror)})
    assert r.returncode == 0, r.stderr
    assert sorted(p.relative_to(case.root).as_posix() for p in case.root.rglob("*")) == project
    assert re.search(r"^render: (\d+) of \1 pages rendered ", r.stdout, re.M), r.stdout


@pytest.mark.parametrize("flag", ["--check", "--out"])
def test_serve_refuses_the_flags_it_cannot_honour(case, tmp_path, flag):
    """C7: --serve ignored --check (and --out); it now says so, and --no-cache is used."""
    from cit import build
    args = ["--serve", flag] + ([str(tmp_path / "x")] if flag == "--out" else [])
    r = run_in_process(build.main, args, case.root, None)
    assert r.returncode == 2
    assert r.stderr == ("python build.py: --serve writes nothing and checks as it builds: it "
                        f"takes --port, --no-cache and --vendor-from, not {flag}\n")


# ---- the run-log schema, strict as documented (W3, T2, T3, C4) --------------------------

def _edit_eval(case, change):
    """`change(record)` applied to the log's last eval record (its text rewritten by
    hand, so that a duplicate key survives); returns the log's path and line."""
    path, rel = case.log()
    lines = path.read_text().splitlines()
    i = max(k for k, l in enumerate(lines) if json.loads(l)["type"] == "eval")
    lines[i] = change(lines[i])
    case.repin(rel, ("\n".join(lines) + "\n").encode())
    return rel, i + 1


SCHEMA_BREAKS = {
    # the review's case: the last value of a key given twice won, silently
    "duplicate-key": (lambda l: l.replace('"val_loss":', '"val_loss": 2.15, "val_loss":', 1),
                      "key 'val_loss' given twice in one record"),
    "number-as-string": (lambda l: re.sub(r'"val_loss": ([0-9.]+)', r'"val_loss": "\1"', l),
                         "bad eval record: val_loss: Input should be a valid number"),
    "true-as-number": (lambda l: re.sub(r'"step": \d+', '"step": true', l),
                       "bad eval record: step: Input should be a valid integer"),
    "float-as-int": (lambda l: re.sub(r'"step": (\d+)', r'"step": \1.5', l),
                     "bad eval record: step: Input should be a valid integer"),
    "negative-loss": (lambda l: re.sub(r'"val_loss": ([0-9.]+)', r'"val_loss": -\1', l),
                      "bad eval record: val_loss: Input should be greater than or equal to 0"),
    "negative-step": (lambda l: re.sub(r'"step": (\d+)', r'"step": -\1', l),
                      "bad eval record: step: Input should be greater than or equal to 0"),
    # C4: pandas warned of an overflow on stderr, then a 600-digit mean ± inf was printed
    "too-large": (lambda l: re.sub(r'"val_loss": ([0-9.]+)', r'"val_loss": 1e308', l),
                  "bad eval record: val_loss: Value error, 1e+308 is out of range: the "
                  f"summaries square it, so a logged value must lie within ±{LARGEST:g}"),
}


@pytest.mark.parametrize("kind", sorted(SCHEMA_BREAKS))
def test_a_run_log_record_the_strict_schema_refuses(case, kind):
    change, why = SCHEMA_BREAKS[kind]
    rel, line = _edit_eval(case, change)
    assert case.run().stderr == f"build failed: {rel}:{line}: {why}\n"


def test_a_deeply_nested_json_line(case):
    """T3: a RecursionError traceback before."""
    path, rel = case.log()
    lines = path.read_text().splitlines()
    lines.insert(2, "[" * 100_000 + "]" * 100_000)
    case.repin(rel, ("\n".join(lines) + "\n").encode())
    assert case.run().stderr == f"build failed: {rel}:3: not valid JSON here: nested too deeply\n"


def test_a_shakespeare_log_without_eval_records(case):
    """T2: a `KeyError: 100` traceback before; the run is named, with the step its
    table cell needs and the reference run that has it."""
    study = yaml.safe_load((case.root / "data" / "study.yaml").read_text())
    folder, spec = study["shakespeare"]["folder"], study["shakespeare"]["rows"]
    ref = spec[0]["file"]
    ref_steps = [json.loads(l)["step"] for l in (case.root / "vendored" / folder / ref)
                 .read_text().splitlines() if json.loads(l)["type"] == "eval"]
    other = next(r["file"] for r in spec[1:])
    rel = f"{folder}/{other}"
    kept = [l for l in (case.root / "vendored" / rel).read_text().splitlines()
            if json.loads(l)["type"] != "eval"]
    case.repin(rel, ("\n".join(kept) + "\n").encode())
    step = min(s for s in ref_steps if s % 100 == 0)
    assert case.run().stderr == (f"build failed: {rel}: no eval record at step {step}, which "
                                 f"results.md's table shows for every run (as {folder}/{ref} "
                                 "has)\n")


# ---- errors that say where, briefly (C4) ---------------------------------------------

def test_a_huge_undefined_term_is_quoted_briefly(case):
    """The review's 300 KB line: `:t[` a hundred thousand times, then `]`."""
    p = case.root / "content" / "pages" / "notebook.md"
    p.write_text(p.read_text() + "\n" + ":t[" * 100_000 + "]\n")
    err = case.run().stderr
    assert len(err) < 300 and err.count("\n") == 1, err[:300]
    assert err.startswith("build failed: content/pages/notebook.md:")


def test_a_build_on_a_full_disk_is_refused_whole_with_no_leftovers(case, tmp_path):
    """C3: the file-size limit (RLIMIT_FSIZE, SIGXFSZ ignored) fails writes part way, as
    a full disk does. The previous site stays, no cache `*.part` file is left, and no
    message says `None`; the last line names the site file that could not be written.
    The fault is certain whatever the caches and the previous site hold: the sentence
    added is new to both (a fresh word), so the page's HTML must be written to the site
    and to the cache, and the limit is below the size of that page before the edit."""
    import random
    import resource
    import signal
    import string
    import subprocess
    import sys
    out = tmp_path / "site"
    old = tree_digest(out)
    p = case.root / "content" / "pages" / "notebook.md"
    word = "".join(random.choices(string.ascii_lowercase, k=16))
    p.write_text(p.read_text() + f"\nA changed sentence, {word} :x[scope].\n")
    limit = (out / "notebook" / "index.html").stat().st_size // 2

    def small_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    r = subprocess.run([sys.executable, "-B", "build.py", "--out", str(out)], cwd=case.root,
                       capture_output=True, text=True, preexec_fn=small_files)
    assert r.returncode == 1 and "None" not in r.stderr and "Traceback" not in r.stderr
    # one line for the caches, however many of them the build meant to write (it said
    # `cache not written` once per cache file), then the one for the site
    first, last = r.stderr.strip().splitlines()
    assert re.fullmatch(r"cache not written \(File too large: \.cache/[\w.-]+\); this build "
                        r"writes no more of \.cache/, and the next one computes again what "
                        r"is missing", first), r.stderr
    assert re.fullmatch(rf"build failed: --out {re.escape(str(out))}: writing the site failed "
                        rf"\(File too large: {re.escape(str(out))}/[\w./-]+\); the previous "
                        r"output is untouched", last), r.stderr
    assert tree_digest(out) == old and _leftovers(tmp_path) == []
    assert [q.name for q in (case.root / ".cache").iterdir() if q.name.endswith(".part")] == []


def test_a_javascript_link_hidden_by_an_entity_is_named_by_its_line(case):
    """C4/C5: `java&#x09;script:` was reported against the built page with no Markdown
    line, and a plain `javascript:` link vanished from the page without a word."""
    p = case.root / "content" / "pages" / "method.md"
    p.write_text(p.read_text() + "\n[c](java&#x09;script:alert(document.domain))\n")
    line = len(p.read_text().splitlines())
    assert case.run().stderr == (
        f"build failed: content/pages/method.md:{line}: link "
        "'[c](java&#x09;script:alert(document.domain))': a javascript: URL is refused (it "
        "would run code in the reader's browser)\n")


# Where the system has no renameat2 exchange, the swap is two renames: this process
# writes a small site over `out` that way and is SIGKILLed between the two renames.
KILLED_BETWEEN_RENAMES = r"""
import os, signal, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from cit import atomic, output
atomic._renameat2 = lambda *args: False        # a system without the exchange
real, calls = os.rename, []
def rename(src, dst):
    calls.append(dst)
    if len(calls) == 2:                         # the old site moved aside, the new not in
        os.kill(os.getpid(), signal.SIGKILL)
    real(src, dst)
os.rename = rename
output.write_site({"numbers.json": b'{"build": {"commit": "c", "commit_date": "d"}}',
                   "index.html": b"new"}, Path(sys.argv[2]))
"""


def test_a_build_killed_between_the_fallback_renames_gets_the_old_site_back(case, tmp_path):
    """The two-rename fallback (no renameat2 exchange): a build killed between the
    renames left no site/ and the previous one under .site-old-PID-HEX, which the next
    build's sweep then deleted, so a next build that failed left no site at all. Now the
    next build puts the previous site back first; failing, it leaves it as it was."""
    import signal
    import subprocess
    import sys
    from tests.conftest import ROOT
    out = tmp_path / "site"
    old = tree_digest(out)
    r = subprocess.run([sys.executable, "-c", KILLED_BETWEEN_RENAMES, str(ROOT), str(out)],
                       capture_output=True, text=True)
    assert r.returncode == -signal.SIGKILL, r.stderr
    aside = [p for p in tmp_path.iterdir() if p.name.startswith(".site-old-")]
    assert not out.exists() and len(aside) == 1 and tree_digest(aside[0]) == old
    p = case.root / "content" / "pages" / "optics.md"
    p.write_text(p.read_text() + "\nHere is :n[nowhere.to.be.found].\n")
    err = case.run().stderr       # fails; checks site/ is the old one and nothing is left
    assert err.startswith(f"{out}: the previous site put back from {aside[0].name}, where a "
                          "build killed between the two renames of its swap left it\n"), err
