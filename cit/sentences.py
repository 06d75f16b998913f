"""The comparing-sentence check (docs/claims.md, "Sentences the build finds").

Every sentence a reader can see is read from where it is written: the content
Markdown (pages, decks and their front matter), the glossary, the study's other
content YAML, the
templates, and the page texts written in code (captions, notes, figure descriptions:
string literals of the modules that write pages). A sentence that compares, orders,
bounds, counts over a set or gives a cause (`COMPARING_RE`) must carry a checked claim
(`:c[id]` at its end), or be listed in the exemption file with the reason it is not a
comparison of the data (a definition, a statement of method). Anything else fails the
build naming the file and line of the sentence.

The check reads sources, not the rendered pages, so its figures (sentences found,
checked, exempt) are known before the pages are rendered and are the same in a cold
build and a cached one. It does not look claims up: rendering does (cit/claims.py).
"""

from __future__ import annotations

import ast
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

import yaml
from markdown_it import MarkdownIt

from . import yamlio
from .claimrefs import SENTENCE_END_RE
from .claims import parse_reference
from .errors import BuildError
from .fieldcheck import FieldRule, check_fields
from .fragments import without_mark
from .frontmatter import parse_content_file
from .reads import Reads

EXEMPTIONS_PATH = "data/sentences.yaml"
# Words that make a sentence a comparison, an ordering, a bound, a count over a set or
# a cause. Hyphenated compounds (all-reduce, all-gather) are names, not quantifiers.
COMPARING_WORDS = (
    "than", "below", "above", "under", "beyond", "exceeds?", "exceeded",
    "every", "all", "none", "never", "always", "only", "no longer",
    "most", "least", "fewer", "more", "less", "best", "worst", "better", "worse",
    "higher", "lower", "larger", "smaller", "faster", "slower", "sooner", "cheaper",
    "minimum", "maximum", "at least", "at most", "close to", "as well as", "same as",
    "beats?", "beaten", "reach(?:es|ed)?", "wins?", "pays?", "outperforms?",
    "because", "so that", "why", "explains?", "explained", "caused?", "causes",
    "due to", "lets?", "led to",
)
COMPARING_RE = re.compile(r"(?<![\w\-′])(?:" + "|".join(w.replace(" ", r"\s+")
                                                       for w in COMPARING_WORDS)
                          + r")(?![\w\-′])"
                          r"|(?:^|[,;:]\s*)so(?=\s)", re.I)     # "…, so …": a consequence
