"""The forms of English that compare (cit/sentenceforms.py), on their own: each form in
sentences no page of the site uses, and the English words that only look like a form."""

import pytest

from cit.sentenceforms import forms_in

FOUND = [
    ("The sparse scheme was the quickest of the lot.", "superlative: the quickest"),
    ("Its second cheapest setting sufficed.", "superlative: its second cheapest"),
    ("The slice outpaced the dense update.", "outdoing: outpaced"),
    ("The sort left the narrower ones far back.", "comparative: the narrower ones"),
    ("Splitting the queue paid off.", "outcome: paid off"),
    ("The new card outgrew the old one.", "outdoing: outgrew"),
    ("The slice is as sturdy as the sort.", "equative: as sturdy as"),
    ("The path ran hotter under load.", "comparative: ran hotter"),
    ("The readout seemed noisier at dusk.", "comparative: seemed noisier"),
    ("The sort ended up in the bottom.", "rank: ended up in the bottom"),
    ("The slice was a close third.", "rank: close third"),
    ("The sort led the pack.", "rank: led the pack"),
    ("The slice sat at the back of the queue.", "rank: at the back of"),
    ("The error dwindled over time.", "change: dwindled"),
    ("Precision deteriorated with each plane.", "change: deteriorated"),
    ("The two schemes tied.", "parity: tied"),
    ("The sort is indistinguishable from the slice.", "parity: indistinguishable"),
    ("Consequently the path pays for itself.", "cause: consequently"),
    ("The gap stems from the noise.", "cause: stems from"),
    ("The first attempt collapsed.", "outcome: collapsed"),
    ("Its training broke down twice.", "outcome: broke down"),
]

NOT_FOUND = [
    "The test writes its output to the rest of the folder.",
    "An outline of the outcome sits outside the page.",
    "As long as the file is there, the build reads it.",
    "The layer is never under the header.",
    "Each worker is a server with a buffer.",
    "A request to the manifest follows the contest.",
]


@pytest.mark.parametrize("text, form", FOUND)
def test_a_form_that_compares_is_found_whatever_its_word(text, form):
    assert forms_in(text) == [form]


@pytest.mark.parametrize("text", NOT_FOUND)
def test_words_that_only_look_like_a_form_are_not_found(text):
    assert forms_in(text) == []


def test_a_form_overlapping_a_word_already_found_is_not_reported_twice():
    text = "The slice is faster."
    start = text.index("faster")
    assert forms_in(text) == ["comparative: is faster"]
    assert forms_in(text, [(start, start + len("faster"))]) == []
