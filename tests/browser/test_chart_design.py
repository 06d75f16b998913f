"""The charts' design, measured in the built site (docs/figures.md): on every build-time
chart of every page and every deck slide that holds one, at most data/budgets.yaml's
`chart_coloured_series` distinct non-grey colours; no two coloured lines in one hue
(nor two coloured bars or strips whose hues are closer than `chart_hue_gap_deg`
degrees); at 390x844 no chart text smaller than `chart_text_px` px as rendered; and no
two end labels of a line chart overlapping."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from .conftest import figure_slides, site_pages

ROOT = Path(__file__).resolve().parents[2]
# A colour whose channels differ by at most this much (of 255) is grey: the muted
# context (site.css's --muted), whose channels differ by a few units at most.
GREY_CHROMA = 30

# Per visible chart: its coloured series as [kind, r, g, b] (lines, bars, strip cells),
# the smallest rendered text in px (the font size times the text's screen scale, CSS
# transforms and the viewBox included), and the pairs of end labels whose boxes overlap.
CHARTS = """([root, grey]) => {
  const scope = root ? document.getElementById(root) : document;
  const shown = (el) => { for (let v = el; v; v = v.parentElement) {
    if (getComputedStyle(v).display === "none") return false; } return true; };
  const out = [];
  for (const svg of scope.querySelectorAll("svg.svg-figure")) {
    if (!shown(svg) || !svg.getBoundingClientRect().width) continue;
    const series = [];
    for (const el of svg.querySelectorAll(".fig-line, .fig-bar, .fig-cell")) {
      const cs = getComputedStyle(el);
      const line = el.classList.contains("fig-line");
      const rgb = (line ? cs.stroke : cs.fill).match(/[\\d.]+/g).slice(0, 3).map(Number);
      if (Math.max(...rgb) - Math.min(...rgb) > grey) series.push([line ? "line" : "mark", ...rgb]);
    }
    let smallest = Infinity;
    for (const t of svg.querySelectorAll("text")) {
      const m = t.getScreenCTM();
      if (!m || !t.textContent.trim()) continue;
      smallest = Math.min(smallest, parseFloat(getComputedStyle(t).fontSize) * Math.sqrt(Math.abs(m.a * m.d - m.b * m.c)));
    }
    const boxes = [...svg.querySelectorAll("text.fig-label")].filter((t) => !t.closest(".fig-group"))
      .map((t) => [t.textContent, t.getBoundingClientRect()]);
    const overlaps = [];
    if (svg.querySelector(".fig-line")) {
      boxes.forEach(([a, p], i) => boxes.slice(i + 1).forEach(([b, q]) => {
        if (p.left < q.right - 0.5 && q.left < p.right - 0.5 && p.top < q.bottom - 0.5 && q.top < p.bottom - 0.5)
          overlaps.push([a, b]);
      }));
    }
    // text drawn past the chart's own box is cut off where the svg clips it
    const box = svg.getBoundingClientRect();
    const clipped = [...svg.querySelectorAll("text")].filter((t) => t.textContent.trim())
      .filter((t) => { const r = t.getBoundingClientRect();
        return r.right > box.right + 0.5 || r.left < box.left - 0.5; })
      .map((t) => t.textContent.trim());
    out.push({id: svg.id, series, smallest, overlaps, clipped});
  }
  return out;
}"""


def hue(r: float, g: float, b: float) -> float:
    import colorsys
    return colorsys.rgb_to_hsv(r / 255, g / 255, b / 255)[0] * 360


def hue_gap(a: float, b: float) -> float:
    d = abs(a - b) % 360
    return min(d, 360 - d)


@pytest.fixture(scope="module")
def budgets() -> dict:
    return {k: v["value"] for k, v in yaml.safe_load((ROOT / "data" / "budgets.yaml").read_text()).items()}


@pytest.fixture(scope="module")
def served(built_site, serve_dir) -> tuple[Path, str]:
    return Path(built_site), serve_dir(built_site)


def every_chart(page, url: str, site: Path) -> list[tuple[str, dict]]:
    """(where, chart) for every visible chart of every page, and of every slide of a
    deck that holds one (each slide shown in turn)."""
    out = []
    for rel in site_pages(site):
        if rel.startswith("pagefind"):
            continue
        page.goto(f"{url}{rel}index.html")
        slides = figure_slides(page) if rel.startswith("decks/") else []
        for slide in slides or [""]:
            if slide:
                page.goto(f"{url}{rel}index.html#{slide}")
                page.wait_for_selector(f"section#{slide}.is-current")
            for chart in page.evaluate(CHARTS, [slide, GREY_CHROMA]):
                out.append((f"/{rel}#{slide} {chart['id']}", chart))
    return out


def problems(charts, budgets: dict) -> list[str]:
    """What breaks the colour rules, chart by chart."""
    bad = []
    for where, c in charts:
        colours = {tuple(s[1:]) for s in c["series"]}
        if len(colours) > budgets["chart_coloured_series"]:
            bad.append(f"{where}: {len(colours)} coloured series")
        lines = [tuple(s[1:]) for s in c["series"] if s[0] == "line"]
        if len(set(lines)) < len(lines):
            bad.append(f"{where}: two coloured lines in one colour")
        hues = sorted(hue(*rgb) for rgb in colours)
        close = [(a, b) for i, a in enumerate(hues) for b in hues[i + 1:]
                 if hue_gap(a, b) < budgets["chart_hue_gap_deg"]]
        if close:
            bad.append(f"{where}: hues {close[0][0]:.0f} and {close[0][1]:.0f} degrees are one hue")
        if c["overlaps"]:
            bad.append(f"{where}: end labels overlap: {c['overlaps'][0]}")
        if c.get("clipped"):
            bad.append(f"{where}: text past the chart's edge: {c['clipped'][0]!r}")
    return bad


@pytest.mark.parametrize("width,height", [(1280, 800), (390, 844)])
def test_each_chart_colours_few_series_one_hue_each_and_its_labels_never_overlap_nor_cut(
        make_page, served, budgets, width, height, measured):
    site, url = served
    charts = every_chart(make_page(viewport={"width": width, "height": height}), url, site)
    assert len(charts) >= len(list((site / "decks").glob("*/index.html"))), "too few charts found"
    most = max(len({tuple(s[1:]) for s in c["series"]}) for _, c in charts)
    measured(f"charts at {width}x{height}: {len(charts)}, at most {most} coloured series in one")
    bad = problems(charts, budgets)
    assert not bad, "\n".join(bad)


def test_chart_text_is_legible_on_a_phone(make_page, served, budgets, measured):
    site, url = served
    charts = every_chart(make_page(viewport={"width": 390, "height": 844}), url, site)
    smallest = min(charts, key=lambda wc: wc[1]["smallest"])
    measured(f"smallest chart text at 390x844: {smallest[1]['smallest']:.1f} px ({smallest[0]})")
    small = [f"{w}: {c['smallest']:.1f} px" for w, c in charts if c["smallest"] < budgets["chart_text_px"]]
    assert not small, "\n".join(small)


def test_the_checks_catch_a_crowded_chart(budgets):
    """The rules fail a chart drawn as the hub's was before the design pass: seven colours,
    two lines in one blue, two labels stacked on each other, and an end label cut off at
    the edge (the hub's on a phone, once)."""
    rgb = [(0, 114, 178), (184, 127, 0), (0, 158, 115), (200, 110, 160), (213, 94, 0),
           (28, 147, 215), (0, 105, 77), (0, 114, 178)]
    crowded = {"series": [["line", *c] for c in rgb], "smallest": 9.3,
               "overlaps": [["C low 1-D 64", "C low 2-D 64x64"]],
               "clipped": ["E repaired, ENOB 8 3.017"]}
    bad = problems([("hub", crowded)], budgets)
    assert any("coloured series" in b for b in bad)
    assert any("two coloured lines in one colour" in b for b in bad)
    assert any("one hue" in b for b in bad)
    assert any("overlap" in b for b in bad)
    assert any("past the chart's edge" in b for b in bad)
