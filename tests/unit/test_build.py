"""The whole build: output, determinism, atomicity, and every number traced to its source."""

import json
import re
import shutil
from html.parser import HTMLParser

import pytest

from cit.markup import kind_attribute
from study import resultsmd
from tests.conftest import ROOT, give_caches, run_build, run_build_process, tree_digest


class NumberElements(HTMLParser):
    """Collects every <data class="num"> element: (data-id, value, kind, text)."""

    def __init__(self):
        super().__init__()
        self.found, self._open = [], None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "data" and "num" in (a.get("class") or "").split():
            self._open = [a.get("data-id"), a.get("value"), a.get("data-kind"), ""]

    def handle_data(self, data):
        if self._open is not None:
            self._open[3] += data

    def handle_endtag(self, tag):
        if tag == "data" and self._open is not None:
            self.found.append(tuple(self._open))
            self._open = None


def number_elements(html: str):
    p = NumberElements()
    p.feed(html)
    return p.found


def test_the_build_writes_the_hub_and_numbers_json(built_site):
    assert (built_site / "index.html").is_file()
    data = json.loads((built_site / "numbers.json").read_text())
    assert data["numbers"] and data["build"]
    assert len(data["numbers"]) == data["build"]["site_numbers"]


def test_a_failed_build_leaves_the_previous_site_untouched(project_copy, built_site, warm_copy,
                                                          tmp_path):
    """End to end in a fresh process, as a user meets it: exit status 1, one line on
    stderr naming the file and line, no traceback, the previous site as it was. (The
    untouched project's caches spare it the data stages the content edit does not
    reach.)"""
    give_caches(warm_copy, project_copy)
    out = tmp_path / "site"
    shutil.copytree(built_site, out)   # a site a previous build wrote
    before = tree_digest(out)
    hub = project_copy / "content" / "hub.md"
    hub.write_text(hub.read_text() + "\nA reference to :n[no.such.id] here.\n")
    r = run_build_process(out, root=project_copy, cold=False)
    assert r.returncode == 1
    lines = hub.read_text().splitlines()
    assert r.stderr == (f"build failed: content/hub.md:{len(lines)}: unknown number id "
                        "'no.such.id' (a stage registers each id with reg.add; "
                        "docs/numbers.md)\n"), r.stderr
    assert tree_digest(out) == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".site-")]


def test_every_number_element_matches_its_registry_entry(built_site):
    numbers = {n["id"]: n for n in json.loads((built_site / "numbers.json").read_text())["numbers"]}
    count = 0
    for page in sorted(built_site.rglob("index.html")):
        for id_, value, kind, text in number_elements(page.read_text()):
            n = numbers[id_]
            assert text == n["text"] and kind == kind_attribute(n["kind"]), (page, id_)
            assert n["provenance"]["sources"] and n["provenance"]["locator"]
            assert n["provenance"]["computation"]
            count += 1
    print(f"{count} number elements checked against numbers.json")
    assert count > 0


def test_every_upstream_source_carries_commit_and_blob(built_site):
    lock = {f["path"]: f for f in __import__("yaml").safe_load(
        (ROOT / "vendored" / "lock.yaml").read_text())["files"]}
    for n in json.loads((built_site / "numbers.json").read_text())["numbers"]:
        for s in n["provenance"]["sources"]:
            if s["path"].startswith("results/"):
                assert (s["commit"], s["blob_sha1"]) == (lock[s["path"]]["commit"],
                                                         lock[s["path"]]["blob_sha1"])


CELL = re.compile(r'^(?P<file>\S+results\.md) (?P<section>§\d+|top), row "(?P<row>.*)", '
                  r'column "(?P<col>.*)" \(line (?P<line>\d+)\)$')


def test_every_hub_number_that_is_a_results_md_cell_equals_that_cell(built_site, vendored_root):
    numbers = {n["id"]: n for n in json.loads((built_site / "numbers.json").read_text())["numbers"]}
    compared = 0
    for id_, value, kind, text in number_elements((built_site / "index.html").read_text()):
        m = CELL.match(numbers[id_]["provenance"]["locator"])
        if not m:
            continue
        parsed = resultsmd.parse_results_md((vendored_root / m["file"]).read_text())
        table = next(t for t in parsed.tables if any(l == int(m["line"]) for l, _ in t[3]))
        cells = next(c for l, c in table[3] if l == int(m["line"]))
        assert text == cells[table[2].index(m["col"])], id_
        compared += 1
    print(f"{compared} hub numbers compared with their results.md cells")
    assert compared > 0


def test_no_internal_link_or_anchor_is_broken(built_site):
    from cit.links import broken_links
    assert broken_links(built_site) == []


