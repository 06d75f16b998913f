"""Browser tests of the site's scripts and styles: decks (keys, clicks, swipes, the hash,
print), the chain animation (toggle, packets, reduced motion, no digits), provenance
cards and glossary tooltips, and clean pages (no console error, no outside request).

They run against `CIT_SITE_DIR` when it is set, or a `built_site` fixture (a directory)
when one is defined, and otherwise against a small demo site built here from
templates/static and study/blocks/chain.py. The demo carries no result numbers: its numbers use
placeholder ids and placeholder values written to a JSON file that the pages are then
built from. Tests that need a specific structure (a number inside a slide, a page with
no provenance script) always use the demo site.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from study.blocks.chain import chain_number_ids, load_chain, render_chain
from cit.claims import Claim, check_reference
from cit.registry import Registry, Source
from cit.assets import prov_path, prov_payload, prov_script
from cit.markup import number_element

from .conftest import pdf_pages, tab_to

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "templates" / "static"
STUDY_STATIC = ROOT / "study" / "static"      # the study's own scripts and styles
CHAIN_YAML = ROOT / "content" / "chain.yaml"
DECK = "decks/01-sources/"
# every stylesheet, the base one first (the demo pages link them all, as written)
SHEETS = ("site.css",) + tuple(sorted(p.name for d in (STATIC, STUDY_STATIC)
                                      for p in d.glob("*.css") if p.name != "site.css"))


# ---------------------------------------------------------------- the demo site

def _fake_sha(seed: str) -> str:
    """A well-formed SHA-1 for demo provenance (derived, not a real upstream object)."""
    return hashlib.sha1(seed.encode()).hexdigest()


def _write_demo_numbers(path: Path, chain_ids: list[str]) -> None:
    """The placeholder numbers the demo pages show, written first and read back by the
    page builder, so no page carries a typed-in value."""
    entries = {
        "demo.x": {"value": 0.125, "text": "0.125", "unit": "", "kind": "measured",
                   "provenance": {"sources": [{"path": "results/demo/run-a.jsonl",
                                               "commit": _fake_sha("commit-a"),
                                               "blob_sha1": _fake_sha("blob-a")}],
                                  "locator": "demo run a, last eval record, val_loss",
                                  "computation": "read as recorded"}},
        "demo.y": {"value": 2.5, "text": "2.5x", "unit": "", "kind": "derived",
                   "provenance": {"sources": [{"path": "results/demo/run-a.jsonl",
                                               "commit": _fake_sha("commit-a"),
                                               "blob_sha1": _fake_sha("blob-a")},
                                              {"path": "results/demo/run-b.jsonl",
                                               "commit": _fake_sha("commit-b"),
                                               "blob_sha1": _fake_sha("blob-b")}],
                                  "locator": "config records, dense and payload bytes",
                                  "computation": "dense bytes divided by payload bytes"}},
        "demo.z": {"value": "placeholder", "text": "placeholder", "unit": "",
                   "kind": "hypothetical",
                   "provenance": {"sources": [{"path": "data/sim/demo.md"}],
                                  "locator": "demo table, demo row",
                                  "computation": "simulated, not run"}},
    }
    for k, nid in enumerate(chain_ids, start=1):
        entries[nid] = {"value": k, "text": f"{k:,}", "unit": "", "kind": "illustrative",
                        "provenance": {"sources": [{"path": "content/chain.yaml"}],
                                       "locator": f"demo placeholder for {nid}",
                                       "computation": "a stand-in value for the demo"}}
    path.write_text(json.dumps(entries, indent=1, sort_keys=True), encoding="utf-8")


def _registry_from(path: Path) -> Registry:
    reg = Registry()
    for nid, e in sorted(json.loads(path.read_text(encoding="utf-8")).items()):
        prov = e["provenance"]
        reg.add(nid, e["value"], e["text"], unit=e["unit"], kind=e["kind"],
                sources=[Source(s["path"], s.get("commit"), s.get("blob_sha1"))
                         for s in prov["sources"]],
                locator=prov["locator"], computation=prov["computation"])
    return reg


def _claims_from(numbers_json: Path) -> dict[str, Claim]:
    """The build's checked claims, read back from its numbers.json (the chain's texts
    cite them; the demo shows them as the build does)."""
    out = {}
    for c in json.loads(numbers_json.read_text(encoding="utf-8"))["claims"]:
        out[c["id"]] = Claim(
            c["id"], c["checked"], c["verdict"] == "verified",
            tuple((e["label"], e["text"]) for e in c["evidence"]),
            tuple(Source(s["path"], s.get("commit"), s.get("blob_sha1"))
                  for s in c["provenance"]["sources"]),
            c["provenance"]["computation"], tuple(c["seeds"]),
            one_seed=c["hypothesis"] and not (len(c["seeds"]) >= 2 and max(c["seeds"]) == 1),
            kind=c["kind"], words=tuple((w["word"], w["tested_as"]) for w in c["words"]))
    return out


class _Page:
    """Collects the numbers one page shows, as the render stage's `num` does."""

    def __init__(self, reg: Registry):
        self.reg = reg
        self.used: dict[str, object] = {}
        self.cited: set[str] = set()

    def num(self, nid: str) -> str:
        n = self.reg.get(nid, "demo page")
        self.used[nid] = n
        return number_element(n)

    def claim(self, cid: str, marked: bool, where: str) -> Claim:
        """The checked claim a chain text cites, refused as the build refuses it."""
        c = check_reference(self.reg.claims, cid, marked, where)
        self.cited.add(cid)
        return c

    def prov(self, out: Path, url: str, terms: bool) -> str:
        """Write the page's provenance script as the build does; return its site path."""
        defs = {k: (v["term"], v["definition"]) for k, v in TERMS.items()} if terms else {}
        rel = prov_path(url)
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_bytes(prov_script(url, prov_payload(self.reg, self.used, defs,
                                                              sorted(self.cited))))
        return rel


