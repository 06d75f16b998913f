"""The comparing-sentence check (cit/sentences.py, docs/claims.md "Sentences the build
finds"): which sentences it finds, where it says they are, the inline reasons and what
they may not exempt, the loose words a claim must define, and a build that fails on a
planted unmarked comparison. The detector on its own, with the study's entities and
sentences the site does not use, is tests/unit/test_sentence_detector.py."""

import json
from pathlib import Path

import pytest

from cit import sentences as S
from cit.siteconfig import load_site
from cit.claims import Claim
from cit.errors import BuildError
from cit.reads import Reads
from cit.sentencerules import Vocabulary, load_vocabulary
from tests.conftest import give_caches, run_build

FRONT = "---\ntitle: A page :x[scope]\ndescription: What it holds :x[scope].\nlayout: page\n---\n"


def _project(tmp_path: Path, body: str) -> Path:
    (tmp_path / "content" / "pages").mkdir(parents=True)
    (tmp_path / "templates").mkdir()
    (tmp_path / "data").mkdir()
    (tmp_path / "content" / "pages" / "x.md").write_text(FRONT + body)
    return tmp_path


def _vocabulary(root: Path, site) -> Vocabulary:
    """The study's own vocabulary (site.yaml `sentences`, the variant catalogue)."""
    return load_vocabulary(root, site.sentences, lambda key: "site.yaml", Reads(root))


def test_split_inline_ends_a_sentence_at_a_claim_and_counts_lines():
    raw = "First one here. Then A is below B :c[a.b], and C is above D\nover two lines."
    got = S.split_inline(raw, "f.md", 10)
    assert [(s.line, s.claims) for s in got] == [(10, ()), (10, ("a.b",)), (10, ())]
    assert got[1].text == "Then A is below B,"
    assert got[2].comparing() == ["above"]
    later = S.split_inline("One two three.\nFour is below five.", "f.md", 3)
    assert later[1].line == 4


def test_markup_reads_as_the_reader_sees_it():
    assert S.plain("A :t[all-gather|gathers] at :n[x.y] [here](a/) **now**") == \
        "A gathers at # here now"
    # a hyphenated name is not the quantifier "all"
    assert S.Sentence("f", 1, "An all-gather and an all-reduce of it.").comparing() == []
    assert S.Sentence("f", 1, "It is faster, so it wins.").comparing() == ["faster", ", so", "wins"]


def test_markdown_sentences_cover_front_matter_headings_lists_and_cells():
    text = (FRONT + "## Every heading\n\n- An item below the rest.\n\n| a | b |\n|---|---|\n"
            "| more than one | x |\n\n@[table:every-thing]\n")
    got = S.markdown_sentences(text, "content/pages/x.md")
    where = {s.text: s.line for s in got}
    assert where["Every heading"] == 6
    assert where["An item below the rest."] == 8
    assert where["more than one"] == 12
    assert not any("every-thing" in s.text for s in got)


def test_code_sentences_take_prose_literals_not_docstrings_or_errors():
    code = ('"""Every docstring is left alone."""\n'
            'def f():\n'
            '    """Below every line."""\n'
            '    raise BuildError("x", "every error message is left alone")\n'
            '    cap = ("Final loss, mean over seeds; lower is "\n'
            '           "better than higher.")\n'
            '    reg.add("id", 1, "1", computation="mean over every seed")\n'
            '    return f"<p>{cap} Every bar is one run.</p>"\n')
    got = S.code_sentences(code, "cit/blocks/x.py")
    assert [(s.line, s.text) for s in got] == [
        (5, "Final loss, mean over seeds; lower is better than higher."),
        (8, "# Every bar is one run.")]


def test_yaml_sentences_skip_names_and_give_lines():
    text = ("a:\n  term: \"a term\"\n  definition: \"It is built this way. Every worker "
            "sends more.\"\n  see: [all, every-one, more-than-that]\n")
    got = S.yaml_sentences(text, "content/glossary.yaml")
    assert [(s.line, s.text) for s in got] == [
        (3, "It is built this way."), (3, "Every worker sends more.")]


def test_bib_notes_are_read_at_their_lines_and_titles_are_not():
    text = ("@misc{a,\n  title = {Every worker sends more},\n  note = {Read at the port. "
            "It is the page's figure :x[source]},\n}\n@misc{b,\n  note = {One more\n"
            "  line},\n}\n")
    got = S.bib_sentences(text, "content/refs.bib")
    assert [(s.line, s.text, s.reasons) for s in got] == [
        (3, "Read at the port.", ()), (3, "It is the page's figure", ("source",)),
        (6, "One more line", ())]


