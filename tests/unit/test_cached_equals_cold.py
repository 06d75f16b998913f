"""A cached build equals a cold one, byte for byte, after each kind of input edit.

Each case gives a project copy the untouched project's caches (data stages, page
records, memos), edits one kind of input, then builds with the caches and with
`--no-cache`: the two sites are the same file for file, or both builds fail with the
same exit status and the same error line. The caches are keyed by what the last build
read (cit/reads.py), so no edit can slip past them (docs/output.md, "Caches").
"""

import shutil

import pytest
import yaml

from cit.vendor import git_blob_sha1
from tests.conftest import (edit_first_definition, give_caches, run_build,
                            run_build_process, tree_digest)

HEADLINE = "results/tinystories-gpu"


def _append(root, rel, text):
    p = root / rel
    p.write_text(p.read_text(encoding="utf-8") + text, encoding="utf-8")


def _replace(root, rel, old, new):
    p = root / rel
    text = p.read_text(encoding="utf-8")
    assert old in text, (rel, old)
    p.write_text(text.replace(old, new, 1), encoding="utf-8")


def _content(root):
    _append(root, "content/pages/notebook.md", "\nA sentence the test adds, in plain words :x[scope].\n")


def _claimed_sentence(root):
    """A page gains a sentence carrying a claim: the sentence counts that /tested and
    /method show change, so every page showing them must be rendered again."""
    _append(root, "content/pages/optics.md",
            "\nEvery band here trained worse than top-k :c[exp.topk_below_every_band].\n")


def _glossary(root):
    edit_first_definition(root / "content" / "glossary.yaml")


def _chain(root):
    _replace(root, "content/chain.yaml", 'label: "an optical module at each worker :x[label]"',
             'label: "an optical module beside each worker :x[label]"')


def _templates(root):
    _replace(root, "templates/page.html", "{{ body }}", "{{ body }}\n<p>Edited template{# :x[label] #}.</p>")


def _static(root):
    _append(root, "templates/static/site.css", "\n.added-by-the-test { color: inherit; }\n")


def _data_yaml(root):
    _replace(root, "data/budgets.yaml", "sim_regen_s: {value: 10,", "sim_regen_s: {value: 11,")


def _benchmarks(root):
    """A re-measured figure in the benchmarks' record, read by the benchmarks stage only."""
    _replace(root, "data/benchmarks.yaml", "  mkdocs_build_s: ", "  mkdocs_build_s: 1")


def _allowlist(root):
    """A new allow-list entry: the count /tested shows changes; no page's findings do."""
    _append(root, "data/allowlist.yaml",
            "  - pattern: '\\bQ\\d+ of the test\\b'\n    reason: an entry the test adds\n")


def _scenario(root):
    _append(root, "data/sim/scenario.yaml", "# a comment the test adds\n")


def _stray_log(root):
    """An unpinned log left in a vendored folder (what an older lock leaves)."""
    src = sorted((root / "vendored" / HEADLINE).glob("*-s0.jsonl"))[0]
    shutil.copy(src, src.parent / src.name.replace("-s0.jsonl", "-s9.jsonl"))


def _lock(root):
    """A re-pinned log whose text changed without changing its records (a blank line)."""
    rel = f"{HEADLINE}/" + sorted((root / "vendored" / HEADLINE).glob("*.jsonl"))[0].name
    data = (root / "vendored" / rel).read_bytes() + b"\n"
    (root / "vendored" / rel).write_bytes(data)
    lock_path = root / "vendored" / "lock.yaml"
    lock = yaml.safe_load(lock_path.read_text())
    for f in lock["files"]:
        if f["path"] == rel:
            f["size"], f["blob_sha1"] = len(data), git_blob_sha1(data)
    lock_path.write_text(yaml.safe_dump(lock, sort_keys=False))


def _code(root):
    _append(root, "cit/fmt.py", "\n# a comment the test adds\n")


EDITS = {"content page": _content, "claimed sentence": _claimed_sentence,
         "glossary": _glossary, "chain": _chain, "templates": _templates, "static": _static,
         "data yaml": _data_yaml, "benchmarks record": _benchmarks, "allow-list": _allowlist,
         "sim scenario": _scenario, "vendored unpinned file": _stray_log, "lock": _lock,
         "code": _code}