# :c[id] ends the sentence it guards (cit/claimrefs.py); the punctuation after it is its
CLAIM_RE = re.compile(r":c\[([^\]\n]*)\]([.!?;,:]*)")
SPLIT_RE = re.compile(CLAIM_RE.pattern + "|" + SENTENCE_END_RE.pattern)
MARKUP_RE = re.compile(
    r":n\[[^\]\n]*\]"                          # a number: shown as "#" here
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


@dataclass(frozen=True)
class Sentence:
    """One sentence as a reader sees it (`text`: markup taken out, a number shown as
    "#"), where it is written (`file`, `line`) and the claims it carries."""
    file: str
    line: int
    text: str
    claims: tuple[str, ...] = ()

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"

    def comparing(self) -> list[str]:
        return [" ".join(m.group(0).lower().split()) for m in COMPARING_RE.finditer(self.text)]


def plain(raw: str) -> str:
    """Inline Markdown as read: numbers as "#", terms and links as their words."""
    def repl(m: re.Match) -> str:
        if m.group(0).startswith((":n[", "{")):
            return "#"
        if m.group(0).startswith(":t["):
            return m.group(2) or m.group(1)
        if m.group(0).startswith("["):
            return m.group(3)
        return ""
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
        text = re.sub(r"\s+([.!?;,:])", r"\1", plain(CLAIM_RE.sub(r"\2", piece)))
        if text and (claims or len(text.split()) >= MIN_WORDS):
            lead = len(piece) - len(piece.lstrip())
            out.append(Sentence(file, line + raw.count("\n", 0, start + lead), text, claims))
        start = end
    return out


def markdown_sentences(text: str, file: str) -> list[Sentence]:
    """A content file's sentences: its title and description, then its body (headings,
    paragraphs, list items, table cells); block directives (`@[...]`) are not text."""
    doc = parse_content_file(text, file)
    lines = text.splitlines()
    out = []
    for key in ("title", "description"):
        at = next((i + 1 for i, ln in enumerate(lines) if ln.startswith(f"{key}:")), 1)
        out += split_inline(getattr(doc.meta, key), file, at)
    for tok in _block_parser().parse(doc.body.text):
        if tok.type == "inline" and tok.map and not tok.content.lstrip().startswith("@["):
            out += split_inline(without_mark(tok.content), file, doc.body.first_line + tok.map[0])
    return out


def _block_parser() -> MarkdownIt:
    """Block structure only: the inline text is read by split_inline."""
    return MarkdownIt("commonmark").enable("table").disable(["inline", "text_join"])


# keys of a content YAML file whose values are names, ids or references, not prose: the
# glossary's and any file's ids; a study names those of its own files in site.yaml
# (`yaml_name_keys`, docs/site-config.md)
YAML_NAME_KEYS = frozenset({"id", "key", "term", "see"})


def yaml_sentences(text: str, file: str, name_keys=()) -> list[Sentence]:
    """Every prose string of a YAML file (the glossary, a study's own): a scalar under a
    key that is not a name or id (YAML_NAME_KEYS and the study's `name_keys`), with
    three words or more."""
    names = YAML_NAME_KEYS | frozenset(name_keys)
    out = []

    def walk(node, key=None):
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                walk(v, k.value)
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
SCRIPT_RE = re.compile(r"<(script|style)\b.*?</\1>", re.S | re.I)
INLINE_TAGS = {"a", "abbr", "b", "code", "data", "em", "i", "small", "span", "strong",
               "sub", "sup", "time", "kbd", "q", "dfn", "bdi"}
BREAK = "\x1f"


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


def code_sentences(text: str, file: str) -> list[Sentence]:
    """The page texts a module writes: its string literals that read as prose (three
    words or more once tags are taken out), outside the places `_prose_literals`
    leaves out."""
    out = []
    for node in _prose_literals(ast.parse(text, file)):
        s = _string_of(node)
        if len(s.split()) < MIN_WORDS or not re.search(r"[a-z]{2,} [a-z]{2,}", s):
            continue
        for off, part in html_pieces(s):
            out += split_inline(part, file, node.lineno + off)
    return out


@dataclass(frozen=True)
class Exemption:
    file: str
    starts: str
    reason: str
    line: int


EXEMPTION_RULES = {"file": FieldRule(str), "starts": FieldRule(str), "reason": FieldRule(str)}
MIN_STARTS = 6


def load_exemptions(root: Path, reads: Reads | None = None) -> list[Exemption]:
    """The exemption file of the project at `root`: `entries`, each a `file`, the
    sentence's first words as the check shows them (`starts`) and the `reason` it
    compares nothing of the data."""
    out, name = [], EXEMPTIONS_PATH
    reads = reads or Reads(root)
    for line, raw in yamlio.entries(reads.text(Path(root) / name), name):
        check_fields(raw, EXEMPTION_RULES, lambda key: f"{name}:{line}", "exemption")
        if len(raw["starts"]) < MIN_STARTS or not raw["reason"].strip():
            raise BuildError(f"{name}:{line}", f"an exemption needs `starts` of at least "
                             f"{MIN_STARTS} characters and a reason")
        out.append(Exemption(raw["file"], " ".join(raw["starts"].split()), raw["reason"], line))
    return out


@dataclass(frozen=True)
class SentenceReport:
    """What the check found: every sentence read, the comparing ones with a claim
    (`checked`) and the exempt ones; `entries`: the exemption file's size."""
    read: int
    checked: int
    exempt: int
    entries: int

    @property
    def found(self) -> int:
        return self.checked + self.exempt


# A module whose string literals reach pages (a block renderer, a module that registers
# tables, captions or figure labels) declares it with a top-level `PAGE_TEXT = True`;
# the check reads every module of the project's code folders and takes those.
PAGE_TEXT_RE = re.compile(r"^PAGE_TEXT = True\b", re.M)
READERS = (("content", "**/*.md", markdown_sentences),
           ("content", "*.yaml", yaml_sentences),
           ("templates", "*.html", template_sentences))


def _sources(root: Path, reads: Reads):
    """(name, text, reader) for every content and template file whose sentences the
    site shows, each read through `reads` (so recorded, and decoded in the one place)."""
    for top, pattern, reader in READERS:
        for p in reads.glob(root / top, pattern):
            yield reads.rel(p), reads.text(p), reader


def _rows(sentences) -> list[list]:
    return [[s.file, s.line, s.text, list(s.claims)] for s in sentences]


def _code_rows(root: Path, reads: Reads, packages=()) -> list[list]:
    """The sentences of the modules whose string literals reach pages (those marked
    PAGE_TEXT), in the engine and the study's `packages` (cit.siteconfig:
    SiteConfig.packages)."""
    rows: list[list] = []
    for folder in ("cit", *packages):
        for p in reads.glob(root / folder, "**/*.py"):
            text = reads.text(p)
            if PAGE_TEXT_RE.search(text):
                rows += _rows(code_sentences(text, reads.rel(p)))
    return rows


def collect(root: Path, reads: Reads, memo=None, code: str = "",
            packages=(), name_keys=()) -> list[Sentence]:
    """Every sentence the site shows, from where it is written. `memo` (the build's
    JSON memo, cit/cache.py) keeps each content file's sentences under the hash of its
    text and of the build's code (`code`: cit/incremental.py code_key), and the code's
    sentences under the code key alone (it hashes every module the check would read),
    so a page edit reads that page again, and no module. `name_keys`: the study's YAML
    keys that hold names, not prose (yaml_sentences), part of each file's key."""
    root = Path(root)
    out: list[Sentence] = []
    names = sorted(name_keys)
    for name, text, reader in _sources(root, reads):
        def compute(text=text, name=name, reader=reader):
            if reader is yaml_sentences:
                return _rows(yaml_sentences(text, name, names))
            return _rows(reader(text, name))
        key = hashlib.sha256(f"{code}\0{' '.join(names)}\0{name}\0{text}".encode()).hexdigest()
        rows = memo("sentences-" + re.sub(r"[^A-Za-z0-9]+", "-", name), key, compute) \
            if memo else compute()
        out += [Sentence(f, ln, t, tuple(c)) for f, ln, t, c in rows]
    key = hashlib.sha256(f"{code}\0{' '.join(packages)}".encode()).hexdigest()
    rows = (memo("sentences-of-the-code", key, lambda: _code_rows(root, reads, packages))
            if memo and code else _code_rows(root, reads, packages))
    return out + [Sentence(f, ln, t, tuple(c)) for f, ln, t, c in rows]


def _undefined_words(s: Sentence, claims) -> list[str]:
    """The loose words of a claim-carrying sentence that none of its claims defines."""
    cited = [claims[c] for c in s.claims if c in claims]
    if not cited:
        return []
    words = dict.fromkeys(" ".join(m.group(0).lower().split()) for m in VAGUE_RE.finditer(s.text))
    return [w for w in words if not any(c.defines(w) for c in cited)]


def check(root: Path, reads: Reads | None = None, memo=None, claims=None,
          code: str = "", packages=(), name_keys=()) -> SentenceReport:
    """The comparing-sentence check over `root`'s sources; BuildError listing every
    comparing sentence with neither a claim nor an exemption (file:line, the words that
    make it one, the sentence), every loose word of a claim-carrying sentence that its
    claims do not define (`claims`: the registry's, id -> Claim), and every exemption
    that matches no sentence, or one that carries a claim or compares nothing.
    `reads`: the build's (cit/reads.py), a fresh one when None; `memo`, `code`: as for
    `collect`, and `packages`, `name_keys` (the study's, cit.siteconfig)."""
    root = Path(root)
    reads = reads or Reads(root)
    sentences = collect(root, reads, memo, code, packages, name_keys)
    exemptions = load_exemptions(root, reads)
    used: set[int] = set()
    problems, checked, exempt = [], 0, 0
    for s in sentences:
        match = next((e for e in exemptions if e.file == s.file and s.text.startswith(e.starts)), None)
        if s.claims:
            checked += 1
            loose = _undefined_words(s, claims or {})
            if loose:
                problems.append(f"{s.where}: {', '.join(repr(w) for w in loose)} in a sentence "
                                f"citing {', '.join(s.claims)}, whose test does not say what "
                                f"the word means (Claim.words): {s.text!r}")
            if match:
                problems.append(f"{EXEMPTIONS_PATH}:{match.line}: exempts {s.where}, which "
                                f"carries a claim; drop the exemption")
                used.add(match.line)
            continue
        words = s.comparing()
        if match:
            used.add(match.line)
            exempt += 1
            if not words:
                problems.append(f"{EXEMPTIONS_PATH}:{match.line}: exempts {s.where}, which "
                                f"compares nothing; drop the exemption")
            continue
        if words:
            problems.append(f"{s.where}: a sentence that compares ({', '.join(dict.fromkeys(words))}) "
                            f"carries no claim: {s.text!r}")
    problems += [f"{EXEMPTIONS_PATH}:{e.line}: exemption matches no sentence of {e.file} "
                 f"starting {e.starts!r}" for e in exemptions if e.line not in used]
    if problems:
        raise BuildError("sentence check", f"{len(problems)} problem(s); mark each comparing "
                         "sentence :c[id], reword it, or exempt it in "
                         f"{EXEMPTIONS_PATH} with its reason (docs/claims.md):\n  "
                         + "\n  ".join(problems))
    return SentenceReport(len(sentences), checked, exempt, len(exemptions))
