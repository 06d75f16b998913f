"""The no-naked-numbers check: literal digits fail, registered numbers and allow-listed
structural names pass, and the allow-list stays short."""

import re

import pytest
import yaml

from cit.errors import BuildError
from cit.fmt import fmt, fmt_int
from cit.markup import number_element
from cit.naked import (ALLOWLIST_PATH, MAX_ENTRIES, check_pages, load_allowlist, report,
                       scan_page)


def naked_report(site, reg):
    """The build's naked-number check over a rendered site's files."""
    return report(site.files, numbers=reg.numbers, series=reg.series)


def _page(body: str) -> dict:
    return {"p/index.html": f"<html><body><main>{body}</main></body></html>".encode()}


def test_a_literal_number_in_content_fails_the_naked_check(render_content, render_tiny,
                                                            render_registry):
    from conftest import RENDER_CONTENT
    optics = RENDER_CONTENT["pages/optics.md"] + "\nWe trained 12 models for this.\n"
    site = render_tiny(render_content({"pages/optics.md": optics}), render_registry)
    fails = naked_report(site, render_registry).failures
    assert len(fails) == 1
    assert fails[0].startswith("optics/index.html: naked number '12'")
    assert "We trained 12 models" in fails[0]


def test_the_tiny_site_has_no_naked_numbers(render_content, render_tiny, render_registry):
    site = render_tiny(render_content(), render_registry)
    rep = naked_report(site, render_registry)
    assert rep.failures == () and rep.pages_checked == sum(k.endswith(".html") for k in site.files)
    assert "404.html" in site.files


def test_the_allow_list_has_at_most_forty_entries_each_with_a_reason():
    entries = load_allowlist()
    raw = yaml.safe_load(ALLOWLIST_PATH.read_text())["entries"]
    assert len(entries) == len(raw) <= MAX_ENTRIES
    assert all(e.reason.strip() for e in entries)


def test_an_allow_list_over_forty_entries_is_an_error(tmp_path):
    path = tmp_path / "allow.yaml"
    path.write_text(yaml.safe_dump({"entries": [{"pattern": f"x{i}", "reason": "r"}
                                                for i in range(MAX_ENTRIES + 1)]}))
    with pytest.raises(BuildError) as e:
        load_allowlist(path)
    assert "at most" in e.value.message


def test_a_bad_allow_list_regex_names_its_line(tmp_path):
    path = tmp_path / "allow.yaml"
    path.write_text("entries:\n  - pattern: 'ok'\n    reason: fine\n  - pattern: '(unclosed'\n    reason: bad\n")
    with pytest.raises(BuildError) as e:
        load_allowlist(path)
    assert e.value.where == f"{path.name}:4"


@pytest.mark.parametrize("text", [
    "B uses 2-D 64x64 chunks and C 1-D 256-point chunks.",
    "The run at ENOB 8 with 4 planes re-set its full scale every 100 steps.",
    "Values are BF16; the reference sends int64 indices.",
    "See arXiv:2411.19870 (Peng et al., 2024).",
])
def test_allow_listed_structural_names_pass(text):
    assert check_pages(_page(f"<p>{text}</p>")) == []


@pytest.mark.parametrize("text", [
    "We ran 32 runs.",
    "The 64x64 grid is small.",            # a shape, but not naming chunks
    "A loss of 1.646 was reached.",
    "It took 2024 steps.",                 # a year only counts inside a citation
])
def test_digits_outside_structural_names_fail(text):
    fails = check_pages(_page(f"<p>{text}</p>"))
    assert fails and all(f.startswith("p/index.html: naked number") for f in fails)


def test_a_number_element_passes_and_its_text_must_match_the_registry(render_registry):
    n = render_registry.numbers["final_loss.A"]
    good = f"<p>Loss {number_element(n)}.</p>"
    assert check_pages(_page(good), numbers=render_registry.numbers) == []
    bad = good.replace(f">{n.text}<", f">{n.text}0<")
    fails = check_pages(_page(bad), numbers=render_registry.numbers)
    assert len(fails) == 1 and "final_loss.A" in fails[0]


def test_digits_in_alt_title_and_aria_label_fail():
    for attr in ("alt", "title", "aria-label"):
        html = f'<img {attr}="figure 3 of the results" src="x.png">'
        assert len(check_pages(_page(html))) == 1, attr


def test_digits_in_the_meta_description_fail():
    html = '<html><head><meta name="description" content="We ran 9 runs."></head><body></body></html>'
    assert len(check_pages({"x.html": html.encode()})) == 1


def test_scripts_and_styles_are_not_page_text():
    html = '<script type="application/json">{"a": 12}</script><style>p{width:70ch}</style><p>No digits.</p>'
    assert check_pages(_page(html)) == []


def _chart_table(s, cells: list[str], *, ranged: bool = True, sid: str = "curve.A") -> str:
    rows = "".join(f'<tr><th scope="row">{fmt_int(x)}</th><td>{c}</td></tr>'
                   for x, c in zip(s.x, cells))
    return (f'<table class="data chart-table" data-fx="int" data-fy="dec3"{" data-range" if ranged else ""}>'
            f'<thead><tr><th scope="col">Training step</th><th scope="col" data-series="{sid}">A</th>'
            f"</tr></thead><tbody>{rows}</tbody></table>")


