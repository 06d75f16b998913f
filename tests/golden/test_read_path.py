"""The bad-input matrix, read path (cit/reads.py): links out of the project, lock paths
out of vendored/, stray vendored files, bytes that are not UTF-8, odd files where pages
go. Each fails with one exact line naming the file (and line), exit status 1, the
previous site/ and every user file byte for byte as they were."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from cit.errors import BuildError
from tests.conftest import run_build, run_build_process, tree_digest
from tests.golden.conftest import HEADLINE

USER_FOLDERS = ("content", "data", "templates", "cit")


def _user_files(root):
    return {d: tree_digest(root / d) for d in USER_FOLDERS} | {
        "lock": (root / "vendored" / "lock.yaml").read_bytes()}


def _fails_with(case, line):
    """Build over the previous site: it fails with exactly `line` on stderr, and leaves
    the site and the user's files as they were."""
    users = _user_files(case.root)
    r = case.run()
    assert r.returncode == 1
    assert r.stderr == line + "\n"
    assert _user_files(case.root) == users
    return r


# ---- S1: a link out of the project is refused, never published ------------------------

@pytest.mark.parametrize("target", ["/etc/passwd", "/proc/self/environ"])
def test_a_static_file_linking_out_of_the_project(case, target):
    os.symlink(target, case.root / "templates" / "static" / "leak.txt")
    _fails_with(case, f"build failed: templates/static/leak.txt: a link to "
                      f"{os.path.realpath(target)}, outside the project; the build reads "
                      "only the project's own files")


