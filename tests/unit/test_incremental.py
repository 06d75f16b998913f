"""Incremental rebuilds: after an edit, the pages whose inputs changed are rendered again
and the others keep their bytes; the output is byte-identical to a cold build, and the
page records are verified before use."""

import json
import re
import shutil
import subprocess
import sys

import pytest

from cit import build, cache
from tests.conftest import edit_first_definition, give_caches, reword, run_build
from tests.conftest import tree_digest


def _rendered(stdout: str) -> str:
    """The build's render line, as 'pages rendered: N of M (pages)' (cit/build.py)."""
    line = next(line for line in stdout.splitlines() if line.startswith("render: "))
    m = re.match(r"render: (\d+) of (\d+) pages? rendered( \([^)]*\.html\))?", line)
    return f"pages rendered: {m[1]} of {m[2]}{m[3] or ''}"


def _cold_equals_incremental(project, tmp_path, name):
    warm = run_build(tmp_path / f"{name}-warm", root=project, cold=False)
    assert warm.returncode == 0, warm.stderr
    cold = run_build(tmp_path / f"{name}-cold", root=project)
    assert cold.returncode == 0, cold.stderr
    assert tree_digest(tmp_path / f"{name}-warm") == tree_digest(tmp_path / f"{name}-cold")
    return _rendered(warm.stdout)


def test_an_edited_page_is_rendered_alone_and_the_site_equals_a_cold_build(
        project_copy, warm_copy, tmp_path):
    give_caches(warm_copy, project_copy)
    md = project_copy / "content" / "pages" / "notebook.md"
    reword(md)
    assert _cold_equals_incremental(project_copy, tmp_path, "edit") == \
        "pages rendered: 1 of 12 (notebook/index.html)"
    # nothing changed since: nothing is rendered, and the site is the same
    again = run_build(tmp_path / "again", root=project_copy, cold=False)
    assert _rendered(again.stdout) == "pages rendered: 0 of 12"
    assert tree_digest(tmp_path / "again") == tree_digest(tmp_path / "edit-cold")


def test_a_new_number_on_a_page_renders_the_pages_that_list_usage_too(
        project_copy, warm_copy, tmp_path):
    """The number index (/method) and the glossary list where each number and term
    appears, so a page that starts showing a number changes them as well."""
    give_caches(warm_copy, project_copy)
    md = project_copy / "content" / "pages" / "notebook.md"
    md.write_text(md.read_text() + "\nThe build's file count is :n[build.upstream_files] :x[number].\n")
    line = _cold_equals_incremental(project_copy, tmp_path, "num")
    assert "notebook/index.html" in line and "method/index.html" in line
    assert "optics/index.html" not in line


def test_a_late_page_edited_alone_is_rendered_alone(project_copy, warm_copy, tmp_path):
    """The glossary and the number index each list the other pages' usage: an edit to
    the glossary page's prose that leaves its usage as it was renders it alone."""
    give_caches(warm_copy, project_copy)
    md = project_copy / "content" / "pages" / "glossary.md"
    reword(md)
    assert _cold_equals_incremental(project_copy, tmp_path, "late") == \
        "pages rendered: 1 of 12 (glossary/index.html)"


def test_a_late_page_whose_usage_changes_renders_the_other_late_pages(
        project_copy, warm_copy, tmp_path):
    """The method page starts linking a term it did not link: the glossary, which lists
    the pages using each term, is rendered again too."""
    give_caches(warm_copy, project_copy)
    records = build.read_page_records(project_copy)
    assert records["method/index.html"].late_names and records["glossary/index.html"].late_names
    term = sorted(set(build.render.load_glossary(
        (project_copy / "content" / "glossary.yaml").read_text(), "g"))
        - set(records["method/index.html"].terms_linked))[0]
    md = project_copy / "content" / "pages" / "method.md"
    md.write_text(md.read_text() + f"\nThe test links :t[{term}] here :x[scope].\n")
    line = _cold_equals_incremental(project_copy, tmp_path, "usage")
    # /tested too: it shows the count of sentences per reason, and the new one has one
    assert line == ("pages rendered: 3 of 12 (glossary/index.html, method/index.html, "
                    "tested/index.html)")


def test_an_edited_glossary_term_renders_every_page(project_copy, warm_copy, tmp_path):
    """Every page's record holds the glossary's read (the provenance scripts carry
    definitions, the glossary page lists them all), so an edited definition renders
    every page, and the site equals a cold build."""
    give_caches(warm_copy, project_copy)
    records = build.read_page_records(project_copy)
    assert all("f:content/glossary.yaml" in r.reads for r in records.values())
    edit_first_definition(project_copy / "content" / "glossary.yaml")
    assert _cold_equals_incremental(project_copy, tmp_path, "term") == \
        f"pages rendered: {len(records)} of {len(records)}"