def test_a_build_under_another_clock_and_time_zone_is_byte_identical(built_site, tmp_path):
    """A second cold build, with faketime moving the whole process's clock (libc and
    Python alike) years ahead and the time zone too, is byte-identical to the first: two
    builds agree, whatever the clock says."""
    import os
    import subprocess
    import sys
    if not shutil.which("faketime"):
        pytest.fail("faketime is missing: apt-get install -y faketime (the README's test "
                    "command installs it)")
    out = tmp_path / "shifted"
    env = dict(os.environ, TZ="Pacific/Kiritimati", FAKETIME_DONT_FAKE_MONOTONIC="1")
    r = subprocess.run(["faketime", "2031-02-03 04:05:06", sys.executable,
                        str(ROOT / "build.py"), "--out", str(out), "--no-cache"],
                       cwd=ROOT, capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    probe = subprocess.run(["faketime", "2031-02-03 04:05:06", sys.executable, "-c",
                            "import time; print(time.strftime('%Y'))"],
                           capture_output=True, text=True, env=env).stdout.strip()
    assert probe == "2031"   # the clock really was moved
    assert tree_digest(out) == tree_digest(built_site)


def test_a_rebuild_from_the_data_stage_cache_is_byte_identical_to_a_cold_build(
        project_copy, warm_copy, tmp_path):
    # warm_copy's build found no cache, so it ran every stage as a cold build does, and
    # left the caches this rebuild reads
    assert list(warm_copy[0].glob("data-stages-*.pickle"))
    give_caches(warm_copy, project_copy)
    r = run_build(tmp_path / "second", root=project_copy, cold=False)
    assert r.returncode == 0, r.stderr
    assert "render: 0 of " in r.stdout      # the cached build reused them all
    assert tree_digest(tmp_path / "second") == tree_digest(warm_copy[1])


def test_a_changed_data_file_misses_the_cache_and_runs_every_check(project_copy, warm_copy,
                                                                   tmp_path):
    give_caches(warm_copy, project_copy)      # the untouched project's caches
    p = project_copy / "data" / "sim" / "results.md"
    text = p.read_text()
    i = text.index("## 3.")
    j = i + next(k for k, ch in enumerate(text[i:]) if ch.isdigit() and text[i + k - 1] == " "
                 and text[i + k - 2] == "|")
    p.write_text(text[:j] + str((int(text[j]) + 1) % 10) + text[j + 1:])
    r = run_build(tmp_path / "b", root=project_copy, cold=False)
    assert r.returncode != 0 and "build failed: data/sim/results.md:" in r.stderr


@pytest.mark.parametrize("umask,dirs,files", [(0o022, "755", "644"), (0o027, "750", "640")])
def test_the_site_is_created_with_the_users_umask(project_copy, warm_copy, tmp_path, umask,
                                                  dirs, files):
    """A fresh process (the umask is the process's), in a project copy with the untouched
    project's caches, so the repository's own .cache/ is not written."""
    import os
    import subprocess
    import sys
    give_caches(warm_copy, project_copy)
    out = tmp_path / "site"
    r = subprocess.run([sys.executable, str(project_copy / "build.py"), "--out", str(out)],
                       cwd=project_copy, capture_output=True, text=True,
                       preexec_fn=lambda: os.umask(umask))
    assert r.returncode == 0, r.stderr
    modes = {(p.is_dir(), f"{p.stat().st_mode & 0o777:o}") for p in [out, *out.rglob("*")]}
    assert modes == {(True, dirs), (False, files)}


def test_a_previous_site_is_replaced_and_no_temporary_folder_is_left(
        built_site, project_copy, warm_copy, tmp_path):
    out = tmp_path / "site"
    shutil.copytree(built_site, out)
    (out / "stale.html").write_text("from an older build")
    give_caches(warm_copy, project_copy)      # the copy's build again, from its caches
    r = run_build(out, root=project_copy, cold=False)
    assert r.returncode == 0, r.stderr
    assert tree_digest(out) == tree_digest(warm_copy[1])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["proj", "site"]   # proj: the copy


def test_measured_numbers_are_counted_by_source(built_site):
    """read-report F1: the hub says how many measured numbers are the experiment's and how
    many the site's own benchmarks; the two figures count numbers.json's entries."""
    data = json.loads((built_site / "numbers.json").read_text(encoding="utf-8"))
    measured = [n for n in data["numbers"] if n["kind"] == "measured"]
    bench = [n for n in measured
             if any(s["path"] == "data/benchmarks.yaml" for s in n["provenance"]["sources"])]
    b = data["build"]
    assert b["kind_count.measured"] == len(measured)
    assert b["measured_benchmarks"] == len(bench) > 0
    assert b["measured_study"] == len(measured) - len(bench) > 0
