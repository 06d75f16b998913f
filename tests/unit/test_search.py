"""The search stage (cit/search.py): what Pagefind is given, and the index it makes,
byte for byte the same on every build of the same pages."""

from __future__ import annotations

import re

from cit import search
from cit.blocks.spec import compute_now

from tests.conftest import page_text


def test_the_index_covers_every_page_the_glossary_s_terms_and_every_number(site, render_registry):
    records = search.search_records(site.files, render_registry.numbers)
    pages = [u for u, _ in records["pages"] if "#" not in u]
    assert pages == sorted("/" + p for p in site.files if p.endswith("index.html"))
    by_url = dict(records["pages"])
    glossary = by_url[search.GLOSSARY_URL]
    terms = re.findall(r'<dt id="(term-[^"]+)">', page_text(site, "glossary/index.html"))
    assert terms and re.findall(r'<h3 id="(term-[^"]+)">', glossary) == terms
    # every number is a heading with its row's id, on a page at its group of /method
    groups = re.findall(r'id="(index-[^"]+)"', page_text(site, "method/index.html"))
    heads = []
    for url, text in records["pages"]:
        if url.startswith(search.INDEX_URL + "#"):
            assert url.split("#")[1].split(".")[0] in groups, url
            found = re.findall(r'<h2 id="n-([^"]+)">', text)
            assert 0 < len(found) <= search.CHUNK
            heads += found
    assert heads == sorted(render_registry.numbers)
    n = render_registry.numbers["final_loss.A"]
    page = next(t for u, t in records["pages"] if '<h2 id="n-final_loss.A">' in t)
    assert n.text in page[page.index('<h2 id="n-final_loss.A">'):]
    # the published pages are not changed by what the index is given
    assert '<h2 id="n-' not in page_text(site, "method/index.html")


def test_a_deck_s_slides_are_found_at_their_slide(site):
    records = dict(search.search_records(site.files, {})["pages"])
    deck = next(u for u in records if u.startswith("/decks/"))
    ids = re.findall(r'<h[1-6][^>]* id="([^"]+)"', records[deck])
    assert ids and all(re.fullmatch(r"slide-\d+", i) for i in ids), ids


def test_two_runs_on_the_same_pages_give_the_same_index_byte_for_byte(site, render_registry):
    records = search.search_records(site.files, render_registry.numbers)
    first = search.search_files(records, compute_now)
    assert "pagefind/pagefind.js" in first and any(k.startswith("pagefind/index/") for k in first)
    assert not any("ui" in k.rsplit("/", 1)[-1] for k in first), "Pagefind's UI is not shipped"
    assert search.search_files(records, compute_now) == first


def test_the_memo_keeps_the_index_under_a_key_of_its_pages(site, render_registry, monkeypatch):
    records = search.search_records(site.files, render_registry.numbers)
    kept: dict = {}
    runs = []

    def memo(name, key, compute):
        if key not in kept:
            kept[key] = compute()
        return kept[key]
    real = search._run_pagefind
    monkeypatch.setattr(search, "_run_pagefind", lambda r: runs.append(1) or real(r))
    a = search.search_files(records, memo)
    assert search.search_files(records, memo) == a and len(runs) == 1
    changed = {"pages": records["pages"][:-1]}
    assert search.search_files(changed, memo) != a and len(runs) == 2


def test_a_pagefind_binary_that_dies_fails_the_build_in_one_line(tmp_path, monkeypatch):
    """A binary that ends before answering (here: one that prints a line and exits 1)
    fails the search stage with one line naming the request and what it said."""
    import pagefind.service

    from cit.errors import BuildError
    fake = tmp_path / "pagefind"
    fake.write_text("#!/bin/sh\necho 'no index today' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setattr(pagefind.service, "get_executable", lambda: fake)
    try:
        search._run_pagefind({"pages": [["/index.html", "<main><p>a page</p></main>"]]})
    except BuildError as e:
        said = str(e)
    else:
        raise AssertionError("a dead Pagefind binary was not refused")
    assert "Pagefind failed" in said and "NewIndex" in said and "no index today" in said
    assert "\n" not in said
