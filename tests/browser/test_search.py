"""The search box, in Chromium: nothing of it loads with a page (no request for its
script, Pagefind or the index until the reader opens it); a query for a number's id
finds its row of the number index, a query for a glossary term its entry; a result
link takes the reader there; from file:// the box says in one line why it cannot
search and links the site menu; on a deck, keys typed in the box do not drive the deck.
The bytes at load and after a query are measured."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

BYTES = """() => [performance.getEntriesByType('navigation')[0],
                 ...performance.getEntriesByType('resource')]
  .reduce((sum, e) => sum + e.transferSize, 0)"""
SEARCH_REQUESTS = """() => performance.getEntriesByType('resource').map(e => e.name)
  .filter(n => /\\/pagefind\\/|static\\/search\\.(js|css)/.test(n))"""
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def served(built_site, serve_dir) -> tuple[Path, str]:
    return Path(built_site), serve_dir(built_site)


def _open_search(page) -> None:
    """The search box opened as a reader would: the header's Search button, or on a
    deck, whose header is hidden while presenting, the "/" key."""
    if page.locator("button.search-open").is_visible():
        page.click("button.search-open")
    else:
        page.keyboard.press("/")
    page.wait_for_selector("dialog.search-dialog[open]")


def _search(page, words: str) -> list[str]:
    _open_search(page)
    page.fill("dialog .search-input", words)
    page.wait_for_function("() => /result/i.test(document.querySelector('.search-status').textContent)"
                           " || /Nothing/.test(document.querySelector('.search-status').textContent)")
    return page.eval_on_selector_all("dialog .search-results a", "as => as.map(a => a.getAttribute('href'))")


def test_a_query_for_a_number_id_finds_its_row_and_nothing_loads_before_the_box_opens(
        make_page, served, measured):
    site, base = served
    numbers = json.loads((site / "numbers.json").read_text(encoding="utf-8"))["numbers"]
    target = numbers[len(numbers) // 3]["id"]
    page = make_page()
    page.goto(base + "optics/index.html", wait_until="load")
    page.wait_for_timeout(300)
    at_load = page.evaluate(BYTES)
    assert page.evaluate(SEARCH_REQUESTS) == [], "the search box loaded something at load"
    links = _search(page, target)
    after = page.evaluate(BYTES)
    assert f"/method/index.html#n-{target}" in links, links
    assert any("/pagefind/" in n for n in page.evaluate(SEARCH_REQUESTS))
    measured(f"search on /optics: {at_load:,} bytes at load, {after:,} after opening the box and "
             f"one query ({target!r}: {len(links)} links)")
    page.click(f"dialog .search-results a[href='/method/index.html#n-{target}']")
    row = page.locator(f"tr[id='n-{target}']")
    row.wait_for()
    assert "is-target" in row.get_attribute("class")


def test_a_query_for_a_glossary_term_finds_its_entry(make_page, served):
    _, base = served
    glossary = yaml.safe_load((ROOT / "content" / "glossary.yaml").read_text(encoding="utf-8"))
    key, entry = sorted(glossary.items())[-1]
    page = make_page()
    page.goto(base + "index.html")
    links = _search(page, entry["term"])
    assert f"/glossary/index.html#term-{key}" in links, links


def test_a_query_that_matches_nothing_says_so(make_page, served):
    _, base = served
    page = make_page()
    page.goto(base + "index.html")
    assert _search(page, "zzqxjv") == []
    assert "Nothing found" in page.inner_text(".search-status")


def test_from_a_file_url_the_box_says_why_in_one_line_and_links_the_site_menu(browser, served):
    site, _ = served
    ctx = browser.new_context()
    try:
        page = ctx.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto((site / "transit" / "index.html").resolve().as_uri())
        page.click("button.search-open")
        page.wait_for_selector("dialog.search-dialog[open] .search-status a")
        status = page.inner_text(".search-status")
        assert "\n" not in status.strip() and "HTTP" in status, status
        assert page.get_attribute(".search-status a", "href") == "#site-nav"
        assert page.locator("#site-nav a").count() >= 8
        assert page.is_disabled("dialog .search-input")
        assert not errors, errors
    finally:
        ctx.close()


CURRENT_SLIDE = "() => document.querySelector('section.slide.is-current').id"


def test_on_a_deck_keys_typed_in_the_search_box_stay_in_the_box(make_page, served):
    """F, S, O, ? and the slide keys typed into the search box are words of the query:
    no fullscreen, presenter window, overview or key list, and the slide stays; once the
    box is closed the same keys drive the deck again (O opens the overview)."""
    _, base = served
    page = make_page()
    windows = []
    page.context.on("page", lambda p: windows.append(p))
    page.goto(base + "decks/02-training-traffic/index.html#slide-2", wait_until="load")
    slide = page.evaluate(CURRENT_SLIDE)
    _open_search(page)
    box = page.locator("dialog .search-input")
    box.focus()
    page.keyboard.type("fso? FSO")
    for key in ("ArrowRight", "PageDown", "End", "Home", "ArrowLeft"):
        page.keyboard.press(key)
    page.wait_for_timeout(300)
    assert box.input_value() == "fso? FSO"
    assert page.evaluate("document.fullscreenElement") is None
    assert page.locator("html.deck-overview").count() == 0
    assert page.locator("dialog.deck-help[open]").count() == 0
    assert windows == [] and page.evaluate(CURRENT_SLIDE) == slide
    page.click("dialog .search-close")
    page.wait_for_selector("dialog.search-dialog:not([open])", state="attached")
    page.keyboard.press("o")
    page.wait_for_selector("html.deck-overview")


NUMBER_INDEX = "/method/index.html#index-"


def _shown_value(site: Path) -> str:
    """The text of the registry number shown on the most pages (read from numbers.json):
    a query for it matches prose and the number index's rows alike."""
    numbers = json.loads((site / "numbers.json").read_text(encoding="utf-8"))["numbers"]
    return max(numbers, key=lambda n: (len(n["appears"]), n["text"]))["text"]


