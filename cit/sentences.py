"""The comparing-sentence check (docs/claims.md, "Sentences the build finds").

Every sentence a reader can see is read from where it is written: the content
Markdown (pages, decks and their front matter), the glossary, the study's other
content YAML, the templates, and the page texts written in code (captions, notes,
figure descriptions: string literals of the modules that write pages). A comparison
candidate (`signals`: a sentence naming two of the study's entities, or one and a
quantity, cit/sentencerules.py; or holding one of `COMPARING_WORDS`) must carry a
checked claim (`:c[id]` at its end) or a reason (`:x[key]` in the same place, a
`# :x[key]` comment in code) from the keys the study declares; a reason is refused
where its sentence quantifies over the data or orders two entities. Anything else fails
the build naming the file and line of the sentence.

The check reads sources, not the rendered pages, so its figures (candidates found,
checked, exempt by reason) are known before the pages are rendered and are the same in
a cold build and a cached one. It does not look claims up: rendering does (cit/claims.py).
"""

from __future__ import annotations

import ast
import hashlib
import html
import io
import re
import tokenize
from dataclasses import dataclass, replace
from pathlib import Path

import yaml
from markdown_it import MarkdownIt

from . import yamlio
from .claimrefs import SENTENCE_END_RE
from .claims import parse_reference
from .errors import BuildError
from .fragments import without_mark
from .frontmatter import NOTES_NAME, parse_content_file
from .markdown import FOLD_NAME, add_folds, fold_summary
from .reads import Reads
from .sentenceforms import forms_in
from .sentencerules import ORDERING_WORDS, Patterns, Vocabulary, name_problems, ranking_words

# Words that make a sentence a comparison, an ordering, a bound, a count over a set or
# a cause. Hyphenated compounds (all-reduce, all-gather) are names, not quantifiers.
COMPARING_WORDS = (
    "under", "beyond", "every", "all", "none", "never", "always", "only", "no longer",
    "most", "least", "minimum", "maximum", "at least", "at most", "close to",
    "reach(?:es|ed)?", "pa(?:ys?|id|ying)",
    "because", "so that", "why", "explains?", "explained", "caused?", "causes",
    "due to", "lets?", "led to", "finished (?:first|last)",
    # and the ordering words, each in every inflection (cit/sentencerules.py ORDERING_WORDS)
) + ORDERING_WORDS
COMPARING_RE = re.compile(r"(?<![\w\-′])(?:" + "|".join(w.replace(" ", r"\s+")
                                                       for w in COMPARING_WORDS)
                          + r")(?![\w\-′])"
                          r"|(?:^|[,;:]\s*)so(?=\s)", re.I)     # "…, so …": a consequence
# :c[id] ends the sentence it guards (cit/claimrefs.py); the punctuation after it is its
CLAIM_RE = re.compile(r":c\[([^\]\n]*)\]([.!?;,:]*)")
# :x[key] ends an exempt sentence the same way, naming its reason (site.yaml `sentences:
# reasons`); the Markdown renders it as nothing (cit/markdown.py), a chain text drops it
REASON_RE = re.compile(r":x\[([^\]\n]*)\]([.!?;,:]*)")
SPLIT_RE = re.compile(CLAIM_RE.pattern + "|" + REASON_RE.pattern + "|" + SENTENCE_END_RE.pattern)
# in code a reason is a comment on the line the check names: `# :x[caption]`
CODE_REASON_RE = re.compile(r":x\[([^\]\n]*)\]")
MARKUP_RE = re.compile(
    r"\$\$[^\n]*?\$\$(?:\s*\([^)\n]*\))?"        # a display formula (cit/mathcite.py): "#"
    r"|\$[^$\n]+\$"                           # a formula: read as "#", a symbol
    r"|\[@[^\]\n]*\]|\{#[a-z]+:[^}\n]*\}"       # a citation or cross-reference: "#"; a label: nothing
    r"|:n\[[^\]\n]*\]"                         # a number: shown as "#" here
    r"|:t\[([^\]|\n]*)(?:\|([^\]\n]*))?\]"     # a term: its words, else its key
    r"|\[([^\]\n]*)\]\([^)\s]*\)"              # a link: its text
    r"|\{[A-Za-z0-9_.\-′|]+\}"                 # a YAML text's {id} or {id|unit}: a number
    r"|[*`]+")