def test_a_study_s_yaml_name_keys_are_skipped_and_only_those():
    """The engine skips the glossary's and id keys; a study's own YAML names its name
    keys in site.yaml (yaml_name_keys), and without them their values are read as prose."""
    text = "lanes:\n  - lane: the lower lane of all\n    detail: It runs on every worker.\n"
    assert [s.text for s in S.yaml_sentences(text, "content/chain.yaml", ("lane",))] == [
        "It runs on every worker."]
    assert [s.text for s in S.yaml_sentences(text, "content/chain.yaml")] == [
        "the lower lane of all", "It runs on every worker."]


REASONS = Vocabulary(names=("top-k", "the band", "low band"), letters=("C",),
                     data_nouns=("run", "log", "seed"),
                     reasons=(("definition", "how a thing is built"),
                              ("caption", "what a figure draws"),
                              ("scope", "what a page covers")))


def test_an_unmarked_comparing_sentence_fails_with_file_and_line(tmp_path):
    root = _project(tmp_path, "Intro text goes here.\n\nBand C ended far below top-k here.\n")
    with pytest.raises(BuildError) as e:
        S.check(root, vocabulary=REASONS)
    assert "content/pages/x.md:8: a comparison candidate (C, top-k, below)" in e.value.message
    assert "Band C ended far below top-k here." in e.value.message


def test_a_claim_or_an_inline_reason_passes_and_is_counted_by_key(tmp_path):
    body = ("The band ended below top-k :c[a.b].\n\n"
            "Each line is a variant; lower is better :x[caption].\n")
    report = S.check(_project(tmp_path, body), vocabulary=REASONS)
    assert (report.checked, report.exempt, report.found) == (1, 3, 4)
    assert report.by_reason == (("definition", "how a thing is built", 0),
                                ("caption", "what a figure draws", 1),
                                ("scope", "what a page covers", 2))
    assert report.read >= 4


def test_a_reason_that_is_unknown_or_beside_a_claim_fails(tmp_path):
    body = ("The band ended below top-k :c[a.b] :x[caption].\n\n"
            "A thing that is lower is drawn :x[diagram].\n")
    with pytest.raises(BuildError) as e:
        S.check(_project(tmp_path, body), vocabulary=REASONS)
    msg = e.value.message
    assert "x.md:6: a sentence carries both a claim and a reason" in msg
    assert ("x.md:8: unknown reason :x[diagram] (site.yaml sentences: reasons has "
            "definition, caption, scope)") in msg


def test_every_sentence_needs_a_mark_whether_or_not_the_detector_flags_it(tmp_path):
    """A sentence the detector does not flag still needs a claim or a reason: a missed
    comparison in a verb nobody listed cannot pass unmarked, and a plain sentence
    takes its reason (docs/claims.md, Every sentence is marked)."""
    body = ("The page ends here at last :x[caption].\n\n"
            "Nothing here is new.\n\n"
            "## A heading\n")
    with pytest.raises(BuildError) as e:
        S.check(_project(tmp_path, body), vocabulary=REASONS)
    problems = e.value.message.split("\n  ")[1:]
    assert problems == [
        "content/pages/x.md:8: a sentence carries neither a claim :c[id] nor a reason "
        ":x[key]: 'Nothing here is new.'",
        "content/pages/x.md:10: a sentence carries neither a claim :c[id] nor a reason "
        ":x[key]: 'A heading'"]


def test_a_reason_cannot_exempt_a_universal_over_the_data_or_an_ordering(tmp_path):
    body = ("Every run writes one log :x[definition].\n\n"
            "The only seeds it records are these three :x[definition].\n\n"
            "Top-k trails the low band :x[definition].\n\n"
            "A run is kept if every seed reaches it, and C is the low band :x[definition].\n\n"
            "Whether the low band trains as well as top-k is the question :x[definition].\n")
    with pytest.raises(BuildError) as e:
        S.check(_project(tmp_path, body), vocabulary=REASONS)
    msg = e.value.message
    assert "x.md:6: :x[definition] cannot exempt this sentence: it quantifies over the data ('Every run')" in msg
    assert "x.md:8: :x[definition] cannot exempt this sentence: it quantifies over the data ('only seeds')" in msg
    assert "x.md:10: :x[definition] cannot exempt this sentence: it compares 'top-k' and 'low band' ('trails')" in msg
    # a condition ("if every seed") asserts nothing; a comparison put as a question is
    # exempt only under the study's question reason, not under another one
    assert "x.md:12" not in msg
    assert "x.md:14: :x[definition] cannot exempt this sentence: it compares" in msg


