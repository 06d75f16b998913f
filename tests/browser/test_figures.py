"""The decks' build-time SVG figures (cit/figures.py, drawn by cit/svgplot.py), in the
built site: at least two per deck, each with a title, a description and its data as a
table; each draws on screen at desktop and phone width; every mark that shows a number
opens the provenance card of that number (its id, shown text and unit as numbers.json
has them), by keyboard and by pointer; printing a deck still gives one page per slide.
axe finds no serious or critical violation on any slide that holds a figure, in the
four states of test_a11y, read from the session's audits (conftest.py `site_audits`,
whose run of a page as loaded sees only a deck's first slide when scripts run, and which
then shows each figure slide in turn). Console errors fail every test here (the `page`
fixture's guard; the audits record their pages' errors and the axe test fails on them)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from .conftest import FAILING_IMPACTS, STATES, figure_slides, pdf_pages, tab_to

CARD_READY = "#cit-prov-card:not([hidden]):not([aria-busy])"
MIN_FIGURES = 2


def deck_dirs(site: Path) -> list[Path]:
    decks = sorted(p for p in (site / "decks").iterdir() if (p / "index.html").is_file())
    assert decks, "the built site has no decks"
    return decks


@pytest.fixture(scope="module")
def numbers(built_site) -> dict:
    data = json.loads((Path(built_site) / "numbers.json").read_text())
    return {n["id"]: n for n in data["numbers"]}


@pytest.fixture(scope="module")
def served(built_site, serve_dir) -> tuple[Path, str]:
    return Path(built_site), serve_dir(built_site)


def test_every_deck_has_figures_with_title_description_and_data_table(built_site):
    for d in deck_dirs(Path(built_site)):
        html = (d / "index.html").read_text()
        figures = re.findall(r'<figure class="fig".*?</figure>', html, re.S)
        assert len(figures) >= MIN_FIGURES, f"{d.name}: {len(figures)} figures"
        for f in figures:
            svg = re.search(r'<svg class="svg-figure" id="([^"]+)"[^>]*>', f)
            assert svg, f"{d.name}: a figure without its svg"
            uid = svg.group(1)
            assert 'role="img"' in svg.group(0) or 'role="group"' in svg.group(0)
            assert re.search(rf'<title id="{uid}-t">[^<]+</title><desc id="{uid}-d">[^<]+</desc>', f)
            assert 'viewBox="0 0 ' in svg.group(0)
            assert re.search(r'<details class="chart-data">.*<table', f, re.S), f"{d.name} {uid}: no data table"


def test_every_deck_stays_within_its_byte_budget(built_site):
    """HTML + CSS + own scripts of each deck, counted as benchmarks/bench_build.py counts
    page weights, within data/budgets.yaml's deck budget."""
    import yaml
    root = Path(__file__).resolve().parents[2]
    budget = yaml.safe_load((root / "data" / "budgets.yaml").read_text())["deck_bytes"]["value"]
    for d in deck_dirs(Path(built_site)):
        page = d / "index.html"
        text = page.read_text()
        total = len(text.encode())
        for ref in sorted(set(re.findall(r'(?:src|href)="([^"]+\.(?:js|css))"', text))):
            f = (page.parent / ref).resolve()
            assert f.is_file(), f"{d.name}: {ref} is missing"
            total += f.stat().st_size
        assert total <= budget, f"{d.name}: {total} bytes, over the deck budget of {budget}"


# The shown card's id and shown text (waits until a card is open and filled in), and
# whether `mark` (if given) says it is expanded: one round trip.
CARD_SAYS = """([sel, mark]) => {
  const card = document.querySelector(sel);
  if (!card) return null;
  return {id: card.querySelector('.prov-id').textContent,
          shown: card.querySelector('[data-field="shown"]').textContent,
          expanded: mark ? mark.getAttribute('aria-expanded') : null};
}"""


def _card_says(page, mark=None) -> dict:
    said = page.wait_for_function(CARD_SAYS, arg=[CARD_READY, mark]).json_value()
    expanded = said.pop("expanded")
    return said if mark is None else {**said, "expanded": expanded}


def _want(numbers: dict, nid: str) -> dict:
    n = numbers[nid]
    return {"id": nid, "shown": n["text"] + (" " + n["unit"] if n["unit"] else "")}