# Loose words: a sentence that cites a claim and uses one of these must be citing a
# claim that says how it tested the word ("far" = by more than ten seed sds): Claim.words
VAGUE_WORDS = ("far", "well", "much", "many times", "most", "mostly", "little", "close",
               "nearly", "about", "roughly", "diverged", "trained", "steadily",
               "slightly", "barely", "sharply", "largely")
# "at its most steps" names the end of the evaluation grid's interval, not a share
VAGUE_RE = re.compile(r"(?<![\w\-′])(?<!its )(?:" + "|".join(w.replace(" ", r"\s+") for w in VAGUE_WORDS)
                      + r")(?![\w\-′])", re.I)
MIN_WORDS = 2
# characters a page shows as nothing: zero-width spaces and joiners, the word joiner, the
# byte-order mark, the soft hyphen
INVISIBLE_RE = re.compile("[\u00ad\u200b-\u200f\u2060-\u2064\ufeff]")
# "below"/"above" after one of these says where on the page, not an order
PLACE_WORDS = frozenset({"table", "tables", "figure", "figures", "chart", "charts", "list",
                         "lists", "section", "sections", "ledger", "slide", "slides", "page",
                         "pages", "card", "cards", "settings", "plot", "plots", "diagram",
                         "text", "controls", "row", "rows", "column", "columns", "explorer",
                         "paragraph", "see", "shown", "listed", "described", "given", "as",
                         "sweep", "links", "link", "cells"})

# "behind" after one of these says what something rests on ("the data behind this
# chart"), not an order
SOURCE_WORDS = frozenset({"data", "checks", "formulas", "figures", "numbers", "code",
                          "reasoning", "sources", "records"})
NOT_AN_ORDER_AFTER = {"below": PLACE_WORDS, "above": PLACE_WORDS, "behind": SOURCE_WORDS}


@dataclass(frozen=True)
class Sentence:
    """One sentence as a reader sees it (`text`: markup taken out, a number shown as
    "#"), where it is written (`file`, `line`) and the claims it carries."""
    file: str
    line: int
    text: str
    claims: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()
    # what the detector found (`signals`) and why no reason may exempt it
    # (Patterns.unexemptable), when worked out as the sentence was read; None: not yet
    found: tuple[str, ...] | None = None
    why: str | None = None
    # what it is about besides its own words (a glossary entry's term, the title of the
    # slide or section a list item sits under): its entities are the sentence's too
    lead: str = ""

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"

    def comparing(self) -> list[str]:
        """The comparing words it holds; "below" and "above" that say where something is
        on the page ("the table below", "shown above"), and "behind" that says what it
        rests on ("the data behind"), are not among them (NOT_AN_ORDER_AFTER); then the
        forms of English that compare (cit/sentenceforms.py) the words did not find."""
        out, spans = [], []
        for m in COMPARING_RE.finditer(self.text):
            word = " ".join(m.group(0).lower().split())
            context = NOT_AN_ORDER_AFTER.get(word)
            spans.append(m.span())
            if context:
                before = re.findall(r"[\w′]+", self.text[:m.start()])
                if before and before[-1].lower() in context:
                    continue
            out.append(word)
        return out + forms_in(self.text, spans)


def plain(raw: str) -> str:
    """Inline Markdown as read: numbers as "#", terms and links as their words."""
    def repl(m: re.Match) -> str:
        if m.group(0).startswith("{#"):
            return ""
        if m.group(0).startswith((":n[", "{", "$", "[@")):
            return "#"
        if m.group(0).startswith(":t["):
            return m.group(2) or m.group(1)
        if m.group(0).startswith("["):
            return m.group(3)
        return ""
    raw = raw.replace("![", "[")          # an image reads as its alt text
    # a character reference reads as the character the page shows ("b&#101;ats"), and a
    # character the page does not show (a zero-width space inside a word) as nothing
    raw = INVISIBLE_RE.sub("", html.unescape(raw))
    return " ".join(MARKUP_RE.sub(repl, raw).split())