def test_reasons_in_code_yaml_and_templates_sit_where_the_check_names_the_sentence(tmp_path):
    root = _project(tmp_path, "Intro text goes here :x[scope].\n")
    (root / "study").mkdir()
    (root / "study" / "cap.py").write_text(
        'PAGE_TEXT = True\n'
        'A = "The low band fills the first cells of C."  # :x[caption]\n'
        'B = ("Top-k keeps cells the low band leaves out. "  # :x[caption] :x[definition]\n'
        '     "The band is drawn beside top-k.")\n'
        'C = "A plain caption of the page."  # :x[caption]\n')
    (root / "content" / "glossary.yaml").write_text(
        'band:\n  term: "band"\n  definition: "The low band is C, a fixed set :x[definition]."\n')
    (root / "templates" / "t.html").write_text("<p>The band and top-k are drawn {# :x[caption] #}.</p>\n")
    with pytest.raises(BuildError) as e:
        S.check(root, packages=("study",), vocabulary=REASONS)
    msg = e.value.message
    assert "study/cap.py:5: a reason on a line whose sentences compare nothing" in msg
    assert "cap.py:2" not in msg and "cap.py:3" not in msg
    assert "glossary.yaml" not in msg and "t.html" not in msg
    lines = (root / "study" / "cap.py").read_text().splitlines()
    (root / "study" / "cap.py").write_text("\n".join(lines[:4]) + "\n")
    report = S.check(root, packages=("study",), vocabulary=REASONS)
    assert dict((k, n) for k, _, n in report.by_reason) == {"caption": 3, "definition": 2, "scope": 3}


def test_a_sentence_added_to_a_string_with_a_reason_does_not_take_that_reason(tmp_path):
    """One mark a candidate: an outside break test added a comparing sentence to a
    caption whose line had one reason, and one mark for all let it through."""
    root = _project(tmp_path, "Intro text goes here :x[scope].\n")
    (root / "study").mkdir()
    cap = ('PAGE_TEXT = True\n'
           'A = ("The low band fills the first cells of C."  # :x[caption]\n'
           '     "{}")\n')
    (root / "study" / "cap.py").write_text(cap.format(""))
    S.check(root, packages=("study",), vocabulary=REASONS)
    (root / "study" / "cap.py").write_text(cap.format(" The cleanest readout gave the worst result."))
    with pytest.raises(BuildError, match=r"study/cap.py:2: 1 reason marks for 2 candidate"):
        S.check(root, packages=("study",), vocabulary=REASONS)


def test_a_reason_comment_off_a_sentence_line_fails(tmp_path):
    root = _project(tmp_path, "Intro text goes here :x[scope].\n")
    (root / "study").mkdir()
    (root / "study" / "cap.py").write_text('PAGE_TEXT = True\n# :x[caption]\n'
                                           'A = "The low band fills the cells of C."\n')
    with pytest.raises(BuildError, match=r"^study/cap.py:2: a reason comment"):
        S.check(root, packages=("study",), vocabulary=REASONS)


def _claim(words=()):
    return Claim("a.b", "A below B", True, (), (), "A < B", (3, 3), words=words)


def test_a_loose_word_needs_the_claims_definition(tmp_path):
    root = _project(tmp_path, "The band ended far below top-k :c[a.b].\n")
    with pytest.raises(BuildError, match=r"x.md:6: 'far' in a sentence citing a.b"):
        S.check(root, claims={"a.b": _claim()}, vocabulary=REASONS)
    report = S.check(root, claims={"a.b": _claim((("far below", "by more than ten sds"),))},
                     vocabulary=REASONS)
    assert report.checked == 1