def test_damaged_page_records_are_discarded_in_a_line_and_every_page_is_rendered(
        project_copy, warm_copy, tmp_path):
    give_caches(warm_copy, project_copy)
    path = cache.json_file(project_copy, build.PAGE_RECORDS)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x20
    path.write_bytes(bytes(data))
    r = run_build(tmp_path / "site", root=project_copy, cold=False)
    assert r.returncode == 0, r.stderr
    assert "discarded: its SHA-256 does not match" in r.stderr
    assert _rendered(r.stdout) == "pages rendered: 12 of 12"
    assert tree_digest(tmp_path / "site") == tree_digest(warm_copy[1])


def test_a_damaged_page_blob_is_discarded_and_its_page_rendered_again(
        project_copy, warm_copy, tmp_path):
    """Each page's HTML is a blob named by its SHA-256; one that does not hash to its
    name is reported in a line, and only its page is rendered again."""
    give_caches(warm_copy, project_copy)
    records = json.loads(cache.json_file(project_copy, build.PAGE_RECORDS).read_bytes()
                         .split(b"\n", 1)[1])
    blob = cache.blob_file(project_copy, records["tested/index.html"]["html"])
    blob.write_bytes(blob.read_bytes().replace(b"<main", b"<mane", 1))
    r = run_build(tmp_path / "site", root=project_copy, cold=False)
    assert r.returncode == 0, r.stderr
    assert f"cache .cache/{blob.name} discarded: its SHA-256 does not match" in r.stderr
    assert _rendered(r.stdout) == "pages rendered: 1 of 12 (tested/index.html)"
    assert tree_digest(tmp_path / "site") == tree_digest(warm_copy[1])
    named = {v for rec in json.loads(cache.json_file(project_copy, build.PAGE_RECORDS)
                                     .read_bytes().split(b"\n", 1)[1]).values()
             for v in (rec["html"], rec["prov"])}
    on_disk = {f.name[len(cache.BLOB_PREFIX):] for f in (project_copy / ".cache").glob(
        f"{cache.BLOB_PREFIX}*")}
    assert named < on_disk and len(on_disk - named) == 1     # the other: numbers.json's


def test_a_blob_name_that_is_not_a_digest_is_never_read(tmp_path):
    (tmp_path / "secret").write_text("not a cache file")
    assert cache.read_blob(tmp_path / "root", "../secret") is None


def test_a_cold_build_writes_no_records(project_copy, tmp_path):
    assert run_build(tmp_path / "site", root=project_copy).returncode == 0
    assert not cache.json_file(project_copy, build.PAGE_RECORDS).exists()
    shutil.rmtree(tmp_path / "site")




NOT_IMPORTED = {"study.sim", "pydantic", "plotly", "pandas", "simpy", "numpy"}


# the notebook has no block; the hub, /optics and /transit have charts, the hub the chain
# diagram, /transit the explorer
EDITED_TOGETHER = {"notebook": ("pages/notebook.md", "notebook/index.html"),
                   "chart pages": (("hub.md", "index.html"), ("pages/optics.md", "optics/index.html"),
                                   ("pages/transit.md", "transit/index.html"))}


@pytest.mark.parametrize("edit", sorted(EDITED_TOGETHER))
def test_a_page_edit_imports_only_what_it_needs(project_copy, warm_copy, tmp_path, edit):
    """A content-only rebuild imports neither the simulator, nor pydantic, pandas, simpy
    or numpy; plotly neither, even for pages with charts (their figures are kept in
    .cache/), and the site equals a cold build's (python -X importtime)."""
    give_caches(warm_copy, project_copy)
    pages = EDITED_TOGETHER[edit]
    pages = [pages] if isinstance(pages[0], str) else list(pages)
    for md, _ in pages:
        path = project_copy / "content" / md
        reword(path)
    r = subprocess.run([sys.executable, "-X", "importtime", str(project_copy / "build.py"),
                        "--out", str(tmp_path / "site")], cwd=project_copy,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    outs = [out for _, out in sorted(pages, key=lambda p: ORDER.index(p[1]))]
    assert _rendered(r.stdout) == f"pages rendered: {len(outs)} of 12 ({', '.join(outs)})"
    imported = {line.rsplit("|", 1)[1].strip() for line in r.stderr.splitlines()
                if line.startswith("import time:")}
    assert "cit.render" in imported     # the parse works: the renderer is there
    assert not imported & NOT_IMPORTED
    assert run_build(tmp_path / "cold", root=project_copy).returncode == 0
    assert tree_digest(tmp_path / "site") == tree_digest(tmp_path / "cold")


ORDER = ["index.html", "notebook/index.html", "optics/index.html", "transit/index.html"]