def split_inline(raw: str, file: str, line: int) -> list[Sentence]:
    """The sentences of one piece of inline text (a paragraph, list item, heading, cell
    or YAML string) whose first line is `line` of `file`."""
    out, start = [], 0
    for m in list(SPLIT_RE.finditer(raw)) + [None]:
        end = m.end() if m else len(raw)
        piece = raw[start:end]
        claims = tuple((parse_reference(c.group(1)) or (c.group(1), False))[0]
                       for c in CLAIM_RE.finditer(piece))
        reasons = tuple(r.group(1).strip() for r in REASON_RE.finditer(piece))
        bare = REASON_RE.sub(r"\2", CLAIM_RE.sub(r"\2", piece))
        text = re.sub(r"\s+([.!?;,:])", r"\1", plain(bare))
        if out and (claims or reasons) and not re.search(r"\w", text):
            last = out[-1]            # a mark right after another: the same sentence's
            out[-1] = Sentence(last.file, last.line, last.text, last.claims + claims,
                               last.reasons + reasons)
        elif text and (claims or reasons or len(text.split()) >= MIN_WORDS):
            lead = len(piece) - len(piece.lstrip())
            out.append(Sentence(file, line + raw.count("\n", 0, start + lead), text, claims,
                                reasons))
        start = end
    return out


def markdown_sentences(text: str, file: str) -> list[Sentence]:
    """A content file's sentences: its title and description, then its body (headings,
    paragraphs, list items, table cells, a fold's summary); block directives (`@[...]`)
    are not text."""
    doc = parse_content_file(text, file)
    lines = text.splitlines()
    out = []
    for key in ("title", "description"):
        at = next((i + 1 for i, ln in enumerate(lines) if ln.startswith(f"{key}:")), 1)
        out += split_inline(dict(doc.meta.written).get(key, getattr(doc.meta, key)), file, at)
    heading, in_list, in_heading = "", 0, False
    for tok in _block_parser().parse(doc.body.text):
        in_list += {"bullet_list_open": 1, "ordered_list_open": 1, "bullet_list_close": -1,
                    "ordered_list_close": -1}.get(tok.type, 0)
        in_heading = tok.type == "heading_open" or (in_heading and tok.type != "heading_close")
        if tok.type == "inline" and tok.map and not tok.content.lstrip().startswith("@["):
            got = split_inline(without_mark(tok.content), file, doc.body.first_line + tok.map[0])
            if in_heading:
                heading = plain(tok.content)
            elif in_list:           # a list item is about the slide or section it sits under
                got = [replace(x, lead=heading) for x in got]
            out += got
        elif tok.type == f"container_{FOLD_NAME}_open" and tok.map:
            out += split_inline(fold_summary(tok), file, doc.body.first_line + tok.map[0])
    return out


def _block_parser() -> MarkdownIt:
    """Block structure only (folds and speaker notes included): the inline text is read by
    split_inline."""
    from mdit_py_plugins.container import container_plugin
    md = MarkdownIt("commonmark", {"html": False}).enable("table").disable(["inline", "text_join"])
    add_folds(md)
    md.use(container_plugin, NOTES_NAME)   # a slide's speaker notes: their own sentences
    return md


# keys of a content YAML file whose values are names, ids or references, not prose: the
# glossary's and any file's ids; a study names those of its own files in site.yaml
# (`yaml_name_keys`, docs/site-config.md)
YAML_NAME_KEYS = frozenset({"id", "key", "term", "see"})
# the key whose value an entry's prose is about (a glossary entry's term)
LEAD_KEYS = ("term",)


def yaml_sentences(text: str, file: str, name_keys=()) -> list[Sentence]:
    """Every prose string of a YAML file (the glossary, a study's own): a scalar under a
    key that is not a name or id (YAML_NAME_KEYS and the study's `name_keys`), with
    three words or more."""
    names = YAML_NAME_KEYS | frozenset(name_keys)
    out = []

    def walk(node, key=None):
        if isinstance(node, yaml.MappingNode):
            term = next((v.value for k, v in node.value if k.value in LEAD_KEYS
                         and isinstance(v, yaml.ScalarNode)), "")
            for k, v in node.value:
                start = len(out)
                walk(v, k.value)
                if term:             # an entry's prose is about its term
                    out[start:] = [replace(x, lead=term) for x in out[start:]]
        elif isinstance(node, yaml.SequenceNode):
            for v in node.value:
                walk(v, key)
        elif isinstance(node, yaml.ScalarNode) and key not in names \
                and isinstance(node.value, str) and len(node.value.split()) >= MIN_WORDS:
            first = node.start_mark.line + 1 + (1 if node.style in (">", "|") else 0)
            out.extend(split_inline(node.value, file, first))
    walk(yamlio.compose(text, file))
    return out