def test_a_static_folder_linking_out_of_the_project(case, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret\n")
    os.symlink(outside, case.root / "templates" / "static" / "more")
    _fails_with(case, f"build failed: templates/static/more: a link to {outside}, outside "
                      "the project; the build reads only the project's own files")


def test_a_page_linking_out_of_the_project(case, tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text("---\ntitle: Leak\ndescription: Outside.\nlayout: page\n---\n\nWords.\n")
    os.symlink(outside, case.root / "content" / "pages" / "leak.md")
    _fails_with(case, f"build failed: content/pages/leak.md: a link to {outside}, outside "
                      "the project; the build reads only the project's own files")


def test_a_link_inside_the_project_is_read_as_its_target(project_copy, tmp_path):
    """A link that stays inside the project is an ordinary file of it (not the base
    sheet: the build appends the palette to site.css alone)."""
    static = project_copy / "templates" / "static"
    os.symlink("tables.css", static / "again.css")
    r = run_build(tmp_path / "site", root=project_copy)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "site" / "static" / "again.css").read_bytes() == \
        (tmp_path / "site" / "static" / "tables.css").read_bytes()


def test_the_vendor_lock_refuses_a_link_in_the_mirror(upstream_mirror, tmp_path):
    from cit.vendor import write_lock
    mirror = tmp_path / "mirror"
    shutil.copytree(upstream_mirror, mirror)
    os.symlink("/etc/passwd", mirror / "results" / "passwd.txt")
    lock = tmp_path / "lock.yaml"
    lock.write_text("unchanged\n")
    with pytest.raises(BuildError) as e:
        write_lock(mirror, lock, patterns=["results/*"])
    assert str(e.value) == (f"{mirror}/results/passwd.txt: a link in the mirror; the lock "
                            "pins only the mirror's own files")
    assert lock.read_text() == "unchanged\n"


# ---- S2: a lock path stays inside vendored/ ---------------------------------------------

@pytest.mark.parametrize("path", ["../escape.txt", "/tmp/escape.txt", "results/../../x.txt"])
def test_a_lock_path_outside_vendored(case, path):
    lock = case.root / "vendored" / "lock.yaml"
    text = lock.read_text()
    line = len(text.splitlines()) + 1
    lock.write_text(text + f"- path: {path}\n  size: 8\n  blob_sha1: "
                           "72579914d378caa0c5d4c4c166eb9fc0d305ba87\n  commit: x\n")
    users = {p: p.read_bytes() for p in case.root.parent.iterdir() if p.is_file()}
    _fails_with(case, f"build failed: vendored/lock.yaml:{line}: path {path!r} leads "
                      "outside vendored/; a pinned file lies under it, by a relative path")
    assert {p: p.read_bytes() for p in case.root.parent.iterdir() if p.is_file()} == users
    assert not (case.root / "escape.txt").exists()


# ---- W1: an unpinned file in vendored/ fails cached and cold alike ---------------------

def _stray(root):
    """A pinned log copied under a name the lock does not pin (an older lock's leftover)."""
    src = sorted((root / "vendored" / HEADLINE).glob("*-s0.jsonl"))[0]
    name = src.name.replace("-s0.jsonl", "-s9.jsonl")
    shutil.copy(src, src.parent / name)
    return f"{HEADLINE}/{name}"


@pytest.mark.parametrize("complete", [True, False])
def test_an_unpinned_log_in_vendored(case, complete):
    rel = _stray(case.root)
    if not complete:
        p = case.root / "vendored" / rel
        p.write_text("\n".join(l for l in p.read_text().splitlines()
                               if json.loads(l)["type"] != "done") + "\n")
    line = (f"build failed: vendored/{rel}: a run log not in vendored/lock.yaml; remove it, "
            "or pin it with `python -m cit.vendor lock`")
    _fails_with(case, line)                       # with the caches
    cold = run_build(case.root.parent / "cold", root=case.root)
    assert cold.returncode == 1 and cold.stderr == line + "\n"


# ---- T1: every text input decoded in one place, naming file and line -------------------

NOT_UTF8 = [
    "content/glossary.yaml", "content/chain.yaml", "content/pages/notebook.md",
    "data/study.yaml", "data/allowlist.yaml", "data/budgets.yaml", "data/benchmarks.yaml",
    "data/sim/scenario.yaml", "data/sim/quoted.yaml", "data/sim/results.md",
    "vendored/lock.yaml", "templates/page.html", "templates/static/site.css",
    "study/static/explorer.js",
]


# Each is named alone, by file and line: the comparing-sentence check (cit/sentences.py)
# reads the content, glossary, chain and templates through the build's Reads before any
# page or block is rendered; explorer.js is read as a static file, like site.css.


@pytest.mark.parametrize("rel", NOT_UTF8)
def test_a_byte_that_is_not_utf8(case, rel):
    p = case.root / rel
    data = p.read_bytes()
    cut = data.index(b"\n", len(data) // 2) + 1      # the start of a line mid-file
    line = data.count(b"\n", 0, cut) + 1
    p.write_bytes(data[:cut] + b"caf\xe9 " + data[cut:])
    _fails_with(case, f"build failed: {rel}:{line}: not UTF-8 (byte 0xe9 at column "
                      "4); save the file as UTF-8")


def test_a_run_log_byte_that_is_not_utf8(case):
    path, rel = case.log()
    lines = path.read_bytes().split(b"\n")
    lines[2] = lines[2].replace(b'"type"', b'"typ\xe9"', 1)
    case.repin(rel, b"\n".join(lines))
    column = lines[2].index(b"\xe9") + 1
    # named as every other log error names it, without vendored/ (docs/faults.md, N13)
    _fails_with(case, f"build failed: {rel}:3: not UTF-8 (byte 0xe9 at column "
                      f"{column}); save the file as UTF-8")


def test_a_c_locale_builds_the_same_site(project_copy, tmp_path):
    """Every read decodes UTF-8 itself: under LC_ALL=C with Python's UTF-8 mode and
    locale coercion off, the build gives the same site."""
    env = {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}
    r = run_build_process(tmp_path / "c", root=project_copy, env=env)
    assert r.returncode == 0, r.stderr
    ref = run_build(tmp_path / "ref", root=project_copy)
    assert ref.returncode == 0, ref.stderr
    assert tree_digest(tmp_path / "c") == tree_digest(tmp_path / "ref")


# ---- T4: a folder or FIFO where a page goes ----------------------------------------------

@pytest.mark.parametrize("kind", ["folder", "fifo"])
def test_a_page_that_is_not_a_file(case, kind):
    p = case.root / "content" / "pages" / "odd.md"
    p.mkdir() if kind == "folder" else os.mkfifo(p)
    _fails_with(case, "build failed: content/pages/odd.md: not a regular file (a folder, a "
                      "FIFO or a device); the build reads only files here")


# ---- the fork hazard: the build forks nowhere ---------------------------------------------

FORK_REFUSED = """
import os, sys
def refuse(*a, **k):
    raise SystemExit("the build forked")
os.fork = refuse
sys.path.insert(0, ".")
from cit import build
sys.exit(build.main(sys.argv[1:]))
"""


def test_a_cold_build_forks_no_process(project_copy, tmp_path):
    """A fresh process (one Python thread, numpy's OpenBLAS threads once pandas is
    imported): the build runs every stage in it, and forks nowhere (a fork raises)."""
    r = subprocess.run([sys.executable, "-c", FORK_REFUSED, "--no-cache", "--out",
                        str(tmp_path / "site")], cwd=project_copy, capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "site" / "index.html").is_file()