def test_a_module_declaring_page_text_is_read_and_every_read_is_recorded(tmp_path):
    """Code is read when it declares `PAGE_TEXT = True`, not from a hand-kept list; every
    file the check reads goes through the Reads it is given, so it is recorded."""
    root = _project(tmp_path, "Intro text goes here :x[scope].\n")
    (root / "study" / "blocks").mkdir(parents=True)
    caption = 'CAP = "<p>Band C ended below top-k here.</p>"\n'
    (root / "study" / "blocks" / "shown.py").write_text("PAGE_TEXT = True\n" + caption)
    (root / "study" / "hidden.py").write_text(caption)
    reads = Reads(root)
    with pytest.raises(BuildError) as e:
        S.check(root, reads, packages=("study",), vocabulary=REASONS)
    assert "study/blocks/shown.py:2: a comparison candidate (C, top-k, below)" in e.value.message
    assert "hidden.py" not in e.value.message
    got = reads.shared()
    assert {"f:content/pages/x.md", "f:study/hidden.py",
            "f:study/blocks/shown.py"} <= set(got)


def test_a_bad_byte_or_a_folder_is_refused_by_the_reads(tmp_path):
    root = _project(tmp_path, "Intro text goes here :x[scope].\n")
    (root / "content" / "glossary.yaml").write_bytes(b"a:\n  definition: caf\xe9\n")
    with pytest.raises(BuildError, match=r"^content/glossary.yaml:2: not UTF-8 \(byte 0xe9"):
        S.check(root)
    (root / "content" / "glossary.yaml").unlink()
    (root / "content" / "pages" / "odd.md").mkdir()
    with pytest.raises(BuildError, match=r"^content/pages/odd.md: not a regular file"):
        S.check(root)


def test_the_repository_passes_and_reports_its_figures():
    root = Path(__file__).resolve().parents[2]
    site = load_site(root)
    report = S.check(root, packages=site.packages(), name_keys=site.yaml_name_keys,
                     vocabulary=_vocabulary(root, site))
    assert report.found == report.checked + report.exempt and report.exempt > 0
    assert not (root / "data" / "sentences.yaml").exists()
    # every declared reason says what it covers; the probes all come out as labelled
    assert all(line.strip() for _, line, _ in report.by_reason)
    assert report.probes[0] == report.probes[1] > 0 and report.probes[3] == 0


def test_a_planted_unmarked_comparison_fails_the_build(project_copy, warm_copy):
    give_caches(warm_copy, project_copy)
    page = project_copy / "content" / "pages" / "optics.md"
    lines = page.read_text().splitlines(keepends=True)
    at = next(i for i, ln in enumerate(lines) if ln.startswith("## What went wrong"))
    lines.insert(at + 1, "\nThe repaired runs trail the exact band.\n")
    page.write_text("".join(lines))
    r = run_build(project_copy.parent / "site", root=project_copy, cold=False)
    assert r.returncode == 1
    assert (f"content/pages/optics.md:{at + 3}: a comparison candidate (repaired runs, "
            "exact band, runs, trail)" in r.stderr), r.stderr
    assert not (project_copy.parent / "site").exists()


def test_numbers_json_and_tested_report_the_figures(built_site):
    build = json.loads((built_site / "numbers.json").read_text())["build"]
    root = Path(__file__).resolve().parents[2]
    site = load_site(root)
    report = S.check(root, packages=site.packages(), name_keys=site.yaml_name_keys,
                     vocabulary=_vocabulary(root, site))
    assert (build["sentences_found"], build["sentences_checked"], build["sentences_exempt"]) == (
        report.found, report.checked, report.exempt)
    assert {k: build[f"sentence_reason.{k}"] for k, _, _ in report.by_reason} == {
        k: n for k, _, n in report.by_reason}
    tested = (built_site / "tested" / "index.html").read_text()
    assert 'data-id="build.sentences_found"' in tested
    assert all(f'data-id="build.sentence_reason.{k}"' in tested for k, _, _ in report.by_reason)
    assert 'data-id="build.sentence_probes_flagged"' in tested


def test_with_the_code_unchanged_a_warm_check_reads_no_module_and_finds_the_same():
    """The modules' page texts are kept under the code key (it hashes every module), so a
    prose edit's check reads the content again and no .py file; another code key reads
    them all again."""
    root = Path(__file__).resolve().parents[2]
    packages = load_site(root).packages()
    kept: dict = {}

    def memo(name, key, compute):
        if (name, key) not in kept:
            kept[(name, key)] = compute()
        return kept[(name, key)]

    def collect(code):
        reads = Reads(root)
        with reads.scope() as got:
            found = S.collect(root, reads, memo, code, packages)
        return found, {e for e in got if e.endswith(".py")}
    cold, cold_modules = collect("code-1")
    warm, warm_modules = collect("code-1")
    assert warm == cold and cold_modules and not warm_modules
    assert any(s.file.endswith(".py") for s in warm)
    again, again_modules = collect("code-2")
    assert again == cold and again_modules == cold_modules