TAG_RE = re.compile(r"<(/?)([a-zA-Z][\w-]*)[^>]*>|\{#.*?#\}|\{%.*?%\}|\{\{.*?\}\}", re.S)
# scripts, styles, comments and the doctype are not prose
SCRIPT_RE = re.compile(r"<(script|style)\b.*?</\1>|<!--.*?-->|<![^>]*>", re.S | re.I)
INLINE_TAGS = {"a", "abbr", "b", "code", "data", "em", "i", "small", "span", "strong",
               "sub", "sup", "time", "kbd", "q", "dfn", "bdi"}
BREAK = "\x1f"
REASON_COMMENT_RE = re.compile(r"\{#\s*(:x\[[^\]\n]*\])\s*#\}")


def html_pieces(text: str) -> list[tuple[int, str]]:
    """The visible text of a piece of HTML (a template, a string a module writes) as
    (line offset, text) pieces, one per block element: an inline tag's text stays in its
    sentence, a Jinja expression reads as a number, comments and scripts are left out.
    The line offset counts the newlines before the piece's first visible character."""
    def repl(m: re.Match) -> str:
        s = m.group(0)
        keep = "\n" * s.count("\n")
        if s.startswith("{{"):
            return "#" + keep
        mark = REASON_COMMENT_RE.fullmatch(s)
        if mark:                       # {# :x[key] #}: a reason where the sentence ends
            return " " + mark.group(1) + keep
        if s.startswith("{"):
            return keep
        return keep if m.group(2).lower() in INLINE_TAGS else BREAK + keep
    cleaned = SCRIPT_RE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    cleaned = TAG_RE.sub(repl, cleaned)
    out, newlines = [], 0
    for part in cleaned.split(BREAK):
        if part.strip():
            lead = len(part) - len(part.lstrip())
            out.append((newlines + part.count("\n", 0, lead), part.strip()))
        newlines += part.count("\n")
    return out


def template_sentences(text: str, file: str) -> list[Sentence]:
    return [s for off, part in html_pieces(text) for s in split_inline(part, file, 1 + off)]


# keyword arguments whose strings are a card's method statements or names, not page
# prose (a number's computation and locator; docs/claims.md says why)
CODE_METHOD_KEYWORDS = {"computation", "locator", "unit", "kind", "cls", "source", "fx", "fy"}
CODE_SKIP_CALLS = ("Error", "print", "Verdict", "check_reference", "fail", "compile",
                   "add", "number")


def _call_name(node: ast.Call) -> str:
    f = node.func
    return f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")


