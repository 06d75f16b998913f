"""docs/syntax.md's examples parse and build: each example is read by the engine's own
reader for its file, and the `page` examples (with the front matter example, and the
deck example as a deck) are built together in a copy of the example study, passing
every check of the build."""

import re

import pytest

from cit import logs
from cit.build import run_stages
from cit.frontmatter import parse_content_file, split_notes
from cit.glossary import load_glossary
from cit.naked import load_allowlist
from cit.sentences import split_inline
from cit.siteconfig import load_site, parse_site
from cit.vendor import read_lock
from tests.conftest import ROOT, copy_example_study

DOC = ROOT / "docs" / "syntax.md"
EXAMPLE = ROOT / "examples" / "toyopt"
CHECK_RE = re.compile(r"<!-- check: (\w+)(?: (\S+))? -->\n```\w*\n(.*?)\n```", re.S)


def _examples() -> list[tuple[str, str | None, str]]:
    return [(m[1], m[2], m[3]) for m in CHECK_RE.finditer(DOC.read_text())]


def _of(kind: str) -> list[str]:
    return [text for k, _, text in _examples() if k == kind]


def test_every_fenced_example_says_how_it_is_checked():
    fences = DOC.read_text().count("\n```") // 2
    assert fences == len(_examples()) > 0


def test_the_page_and_deck_examples_build_in_the_example_study(tmp_path):
    root = copy_example_study(tmp_path)
    (front,) = _of("frontmatter")
    (root / "content" / "pages" / "syntax.md").write_text(
        front + "\n" + "\n\n".join(_of("page")) + "\n")
    (deck,) = _of("deck")
    (root / "content" / "decks" / "02-syntax.md").write_text(deck + "\n")
    result = run_stages(root, use_cache=False)
    page = result.files["syntax/index.html"].decode()
    assert 'data-id="target"' in page and 'data-term="adam"' in page
    assert 'class="claim-mark"' in page and 'id="fig-loss-curves-json"' in page
    assert "decks/02-syntax/index.html" in result.files


def test_the_deck_example_has_two_slides_and_notes():
    (deck,) = _of("deck")
    doc = parse_content_file(deck, "content/decks/02-syntax.md")
    slides = doc.slides()
    assert doc.meta.layout == "deck" and len(slides) == 2
    assert split_notes(slides[0], doc.path)[1] is not None


def test_the_yaml_examples_are_read_by_the_engine(tmp_path):
    (glossary,) = _of("glossary")
    theirs = (EXAMPLE / "content" / "glossary.yaml").read_text()    # the terms `see` names
    both = load_glossary(theirs + glossary + "\n", "content/glossary.yaml")
    assert set(both) - set(load_glossary(theirs, "content/glossary.yaml")) == {"seed"}
    (allow,) = _of("allowlist")
    (tmp_path / "allowlist.yaml").write_text(allow)
    assert len(load_allowlist(tmp_path / "allowlist.yaml")) == 1
    (site,) = _of("site")
    assert parse_site(site).title
    (lock,) = _of("lock")
    (tmp_path / "lock.yaml").write_text(lock)
    assert [f.path for f in read_lock(tmp_path / "lock.yaml").files] == ["logs/sgd-s1.jsonl"]
    (reason,) = _of("reason")
    (sentence,) = split_inline(reason, "content/pages/results.md", 1)
    declared = load_site(EXAMPLE).sentences["reasons"]
    assert sentence.reasons and set(sentence.reasons) <= set(declared)


def test_the_log_examples_are_read_by_the_log_readers():
    found = [logs.read_log(rel, text.encode() + b"\n") for k, rel, text in _examples()
             if k == "log"]
    assert len(found) == 3 and all(r and r[0].metrics for r in found)


def test_every_block_the_doc_names_is_built_by_an_example_or_by_this_studys_content():
    text = DOC.read_text()
    built = "\n".join(_of("page") + _of("deck"))
    content = "\n".join(p.read_text() for p in (ROOT / "content").rglob("*.md"))
    named = set(re.findall(r"@\[([a-z][\w:.-]*)\]", text)) - {"name", "table:ID"}
    def used(n, text):      # the block, with or without options (`@[name key=a,b]`)
        return re.search(r"@\[" + re.escape(n) + r"(?:\s[^\]]*)?\]", text) is not None
    assert named and all(used(n, built) or used(n, content) for n in named)