def test_a_line_of_raw_html_is_read_as_the_text_the_page_shows(tmp_path):
    """The renderer escapes HTML (cit/markdown.py), so a `<p>` line is shown as text;
    the check reads it, as it is shown."""
    root = _project(tmp_path, "Intro text goes here :x[scope].\n\n<p>Band C trails top-k.</p>\n")
    with pytest.raises(BuildError) as e:
        S.check(root, vocabulary=REASONS)
    assert "content/pages/x.md:8: a comparison candidate" in e.value.message


def test_a_title_case_caption_in_code_is_read():
    got = S.code_sentences('PAGE_TEXT = True\nCAP = "Top-k Keeps Less Energy Than The Low Band"\n',
                           "study/blocks/cap.py")
    assert [s.text for s in got] == ["Top-k Keeps Less Energy Than The Low Band"]


def test_a_claim_citing_sentence_that_turns_its_test_fails_at_its_line(tmp_path):
    root = _project(tmp_path, "Intro text goes here :x[scope].\n\nTop-k ended above the low band :c[a.b].\n")
    claim = Claim("a.b", "top-k ended below the low band", True, (), (), "x")
    with pytest.raises(BuildError) as e:
        S.check(root, claims={"a.b": claim}, vocabulary=REASONS)
    assert "content/pages/x.md:8: the sentence does not say what a.b tested" in e.value.message


def test_a_character_reference_or_an_invisible_character_does_not_hide_a_word():
    """The page shows "b&#101;ats" as "beats" and a zero-width space as nothing: the
    check reads what the page shows."""
    assert S.plain("Top-k b&#101;ats Adam\u200bW b\u00adelow it") == "Top-k beats AdamW below it"
    got = S.Sentence("f", 1, S.plain("C b&#101;ats top-k.")).comparing()
    assert got and got[0].startswith("beat")


def test_a_name_or_label_that_ranks_is_refused_at_its_line(tmp_path):
    """A glossary term, a chain lane's name or a catalogue label names a thing; one that
    ranks it ("the winner", "Top-k (best)") states a result no claim tests."""
    root = _project(tmp_path, "Intro text goes here :x[scope].\n")
    (root / "content" / "glossary.yaml").write_text(
        'topk:\n  term: "top-k, the winner"\n  definition: "A selector :x[definition]."\n')
    with pytest.raises(BuildError) as e:
        S.check(root, vocabulary=REASONS)
    assert "content/glossary.yaml:2: the name or label 'top-k, the winner' ranks" in e.value.message
    from cit import yamlio
    from cit.sentencerules import name_problems
    labels = yamlio.compose('variants:\n  - letter: B\n    chart_label: "B top-k (best of all)"\n',
                            "data/variants.yaml")
    got = [f"{where}: {what}" for where, what in name_problems(labels, "data/variants.yaml", None)]
    assert len(got) == 1 and got[0].startswith("data/variants.yaml:3: the name or label")


def test_a_formula_s_words_that_rank_are_refused_at_their_line(tmp_path):
    root = _project(tmp_path, "Intro text goes here :x[scope].\n\n"
                              "The time is $t_\\text{GPU} + t_\\text{top-k beats AdamW}$ :x[definition].\n")
    with pytest.raises(BuildError) as e:
        S.check(root, vocabulary=REASONS)
    assert "content/pages/x.md:8: a formula's words 'top-k beats AdamW' rank or compare" in e.value.message
    assert "'GPU'" not in e.value.message


def test_a_menu_label_a_template_attribute_or_literal_that_ranks_is_refused(tmp_path):
    root = _project(tmp_path, "Intro text goes here :x[scope].\n")
    (root / "site.yaml").write_text("title: A study\nnav:\n  - {url: /x/, label: Top-k won}\n")
    (root / "templates" / "page.html").write_text(
        '<p title="Top-k beats AdamW">{{ body }}</p>\n<p>{{ "The low band came out on top" }}</p>\n')
    with pytest.raises(BuildError) as e:
        S.check(root, vocabulary=REASONS)
    msg = e.value.message
    assert "site.yaml:3: the name or label 'Top-k won' ranks" in msg
    assert "templates/page.html:1: the text 'Top-k beats AdamW' ranks" in msg
    assert "templates/page.html:2: the text 'The low band came out on top' ranks" in msg
