"""A group with one seed reads "one seed" on our pages, never "± 0.000" (which would
suggest no spread); the number index on /method still lists each results.md cell as
that file prints it (its rows come from /method's provenance script, which the scan
reads with the pages), and the results.md check is unchanged."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cit.markdown import PageContext
from cit.registry import Registry, Source

ZERO_SPREAD = "± 0.000"
# the number index's rows (every registry entry as registered) are built from this script
INDEX_PAGE = "static/prov/method.js"


def zero_spread_pages(site: Path) -> dict[str, int]:
    """Built page (or the number index's script) -> how many times it shows "± 0.000"
    in its text, for those that do."""
    out = {}
    for f in sorted(site.rglob("*.html")) + [site / INDEX_PAGE]:
        n = f.read_text(encoding="utf-8").count(ZERO_SPREAD)
        if n:
            out[f.relative_to(site).as_posix()] = n
    return out


def single_seed_cells(site: Path) -> list[dict]:
    """numbers.json entries whose text is a mean with a zero sample sd."""
    numbers = json.loads((site / "numbers.json").read_text(encoding="utf-8"))["numbers"]
    return [n for n in numbers if n["text"].endswith(ZERO_SPREAD)]


def test_no_built_page_outside_the_number_index_shows_a_zero_spread(built_site):
    found = zero_spread_pages(Path(built_site))
    outside = {page: n for page, n in found.items() if page != INDEX_PAGE}
    assert outside == {}, f'"{ZERO_SPREAD}" on pages outside the number index: {outside}'


def test_the_check_finds_the_zero_spreads_the_number_index_lists(built_site):
    """The same scan does see them where they are: in the index, once per single-seed
    results.md cell. If it found none there it could not be trusted to find any."""
    site = Path(built_site)
    cells = single_seed_cells(site)
    assert cells, "numbers.json has no single-seed mean ± sd: nothing to check against"
    assert zero_spread_pages(site).get(INDEX_PAGE) == len(cells)


def test_the_check_fails_on_a_page_doctored_to_show_a_zero_spread(built_site, tmp_path):
    site = tmp_path / "site"
    for f in Path(built_site).rglob("*.html"):
        dst = site / f.relative_to(built_site)
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_bytes(f.read_bytes())
    for f in ("numbers.json", INDEX_PAGE):
        (site / f).parent.mkdir(parents=True, exist_ok=True)
        (site / f).write_bytes((Path(built_site) / f).read_bytes())
    hub = site / "index.html"
    cell = single_seed_cells(site)[0]
    hub.write_text(hub.read_text(encoding="utf-8").replace(
        "</main>", f"<p>{cell['text']}</p></main>", 1), encoding="utf-8")
    with pytest.raises(AssertionError, match="index.html"):
        test_no_built_page_outside_the_number_index_shows_a_zero_spread(site)


def test_each_single_seed_cell_keeps_its_results_md_text_and_pages_show_its_value(built_site):
    """The registry entry still prints as results.md does (the check compares it); the
    pages show the bare mean's entry followed by "one seed"."""
    site = Path(built_site)
    by_id = {n["id"]: n for n in json.loads((site / "numbers.json").read_text())["numbers"]}
    hub = (site / "notebook" / "index.html").read_text(encoding="utf-8")
    for cell in single_seed_cells(site):
        mean_id = cell["id"].replace("final_loss.", "final_loss_mean.", 1)
        mean = by_id[mean_id]
        assert cell["text"] == f"{mean['text']} {ZERO_SPREAD}"
        shown = re.search(rf'data-id="{re.escape(mean_id)}"[^>]*>([^<]*)</data> '
                          r'<span class="one-seed">\(one seed\)</span>', hub)
        assert shown and shown.group(1) == mean["text"], f"{mean_id} not shown as one seed"


def _context(reg: Registry) -> PageContext:
    return PageContext(reg, "/", "", "content/hub.md", {}, {})


def test_a_one_seed_reference_renders_the_value_and_the_words_and_exact_renders_the_cell():
    src = (Source("data/x.yaml"),)
    reg = Registry()
    reg.add("m.g", 2.5, "2.500", kind="measured", sources=src, locator="l", computation="c")
    reg.add("pm.g", 2.5, "2.500 ± 0.000", kind="measured", sources=src, locator="l", computation="c")
    reg.show_one_seed("pm.g", "m.g")
    ctx = _context(reg)
    shown = ctx.num("pm.g")
    assert 'data-id="m.g"' in shown and ">2.500</data>" in shown and "(one seed)" in shown
    assert ZERO_SPREAD not in shown
    assert ctx.numbers_appearing == {"m.g"}
    exact = ctx.num("pm.g", record=False, exact=True)
    assert 'data-id="pm.g"' in exact and ZERO_SPREAD in exact


def test_showing_an_unknown_number_as_one_seed_fails():
    reg = Registry()
    with pytest.raises(Exception, match="unknown number id"):
        reg.show_one_seed("pm.g", "m.g")
