"""Fragments (cit/fragments.py): a list item on a deck's slide marked `- [+]` becomes
`<li class="step">` without the mark; anywhere else the mark is refused at its file and
line; the sentence check reads the item without the mark."""

import pytest

from cit.errors import BuildError
from cit.fragments import MARK, without_mark
from cit.frontmatter import parse_content_file, split_notes
from cit.markdown import PageContext, make_markdown, render_chunk
from cit.sentences import markdown_sentences

DECK = "---\ntitle: T\ndescription: D\nlayout: deck\norder: 1\n---\n"
PAGE = "---\ntitle: A page\ndescription: One sentence.\nlayout: page\n---\n"
PATH = "content/decks/01-x.md"


def _slide(render_registry, text, path=PATH):
    doc = parse_content_file(text, path)
    slide, notes = split_notes(doc.slides()[0], path)
    ctx = PageContext(render_registry, "/decks/01-x/", "../../", path, {}, {})
    md = make_markdown()
    html = render_chunk(md, slide, ctx, path, slide=True).html
    return html, (render_chunk(md, notes, ctx, path) if notes else None)


def test_a_marked_item_on_a_slide_is_a_step_and_loses_its_mark(render_registry):
    html, _ = _slide(render_registry, DECK + "## One\n\n- First.\n- [+] Second, *stressed*.\n"
                     "- [+] Third.\n- [+]\n")
    assert html.count('<li class="step">') == 3
    assert "<li>First.</li>" in html
    assert '<li class="step">Second, <em>stressed</em>.</li>' in html
    assert MARK not in html


def test_a_loose_list_and_an_ordered_list_take_the_mark_too(render_registry):
    html, _ = _slide(render_registry, DECK + "## One\n\n1. A.\n\n2. [+] B.\n")
    assert '<li class="step">' in html and MARK not in html


def test_a_mark_inside_an_item_or_without_a_blank_after_it_is_text(render_registry):
    html, _ = _slide(render_registry, DECK + "## One\n\n- A [+] B.\n- [+]C.\n")
    assert 'class="step"' not in html and html.count(MARK) == 2


@pytest.mark.parametrize("where", ["a page", "speaker notes"])
def test_the_mark_where_nothing_reveals_it_is_refused_at_its_line(render_registry, where):
    if where == "a page":
        text, path = PAGE + "Intro.\n\n- a\n- [+] b\n", "content/pages/x.md"
        doc = parse_content_file(text, path)
        ctx = PageContext(render_registry, "/x/", "../", path, {}, {})
        with pytest.raises(BuildError) as e:
            render_chunk(make_markdown(), doc.body, ctx, path, sections=True)
    else:
        text, path = DECK + "## One\n\n- a\n\n::: notes\n- say\n- [+] b\n:::\n", PATH
        with pytest.raises(BuildError) as e:
            _slide(render_registry, text, path)
    line = text.splitlines().index("- [+] b") + 1
    assert e.value.where == f"{path}:{line}"
    assert MARK in e.value.message and "deck's slide" in e.value.message


def test_the_sentence_check_reads_the_item_without_its_mark():
    text = DECK + "## One\n\n- [+] The band sends values only and no positions at all.\n"
    said = [s.text for s in markdown_sentences(text, PATH)]
    assert "The band sends values only and no positions at all." in said
    assert without_mark("[+] x") == "x" and without_mark("[+]x") == "[+]x"


def test_a_marked_item_whose_sentence_cites_a_claim_loses_its_mark(render_registry):
    """A claim's sentence opens a span before the item's first word: the mark is still
    found and taken out (in the real decks every marked item but one cites a claim)."""
    from cit.claims import Claim
    reg = render_registry                     # a fresh registry for each test
    reg.claims["x.holds"] = Claim("x.holds", "checked", True, (), (), "how", (3, 3))
    html, _ = _slide(reg, DECK + "## One\n\n- First.\n- [+] The band sends less :c[x.holds].\n")
    assert html.count('<li class="step">') == 1 and MARK not in html
    assert '<li class="step"><span class="claim" data-claim="x.holds">The band sends less' in html
