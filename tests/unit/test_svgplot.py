"""The build-time SVG renderer (cit/svgplot.py): scales, ticks, log axes, marks that
carry registry ids, title and description, label spreading, and byte-identical output."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

import pytest

from cit import svgplot as sp
from cit.naked import load_allowlist, scan_page
from cit.registry import Number

SVG = "{http://www.w3.org/2000/svg}"


def num(nid: str, value: float, text: str) -> Number:
    return Number(nid, value, text, "", "measured", (), "a locator", "a computation")


def lines():
    return [
        sp.Line("a", "first", (0, 10, 20), (4.0, 2.0, 1.5), colour="A",
                lo=(4.0, 1.8, 1.4), hi=(4.0, 2.2, 1.6), end=num("t.a", 1.5, "1.500")),
        sp.Line("b", "second", (0, 10, 20), (4.0, 3.0, 2.5), colour="B", dash="dash"),
    ]


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def ticks_of(root: ET.Element) -> list[str]:
    return [t.text for g in root.iter(f"{SVG}g") if g.get("class") == "fig-tick" for t in g]


def points_of(d: str) -> list[tuple[float, float]]:
    """Absolute points of a path of M (absolute) and l (relative) steps."""
    pts = []
    for cmd, a, b in re.findall(r"([Ml])(-?[\d.]+)[ ]?(-?[\d.]+)", d):
        a, b = float(a), float(b)
        pts.append((a, b) if cmd == "M" else (pts[-1][0] + a, pts[-1][1] + b))
    return pts


def test_linear_scale_maps_ends_and_middle():
    s = sp.Scale(0, 10, 100, 200)
    assert (s(0), s(5), s(10)) == (100, 150, 200)


def test_log_scale_maps_decades_evenly():
    s = sp.Scale(1, 1000, 0, 300, log=True)
    assert [round(s(v), 9) for v in (1, 10, 100, 1000)] == [0, 100, 200, 300]


def test_linear_domain_is_widened_to_round_ticks():
    lo, hi, ticks = sp.domain([0.3, 9.2], sp.Axis("x"))
    assert lo <= 0.3 and hi >= 9.2
    assert ticks[0] == lo and ticks[-1] == hi
    steps = {round(b - a, 9) for a, b in zip(ticks, ticks[1:])}
    assert len(steps) == 1


def test_log_domain_ticks_are_decades_over_a_wide_range():
    lo, hi, ticks = sp.domain([0.02, 3000], sp.Axis("x", log=True))
    assert lo <= 0.02 and hi >= 3000
    assert all(math.isclose(math.log10(t), round(math.log10(t))) for t in ticks)
    assert len(ticks) == round(math.log10(hi / lo)) + 1


def test_log_domain_ignores_non_positive_and_non_finite_values():
    lo, hi, _ = sp.domain([0, -1, float("nan"), 2.0, 30.0], sp.Axis("x", log=True))
    assert 0 < lo <= 2.0 and hi >= 30.0


def test_fixed_axis_bounds_are_kept():
    lo, hi, ticks = sp.domain([3, 4], sp.Axis("y", lo=0, hi=10))
    assert (lo, hi) == (0, 10) and ticks[0] == 0 and ticks[-1] == 10


def test_axis_without_values_fails():
    with pytest.raises(sp.FigureError, match="no value"):
        sp.domain([float("nan")], sp.Axis("empty"))


def test_tick_text():
    assert [sp.tick_text(v) for v in (0, 0.05, 2.5, 10, 10000)] == ["0", "0.05", "2.5", "10", "10,000"]


def test_line_chart_has_title_desc_role_and_viewbox():
    svg = sp.line_chart(lines(), sp.Axis("Step"), sp.Axis("Loss"), title="Loss by step",
                        desc="Two runs", uid="fig-x")
    root = parse(svg)
    assert root.get("role") == "group"       # it holds a focusable mark
    assert root.get("viewBox").startswith("0 0 ")
    assert root.find(f"{SVG}title").text == "Loss by step"
    assert root.find(f"{SVG}desc").text == "Two runs"
    assert root.get("aria-labelledby") == "fig-x-t" and root.get("aria-describedby") == "fig-x-d"
    assert root.find(f"{SVG}title").get("id") == "fig-x-t"


def test_figure_without_marks_is_an_image():
    plain = [sp.Line("a", "only", (1, 2), (3, 4))]
    root = parse(sp.line_chart(plain, sp.Axis("x"), sp.Axis("y"), title="T", desc="D", uid="p"))
    assert root.get("role") == "img"
    assert root.find(f".//{SVG}g[@class='fig-mark']") is None


def test_marks_carry_registry_id_kind_value_and_text():
    svg = sp.line_chart(lines(), sp.Axis("Step"), sp.Axis("Loss"), title="T", desc="D", uid="f",
                        markers=[sp.VLine(15, "break-even", num("t.be", 15.0, "15.0"))])
    marks = parse(svg).findall(f".//{SVG}g[@class='fig-mark']")
    got = {m.get("data-id"): (m.get("data-kind"), m.get("data-value"), m.find(f"{SVG}title").text)
           for m in marks}
    assert got == {"t.a": ("measured", "1.5", "first: 1.500"),
                   "t.be": ("measured", "15.0", "break-even: 15.0")}


def test_log_axis_places_points_by_log10():
    ln = [sp.Line("a", "l", (1, 10, 100), (1, 100, 1000), colour="A")]
    svg = sp.line_chart(ln, sp.Axis("x", log=True), sp.Axis("y", log=True), title="T", desc="D", uid="g")
    d = parse(svg).find(f".//{SVG}path[@class='fig-line c-A']").get("d")
    pts = points_of(d)
    assert len(pts) == 3
    # on log axes, x steps of one decade are equal; y steps of two decades and one are 2:1
    assert math.isclose(pts[1][0] - pts[0][0], pts[2][0] - pts[1][0], abs_tol=0.15)
    assert math.isclose(pts[1][1] - pts[0][1], 2 * (pts[2][1] - pts[1][1]), abs_tol=0.3)


def test_missing_value_breaks_the_line():
    ln = [sp.Line("a", "l", (0, 1, 2, 3), (1.0, None, 2.0, 3.0), colour="A")]
    d = parse(sp.line_chart(ln, sp.Axis("x"), sp.Axis("y"), title="T", desc="D", uid="g")
              ).find(f".//{SVG}path[@class='fig-line c-A']").get("d")
    assert d.count("M") == 2


def test_seed_band_drawn_only_where_seeds_differ():
    root = parse(sp.line_chart(lines(), sp.Axis("x"), sp.Axis("y"), title="T", desc="D", uid="g"))
    assert len(root.findall(f".//{SVG}path[@class='fig-band c-A']")) == 1
    one_seed = [sp.Line("a", "l", (0, 1), (1, 2), colour="A", lo=(1, 2), hi=(1, 2))]
    root = parse(sp.line_chart(one_seed, sp.Axis("x"), sp.Axis("y"), title="T", desc="D", uid="g"))
    assert root.findall(f".//{SVG}path[@class='fig-band c-A']") == []


def test_dash_styles_and_bad_inputs():
    root = parse(sp.line_chart(lines(), sp.Axis("x"), sp.Axis("y"), title="T", desc="D", uid="g"))
    assert root.find(f".//{SVG}path[@class='fig-line c-B']").get("stroke-dasharray") == sp.DASHES["dash"]
    with pytest.raises(sp.FigureError, match="dash"):
        sp.line_chart([sp.Line("a", "l", (0,), (1,), dash="wiggly")], sp.Axis("x"), sp.Axis("y"),
                      title="T", desc="D", uid="g")
    with pytest.raises(sp.FigureError, match="2 x values but 1"):
        sp.line_chart([sp.Line("a", "l", (0, 1), (1,))], sp.Axis("x"), sp.Axis("y"),
                      title="T", desc="D", uid="g")
    with pytest.raises(sp.FigureError, match="title and a description"):
        sp.line_chart(lines(), sp.Axis("x"), sp.Axis("y"), title="", desc="D", uid="g")
    # a colour is one of the palette's keys (given by the caller) or "muted"
    with pytest.raises(sp.FigureError, match="colour 'pink' is not one of the palette's"):
        sp.bar_chart([sp.Bar("x", 1.0, colour="pink")], sp.Axis("v"), title="T", desc="D",
                     uid="g", colours={"A", "B"})
    assert "c-muted" in sp.bar_chart([sp.Bar("x", 1.0, colour="muted")], sp.Axis("v"),
                                     title="T", desc="D", uid="g", colours={"A"})
    with pytest.raises(sp.FigureError, match="colour"):
        sp.bar_chart([sp.Bar("x", 1.0, colour="no class")], sp.Axis("v"), title="T", desc="D",
                     uid="g")


def test_mark_title_must_show_its_number():
    with pytest.raises(sp.FigureError, match="does not show"):
        sp.mark(num("t", 1.0, "1.000"), "something else", "")


def test_end_labels_never_overlap():
    pos = sp.spread_labels([100, 101, 102, 250], 15, 0, 300)
    s = sorted(pos)
    assert all(b - a >= 15 - 1e-9 for a, b in zip(s, s[1:]))
    assert pos[3] == 250
    crowded = sp.spread_labels([295, 296, 297], 15, 0, 300)
    assert max(crowded) <= 300 and sorted(crowded) == crowded


def test_a_label_too_long_for_a_narrow_chart_wraps_and_stays_inside_it():
    """On a phone's chart the room right of the plot is at most 42 % of the width; a
    longer end label is drawn in several lines, each within the figure (the hub's "E
    repaired, ENOB 8 3.017" once ran past a 360-unit chart's edge)."""
    long = sp.Line("c", "E repaired, ENOB 8, 8 planes", (0, 10, 20), (4.0, 3.5, 3.0),
                   colour="C", end=num("t.c", 3.0, "3.017"))
    svg = sp.line_chart(lines() + [long], sp.Axis("step"), sp.Axis("loss"), title="t",
                        desc="d", uid="u", width=360, height=340)
    label = next(t for t in parse(svg).iter(f"{SVG}text") if "".join(t.itertext()).startswith("E repaired"))
    rows = [label.text] + [t.text for t in label.iter(f"{SVG}tspan") if t.get("dy")]
    assert len(rows) > 1 and "".join(label.itertext()) == "E repaired, ENOB 8, 8 planes 3.017"
    x = float(label.get("x"))
    assert x + sp._text_width(label.text.strip()) <= 360
    assert max(len("".join(t.itertext()).strip()) for t in label.iter(f"{SVG}tspan") if t.get("dy")) \
        * sp.FONT * sp.CHAR_W + x <= 360


def test_labels_of_several_lines_are_spread_by_their_height():
    pos = sp.spread_labels([100, 101, 102], 15, 0, 300, rows=[2, 1, 3])
    assert pos[1] - pos[0] >= 30 and pos[2] - pos[1] >= 15
    assert sp.spread_labels([299], 15, 0, 300, rows=[3]) == [270]


def test_bar_chart_marks_whiskers_and_groups():
    bars = [sp.Bar("one", 2.0, num("b.1", 2.0, "2.00"), "A", lo=1.8, hi=2.2, group="G1"),
            sp.Bar("two", 3.0, num("b.2", 3.0, "3.00"), "C", group="G2")]
    root = parse(sp.bar_chart(bars, sp.Axis("Value"), title="T", desc="D", uid="b"))
    assert [g.text for g in root.iter(f"{SVG}text") if g.get("class") == "fig-group"] == ["G1", "G2"]
    assert len(root.findall(f".//{SVG}path[@class='fig-whisker']")) == 1
    marks = root.findall(f".//{SVG}g[@class='fig-mark']")
    assert [m.get("data-id") for m in marks] == ["b.1", "b.2"]
    widths = [float(r.get("width")) for r in root.iter(f"{SVG}rect") if "fig-bar" in r.get("class", "")]
    assert math.isclose(widths[1] / widths[0], 1.5, rel_tol=0.01)   # bars start at zero


def test_bar_chart_on_a_log_axis():
    bars = [sp.Bar("a", 2.0), sp.Bar("b", 200.0)]
    root = parse(sp.bar_chart(bars, sp.Axis("v", log=True), title="T", desc="D", uid="b"))
    ticks = ticks_of(root)
    assert ticks == ["2", "5", "10", "20", "50", "100", "200"]   # two decades: 1-2-5 steps
    with pytest.raises(sp.FigureError, match="cannot be drawn"):
        sp.bar_chart([sp.Bar("z", 0.0)], sp.Axis("v", log=True), title="T", desc="D", uid="b")


def test_strip_diagram_merges_runs_and_wraps():
    strips = [sp.Strip("low", range(0, 16), "C", num("s.1", 0.9, "90%")),
              sp.Strip("spread", (1, 3, 4, 5, 40), "F")]
    root = parse(sp.strip_diagram(strips, title="T", desc="D", uid="s", length=64, columns=32))
    cells = [r for r in root.iter(f"{SVG}rect") if r.get("class", "").startswith("fig-cell c-")]
    assert len(cells) == 1 + 3          # one run for "low"; 1, 3-5 and 40 for "spread"
    off = [r for r in root.iter(f"{SVG}rect") if r.get("class") == "fig-cell-off"]
    assert len(off) == 4                # two strips, two lines of 32 each
    with pytest.raises(sp.FigureError, match="outside"):
        sp.strip_diagram([sp.Strip("x", (64,))], title="T", desc="D", uid="s", length=64)


def test_output_is_deterministic():
    def build():
        return (sp.line_chart(lines(), sp.Axis("x"), sp.Axis("y", log=True), title="T", desc="D", uid="g")
                + sp.bar_chart([sp.Bar("a", 1.0)], sp.Axis("v"), title="T", desc="D", uid="b")
                + sp.strip_diagram([sp.Strip("a", (1, 2))], title="T", desc="D", uid="s", length=8))
    assert build() == build()


def test_naked_check_accepts_marks_and_ticks_and_catches_a_wrong_mark():
    n = num("t.a", 1.5, "1.500")
    svg = sp.line_chart(lines(), sp.Axis("Step"), sp.Axis("Loss"), title="T", desc="D", uid="f")
    page = f"<html><body>{svg}</body></html>"
    allow = load_allowlist()
    assert scan_page("p", page, allow, numbers={"t.a": n}) == []
    wrong = Number("t.a", 1.5, "1.499", "", "measured", (), "l", "c")
    fails = scan_page("p", page, allow, numbers={"t.a": wrong})
    assert any("does not show its text" in f for f in fails)
    stray = page.replace("<desc id=\"f-d\">D</desc>", "<desc id=\"f-d\">D 42</desc>")
    assert any("naked number '42'" in f for f in scan_page("p", stray, allow, numbers={"t.a": n}))


def test_relative_path_steps_do_not_accumulate_rounding():
    xs = tuple(range(50))
    ys = tuple(math.sin(k / 3) for k in xs)
    root = parse(sp.line_chart([sp.Line("a", "l", xs, ys, colour="A")], sp.Axis("x"), sp.Axis("y"),
                               title="T", desc="D", uid="g"))
    pts = points_of(root.find(f".//{SVG}path[@class='fig-line c-A']").get("d"))
    first, last = pts[0][0], pts[-1][0]
    step = (last - first) / 49
    # every drawn point (after thinning) sits on one of the 50 data x positions: summing
    # the relative steps has not drifted
    assert len(pts) > 10
    assert all(min(abs(p[0] - (first + k * step)) for k in range(50)) < 0.11 for p in pts)


def test_point_marks_name_their_point():
    n6, n8 = num("p.6", 3.4, "3.400"), num("p.8", 3.0, "3.000")
    ln = sp.Line("r", "Repaired", (6, 8), (3.4, 3.0), points=(n6, n8), point_labels=("ENOB 6", "ENOB 8"))
    root = parse(sp.line_chart([ln], sp.Axis("x"), sp.Axis("y"), title="T", desc="D", uid="g"))
    titles = [m.find(f"{SVG}title").text for m in root.findall(f".//{SVG}g[@class='fig-mark']")]
    assert titles == ["Repaired, ENOB 6: 3.400", "Repaired, ENOB 8: 3.000"]
    assert root.get("role") == "group"


def test_straight_stretches_become_one_segment_and_curves_stay():
    flat = sp._thin([(0, 0), (1, 0), (2, 0), (3, 0), (4, 1)])
    assert flat == [(0, 0), (3, 0), (4, 1)]
    arc = [(k, round(0.01 * k * k, 1)) for k in range(40)]
    kept = sp._thin(arc)
    assert kept[0] == arc[0] and kept[-1] == arc[-1]
    # every dropped point stays within the tolerance of the drawn polyline
    for q in arc:
        assert min(sp._off_line(a, b, q) for a, b in zip(kept, kept[1:])) <= 0.05 + 1e-9
    assert sp._thin([(0, 0), None, (1, 1), (2, 2), (3, 3)]) == [(0, 0), None, (1, 1), (3, 3)]


def test_long_labels_go_above_the_bars_and_the_first_tick_stays_inside():
    bars = [sp.Bar("a label far too long to sit beside its bar", 0.8),
            sp.Bar("another label that is also long", 6.0)]
    root = parse(sp.bar_chart(bars, sp.Axis("v", log=True), title="T", desc="D", uid="b"))
    labels = [t for t in root.iter(f"{SVG}text") if t.get("class") == "fig-label"]
    assert all(t.get("text-anchor") is None for t in labels)      # written rightwards, above
    rect_x = min(float(r.get("x")) for r in root.iter(f"{SVG}rect") if "fig-bar" in r.get("class", ""))
    first = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "fig-tick")[0]
    assert float(first.get("x")) - sp._text_width(first.text) / 2 >= 0
    assert rect_x == float(first.get("x"))


def test_a_figure_colours_few_series_and_each_key_once():
    """At most MAX_COLOURED coloured series, no key for two series (the same label in two
    groups of bars is one series), and grey is free."""
    from cit.svgplot import MAX_COLOURED, MUTED, FigureError, check_colours
    check_colours([("Top-k", "B"), ("Top-k", "B"), ("Low band", "C")] + [(f"r{i}", MUTED) for i in range(9)], "f")
    with pytest.raises(FigureError, match="colour 'E' is drawn for 2 series"):
        check_colours([("First design", "E"), ("Repaired", "E")], "f")
    with pytest.raises(FigureError, match=f"more than {MAX_COLOURED}"):
        check_colours([(f"s{i}", f"k{i}") for i in range(MAX_COLOURED + 1)], "f")