def _string_of(node) -> str | None:
    """A string literal's text (implicit concatenations are one literal); an f-string's
    constant parts with each formatted value as "#"."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "#" for v in node.values)
    return None


def _is_docstring(parent, node) -> bool:
    body = getattr(parent, "body", None)
    return (isinstance(parent, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
            and bool(body) and body[0] is node and isinstance(node, ast.Expr))


def _prose_literals(node):
    """The string literals under `node` that may be page prose: not docstrings, error
    messages, printed lines, a verdict's evidence labels, a claim's or number's card
    fields (the calls `add` and `number`: what a claim checked, a computation) or
    method keywords."""
    for child in ast.iter_child_nodes(node):
        if _is_docstring(node, child):
            continue
        if isinstance(child, ast.Call) and _call_name(child).endswith(CODE_SKIP_CALLS):
            continue
        if isinstance(child, ast.keyword) and child.arg in CODE_METHOD_KEYWORDS:
            continue
        if _string_of(child) is not None:
            yield child
        else:
            yield from _prose_literals(child)


def _comment_marks(text: str) -> dict[int, tuple[str, ...]]:
    """line -> the reason keys of the `# :x[key]` comments on that line of a module."""
    out: dict[int, tuple[str, ...]] = {}
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT:
            keys = tuple(m.group(1).strip() for m in CODE_REASON_RE.finditer(tok.string))
            if keys:
                out[tok.start[0]] = keys
    return out


def code_sentences(text: str, file: str) -> list[Sentence]:
    """The page texts a module writes: its string literals that read as prose (two
    words of letters in a row, in any case: a Title Case caption is read too), outside
    the places `_prose_literals` leaves out. A `# :x[key]` comment gives the reasons of the sentences on its line;
    one on a line where no sentence starts fails, naming the line."""
    out = []
    for node in _prose_literals(ast.parse(text, file)):
        s = _string_of(node)
        if len(s.split()) < MIN_WORDS or not re.search(r"[A-Za-z]{2,} [A-Za-z]{2,}", s):
            continue
        for off, part in html_pieces(s):
            out += split_inline(part, file, node.lineno + off)
    marks = _comment_marks(text)
    stray = sorted(set(marks) - {x.line for x in out})
    if stray:
        raise BuildError(f"{file}:{stray[0]}", "a reason comment (# :x[...]) on a line where "
                         "no sentence of the page text starts: put it on the line the "
                         "sentence check names (docs/claims.md)")
    return [Sentence(x.file, x.line, x.text, x.claims, marks.get(x.line, ())) for x in out]


@dataclass(frozen=True)
class SentenceReport:
    """What the check found: every sentence read, the candidates with a claim
    (`checked`) and the exempt ones by reason (`by_reason`: key, the line saying what it
    covers, count; every declared key)."""
    read: int
    checked: int
    by_reason: tuple[tuple[str, str, int], ...] = ()
    # the detector's self-test: comparing probes, those flagged; plain ones, those flagged
    probes: tuple[int, int, int, int] = (0, 0, 0, 0)
    # what `check(defer=True)` found wrong, for `raise_problems` once the pages are built
    problems: tuple[str, ...] = ()

    @property
    def exempt(self) -> int:
        return sum(n for _, _, n in self.by_reason)

    @property
    def found(self) -> int:
        return self.checked + self.exempt


# A module whose string literals reach pages (a block renderer, a module that registers
# tables, captions or figure labels) declares it with a top-level `PAGE_TEXT = True`;
# the check reads every module of the project's code folders and takes those.
PAGE_TEXT_RE = re.compile(r"^PAGE_TEXT = True\b", re.M)
BIB_NOTE_RE = re.compile(r"^\s*note\s*=\s*\{(.*?)\}\s*,?\s*$", re.M | re.S)


def bib_sentences(text: str, file: str) -> list[Sentence]:
    """The sentences of a BibTeX file's `note` fields, the one field the bibliography
    shows as prose (titles and names are names): each note is one inline text."""
    return [s for m in BIB_NOTE_RE.finditer(text)
            for s in split_inline(m.group(1), file, text.count("\n", 0, m.start(1)) + 1)]


READERS = (("content", "**/*.md", markdown_sentences),
           ("content", "*.yaml", yaml_sentences),
           ("content", "**/*.bib", bib_sentences),
           ("templates", "*.html", template_sentences))


def _sources(root: Path, reads: Reads):
    """(name, text, reader) for every content and template file whose sentences the
    site shows, each read through `reads` (so recorded, and decoded in the one place)."""
    for top, pattern, reader in READERS:
        for p in reads.glob(root / top, pattern):
            yield reads.rel(p), reads.text(p), reader


def _rows(sentences, pats: Patterns | None = None) -> list[list]:
    """Sentences as the memo keeps them, with what the detector (`pats`) finds in each,
    read in order: a sentence with a pronoun or anaphor inherits the entities of the one
    before it in the same file (Patterns.about)."""
    out, before = [], []
    for s in sentences:
        found = why = None
        if pats is not None:
            found, before = resolve(s, pats, before)
            why = (pats.unexemptable(s.text, before, pats.question_reason in s.reasons)
                   if s.reasons else None)
        out.append([s.file, s.line, s.text, list(s.claims), list(s.reasons), found, why])
    return out


def _sentence(row) -> Sentence:
    f, ln, t, c, r, found, why = row
    return Sentence(f, ln, t, tuple(c), tuple(r), None if found is None else tuple(found), why)


def _code_rows(root: Path, reads: Reads, packages=(), pats=None) -> list[list]:
    """The sentences of the modules whose string literals reach pages (those marked
    PAGE_TEXT), in the engine and the study's `packages` (cit.siteconfig:
    SiteConfig.packages)."""
    rows: list[list] = []
    for folder in ("cit", *packages):
        for p in reads.glob(root / folder, "**/*.py"):
            text = reads.text(p)
            if PAGE_TEXT_RE.search(text):
                rows += _rows(code_sentences(text, reads.rel(p)), pats)
    return rows


def collect(root: Path, reads: Reads, memo=None, code: str = "",
            packages=(), name_keys=(), vocabulary: Vocabulary | None = None) -> list[Sentence]:
    """Every sentence the site shows, from where it is written, with what the detector
    finds in it when `vocabulary` is given. `memo` (the build's JSON memo,
    cit/cache.py) keeps each content file's sentences under the hash of its text, of
    the build's code (`code`: cit/incremental.py code_key) and of the vocabulary, and the
    code's sentences under the code and vocabulary alone (the code key hashes every
    module the check would read), so a page edit reads and judges that page again, and
    no module. `name_keys`: the study's YAML keys that hold names, not prose
    (yaml_sentences), part of each file's key."""
    root = Path(root)
    out: list[Sentence] = []
    names = sorted(name_keys)
    pats = vocabulary.patterns() if vocabulary is not None else None
    vkey = hashlib.sha256(repr(vocabulary).encode()).hexdigest()
    for name, text, reader in _sources(root, reads):
        def compute(text=text, name=name, reader=reader):
            if reader is yaml_sentences:
                return _rows(yaml_sentences(text, name, names), pats)
            return _rows(reader(text, name), pats)
        key = hashlib.sha256(f"{code}\0{vkey}\0{' '.join(names)}\0{name}\0{text}".encode()).hexdigest()
        rows = memo("sentences-" + re.sub(r"[^A-Za-z0-9]+", "-", name), key, compute) \
            if memo else compute()
        out += [_sentence(r) for r in rows]
    key = hashlib.sha256(f"{code}\0{vkey}\0{' '.join(packages)}".encode()).hexdigest()
    rows = (memo("sentences-of-the-code", key, lambda: _code_rows(root, reads, packages, pats))
            if memo and code else _code_rows(root, reads, packages, pats))
    return out + [_sentence(r) for r in rows]


