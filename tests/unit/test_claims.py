"""Checked claims (`:c[id]`): parsing, the sentence they wrap, and the build errors for an
unknown id, a false claim and the one-seed hypothesis rule."""

import re

import pytest

from cit.claims import Verdict, claim_book, parse_reference
from cit.errors import BuildError
from cit.fmt import fmt
from cit.frontmatter import parse_content_file
from cit.markdown import PageContext, make_markdown, render_chunk
from cit.registry import Registry, Source

FRONT = "---\ntitle: A page\ndescription: One sentence.\nlayout: page\n---\n"
FRONT_LINES = FRONT.count("\n")
SRC = (Source("vendored/results/fake/run.jsonl", "0" * 40, "f" * 40),)


def _registry():
    reg = Registry()
    reg.add("loss.a", 3.1, fmt(3.1, 3), kind="measured", sources=SRC, locator="x",
            computation="y")
    book = claim_book(reg)
    book.add("a.below.b", "A's loss is below B's", Verdict(True, (("A", "3.100"), ("B", "3.200")),
                                                           (3, 3)),
             sources=SRC, computation="A < B")
    book.add("a.above.b", "A's loss is above B's", Verdict(False, (("A", "3.100"), ("B", "3.200")),
                                                           (3, 3)),
             sources=SRC, computation="A > B")
    book.add("x.below.y", "X's loss is below Y's", Verdict(True, (("X", "2.700"), ("Y", "3.244")),
                                                           (1, 1)),
             sources=SRC, computation="X < Y")
    return reg


@pytest.fixture
def page():
    reg = _registry()

    def run(body, path="content/pages/x.md"):
        ctx = PageContext(reg, "/x/", "../", path, {}, {})
        doc = parse_content_file(FRONT + body, path)
        return render_chunk(make_markdown(), doc.body, ctx, path, sections=True).html, ctx
    return run


def test_parse_reference():
    assert parse_reference("a.b") == ("a.b", False)
    assert parse_reference("a.b|hypothesis") == ("a.b", True)
    assert parse_reference("a.b|maybe") is None
    assert parse_reference("") is None


def test_a_claim_wraps_its_sentence_and_ends_with_a_mark(page):
    html, ctx = page("First sentence. Then A ended at :n[loss.a], below B :c[a.below.b]. Last one.\n")
    m = re.search(r'<span class="claim" data-claim="a.below.b">(.*?)</span>', html)
    assert m, html
    inner = m.group(1)
    assert inner.startswith("Then A ended at <data")
    assert 'below B.<data class="claim-mark" value="verified" data-id="a.below.b">' in inner
    assert "First sentence." not in inner and "Last one." not in inner
    assert html.count('data-claim=') == 1
    assert ctx.claims_cited == {"a.below.b"}


def test_two_claims_in_one_paragraph_wrap_their_own_sentences(page):
    html, _ = page("A is below B :c[a.below.b]. Again, A is below B :c[a.below.b].\n")
    spans = re.findall(r'<span class="claim" data-claim="a.below.b">(.*?)<data', html)
    assert spans == ["A is below B.", "Again, A is below B."]


def test_a_claim_inside_a_list_item_starts_with_the_item(page):
    html, _ = page("- A is below B :c[a.below.b].\n- Other.\n")
    assert '<li><span class="claim" data-claim="a.below.b">A is below B.' in html


def test_an_unknown_claim_names_file_and_line(page):
    body = "Para.\n\nSecond line\nwith :c[no.such.claim].\n"
    with pytest.raises(BuildError) as e:
        page(body)
    assert e.value.where == f"content/pages/x.md:{FRONT_LINES + 4}"
    assert "unknown claim id 'no.such.claim'" in e.value.message


def test_a_false_claim_names_file_line_claim_and_evidence(page):
    with pytest.raises(BuildError) as e:
        page("Intro.\n\nA is above B :c[a.above.b].\n")
    assert e.value.where == f"content/pages/x.md:{FRONT_LINES + 3}"
    assert "'a.above.b' is false" in e.value.message
    assert "A = 3.100; B = 3.200" in e.value.message


def test_a_single_seed_comparison_needs_the_hypothesis_marker(page):
    with pytest.raises(BuildError) as e:
        page("X is below Y :c[x.below.y].\n")
    assert "hypothesis marker" in e.value.message and "x.below.y|hypothesis" in e.value.message
    html, _ = page("X is below Y :c[x.below.y|hypothesis].\n")
    assert 'class="claim-mark claim-hyp"' in html and ">hypothesis ✓</data>" in html


def test_the_marker_on_a_several_seed_claim_fails(page):
    with pytest.raises(BuildError) as e:
        page("A is below B :c[a.below.b|hypothesis].\n")
    assert "drop the hypothesis marker" in e.value.message


def test_a_malformed_claim_reference_fails(page):
    with pytest.raises(BuildError) as e:
        page("A is below B :c[a.below.b|perhaps].\n")
    assert "malformed claim reference" in e.value.message


def test_claim_and_number_ids_do_not_collide():
    reg = _registry()
    with pytest.raises(BuildError):
        claim_book(reg).add("loss.a", "x", Verdict(True, ()), sources=SRC, computation="")
    with pytest.raises(BuildError):
        reg.add("a.below.b", 1, "1", kind="derived", sources=SRC, locator="", computation="")


def test_false_claims_are_listed_even_when_no_page_cites_them():
    from cit.claims import false_claims
    wrong = false_claims(_registry().claims)
    assert wrong == ["a.above.b: A's loss is above B's. Evidence: A = 3.100; B = 3.200"]


def test_a_tooltip_keeps_the_words_without_the_mark(page):
    from cit.claims import without_marks
    from cit.markdown import plain_text
    html, _ = page("A is below B :c[a.below.b].\n")
    assert plain_text(without_marks(html)) == "A is below B."


@pytest.mark.parametrize("seeds, margin, one_seed, expected", [
    ((3, 3), False, False, False),      # several seeds on every side
    ((1, 3), False, False, True),       # one single-seed group is enough
    ((1,), False, False, True),
    ((1, 3), True, False, False),       # unless the test requires a margin in seed sds
    ((3, 3), False, True, True),        # or the predicate says it rests on one run
    ((), False, False, False),          # no trained groups compared
])
def test_a_claim_is_a_hypothesis_when_any_compared_group_had_one_seed(seeds, margin, one_seed,
                                                                        expected):
    """docs/claims.md, "One seed": the rule the check enforces."""
    from cit.claims import ClaimBook, Verdict
    book = ClaimBook({})
    c = book.add("x.claim", "checks something", Verdict(True, (), seeds), sources=(),
                 computation="test", one_seed=one_seed, seed_margin=margin)
    assert c.hypothesis is expected
