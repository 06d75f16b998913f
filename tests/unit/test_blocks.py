"""The generic blocks over the tiny site: registry tables, the tested table, the number
index and the glossary (cit/blocks/generic.py)."""

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from cit.errors import BuildError

from tests.conftest import ROOT, page_text


def _prov(site, page: str) -> dict:
    """The payload of a page's provenance script (cit/assets.py prov_script)."""
    text = site.files[f"static/prov/{page}.js"].decode("utf-8")
    return json.loads(text[text.index("]=") + 2:].rstrip().rstrip(";"))


def test_the_number_index_holds_every_number_with_where_it_appears_in_closed_groups(
        site, render_registry):
    html = page_text(site, "method/index.html")
    groups = re.findall(r'<details class="index-group" id="index-([^"]+)" data-group="\1">', html)
    assert groups == sorted({i.split(".")[0] for i in render_registry.numbers})
    assert "<tr id=\"n-" not in html, "rows are built when a group is opened, not sent"
    prov = _prov(site, "method")
    assert sorted(prov["n"]) == sorted(prov["x"]["r"]) == sorted(render_registry.numbers)
    pages = [p for p, _ in prov["x"]["p"]]
    raw, shown_on = prov["x"]["r"]["final_loss.A"]
    assert raw == render_registry.numbers["final_loss.A"].raw()
    assert [pages[k] for k in shown_on] == ["../index.html", "../optics/index.html"]
    entry = prov["n"]["final_loss.A"]
    assert prov["t"][entry[5]] == render_registry.numbers["final_loss.A"].locator
    assert entry[2] == render_registry.numbers["final_loss.A"].text


def test_the_number_index_lists_each_file_once_below_the_groups(site, render_registry):
    import html as html_mod
    page = page_text(site, "method/index.html")
    files = [(html_mod.unescape(p), c, b) for p, c, b in re.findall(
        r'<tr><td class="prov"><code>([^<]*)</code></td><td class="prov">([^<]*)</td>'
        r'<td class="prov">([^<]*)</td></tr>', page)]
    want = sorted({(s.path, s.commit or "this repository", s.blob_sha1 or "")
                   for n in render_registry.numbers.values() for s in n.sources})
    assert files and sorted(files) == want and len(set(files)) == len(files)


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
    assert f'data-id="build.checked">{render_registry.numbers["build.checked"].text}<' in html


# ---- the block table (cit/blocks/__init__.py) ------------------------------------------

def _table(render_registry):
    from cit.blocks import BlockInputs, block_table
    from cit.siteconfig import load_site
    # the explorer's payload (a stage's data) is only read when a page uses @[explorer]
    return block_table(BlockInputs(render_registry, ROOT, ROOT / "content",
                                   ROOT / "templates"), load_site(ROOT).blocks)


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


def test_the_engine_alone_registers_no_chart_and_the_study_its_four(render_registry):
    """The engine names no chart (docs/site-config.md, "Charts"): every chart block is a
    provider's; this study's are study/blocks/curves.py's."""
    from cit.blocks import BlockInputs, block_table
    from study.blocks.curves import SPECS
    alone = block_table(BlockInputs(render_registry, ROOT, ROOT / "content", ROOT / "templates"))
    assert not [n for n in alone if n.startswith("chart:")]
    assert {n for n in _table(render_registry) if n.startswith("chart:")} == {
        f"chart:{name}" for name in SPECS}


def test_a_registry_table_named_like_a_generated_block_fails(render_registry):
    from cit.blocks import generic_blocks
    render_registry.add_table("tested", "caption", ("A",), [("x",)])
    with pytest.raises(BuildError) as e:
        generic_blocks(render_registry)
    assert "@[table:tested]" in e.value.message


def test_a_broken_import_in_a_block_module_is_an_import_error(tmp_path):
    pkg = tmp_path / "cit"
    shutil.copytree(ROOT / "cit", pkg, ignore=shutil.ignore_patterns("__pycache__"))
    generic = pkg / "blocks" / "generic.py"
    generic.write_text(generic.read_text().replace(
        "from html import escape as e\n",
        "from html import escape as e\nimport no_such_module_for_this_test\n", 1))
    r = subprocess.run([sys.executable, "-c", "import cit.blocks"], cwd=tmp_path,
                       capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert r.returncode != 0
    assert "ModuleNotFoundError: No module named 'no_such_module_for_this_test'" in r.stderr
    assert "cit/blocks/generic.py" in r.stderr