def _undefined_words(s: Sentence, claims) -> list[str]:
    """The loose words of a claim-carrying sentence that none of its claims defines."""
    cited = [claims[c] for c in s.claims if c in claims]
    if not cited:
        return []
    words = dict.fromkeys(" ".join(m.group(0).lower().split()) for m in VAGUE_RE.finditer(s.text))
    return [w for w in words if not any(c.defines(w) for c in cited)]


def resolve(s: Sentence, pats: Patterns, before=()) -> tuple[list[str], list[str]]:
    """(signals, entities): what makes `s` a comparison candidate (Patterns.about with
    its lead's entities and, through an anaphor, those of the sentence `before` it, then
    its comparing words; [] when neither), and the entities it is about, for the next."""
    lead = pats.entities(s.lead) if s.lead else []
    own = list(dict.fromkeys(pats.entities(s.text) + lead))
    inherited = [e for e in before if e not in own]
    about = pats.about(s.text, inherited)
    ents = own + [e for e in inherited if e in about]
    return list(dict.fromkeys(lead + about + s.comparing())), ents


def signals(s: Sentence, pats: Patterns, before=()) -> list[str]:
    """What makes a sentence a comparison candidate (resolve)."""
    return resolve(s, pats, before)[0]


def _code_reasons(sentences, cands: set[int]) -> tuple[dict[int, str], list[str]]:
    """The reason of each candidate sentence written in code (index -> key): a line's
    comment marks go to its candidates in order, one mark each (a sentence added to a
    string that has a reason does not take that reason: its line then has a mark too
    few)."""
    got, problems, lines = {}, [], {}
    for i, s in enumerate(sentences):
        if s.reasons and s.file.endswith(".py"):
            lines.setdefault((s.file, s.line), []).append(i)
    for (file, line), idx in lines.items():
        keys = sentences[idx[0]].reasons
        want = [i for i in idx if i in cands]
        if len(keys) == len(want):
            got.update(zip(want, keys))
        elif want:
            problems.append(f"{file}:{line}: {len(keys)} reason marks for {len(want)} "
                            "candidate sentences on this line (one each, in their order)")
        if not want:
            problems.append(f"{file}:{line}: a reason on a line whose sentences compare "
                            "nothing; drop it")
    return got, problems