@pytest.mark.parametrize("width", [1280, 390])
def test_each_figure_draws_and_its_marks_open_their_cards(make_page, served, numbers, width):
    site, url = served
    page = make_page(viewport={"width": width, "height": 800 if width > 400 else 844})
    checked = 0
    for d in deck_dirs(site):
        page.goto(f"{url}decks/{d.name}/index.html")
        page.wait_for_selector("section.slide.is-current")
        for slide in figure_slides(page):
            page.goto(f"{url}decks/{d.name}/index.html#{slide}")
            page.wait_for_selector(f"section#{slide}.is-current")
            for svg in page.locator(f"section#{slide} svg.svg-figure").all():
                box = svg.bounding_box()
                assert box and box["width"] > 100 and box["height"] > 60, f"{d.name}#{slide}: not drawn"
                assert box["x"] >= 0 and box["x"] + box["width"] <= width + 1, f"{d.name}#{slide}: overflows"
                marks = svg.element_handle().query_selector_all(".fig-mark[data-id]")
                attrs = svg.evaluate("s => [...s.querySelectorAll('.fig-mark[data-id]')].map(m => "
                                     "[m.getAttribute('data-id'), m.getAttribute('role'), "
                                     "m.getAttribute('tabindex')])")
                assert len(attrs) == len(marks)
                for mark, (nid, role, tabindex) in zip(marks, attrs):
                    assert nid in numbers, f"{d.name}: mark for {nid!r} not in numbers.json"
                    assert role == "button" and tabindex == "0"
                    page.keyboard.press("Escape")
                    mark.focus()
                    page.keyboard.press("Enter")
                    assert _card_says(page, mark) == {**_want(numbers, nid), "expanded": "true"}, \
                        f"{d.name}: card of {nid}"
                    page.keyboard.press("Escape")
                    checked += 1
                if marks and width > 400:
                    # and by pointer: the first mark of the figure
                    page.mouse.move(2, 2)    # away from the figure (a click there would now land on the slide)
                    target = marks[0].query_selector("text")
                    (target or marks[0]).click()
                    assert _card_says(page)["id"] == attrs[0][0]
                    page.keyboard.press("Escape")
    assert checked >= 10


def test_tabbing_reaches_a_figure_mark_and_shows_its_card(page, served, numbers):
    site, url = served
    d = deck_dirs(site)[-1]
    page.goto(f"{url}decks/{d.name}/index.html")
    slide = figure_slides(page)[0]
    page.goto(f"{url}decks/{d.name}/index.html#{slide}")
    page.wait_for_selector(f"section#{slide}.is-current")
    mark = tab_to(page, ".fig-mark", 80)
    assert mark.count() == 1, "no figure mark reached by Tab"
    assert _card_says(page) == _want(numbers, mark.get_attribute("data-id"))


def test_a_figure_needs_no_javascript(make_page, served):
    site, url = served
    page = make_page(java_script_enabled=False)
    for d in deck_dirs(site):
        page.goto(f"{url}decks/{d.name}/index.html")
        for svg in page.locator("svg.svg-figure").all():
            svg.scroll_into_view_if_needed()
            box = svg.bounding_box()
            assert box and box["width"] > 100 and box["height"] > 60
        assert page.locator("details.chart-data table").count() >= MIN_FIGURES


def test_printing_each_deck_gives_one_page_per_slide(page, served):
    site, url = served
    for d in deck_dirs(site):
        page.goto(f"{url}decks/{d.name}/index.html")
        page.wait_for_selector("section.slide.is-current")
        n = page.locator("main.deck section.slide").count()
        page.emulate_media(media="print")
        assert page.locator("svg.svg-figure").first.is_visible()
        pdf = page.pdf(format="A4", landscape=True)
        assert pdf_pages(pdf) == n, f"{d.name}: {pdf_pages(pdf)} printed pages for {n} slides"
        page.emulate_media(media="screen")


def _slides_with_figures(deck_html: str) -> list[str]:
    """The ids of the slides whose HTML holds a build-time SVG figure."""
    return [m.group(1) for m in re.finditer(r'<section class="slide[^"]*" id="([^"]+)"(.*?)</section>',
                                            deck_html, re.S) if "svg-figure" in m.group(2)]


@pytest.mark.parametrize("state", STATES, ids=lambda s: s.name)
def test_axe_finds_nothing_serious_on_the_figure_slides(state, served, site_audits):
    """Read from the session's audits (conftest.py `site_audits`): with scripts, each
    figure slide shown in turn with its own card open; without, a deck's one stacked page."""
    site, _ = served
    failing, audited = [], 0
    for d in deck_dirs(site):
        rel = f"decks/{d.name}/"
        want = _slides_with_figures((d / "index.html").read_text())
        assert want, f"{d.name}: no slide holds a figure"
        # without scripts every slide of a deck is on the page at once: one audit a deck
        for slide in (want if state.scripts else [""]):
            a = site_audits.get((rel, slide, state.name))
            assert a is not None, f"{d.name}#{slide} was not audited in {state.name}"
            audited += 1
            failing += [f"{d.name}#{slide}: {e}" for e in a.errors]
            failing += [f"{d.name}#{slide}: [{v['impact']}] {v['id']}: {v['nodes'][:2]}"
                        for v in a.violations if v["impact"] in FAILING_IMPACTS]
    assert audited >= len(deck_dirs(site))
    assert not failing, "\n".join(failing)
