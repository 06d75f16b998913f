"""A deck as a speaker gives it (templates/static/deck.js, deck-views.js, deck.css;
docs/architecture.md, "Decks"), beyond the fit that test_deck_views checks:

- on every slide of every deck at the four sizes, the page never scrolls (not even when
  asked to by the wheel or a script) and the slide takes at least 85% of the window's
  height, the site's header hidden and the control bar the page's one chrome;
- "The data behind this figure" opens in a modal <dialog> over the slide, the slide and
  the page still not scrolling; its numbers open their cards there; it closes with Esc
  and puts the table back;
- printed to PDF (Chromium's page.pdf, the page size the sheet asks for) a deck is one
  landscape 16:9 page per slide, counted and measured with pypdf; on A4 it is still
  one landscape page per slide;
- fragments (`- [+]` in the Markdown) appear one per → and go one per ←, the presenter
  window shows which step is next, and all of them print and show without scripts;
- the presenter window has the wall clock beside the time elapsed.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pypdf
import pytest

from .test_deck_views import SIZES, deck_names

MIN_SLIDE_SHARE = 0.85
SIXTEEN_NINE = 16 / 9

# Every slide in turn: is the page scrollable, did a scroll move it, and the slide's share
# of the window's height.
NO_SCROLL = """async () => {
  const frame = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const de = document.documentElement, out = [];
  for (const s of document.querySelectorAll('main.deck section.slide')) {
    location.hash = '#' + s.id;
    await frame();
    window.scrollTo(0, 100000);
    document.scrollingElement.scrollTop = 100000;
    await frame();
    const box = s.getBoundingClientRect();
    out.push({id: s.id, overflow: Math.max(de.scrollHeight - de.clientHeight,
                                           document.body.scrollHeight - de.clientHeight),
              scrolled: window.scrollY + document.scrollingElement.scrollTop,
              share: box.height / window.innerHeight, top: box.top});
  }
  return out;
}"""


@pytest.fixture(scope="module")
def served(built_site, serve_dir) -> tuple[Path, str]:
    return Path(built_site), serve_dir(built_site)


def _open(page, url: str, name: str, frag: str = "") -> int:
    page.goto(f"{url}decks/{name}/index.html{frag}")
    page.wait_for_selector("section.slide.is-current")
    return page.locator("main.deck section.slide").count()


def _html(site: Path, name: str) -> str:
    return (site / "decks" / name / "index.html").read_text(encoding="utf-8")


def _slides_with(site: Path, name: str, needle: str) -> list[str]:
    return [m.group(1) for m in re.finditer(r'<section class="slide" id="([^"]+)"[^>]*>(.*?)</section>',
                                            _html(site, name), re.S) if needle in m.group(2)]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_page_never_scrolls_and_the_slide_fills_the_window(make_page, served, size, measured):
    site, url = served
    page = make_page(viewport={"width": size[0], "height": size[1]})
    bad, shares, slides = [], [], 0
    for name in deck_names(site):
        slides += _open(page, url, name)
        assert page.locator(".site-header").is_hidden(), f"{name}: the site header shows"
        assert page.locator(".site-footer").is_hidden(), f"{name}: the footer shows"
        page.mouse.move(size[0] / 2, size[1] / 2)
        page.mouse.wheel(0, 2000)
        for r in page.evaluate(NO_SCROLL):
            shares.append(r["share"])
            if r["overflow"] > 0 or r["scrolled"] != 0:
                bad.append(f"{name}#{r['id']}: the page scrolls ({r['overflow']} px, moved {r['scrolled']})")
            if r["share"] < MIN_SLIDE_SHARE:
                bad.append(f"{name}#{r['id']}: the slide is {r['share']:.1%} of the window's height")
    measured(f"deck slides at {size[0]}x{size[1]}: {len(bad)} of {slides} scroll or fill under "
             f"{MIN_SLIDE_SHARE:.0%}; the slide's share of the height {min(shares):.1%} to {max(shares):.1%}")
    assert slides and len(shares) == slides
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("size", [SIZES[1], SIZES[3]], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_data_behind_a_figure_opens_in_a_dialog_over_the_slide(make_page, served, size, measured):
    site, url = served
    page = make_page(viewport={"width": size[0], "height": size[1]})
    opened = 0
    for name in deck_names(site):
        for sid in _slides_with(site, name, 'class="chart-data"'):
            _open(page, url, name, f"#{sid}")
            slide = page.locator(f"#{sid}")
            rows = slide.locator("details.chart-data tr").count()
            slide.locator("details.chart-data > summary").click()
            dialog = page.locator("dialog.deck-data")
            dialog.wait_for(state="visible")
            assert page.evaluate("document.querySelector('dialog.deck-data').matches(':modal')")
            assert dialog.locator("tr").count() == rows > 0, f"{name}#{sid}: the table is not in the dialog"
            assert dialog.get_attribute("aria-labelledby")
            assert slide.locator("details.chart-data[open]").count() == 0
            state = page.evaluate("""id => { const s = document.getElementById(id),
                de = document.documentElement, d = document.querySelector('dialog.deck-data').getBoundingClientRect();
                return [de.scrollHeight - de.clientHeight, s.scrollHeight - s.clientHeight,
                        d.top >= 0 && d.bottom <= innerHeight + 0.5 && d.left >= 0 && d.right <= innerWidth + 0.5]; }""",
                                  sid)
            assert state == [0, 0, True], f"{name}#{sid}: page/slide overflow, dialog inside: {state}"
            if opened == 0:                                  # a number's card opens over the dialog
                dialog.locator("data.num").first.click()
                card = page.locator("#cit-prov-card")
                card.wait_for(state="visible")
                assert page.evaluate("document.querySelector('dialog.deck-data').contains("
                                     "document.getElementById('cit-prov-card'))")
                page.keyboard.press("Escape")
            page.keyboard.press("Escape")
            dialog.wait_for(state="hidden")
            # the table goes back on the dialog's close event, a task after it hides
            page.wait_for_function("([id, n]) => document.querySelectorAll("
                                   "'#' + id + ' details.chart-data tr').length === n", arg=[sid, rows])
            opened += 1
    measured(f"figures whose data opened in a dialog at {size[0]}x{size[1]}: {opened}, none scrolling")
    assert opened


def test_a_deck_prints_one_landscape_sixteen_by_nine_page_per_slide(page, served, measured):
    site, url = served
    counts = {}
    for name in deck_names(site):
        n = _open(page, url, name, "#slide-2")
        for kind, pdf in (("css", page.pdf(prefer_css_page_size=True)),
                          ("A4", page.pdf(format="A4", landscape=True))):
            pages = pypdf.PdfReader(io.BytesIO(pdf)).pages
            assert len(pages) == n, f"{name} ({kind}): {len(pages)} pages for {n} slides"
            for k, p in enumerate(pages, start=1):
                w, h = float(p.mediabox.width), float(p.mediabox.height)
                assert w > h, f"{name} ({kind}) page {k}: portrait {w}x{h}"
                if kind == "css":
                    assert abs(w / h - SIXTEEN_NINE) < 0.01, f"{name} page {k}: {w}x{h} is not 16:9"
        counts[name] = n
    measured("printed deck pages (16:9 landscape, one per slide): "
             + ", ".join(f"{k} {v}" for k, v in counts.items()))


def test_a_printed_slide_fills_its_page_and_its_figure_scales_with_the_page(make_page, served):
    """Print emulated at two page sizes of 16:9 (the viewport stands for the page): each
    slide is the page's height without overflowing, and every figure's size scales as
    the page does."""
    site, url = served
    name = next(d for d in deck_names(site) if _slides_with(site, d, "svg-figure"))
    figures = {}
    for width, height in ((1280, 720), (1920, 1080)):
        page = make_page(viewport={"width": width, "height": height})
        _open(page, url, name)
        page.emulate_media(media="print")
        boxes = page.eval_on_selector_all("main.deck section.slide", """ss => ss.map(s => {
            const b = s.getBoundingClientRect(), f = s.querySelector('svg.svg-figure');
            return [b.height, s.scrollHeight - s.clientHeight,
                    f ? f.getBoundingClientRect().width : null, f ? f.getBoundingClientRect().height : null]; })""")
        assert all(abs(b[0] - height) < 1 and b[1] <= 1 for b in boxes), boxes
        figures[height] = [b[2:] for b in boxes if b[2] is not None]
        assert figures[height], f"{name}: no figure printed"
    scale = 1080 / 720
    for small, large in zip(figures[720], figures[1080]):
        assert abs(large[0] / small[0] - scale) < 0.01 and abs(large[1] / small[1] - scale) < 0.01, \
            (small, large)


def _fragment_deck(site: Path) -> tuple[str, str, int]:
    for name in deck_names(site):
        for sid in _slides_with(site, name, 'class="step"'):
            body = re.search(rf'<section class="slide" id="{sid}"[^>]*>(.*?)</section>', _html(site, name), re.S)
            return name, sid, body.group(1).count('class="step"')
    raise AssertionError("no deck marks a fragment (`- [+]`), so none is tested")


def _shown(page, sid: str) -> list[bool]:
    return page.eval_on_selector_all(f"#{sid} .step", "ls => ls.map(l => getComputedStyle(l).visibility === 'visible')")


def test_fragments_appear_one_per_arrow_and_go_back_one_per_arrow(page, served):
    site, url = served
    name, sid, steps = _fragment_deck(site)
    k = int(sid.split("-")[1])
    _open(page, url, name, f"#slide-{k - 1}")
    page.keyboard.press("ArrowRight")
    assert page.locator("section.slide.is-current").get_attribute("id") == sid
    assert _shown(page, sid) == [False] * steps
    for j in range(1, steps + 1):
        page.keyboard.press("ArrowRight")
        page.wait_for_function("([id, j]) => document.querySelectorAll('#' + id + ' .step.is-shown').length === j",
                               arg=[sid, j])
        assert page.locator("section.slide.is-current").get_attribute("id") == sid
    assert _shown(page, sid) == [True] * steps
    page.keyboard.press("ArrowLeft")
    assert _shown(page, sid) == [True] * (steps - 1) + [False]
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")                       # every step shown: the next slide
    assert page.locator("section.slide.is-current").get_attribute("id") == f"slide-{k + 1}"
    page.keyboard.press("ArrowLeft")                        # back: the slide with all its steps
    assert page.locator("section.slide.is-current").get_attribute("id") == sid
    assert _shown(page, sid) == [True] * steps
    page.keyboard.press("Home")
    page.goto(f"{url}decks/{name}/index.html#{sid}")        # a link opens the slide whole
    page.wait_for_selector(f"#{sid}.is-current")
    assert _shown(page, sid) == [True] * steps
    page.keyboard.press("ArrowLeft")
    page.emulate_media(media="print")
    assert _shown(page, sid) == [True] * steps, "a printed slide shows every fragment"


def test_fragments_show_without_scripts(make_page, served):
    site, url = served
    name, sid, steps = _fragment_deck(site)
    page = make_page(java_script_enabled=False)
    page.goto(f"{url}decks/{name}/index.html")
    assert _shown(page, sid) == [True] * steps


def test_the_presenter_window_shows_the_next_step_and_the_wall_clock(make_page, served):
    site, url = served
    name, sid, steps = _fragment_deck(site)
    page = make_page()
    k = int(sid.split("-")[1])
    _open(page, url, name, f"#slide-{k - 1}")
    with page.context.expect_page() as opened:
        page.keyboard.press("s")
    view = opened.value
    view.wait_for_selector(".presenter-panel .presenter-wall")
    wall = view.locator(".presenter-wall").inner_text()
    now = view.evaluate("() => { const d = new Date(); return [d.getHours(), d.getMinutes()]; }")
    hh, mm = (int(x) for x in wall.split(":"))
    assert re.fullmatch(r"\d\d:\d\d", wall) and abs((hh * 60 + mm) - (now[0] * 60 + now[1])) % 1439 <= 1
    assert re.fullmatch(r"\d+:\d\d", view.locator(".presenter-timer").inner_text())
    page.keyboard.press("ArrowRight")                       # the audience reaches the slide
    view.wait_for_function("id => document.querySelector('main.deck .slide.is-current').id === id", arg=sid)
    label = view.locator(".presenter-panel > .presenter-label").first
    view.wait_for_function("() => /step 1 of/.test(document.querySelector('.presenter-panel > .presenter-label').textContent)")
    assert label.text_content() == f"Next: step 1 of {steps}"
    assert view.locator(f"#{sid} .step.is-next-step").count() == 1
    assert view.eval_on_selector(f"#{sid} .step.is-next-step", "e => [...e.parentNode.children].indexOf(e)") == \
        page.eval_on_selector(f"#{sid} .step", "e => [...e.parentNode.children].indexOf(e)")
    for j in range(steps):
        view.keyboard.press("ArrowRight")                   # the presenter moves, the audience follows
    page.wait_for_function("([id, n]) => document.querySelectorAll('#' + id + ' .step.is-shown').length === n",
                           arg=[sid, steps])
    view.wait_for_function("() => document.querySelector('.presenter-panel > .presenter-label').textContent === 'Next slide'")
    assert view.locator(".step.is-next-step").count() == 0
    view.close()


def test_a_presenter_window_opened_mid_slide_takes_the_audiences_step(make_page, served):
    site, url = served
    name, sid, steps = _fragment_deck(site)
    page = make_page()
    k = int(sid.split("-")[1])
    _open(page, url, name, f"#slide-{k - 1}")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")                       # the slide, one fragment shown
    page.wait_for_function("id => document.querySelectorAll('#' + id + ' .step.is-shown').length === 1", arg=sid)
    with page.context.expect_page() as opened:
        page.keyboard.press("s")
    view = opened.value
    view.wait_for_function("id => document.querySelectorAll('#' + id + ' .step.is-shown').length === 1 && "
                           "document.querySelector('main.deck .slide.is-current').id === id", arg=sid)
    assert view.locator(".presenter-panel > .presenter-label").first.text_content() == f"Next: step 2 of {steps}"
    view.close()


def test_no_fragment_mark_reaches_the_page(served):
    site, _ = served
    for name in deck_names(site):
        html = _html(site, name)
        left = re.findall(r'<li class="step">(?:<[^>]+>)*\s*\[\+\]', html)
        assert not left, f"{name}: a fragment's mark is shown: {left[:2]}"
        assert "[+]" not in re.sub(r"<[^>]+>", "", html), f"{name}: '[+]' in the page's text"