def judge(sentences, pats: Patterns, claims=None) -> tuple[int, dict, list[str]]:
    """(checked, reason key -> exempt count, problems) over the sentences read."""
    flagged = {i: list(s.found) if s.found is not None else signals(s, pats)
               for i, s in enumerate(sentences) if not s.claims}
    flagged = {i: w for i, w in flagged.items() if w}
    in_code, problems = _code_reasons(sentences, set(flagged))
    checked, counts = 0, dict.fromkeys(pats.reasons, 0)
    for i, s in enumerate(sentences):
        code = s.file.endswith(".py")
        reasons = (in_code.get(i),) if code and i in in_code else () if code else s.reasons
        if s.claims:
            checked += 1
            loose = _undefined_words(s, claims or {})
            if loose:
                problems.append(f"{s.where}: {', '.join(repr(w) for w in loose)} in a sentence "
                                f"citing {', '.join(s.claims)}, whose test does not say what "
                                f"the word means (Claim.words): {s.text!r}")
            tested = " ".join(claims[c].checked for c in s.claims if c in (claims or {}))
            differs = pats.disagreement(s.text, tested) if tested else None
            if differs:
                problems.append(f"{s.where}: the sentence does not say what "
                                f"{', '.join(s.claims)} tested: {differs}; sentence: {s.text!r}")
            if s.reasons:
                problems.append(f"{s.where}: a sentence carries both a claim and a reason "
                                f"(:x[{s.reasons[0]}]); drop the reason: {s.text!r}")
        elif reasons:
            wrong = _reason_problems(s, reasons, pats)
            problems += wrong
            if not wrong:
                counts[reasons[0]] += 1
        elif i in flagged:
            problems.append(f"{s.where}: a comparison candidate "
                            f"({', '.join(flagged[i])}) carries no claim: {s.text!r}")
        elif not code:
            problems.append(f"{s.where}: a sentence carries neither a claim :c[id] nor a "
                            f"reason :x[key]: {s.text!r}")
    return checked, counts, problems


def _reason_problems(s: Sentence, reasons, pats: Patterns) -> list[str]:
    if len(reasons) > 1:
        return [f"{s.where}: a sentence carries {len(reasons)} reasons; give it one"]
    key = reasons[0]
    if key not in pats.reasons:
        return [f"{s.where}: unknown reason :x[{key}] (site.yaml sentences: reasons has "
                f"{', '.join(pats.reasons) or 'none'})"]
    why = s.why if s.found is not None else pats.unexemptable(s.text, (),
                                                               key == pats.question_reason)
    if why:
        return [f"{s.where}: :x[{key}] cannot exempt this sentence: {why}; it needs a "
                f"checked claim: {s.text!r}"]
    return []


def check(root: Path, reads: Reads | None = None, memo=None, claims=None,
          code: str = "", packages=(), name_keys=(),
          vocabulary: Vocabulary | None = None, defer: bool = False) -> SentenceReport:
    """The comparing-sentence check over `root`'s sources; BuildError listing every
    comparison candidate (`signals`) with neither a claim nor a reason, every reason
    that is unknown, on a sentence that is no candidate or on one a reason cannot
    exempt (Patterns.unexemptable), and every loose word of a claim-carrying sentence
    that its claims do not define (`claims`: the registry's, id -> Claim).
    `reads`: the build's (cit/reads.py), a fresh one when None; `memo`, `code`: as for
    `collect`, and `packages`, `name_keys`, `vocabulary` (the study's: cit.siteconfig,
    cit.sentencerules). `defer`: the problems are returned in the report, for the build
    to raise (raise_problems) after the pages' own errors, which name a more basic
    fault: an unknown number id, a broken link, a naked number."""
    root = Path(root)
    reads = reads or Reads(root)
    vocabulary = vocabulary or Vocabulary()
    sentences = collect(root, reads, memo, code, packages, name_keys, vocabulary)
    pats = vocabulary.patterns()
    checked, counts, problems = judge(sentences, pats, claims)
    problems += _names_in_content(root, reads, YAML_NAME_KEYS | frozenset(name_keys))
    probes, missed = run_probes(vocabulary.probes, pats)
    problems += missed
    report = SentenceReport(len(sentences), checked,
                            tuple((k, pats.reasons[k], n) for k, n in counts.items()), probes,
                            tuple(problems))
    if not defer:
        raise_problems(report)
    return report