# the data stages an edit makes run again (each is cached under what it read alone,
# cit/stages.py); the others come from the cache. The simulator looks at the
# experiment's numbers, so an edit that runs the experiment runs it too.
STAGES_RUN = {"content page": (), "claimed sentence": (), "glossary": (), "chain": (),
              "templates": (), "static": (), "allow-list": (), "data yaml": ("benchmarks",),
              "benchmarks record": ("benchmarks",), "sim scenario": ("simulator",),
              "lock": ("experiment", "simulator", "benchmarks"),
              "code": ("experiment", "simulator", "benchmarks")}
STAGES = ("experiment", "simulator", "benchmarks")


def _stages_run(stdout: str) -> tuple:
    """The data stages a build ran, read from its stage lines ("experiment: from the
    verified cache ..." for one it did not)."""
    lines = {line.split(":", 1)[0]: line for line in stdout.splitlines()}
    assert all(s in lines for s in STAGES), stdout
    return tuple(s for s in STAGES if ": from the verified cache" not in lines[s])


def _same_outcome(root, tmp_path, process=False):
    """Build cached, then cold; the outcomes must be the same. Returns the cached run."""
    run = run_build_process if process else run_build
    cached = run(tmp_path / "cached", root=root, cold=False)
    cold = run(tmp_path / "cold", root=root)
    assert cached.returncode == cold.returncode, (cached.stderr, cold.stderr)
    if cold.returncode:
        assert cached.stderr == cold.stderr
    else:
        assert tree_digest(tmp_path / "cached") == tree_digest(tmp_path / "cold")
    return cached


@pytest.mark.parametrize("kind", sorted(EDITS))
def test_a_cached_build_equals_a_cold_one_after_each_kind_of_edit(
        project_copy, warm_copy, tmp_path, kind):
    give_caches(warm_copy, project_copy)
    EDITS[kind](project_copy)
    cached = _same_outcome(project_copy, tmp_path, process=kind == "code")
    if kind == "vendored unpinned file":
        assert cached.returncode == 1 and "not in vendored/lock.yaml" in cached.stderr
    else:
        assert cached.returncode == 0, cached.stderr
        assert _stages_run(cached.stdout) == STAGES_RUN[kind]


def test_a_prose_only_page_kept_from_the_cache_is_refused_after_an_allow_list_edit(
        project_copy, warm_copy, tmp_path):
    """The hole the allow-list left: a page with no block, relying on an allow-list
    entry, was kept unchecked after that entry went. Now its record holds the
    allow-list's read, so the cached build re-checks it and fails as a cold one does."""
    give_caches(warm_copy, project_copy)
    _allowlist(project_copy)
    (project_copy / "content" / "pages" / "prose.md").write_text(
        "---\ntitle: Prose :x[scope]\ndescription: Plain words :x[scope].\nlayout: page\n---\n\n"
        "## Prose :x[scope]\n\nIt ran as Q7 of the test :x[scope].\n")
    first = run_build(tmp_path / "first", root=project_copy, cold=False)
    assert first.returncode == 0, first.stderr
    _replace(project_copy, "data/allowlist.yaml",
             "  - pattern: '\\bQ\\d+ of the test\\b'\n    reason: an entry the test adds\n", "")
    cached = _same_outcome(project_copy, tmp_path)
    assert cached.returncode == 1
    prose = (project_copy / "content" / "pages" / "prose.md").read_text().splitlines()
    line = next(n for n, l in enumerate(prose, 1) if "Q7" in l)
    assert cached.stderr.startswith(
        "build failed: naked-number check: digits outside number elements (write each as a "
        "registered number, :n[id], or allow it with a reason in data/allowlist.yaml; "
        f"docs/numbers.md):\n  content/pages/prose.md:{line} (prose/index.html): naked number "
        "'7' in “")
    assert "It ran as Q7 of the test." in cached.stderr and cached.stderr.count("\n") == 2