TERMS = {
    "demo-term": {"term": "Demo term",
                  "definition": "A word the demo pages link to the glossary."},
    "other-term": {"term": "Other term",
                   "definition": "A second word, so two tooltips can differ."},
}


def _page(title: str, depth: int, body: str, *, scripts: list[str], url: str,
          prov: str | None, main_class: str = "", before_main: str = "",
          body_class: str = "") -> str:
    up = "../" * depth
    data = f' data-page="{url}" data-prov="{up}{prov}"' if prov else ""
    data += f' class="{body_class}"' if body_class else ""
    js = "".join(f'<script src="{up}static/{s}" defer></script>\n' for s in scripts)
    css = "".join(f'<link rel="stylesheet" href="{up}static/{s}">\n' for s in SHEETS)
    cls = f' class="{main_class}"' if main_class else ""
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="icon" href="data:,">
{css}</head>
<body{data}>
<a class="skip-link" href="#main">Skip to the content</a>
<header><nav aria-label="Site"><ul><li><a href="{up}">Hub</a></li>
<li><a href="{up}{DECK}">Deck</a></li><li><a href="{up}glossary/">Glossary</a></li></ul></nav></header>
{before_main}<main id="main"{cls}>
{body}
</main>
<footer><p>Demo site for the browser tests.</p></footer>
{js}</body>
</html>
"""


def deck_bar(home: str) -> str:
    """The deck's control bar as templates/deck.html writes it, for the demo deck: its
    one template expression is the link to the hub, `home`."""
    text = (ROOT / "templates" / "deck.html").read_text(encoding="utf-8")
    bar = re.search(r'<nav class="deck-bar".*?</nav>\n', text, re.S).group(0).replace("{{ home }}", home)
    bar = re.sub(r"\{#.*?#\}", "", bar)       # Jinja comments (reason marks) render as nothing
    assert "{" not in bar, "the control bar now needs more of the template"
    return bar


def build_demo_site(out: Path, claims: dict[str, Claim]) -> Path:
    """Write the demo site into `out` and return it (`claims`: the build's, which the
    chain's texts cite)."""
    (out / "static").mkdir(parents=True)
    for f in ("site.js", "cards.js", "deck.js", "deck-views.js", "deck-views.css", "chain.js") + SHEETS:
        shutil.copy2(next(d / f for d in (STATIC, STUDY_STATIC) if (d / f).exists()),
                     out / "static" / f)
    numbers_file = out / "demo-numbers.json"
    _write_demo_numbers(numbers_file, chain_number_ids(load_chain(CHAIN_YAML)))
    reg = _registry_from(numbers_file)
    reg.claims.update(claims)

    hub = _Page(reg)
    body = f"""<h1>Demo hub</h1>
<p>A measured number {hub.num("demo.x")}, a derived one {hub.num("demo.y")} and a
hypothetical one {hub.num("demo.z")}. A <a class="term" href="glossary/#term-demo-term"
data-term="demo-term">demo term</a> and an <a class="term" href="glossary/#term-other-term"
data-term="other-term">other term</a>.</p>
<div class="findings">
<section class="finding"><h3>A first finding</h3><p>{hub.num("demo.y")} then the sentence.</p></section>
<section class="finding"><h3>A second finding</h3><p>{hub.num("demo.x")} then the sentence.</p></section>
</div>
<div class="table-wrap"><table><caption>Demo table</caption>
<thead><tr><th>Row</th><th class="n">Value</th></tr></thead>
<tbody><tr><td>first</td><td class="n">{hub.num("demo.x")}</td></tr>
<tr><td>second</td><td class="n">{hub.num("demo.y")}</td></tr></tbody></table></div>
<h2>The proposed system</h2>
{render_chain(reg, CHAIN_YAML, hub.num, claim=hub.claim)}
<p>After the chain.</p>"""
    (out / "index.html").write_text(
        _page("Demo hub", 0, body, scripts=["site.js", "chain.js"], url="/",
              prov=hub.prov(out, "/", terms=True)), encoding="utf-8")

    deck = _Page(reg)
    slides = [
        "<h2>Opening slide</h2><p>The first slide of the demo deck.</p>",
        f"<h2>A slide with a number</h2><p>It shows {deck.num('demo.x')} and "
        f'<a href="#slide-four">a link within the deck</a>.</p>',
        "<h2>A middle slide</h2><ul><li>one point</li><li>another point</li></ul>",
        '<h2 id="slide-four">The closing slide</h2><p>The last words.</p>',
    ]
    sections = "\n".join(f'<section class="slide" id="slide-{k}" aria-label="Slide {k}">'
                         f"{s}</section>" for k, s in enumerate(slides, start=1))
    (out / DECK).mkdir(parents=True)
    (out / DECK / "index.html").write_text(
        _page("Demo deck", 2, sections, scripts=["site.js", "deck.js"], url="/" + DECK,
              prov=deck.prov(out, "/" + DECK, terms=True), main_class="deck",
              before_main=deck_bar("../../index.html"), body_class="layout-deck"),
        encoding="utf-8")

    gl = "<h1>Glossary</h1><dl class=\"glossary\">" + "".join(
        f'<dt id="term-{k}">{html.escape(v["term"])}</dt><dd>{html.escape(v["definition"])}</dd>'
        for k, v in sorted(TERMS.items())) + "</dl>"
    (out / "glossary").mkdir()
    (out / "glossary" / "index.html").write_text(
        _page("Glossary", 1, gl, scripts=["site.js"], url="/glossary/",
              prov=_Page(reg).prov(out, "/glossary/", terms=True)),
        encoding="utf-8")

    # A page with numbers and terms but no provenance script: the scripts must cope.
    bare = _Page(reg)
    plain = (f"<h1>Plain</h1><p>A number {bare.num('demo.x')} and a "
             '<a class="term" href="../glossary/#term-demo-term" data-term="demo-term">'
             "term</a> with no JSON behind them.</p>")
    (out / "plain").mkdir()
    (out / "plain" / "index.html").write_text(
        _page("Plain", 1, plain, scripts=["site.js", "deck.js", "chain.js"], url="/plain/",
              prov=None), encoding="utf-8")
    return out


@dataclass
class Site:
    dir: Path
    url: str
    demo: bool


@pytest.fixture(scope="module")
def demo_site(tmp_path_factory, serve_dir, built_site) -> Site:
    claims = _claims_from(Path(built_site) / "numbers.json")
    d = build_demo_site(tmp_path_factory.mktemp("demo-site") / "site", claims)
    return Site(d, serve_dir(d), True)


@pytest.fixture(scope="module")
def site(request, demo_site, serve_dir) -> Site:
    """The site under test: CIT_SITE_DIR, else a `built_site` fixture, else the demo."""
    env = os.environ.get("CIT_SITE_DIR")
    if env:
        d = Path(env)
        assert (d / "index.html").is_file(), f"CIT_SITE_DIR={env} holds no index.html"
        return Site(d, serve_dir(d), False)
    try:
        d = Path(request.getfixturevalue("built_site"))
    except pytest.FixtureLookupError:
        return demo_site
    return Site(d, serve_dir(d), False)


# ---------------------------------------------------------------- helpers

def _slide_count(page) -> int:
    return page.locator("main.deck section.slide").count()


def _current(page) -> str:
    return page.locator("main.deck section.slide.is-current").get_attribute("id")


def _open_deck(page, site: Site, hash_: str = ""):
    page.goto(site.url + DECK + hash_)
    page.wait_for_selector("section.slide.is-current")
    n = _slide_count(page)
    assert n >= 3, f"the deck at {DECK} needs at least three slides to test; it has {n}"
    return n


def _hash(page) -> str:
    return page.evaluate("location.hash")


def _packet_positions(page) -> list[tuple[str, str]]:
    return page.eval_on_selector_all(
        "figure.chain circle.chain-packet",
        "cs => cs.map(c => [c.getAttribute('cx'), c.getAttribute('cy')])")


# The chain's fade between paths is a CSS transition (chain.css: `transition: opacity
# 0.25s`): wait until none is running on the given elements.
SETTLED = "els => els.every(e => e.getAnimations().length === 0)"

RAF_COUNTER = """
window.__rafCalls = 0;
const __raf = window.requestAnimationFrame.bind(window);
window.requestAnimationFrame = (cb) => { window.__rafCalls += 1; return __raf(cb); };
"""


def chain_on_screen(page, on: bool = True):
    """Scroll the chain figure into view (or the page back to its top, where the figure is
    off screen) and wait until its IntersectionObserver has said so."""
    if on:
        page.locator("figure.chain svg").scroll_into_view_if_needed()
    else:
        page.evaluate("() => window.scrollTo(0, 0)")
    page.wait_for_selector(f"figure.chain[data-on-screen='{'true' if on else 'false'}']")


# ---------------------------------------------------------------- decks

def test_arrow_keys_move_through_the_deck_and_the_hash_follows(page, site):
    n = _open_deck(page, site)
    assert _current(page) == "slide-1"
    assert _hash(page) == "#slide-1"
    page.keyboard.press("ArrowRight")
    assert _current(page) == "slide-2" and _hash(page) == "#slide-2"
    page.keyboard.press("ArrowRight")
    assert _current(page) == "slide-3" and _hash(page) == "#slide-3"
    page.keyboard.press("ArrowLeft")
    assert _current(page) == "slide-2" and _hash(page) == "#slide-2"
    assert page.locator("main.deck section.slide:visible").count() == 1
    for _ in range(n + 2):
        page.keyboard.press("ArrowRight")
    assert _current(page) == f"slide-{n}", "moving past the last slide must stop there"


def test_space_page_keys_home_and_end_navigate_the_deck(page, site):
    n = _open_deck(page, site)
    page.keyboard.press("Space")
    assert _current(page) == "slide-2"
    page.keyboard.press("PageDown")
    assert _current(page) == "slide-3"
    page.keyboard.press("Shift+Space")
    assert _current(page) == "slide-2"
    page.keyboard.press("PageUp")
    assert _current(page) == "slide-1"
    page.keyboard.press("End")
    assert _current(page) == f"slide-{n}" and _hash(page) == f"#slide-{n}"
    page.keyboard.press("Home")
    assert _current(page) == "slide-1" and _hash(page) == "#slide-1"


def test_the_hash_is_kept_with_replace_state_not_new_history_entries(page, site):
    _open_deck(page, site)
    before = page.evaluate("history.length")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert page.evaluate("history.length") == before


def test_a_reload_reopens_the_slide_named_in_the_hash(page, site):
    _open_deck(page, site)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert _current(page) == "slide-3"
    page.reload()
    page.wait_for_selector("section.slide.is-current")
    assert _current(page) == "slide-3"
    page.goto(site.url + DECK + "#slide-2")
    page.reload()
    page.wait_for_selector("section.slide.is-current")
    assert _current(page) == "slide-2"


def test_the_indicator_says_which_slide_of_how_many_and_is_announced(page, site):
    n = _open_deck(page, site)
    status = page.locator(".deck-status")
    assert status.get_attribute("aria-live") == "polite"
    assert status.inner_text() == f"Slide 1 of {n}"
    page.keyboard.press("End")
    assert status.inner_text() == f"Slide {n} of {n}"
    assert page.evaluate("document.documentElement.classList.contains('deck-js')")


def test_clicks_on_the_right_go_on_on_the_left_go_back_and_not_on_numbers(page, demo_site):
    _open_deck(page, demo_site)
    width = page.viewport_size["width"]
    slide = page.locator("section.slide.is-current")
    box = slide.bounding_box()
    y = box["y"] + box["height"] / 2
    page.mouse.click(width * 0.8, y)
    assert _current(page) == "slide-2"
    page.locator("section.slide.is-current data.num").first.click()
    assert _current(page) == "slide-2", "clicking a number must not change the slide"
    page.wait_for_selector("#cit-prov-card", state="visible")  # cards.js loads on demand
    assert page.locator("#cit-prov-card").is_visible()
    page.keyboard.press("Escape")
    page.mouse.click(width * 0.5, y)
    assert _current(page) == "slide-3"
    page.mouse.click(width * 0.1, y)
    assert _current(page) == "slide-2"


def test_a_swipe_left_goes_on_and_a_swipe_right_goes_back(make_page, site):
    page = make_page(has_touch=True)
    _open_deck(page, site)
    swipe = """([x0, x1]) => {
      const deck = document.querySelector('main.deck');
      const t = (x) => new Touch({identifier: 1, target: deck, clientX: x, clientY: 300});
      deck.dispatchEvent(new TouchEvent('touchstart', {touches: [t(x0)], changedTouches: [t(x0)], bubbles: true}));
      deck.dispatchEvent(new TouchEvent('touchend', {touches: [], changedTouches: [t(x1)], bubbles: true}));
    }"""
    page.evaluate(swipe, [600, 300])
    assert _current(page) == "slide-2"
    page.evaluate(swipe, [300, 600])
    assert _current(page) == "slide-1"
    page.evaluate(swipe, [600, 590])
    assert _current(page) == "slide-1", "a small movement is not a swipe"


def test_without_javascript_the_deck_is_a_stacked_readable_page(make_page, site):
    page = make_page(java_script_enabled=False)
    page.goto(site.url + DECK)
    slides = page.locator("main.deck section.slide")
    n = slides.count()
    assert n >= 3
    for k in range(n):
        assert slides.nth(k).is_visible(), f"slide {k + 1} is hidden without JavaScript"
    assert page.locator(".deck-bar").is_hidden()


def test_printing_a_deck_puts_each_slide_on_its_own_page(page, site):
    n = _open_deck(page, site)
    page.keyboard.press("ArrowRight")
    page.emulate_media(media="print")
    breaks = page.eval_on_selector_all(
        "main.deck section.slide", "ss => ss.map(s => getComputedStyle(s).breakAfter)")
    assert breaks[:-1] == ["page"] * (n - 1)
    shown = page.eval_on_selector_all(
        "main.deck section.slide", "ss => ss.map(s => getComputedStyle(s).display)")
    assert "none" not in shown, "every slide prints, not only the current one"
    assert page.locator(".deck-bar").is_hidden()
    pdf = page.pdf(format="A4", landscape=True)
    assert pdf_pages(pdf) == n


# ---------------------------------------------------------------- chain animation

def _chain_parts(page):
    return page.eval_on_selector_all(
        "figure.chain [data-path]",
        "ns => ns.map(n => [n.getAttribute('data-path'), n.classList.contains('is-off')])")


def _hub_with_chain_open(page, site):
    """The hub, with the fold the chain sits in (a `::: more` block) opened as a reader
    opens it; the page is not scrolled."""
    page.goto(site.url)
    page.evaluate("() => { const d = document.querySelector('figure.chain').closest('details');"
                  " if (d) d.open = true; }")


def test_the_toggle_switches_the_drawn_path_between_E_and_Eprime(page, site):
    _hub_with_chain_open(page, site)
    fig = page.locator("figure.chain")
    assert page.locator(".chain-controls").is_visible()
    assert fig.get_attribute("data-active") == "E"
    for paths, off in _chain_parts(page):
        assert off == ("E" not in paths.split()), paths
    e_only = page.locator("path.chain-edge[data-path='E']").first
    ep_only = page.locator("path.chain-edge[data-path='Eprime']").first
    opacity = "e => Number(getComputedStyle(e).opacity)"
    # the fade takes a quarter of a second (a CSS transition): wait for it to settle
    both = [e_only.element_handle(), ep_only.element_handle()]
    page.wait_for_function(SETTLED, arg=both)
    assert e_only.evaluate(opacity) > ep_only.evaluate(opacity)

    page.locator("input[name='chain-path'][value='Eprime']").check()
    assert fig.get_attribute("data-active") == "Eprime"
    for paths, off in _chain_parts(page):
        assert off == ("Eprime" not in paths.split()), paths
    page.wait_for_function(SETTLED, arg=both)
    assert ep_only.evaluate(opacity) > e_only.evaluate(opacity)
    route = fig.get_attribute("data-route").split()
    assert route, "the packets need a route"
    for edge_id in route:
        assert "Eprime" in page.locator(f"#{edge_id}").get_attribute("data-path").split()


def test_the_toggle_and_pause_work_from_the_keyboard(page, site):
    _hub_with_chain_open(page, site)
    fig = page.locator("figure.chain")
    page.locator("input[name='chain-path'][value='E']").focus()
    page.keyboard.press("ArrowRight")
    assert fig.get_attribute("data-active") == "Eprime"
    page.keyboard.press("ArrowLeft")
    assert fig.get_attribute("data-active") == "E"
    pause = page.locator("button.chain-pause")
    chain_on_screen(page)
    assert fig.get_attribute("data-animating") == "true"
    pause.focus()
    page.keyboard.press("Space")
    assert pause.get_attribute("aria-pressed") == "true"
    assert fig.get_attribute("data-animating") == "false"
    still = _packet_positions(page)
    page.wait_for_timeout(300)
    assert _packet_positions(page) == still


def test_packets_move_along_the_active_path(make_page, site):
    page = make_page()
    page.add_init_script(RAF_COUNTER)
    _hub_with_chain_open(page, site)
    fig = page.locator("figure.chain")
    chain_on_screen(page)
    page.wait_for_function("() => window.__rafCalls > 3")
    assert fig.get_attribute("data-animating") == "true"
    first = _packet_positions(page)
    try:   # until a packet has moved, for at most 2 s
        page.wait_for_function(
            """first => JSON.stringify([...document.querySelectorAll('figure.chain circle.chain-packet')]
                 .map(c => [c.getAttribute('cx'), c.getAttribute('cy')])) !== JSON.stringify(first)""",
            arg=first, timeout=2_000)
    except PlaywrightTimeout:
        pass
    second = _packet_positions(page)
    assert first and first != second, "packets should move"
    for edge_id in fig.get_attribute("data-route").split():
        assert "E" in page.locator(f"#{edge_id}").get_attribute("data-path").split()


def test_off_screen_the_chain_asks_for_no_frame_and_on_screen_it_moves(make_page, site):
    page = make_page()
    page.add_init_script(RAF_COUNTER)
    _hub_with_chain_open(page, site)
    fig = page.locator("figure.chain")
    chain_on_screen(page, False)   # the hub opens at its top; the chain is further down
    assert fig.get_attribute("data-animating") == "false"
    calls = page.evaluate("window.__rafCalls")
    page.wait_for_timeout(500)
    assert page.evaluate("window.__rafCalls") == calls, "frames asked for while off screen"
    chain_on_screen(page)
    assert fig.get_attribute("data-animating") == "true"
    page.wait_for_function(f"() => window.__rafCalls > {calls + 3}")
    chain_on_screen(page, False)
    assert fig.get_attribute("data-animating") == "false"
    page.wait_for_timeout(100)      # a frame already asked for may still run once
    calls = page.evaluate("window.__rafCalls")
    page.wait_for_timeout(500)
    assert page.evaluate("window.__rafCalls") == calls, "frames asked for after leaving the screen"


def test_with_reduced_motion_nothing_moves_and_no_animation_runs(make_page, site):
    page = make_page(reduced_motion="reduce")
    page.add_init_script(RAF_COUNTER)
    _hub_with_chain_open(page, site)
    fig = page.locator("figure.chain")
    chain_on_screen(page)
    assert fig.get_attribute("data-animating") == "false"
    before = _packet_positions(page)
    page.wait_for_timeout(500)
    assert _packet_positions(page) == before
    assert page.evaluate("window.__rafCalls") == 0
    assert page.locator("figure.chain .chain-packets").is_hidden()
    # The same information is still there: the toggle works and the steps are listed.
    page.locator("input[name='chain-path'][value='Eprime']").check()
    assert fig.get_attribute("data-active") == "Eprime"
    assert page.evaluate("window.__rafCalls") == 0
    assert page.locator("ol.chain-steps li:visible").count() > 0


def test_the_chain_drawing_shows_no_digits_and_every_block_shows_its_tag(page, site):
    page.goto(site.url)
    text = page.eval_on_selector("figure.chain svg", "s => s.textContent")
    assert text.strip(), "the drawing has text"
    assert not re.search(r"\d", text), f"a digit in the chain's SVG text: {text!r}"
    tags = page.eval_on_selector_all(
        "figure.chain g.chain-block",
        "bs => bs.map(b => { const t = b.querySelector('.chain-tag text');"
        " const r = t.getBoundingClientRect(); return [t.textContent, r.width > 0 && r.height > 0]; })")
    assert tags
    for word, visible in tags:
        assert word in ("paper", "experiment", "simulation", "assumption") and visible
    assert page.locator("figure.chain svg title").count() == 1
    assert page.locator("figure.chain svg desc").count() == 1


# ---------------------------------------------------------------- provenance and terms

CARD_FIELDS = """(card) => {
  const get = (f) => { const d = card.querySelector(`[data-field="${f}"]`); return d ? d.textContent : null; };
  return {kind: get('kind'), value: get('value'), locator: get('locator'),
          computation: get('computation'),
          sources: [...card.querySelectorAll('[data-field="sources"] li')].map(li => ({
            path: li.querySelector('.prov-path').textContent,
            shas: [...li.querySelectorAll('.sha')].map(s => [s.textContent, s.title])}))};
}"""

# The page's provenance script (cit/assets.py prov_payload), decoded here on its own.
EXPECTED = """(num) => {
  const p = window.CIT_PROV[document.body.getAttribute('data-page')];
  const e = p.n[num.getAttribute('data-id')];
  const t = (i) => (i === null || i === undefined ? undefined : p.t[i]);
  return {kind: t(e[0]), value: String(e[1]), locator: t(e[5]), computation: t(e[6]),
          sources: e[4].map(k => p.s[k]).map(s => ({path: t(s[0]),
            shas: [t(s[1]), t(s[2])].filter(Boolean).map(x => [x.slice(0, 7), x])}))};
}"""

# The card is busy while the page's provenance script is on its way.
CARD_READY = "#cit-prov-card:not([hidden]):not([aria-busy])"


def _check_card(page, num):
    card = page.locator("#cit-prov-card")
    page.wait_for_selector(CARD_READY)
    assert card.is_visible()
    assert card.get_attribute("role") == "dialog"
    assert card.get_attribute("aria-label")
    assert num.get_attribute("aria-expanded") == "true"
    assert card.evaluate(CARD_FIELDS) == num.evaluate(EXPECTED)


def test_a_number_opens_its_provenance_card_on_click_with_its_fields(page, site):
    page.goto(site.url)
    nums = page.locator("main data.num")
    assert nums.count() > 0
    num = nums.first
    assert num.get_attribute("tabindex") == "0"
    assert num.get_attribute("role") == "button"
    assert num.get_attribute("aria-expanded") == "false"
    num.click()
    _check_card(page, num)
    page.mouse.click(2, 2)
    assert page.locator("#cit-prov-card").is_hidden()
    assert num.get_attribute("aria-expanded") == "false"


def test_a_card_lists_every_source_with_short_and_full_hashes(page, demo_site):
    page.goto(demo_site.url)
    num = page.locator("main data.num[data-id='demo.y']").first
    num.click()
    _check_card(page, num)
    fields = page.locator("#cit-prov-card").evaluate(CARD_FIELDS)
    assert len(fields["sources"]) == 2
    for src in fields["sources"]:
        for short, full in src["shas"]:
            assert len(short) < len(full) and full.startswith(short)


def test_a_number_opens_its_card_on_focus_and_enter_and_escape_closes_it(page, site):
    page.goto(site.url)
    num = page.locator("main data.num").nth(1)
    num.focus()
    page.keyboard.press("Escape")
    assert page.locator("#cit-prov-card").count() == 0 or page.locator("#cit-prov-card").is_hidden()
    page.keyboard.press("Enter")
    _check_card(page, num)
    page.keyboard.press("Escape")
    assert page.locator("#cit-prov-card").is_hidden()
    assert num.get_attribute("aria-expanded") == "false"
    assert page.evaluate("document.activeElement.matches('data.num')")


def test_tabbing_onto_a_number_shows_its_card(page, demo_site):
    page.goto(demo_site.url)
    num = tab_to(page, "data.num", 40)
    assert num.count() == 1, "no number reached by Tab"
    _check_card(page, num)


def test_a_term_shows_its_definition_on_hover_and_focus_and_still_navigates(page, site):
    page.goto(site.url)
    link = page.locator("main a.term[data-term]").first
    key = link.get_attribute("data-term")
    tip_id = link.get_attribute("aria-describedby")
    assert tip_id
    tip = page.locator(f"#{tip_id}")
    assert tip.get_attribute("role") == "tooltip"
    assert tip.is_hidden()
    link.hover()
    tip.wait_for(state="visible")  # the definitions arrive with the page's provenance script
    definition = page.evaluate(
        "k => window.CIT_PROV[document.body.getAttribute('data-page')].g[k][1]", key)
    assert tip.is_visible() and definition in tip.inner_text()
    page.mouse.move(1, 1)
    assert tip.is_hidden()
    link.focus()
    assert tip.is_visible()
    page.keyboard.press("Escape")
    assert tip.is_hidden()
    link.click()
    page.wait_for_url(re.compile(rf"glossary/(index\.html)?#term-{re.escape(key)}$"))


# ---------------------------------------------------------------- clean pages

def test_a_page_without_number_or_term_json_loads_without_errors(make_page, demo_site):
    page = make_page()
    page.goto(demo_site.url + "plain/")
    page.wait_for_load_state("load")
    num = page.locator("data.num").first
    num.click()
    card = page.locator("#cit-prov-card")
    page.wait_for_selector(CARD_READY)  # cards.js loads on demand
    assert card.is_visible()
    # with no provenance, the card gives the kind only where the element carries it
    # (the kinds shown in italics, docs/numbers.md) and says what it lacks otherwise
    assert card.locator("[data-field='kind']").text_content() == \
        (num.get_attribute("data-kind") or "not recorded")
    assert card.locator("[data-field='value']").text_content() == num.get_attribute("value")
    page.locator("a.term").hover()
    assert page.locator("[role='tooltip']:visible").count() == 0
    make_page.guard(page).assert_clean()


def test_every_page_loads_without_console_errors_or_outside_requests(make_page, site):
    pages = sorted(site.dir.rglob("index.html"))
    assert pages
    page = make_page()
    for f in pages:
        rel = f.parent.relative_to(site.dir).as_posix()
        page.goto(site.url + ("" if rel == "." else rel + "/"))
        page.wait_for_load_state("load")
        make_page.guard(page).assert_clean()


def test_the_guard_reports_a_request_to_another_host(make_page, demo_site):
    page = make_page()
    page.goto(demo_site.url + "plain/")
    page.evaluate("""() => new Promise(done => { const i = new Image();
        i.onerror = i.onload = () => done(); i.src = 'http://example.invalid/x.png'; })""")
    guard = make_page.guard(page)
    assert guard.outside_requests == ["http://example.invalid/x.png"]
    guard.clear()


def test_the_guard_reports_a_console_error(make_page, demo_site):
    page = make_page()
    page.goto(demo_site.url + "plain/")
    page.evaluate("console.error('deliberate')")
    page.evaluate("setTimeout(() => { throw new Error('thrown on purpose'); }, 0)")
    page.wait_for_timeout(100)
    guard = make_page.guard(page)
    assert any("deliberate" in m for m in guard.console_errors)
    assert any("thrown on purpose" in m for m in guard.page_errors)
    guard.clear()


# ---------------------------------------------------------------- charts

def _table_points(html_text: str) -> dict[str, dict[str, list]]:
    """Each series' points as its chart data tables show them (read here with regular
    expressions, apart from charts.js): x, y, and lo/hi where a cell has brackets."""
    def number(t: str):
        return None if t == "n/a" else float(t.replace(",", ""))
    out: dict[str, dict[str, list]] = {}
    for table in re.findall(r"<table [^>]*data-fx=[^>]*>(.*?)</table>", html_text, re.S):
        ids = re.findall(r'<th scope="col" data-series="([^"]+)">', table)
        for sid in ids:
            out[sid] = {"x": [], "y": [], "lo": [], "hi": []}
        for x, cells in re.findall(r'<tr><th scope="row">([^<]*)</th>(.*?)</tr>', table):
            for sid, cell in zip(ids, re.findall(r"<td>([^<]*)</td>", cells), strict=True):
                m = re.fullmatch(r"(\S+)(?: \((\S+) to (\S+)\))?", cell)
                p = out[sid]
                p["x"].append(number(x))
                p["y"].append(number(m[1]))
                p["lo"].append(number(m[2] or m[1]))
                p["hi"].append(number(m[3] or m[1]))
    return out


def test_each_chart_draws_the_values_of_its_data_table(page, site):
    chart_pages = [f for f in sorted(site.dir.rglob("index.html")) if 'class="chart"' in f.read_text()]
    if site.demo:
        assert not chart_pages
        return
    assert chart_pages, "the built site has no chart"
    for f in chart_pages:
        want = _table_points(f.read_text(encoding="utf-8"))
        rel = f.parent.relative_to(site.dir).as_posix()
        page.goto(site.url + ("" if rel == "." else rel + "/"))
        # plotly loads when a reader reaches for a chart (static/charts.js): reach for each
        for chart in page.query_selector_all("div.chart"):
            chart.scroll_into_view_if_needed()
            chart.hover()
        page.wait_for_function("() => [...document.querySelectorAll('div.chart')].every(d => d.data)")
        drawn = page.eval_on_selector_all("div.chart", """ds => ds.flatMap(d => d.data.map(t =>
            [t.legendgroup, t.fill === 'toself', t.x, t.y]))""")
        lines = {sid: (x, y) for sid, band, x, y in drawn if not band}
        assert sorted(lines) == sorted(want), rel
        for sid, (x, y) in lines.items():
            assert (x, y) == (want[sid]["x"], want[sid]["y"]), (rel, sid)
        for sid, band, x, y in drawn:
            if band:
                w = want[sid]
                assert x == w["x"] + w["x"][::-1] and y == w["hi"] + w["lo"][::-1], (rel, sid)
                assert w["lo"] != w["hi"], f"{rel}: {sid} has a band but a single seed"