# the keys of site.yaml whose values the pages show as names: the site's title, the menu's
# labels, and the reasons' lines (/tested lists them)
SITE_NAME_KEYS = frozenset({"title", "site_name", "label"})
# text a template shows outside its elements' content: an attribute a reader sees (title,
# alt, aria-label, placeholder) and a string literal in a Jinja expression
TEMPLATE_TEXT_RE = re.compile(
    r"""(?:title|alt|aria-label|placeholder)="([^"{}]*)"|\{\{\s*"([^"]*)"|\{\{\s*'([^']*)'""")
# a formula's words: \text{...} in TeX (cit/mathcite.py renders it as words)
MATH_TEXT_RE = re.compile(r"\\text\{([^{}\n]*)\}")


def _names_in_content(root: Path, reads: Reads, names) -> list[str]:
    """The names and labels the pages show that rank or compare (ranking_words): the
    content YAML files' name keys, site.yaml's names and reasons' lines, a template's
    visible attributes and Jinja literals, and the words of every formula (\\text{...})."""
    found = []
    for p in reads.glob(root / "content", "*.yaml"):
        found += name_problems(yamlio.compose(reads.text(p), reads.rel(p)), reads.rel(p), names)
    if (root / "site.yaml").is_file():        # a project's; a bare test tree has none
        site = yamlio.compose(reads.text(root / "site.yaml"), "site.yaml")
        found += name_problems(site, "site.yaml", SITE_NAME_KEYS)
        reasons = yamlio.mapping_value(yamlio.mapping_value(site, "sentences"), "reasons")
        found += name_problems(reasons, "site.yaml", None)
    for top, pattern, texts, say in (
            ("templates", "*.html", TEMPLATE_TEXT_RE,
             "the text {!r} ranks or compares ({}); an attribute or a template's literal "
             "says what a thing is: put the comparison in a sentence with its claim"),
            ("content", "**/*.md", MATH_TEXT_RE,
             "a formula's words {!r} rank or compare ({}); put the comparison in a "
             "sentence with its claim")):
        for p in reads.glob(root / top, pattern):
            found += _ranking_texts(reads.rel(p), reads.text(p), texts, say)
    return [f"{where}: {what}" for where, what in found]


def _ranking_texts(rel: str, text: str, texts: re.Pattern, say: str) -> list[tuple[str, str]]:
    """(file:line, what is wrong: `say` given the text and its ranking words) for each
    text `texts` finds in a file (its first group that matched) that ranks or compares."""
    out = []
    for m in texts.finditer(text):
        said = next(g for g in m.groups() if g is not None)
        words = ranking_words(said)
        if words:
            out.append((f"{rel}:{text.count(chr(10), 0, m.start()) + 1}",
                        say.format(said, ", ".join(words))))
    return out


def raise_problems(report: SentenceReport) -> None:
    """BuildError listing the report's problems, if it has any."""
    if report.problems:
        raise BuildError("sentence check", f"{len(report.problems)} problem(s); mark each "
                         "comparison candidate :c[id], reword it, or give its reason :x[key] "
                         "(docs/claims.md):\n  " + "\n  ".join(report.problems))


def run_probes(probes, pats: Patterns) -> tuple[tuple[int, int, int, int], list[str]]:
    """The detector run on the study's probe sentences (site.yaml `sentences: probes`),
    each read after its antecedent: (comparing probes, of them flagged, plain probes (no
    comparison, not a candidate), of them flagged), and a problem for each probe the
    detector gets wrong, at its line."""
    counts, problems = [0, 0, 0, 0], []
    for where, text, compares, candidate, after in probes:
        before = resolve(Sentence(where, 0, after), pats)[1] if after else []
        flagged = bool(signals(Sentence(where, 0, text), pats, before))
        if compares or not candidate:
            counts[0 if compares else 2] += 1
            counts[1 if compares else 3] += flagged
        if flagged != candidate:
            what = ("compares" if compares else "names the data" if candidate
                    else "names nothing of the study")
            problems.append(f"{where}: the detector {'misses' if candidate else 'flags'} this "
                            f"probe, which {what}: {text!r}")
    return tuple(counts), problems