def test_a_chart_value_must_point_at_its_registry_series(render_registry):
    s = render_registry.series["curve.A"]
    lo, hi = s.extra["lo"], s.extra["hi"]
    cells = [f"{fmt(y, 3)} ({fmt(a, 3)} to {fmt(b, 3)})" for y, a, b in zip(s.y, lo, hi)]
    good = _chart_table(s, cells)
    assert check_pages(_page(good), series=render_registry.series) == []
    wrong_index = _chart_table(s, [cells[0], cells[2], cells[1]] + cells[3:])
    assert len(check_pages(_page(wrong_index), series=render_registry.series)) == 2
    unmarked = good.replace(' data-series="curve.A"', "")
    assert len(check_pages(_page(unmarked), series=render_registry.series)) == 2 * len(s.x)
    other = _chart_table(s, cells, sid="curve.B")
    assert len(check_pages(_page(other), series=render_registry.series)) == len(s.x)


def test_a_chart_table_shows_every_point_and_the_range_where_seeds_differ(render_registry):
    s = render_registry.series["curve.A"]
    cells = [f"{fmt(y, 3)} ({fmt(a, 3)} to {fmt(b, 3)})"
             for y, a, b in zip(s.y, s.extra["lo"], s.extra["hi"])]
    short = _chart_table(s, cells[:-1])
    fails = check_pages(_page(short), series=render_registry.series)
    assert len(fails) == 1 and f"shows {len(s.x) - 1} of the {len(s.x)} points" in fails[0]
    no_range = _chart_table(s, [fmt(y, 3) for y in s.y])
    assert len(check_pages(_page(no_range), series=render_registry.series)) == len(s.x)
    assert check_pages(_page(_chart_table(s, [fmt(y, 3) for y in s.y], ranged=False)),
                       series=render_registry.series) == []
    # without the registry's series the digits of a chart table are still not naked
    assert check_pages(_page(good := _chart_table(s, cells))) == [] and good


def test_a_single_seed_needs_no_range(render_registry):
    from cit.fmt import series_cell
    s = render_registry.series["curve.A"]
    single = type(s)(s.id, s.x, s.y, dict(s.extra, lo=s.y, hi=s.y), s.kind, s.sources,
                     s.locator, s.computation)
    assert series_cell(single, 1, "dec3", True) == fmt(s.y[1], 3)
    assert series_cell(s, 1, "dec3", True) == (f"{fmt(s.y[1], 3)} ({fmt(s.extra['lo'][1], 3)} "
                                               f"to {fmt(s.extra['hi'][1], 3)})")


def test_a_within_entry_applies_only_inside_its_element():
    entries = load_allowlist()
    stamp = '<footer><p class="build-stamp">commit <code>0123abc4567</code></p></footer>'
    assert scan_page("x.html", stamp, entries) == []
    outside = "<p>commit <code>0123abc4567</code></p>"
    assert scan_page("x.html", outside, entries)


def test_the_failure_shows_the_text_around_the_digit():
    fails = check_pages(_page("<p>Some words before the 42 and some words after.</p>"))
    assert re.search(r"“.*before the 42 and some.*”", fails[0])


def test_a_digit_in_a_chart_legend_fails_but_the_plotted_values_do_not():
    fig = ('{"data":[{"name":"A run of 7 seeds","x":[1,2],"y":[3.5,4.25]}],'
           '"layout":{"xaxis":{"title":{"text":"Training step"}}}}')
    html = f'<script type="application/json" id="fig-x-json">{fig}</script>'
    fails = check_pages(_page(html))
    assert len(fails) == 1 and "naked number '7'" in fails[0] and "A run of 7 seeds" in fails[0]
    assert check_pages(_page(html.replace("of 7 seeds", "of every seed"))) == []


@pytest.mark.parametrize("text,run", [
    ("There were ⁴² runs.", "⁴²"),                 # superscripts (category No)
    ("Half of them, ½, failed.", "½"),              # a vulgar fraction (No)
    ("At step ₃ it diverged.", "₃"),                # a subscript (No)
    ("Seed ③ was kept.", "③"),                      # a circled digit (No)
    ("Chapter Ⅻ explains it.", "Ⅻ"),               # a Roman numeral (Nl)
    ("We ran ٤٢ runs.", "٤٢"),                      # Arabic-Indic digits (Nd)
    ("We ran ４２ runs.", "４２"),                    # full-width digits (Nd)
    ("We ran 4²½ runs.", "4²½"),                    # mixed: one run
])
def test_every_unicode_digit_and_number_form_is_a_digit(text, run):
    """W2: superscripts and vulgar fractions passed the check (`\\d` is category Nd)."""
    assert check_pages(_page(f"<p>{text}</p>")) == [
        f"p/index.html: naked number {run!r} in “{text}”"]


def test_a_naked_number_is_named_at_its_markdown_line():
    """Of the content lines holding the digit run, the one whose words surround it on
    the page; digits inside a mark (:n[run.s12]) are not the reader's."""
    from cit.naked import source_line
    md = ("---\ntitle: Runs\n---\n\nWe kept :n[run.s12] seeds.\n\nThe 12 runs of May.\n\n"
          "Of those, 12 runs finished in June.\n")
    lines = md.splitlines()
    june = next(n for n, l in enumerate(lines, 1) if "June" in l)
    may = next(n for n, l in enumerate(lines, 1) if "May" in l)
    assert source_line(md, "12", "Of those, ", " runs finished in June.") == june
    assert source_line(md, "12", "The ", " runs of May.") == may
    assert source_line(md, "7", "a ", " b") is None
    page = _page("<p>Of those, 12 runs finished in June.</p>")
    (fail,) = scan_page("p/index.html", page["p/index.html"].decode(), [],
                        source=("content/pages/runs.md", md))
    assert fail.startswith(f"content/pages/runs.md:{june} (p/index.html): naked number '12'")
