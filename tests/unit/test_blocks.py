"""The generic blocks over the tiny site: registry tables, the tested table, the number
index and the glossary (cit/blocks/generic.py)."""

import os
import re
import shutil
import subprocess
import sys

import pytest

from cit.errors import BuildError

from tests.conftest import ROOT, page_text


def test_the_number_index_lists_every_number_with_where_it_appears(site, render_registry):
    html = page_text(site, "method/index.html")
    rows = re.findall(r'<tr id="n-([^"]+)">(.*?)</tr>', html, re.S)
    assert [r[0] for r in rows] == sorted(render_registry.numbers)
    row = dict(rows)["final_loss.A"]
    assert '<a href="../index.html">' in row and '<a href="../optics/index.html">Optics</a>' in row
    assert render_registry.numbers["final_loss.A"].locator in row


def test_the_number_index_lists_each_file_and_shared_computation_once(site, render_registry):
    import html as html_mod
    page = page_text(site, "method/index.html")
    files = {ref: (html_mod.unescape(p), c, b) for ref, p, c, b in re.findall(
        r'<tr id="(f\d+)"><th scope="row" class="prov">F\d+</th><td class="prov"><code>([^<]*)</code>'
        r'</td><td class="prov">([^<]*)</td><td class="prov">([^<]*)</td></tr>', page)}
    hows = {ref: html_mod.unescape(c) for ref, c in re.findall(
        r'<tr id="(c\d+)"><th scope="row" class="prov">C\d+</th><td class="prov">([^<]*)</td></tr>', page)}
    assert files and hows and len(set(files.values())) == len(files)
    assert len(set(hows.values())) == len(hows)
    used = set()
    for i, row in re.findall(r'<tr id="n-([^"]+)">(.*?)</tr>', page, re.S):
        n = render_registry.numbers[i]
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
        refs = re.findall(r'href="#(f\d+)"', cells[4])
        assert [files[r] for r in refs] == [(s.path, s.commit or "this repository", s.blob_sha1 or "")
                                           for s in n.sources], i
        how = re.fullmatch(r'<a href="#(c\d+)">C\d+</a>', cells[6])
        assert (hows[how.group(1)] if how else html_mod.unescape(cells[6])) == n.computation, i
        used |= set(refs) | ({how.group(1)} if how else set())
    assert used == set(files) | set(hows), "every listed file and computation is used"
    shared = [c for c in hows.values()]
    assert all(sum(n.computation == c for n in render_registry.numbers.values()) > 1 for c in shared)


def test_the_glossary_lists_every_term_and_the_pages_that_use_it(site):
    html = page_text(site, "glossary/index.html")
    assert re.findall(r'<dt id="term-([^"]+)">', html) == ["adamw", "demo", "unused-term"]
    entry = html[html.index('id="term-adamw"'):html.index('id="term-demo"')]
    used = re.search(r'<p class="used-on">(.*?)</p>', entry).group(1)
    assert re.findall(r'href="([^"]+)"', used) == ["../decks/02-traffic/index.html", "../optics/index.html"]
    assert 'class="see-also"' in entry and 'data-term="demo"' in entry
    assert site.unused_terms == ["unused-term"]


def test_a_registry_table_renders_with_scoped_headers_and_right_aligned_numbers(site, render_registry):
    html = page_text(site, "optics/index.html")
    table = html[html.index('<table class="data" id="table-final-loss"'):]
    table = table[:table.index("</table>")]
    t = render_registry.tables["final-loss"]
    assert f'<caption id="table-{t.id}-caption">' + t.caption in table
    assert table.count('<th scope="row">') == len(t.rows)
    assert table.count('<td class="n"><data class="num"') == len(t.rows)
    assert '<th scope="col" class="n">' in table


def test_the_tested_table_shows_each_verification_figure(site, render_registry):
    html = page_text(site, "tested/index.html")
    assert '<th scope="row">Things checked</th>' in html
    assert f'data-id="build.checked" data-kind="derived">{render_registry.numbers["build.checked"].text}<' in html


# ---- the block table (cit/blocks/__init__.py) ------------------------------------------

def _table(render_registry):
    from cit.blocks import block_table
    # the explorer's computation is only read when a page uses @[explorer]
    return block_table(render_registry, ROOT / "content", ROOT / "templates", None)


def test_the_block_table_registers_every_kind_of_block_by_name(render_registry):
    table = _table(render_registry)
    assert {"table:number-index", "table:tested", "glossary", "decks", "chart:loss-curves",
            "chart:optics-curves", "chart:band-energy", "chart:sweep", "chain",
            "explorer"} <= set(table)
    assert {f"table:{t}" for t in render_registry.tables} <= set(table)


def test_only_the_glossary_and_the_number_index_are_late_in_that_order(render_registry):
    late = {n: s.late_order for n, s in _table(render_registry).items()
            if s.late_order is not None}
    assert sorted(late, key=late.get) == ["glossary", "table:number-index"]


def test_a_registry_table_named_like_a_generated_block_fails(render_registry):
    from cit.blocks import generic_blocks
    render_registry.add_table("tested", "caption", ("A",), [("x",)])
    with pytest.raises(BuildError) as e:
        generic_blocks(render_registry)
    assert "@[table:tested]" in e.value.message


def test_a_broken_import_in_a_block_module_is_an_import_error(tmp_path):
    pkg = tmp_path / "cit"
    shutil.copytree(ROOT / "cit", pkg, ignore=shutil.ignore_patterns("__pycache__"))
    charts = pkg / "blocks" / "charts.py"
    charts.write_text(charts.read_text().replace(
        "import math\n", "import math\nimport no_such_module_for_this_test\n", 1))
    r = subprocess.run([sys.executable, "-c", "import cit.blocks"], cwd=tmp_path,
                       capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert r.returncode != 0
    assert "ModuleNotFoundError: No module named 'no_such_module_for_this_test'" in r.stderr
    assert "cit/blocks/charts.py" in r.stderr
