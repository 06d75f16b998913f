"""Math, citations and cross-references (cit/mathcite.py, docs/math-citations.md): what
they render, and each bad input failing in one message at its file and line."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from cit.errors import BuildError
from cit.frontmatter import parse_content_file
from cit.markdown import PageContext, make_markdown, render_chunk
from cit.mathcite import bibliography_html, parse_bib, tex_to_mathml
from cit.naked import load_allowlist, scan_page
from cit.reads import Reads

FRONT = "---\ntitle: A page\ndescription: One sentence.\nlayout: page\n---\n"
LINE0 = FRONT.count("\n")
BIB = """@misc{demo,
  author = {Peng, Bowen and Quesnelle, Jeffrey and others},
  title = {{DeMo}: Decoupled Momentum Optimization},
  eprint = {2411.19870}, archiveprefix = {arXiv},
}

@manual{sheet,
  organization = {A vendor},
  title = {A datasheet},
  note = {Its power, as the scenario cites it :x[source]},
}
"""


@pytest.fixture
def page(render_registry, tmp_path):
    """Render a content file with the math parser and a bibliography, as the site does."""
    (tmp_path / "refs.bib").write_text(BIB)
    site = SimpleNamespace(config=SimpleNamespace(bibliography="refs.bib"),
                           reads=Reads(tmp_path), parsed={})

    def run(body, path="content/pages/x.md"):
        ctx = PageContext(render_registry, "/x/", "../", path, {}, {}, site)
        doc = parse_content_file(FRONT + body, path)
        html = render_chunk(make_markdown(math=True), doc.body, ctx, path, sections=True).html
        return html + bibliography_html(ctx), ctx
    return run


def _fails(page, body: str, line: int, *words: str) -> BuildError:
    with pytest.raises(BuildError) as e:
        page(body)
    assert e.value.where == f"content/pages/x.md:{LINE0 + line}", e.value
    for w in words:
        assert w in e.value.message, e.value.message
    assert "\n" not in str(e.value)          # one line
    return e.value


def test_inline_and_display_math_become_mathml_with_no_script(page):
    html, _ = page("The sum $x_k^2$ is inline.\n\n$$\\sum_{k=0}^{K-1} x_k$$ (eq:sum)\n\n"
                   "As [@eq:sum] says.\n")
    assert '<math display="inline">' in html and '<math display="block">' in html
    assert "<script" not in html and "$" not in html
    assert '<div class="equation" id="eq-sum" tabindex="0" role="group" aria-labelledby="eq-sum-no">' in html
    assert '<span class="eqno xnum" id="eq-sum-no">(1)</span>' in html
    assert '<a class="xref" href="#eq-sum"><span class="xnum">(1)</span></a>' in html
    # digits in an index, limit or exponent are marked as such, none other
    assert html.count('class="math-index"') == 3          # the exponent 2, the limits 0 and 1


def test_a_number_in_math_comes_from_the_registry_and_a_constant_is_marked(page, render_registry):
    n = render_registry.numbers["final_loss.A"]
    html, ctx = page("$L = \\num{final_loss.A}$ and $w = \\const{2} S$.\n")
    assert f'<mtext><data class="num" value="{n.raw()}" data-id="final_loss.A"' in html
    assert '<mn class="math-const">2</mn>' in html
    assert "final_loss.A" in ctx.numbers_shown


def test_a_typed_number_in_math_is_a_naked_number(page, render_registry):
    html, _ = page("The factor is $k = 42$ here.\n")
    problems = scan_page("/x/", f"<main>{html}</main>", load_allowlist(),
                         numbers=render_registry.numbers)
    assert any("42" in p for p in problems), problems
    html, _ = page("The factor is $k = \\const{42}$ and $x_{42}$ here.\n")
    assert scan_page("/x/", f"<main>{html}</main>", load_allowlist(),
                     numbers=render_registry.numbers) == []


def test_citations_are_numbered_in_order_with_a_bibliography_and_cards(page):
    html, ctx = page("First [@sheet], then [@demo; @sheet].\n")
    assert 'data-term="cite:sheet"><span class="xnum">1</span>' in html
    assert 'data-term="cite:demo"><span class="xnum">2</span>' in html
    assert html.index('id="ref-sheet"') < html.index('id="ref-demo"')
    assert "B. Peng, J. Quesnelle et al. DeMo: Decoupled Momentum Optimization. arXiv:2411.19870." in html
    assert set(ctx.refs.cards) == {"cite:sheet", "cite:demo"}
    assert ctx.refs.cards["cite:demo"][0] == "[2]"
    # a note's reason mark is for the sentence check (cit/sentences.py), not the reader
    assert "A vendor. A datasheet. Its power, as the scenario cites it." in html
    assert ":x[" not in html


def test_figure_and_table_captions_are_numbered_and_referred_to(page):
    html, _ = page("See [@tbl:two] after [@fig:one].\n\nFigure: The first {#fig:one}\n\n"
                   "| a |\n|---|\n| b |\n\nTable: The second {#tbl:two}\n")
    assert '<p class="caption" id="fig-one"><span class="xnum">Figure 1.</span> The first</p>' in html
    assert '<p class="caption" id="tbl-two"><span class="xnum">Table 1.</span> The second</p>' in html
    assert '<a class="xref" href="#tbl-two"><span class="xnum">Table 1</span></a>' in html


def test_a_caption_whose_label_does_not_end_it_names_its_line(page):
    # a caption with anything after its label would be shown with the label as text
    _fails(page, "Fine.\n\n| a |\n|---|\n| b |\n\nTable: The second {#tbl:two} :x[caption]\n",
           7, "must end its paragraph")


def test_an_unknown_citation_key_names_its_line(page):
    _fails(page, "Fine.\n\nA claim of a source [@nobody].\n", 3, "unknown citation key 'nobody'")


def test_an_unknown_label_names_its_line(page):
    _fails(page, "Fine.\n\nAs in [@eq:missing].\n", 3, "unknown label 'eq:missing'")


def test_a_duplicate_label_names_both_lines(page):
    e = _fails(page, "$$a$$ (eq:x)\n\n$$b$$ (eq:x)\n", 3, "label 'eq:x' given twice")
    assert f"content/pages/x.md:{LINE0 + 1}" in e.message
    _fails(page, "Figure: One {#fig:a}\n\nFigure: Two {#fig:a}\n", 3, "given twice")


@pytest.mark.parametrize("tex,why", [("\\frac{a}{b", "`{` not closed"), ("a}", "closes no"),
                                     ("\\left( x", "malformed TeX"), ("x_", "malformed TeX"),
                                     ("\\foo{x}", "unknown command \\foo")])
def test_malformed_tex_names_its_line(page, tex, why):
    _fails(page, f"Fine.\n\nThen ${tex}$ here.\n", 3, "malformed TeX", why)
    _fails(page, f"Fine.\n\n$${tex}$$\n", 3, "malformed TeX", why)


def test_a_lone_dollar_names_its_line(page):
    _fails(page, "Fine.\n\nIt costs $5 a month.\n", 3, "opens no math")
    html, _ = page("It costs \\$5.\n")
    assert "$5" in html


def test_tex_to_mathml_refuses_an_unknown_number(render_registry):
    ctx = PageContext(render_registry, "/x/", "../", "p.md", {}, {})
    with pytest.raises(BuildError, match="unknown number id 'no.such'"):
        tex_to_mathml("\\num{no.such}", False, "p.md:3", ctx)


def test_bibtex_errors_name_the_file_and_line():
    with pytest.raises(BuildError) as e:
        parse_bib(BIB + "\n@misc{demo, title = {Again}, author = {X}}\n", "refs.bib")
    assert e.value.where == f"refs.bib:{BIB.count(chr(10)) + 2}"
    assert "given twice (first at line 1)" in e.value.message
    with pytest.raises(BuildError) as e:
        parse_bib("@misc{a, title = {x}\n\n@misc{b, title={y}}", "refs.bib")
    assert e.value.where == "refs.bib:3" and "BibTeX" in e.value.message
    with pytest.raises(BuildError, match="needs an author"):
        parse_bib("@misc{a, title = {x}}", "refs.bib")


def test_a_page_without_a_dollar_gets_the_parser_without_math():
    from cit.render import SiteState
    st = SiteState(None, [], {}, make_markdown(), {}, {}, None)
    assert st.parser("No math here.") is st.md
    assert st.parser("Some $x$.") is st.parser("More $y$.") is not st.md