@pytest.mark.parametrize("words", ["zig-zag", "a value shown on most pages"])
def test_prose_results_come_before_the_number_index(make_page, served, words):
    """Pages' prose first, the number index's pages after them, and the index still
    listed: a reader looking for a word or a value meets the pages that say it."""
    site, base = served
    if words.startswith("a value"):
        words = _shown_value(site)
    page = make_page()
    page.goto(base + "index.html")
    _search(page, words)
    tops = page.eval_on_selector_all("dialog .search-results > li > a",
                                     "as => as.map(a => a.getAttribute('href'))")
    kinds = ["index" if h.startswith(NUMBER_INDEX) else "prose" for h in tops]
    assert "prose" in kinds and "index" in kinds, (words, tops)
    assert kinds == sorted(kinds, key=lambda k: k == "index"), (words, tops)


@pytest.mark.parametrize("key", ["/", "Control+k", "Meta+k"])
def test_slash_and_ctrl_k_open_the_search_box_but_not_while_typing(make_page, served, key):
    _, base = served
    page = make_page()
    page.goto(base + "transit/index.html", wait_until="load")
    page.wait_for_function("document.documentElement.classList.contains('has-js')")
    page.keyboard.press(key)
    page.wait_for_selector("dialog.search-dialog[open]")
    page.wait_for_function("document.activeElement.matches('dialog .search-input')")
    page.click("dialog .search-close")
    # in a field of the page, the key is typed, and no box opens
    page.wait_for_selector("dialog.search-dialog:not([open])", state="attached")
    page.evaluate("""() => { const i = document.createElement('input');
                             i.id = 'typing-here'; document.querySelector('main').prepend(i); }""")
    page.focus("#typing-here")
    page.keyboard.press("/")
    page.wait_for_timeout(200)
    assert page.locator("dialog.search-dialog[open]").count() == 0
    if key == "/":
        assert page.input_value("#typing-here") == "/"
