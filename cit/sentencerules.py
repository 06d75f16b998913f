"""What the comparing-sentence check knows of the study (docs/claims.md, "Sentences the
build finds"): the names of its entities, the nouns of its data and the reasons an
exempt sentence may give, all declared by the study in site.yaml's `sentences` block
(and the catalogue file it names), none here.

A sentence is a comparison candidate by what it is about, whatever its verb: one of the
study's entities (its own, or those a pronoun or anaphor in it inherits from the sentence
before), one of the nouns of its data (a run, a seed, a log), or a quantity (a registered
number, a number word, a multiple, a percentage). `Patterns.about` says which it names;
cit/sentences.py adds the word list, resolves the anaphora in reading order and decides.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from . import yamlio
from .errors import BuildError
from .fieldcheck import FieldRule, check_fields
from .reads import Reads

# English number words (not "one another"), multiples and percentages: quantities
# whatever the study
NUMBER_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
                "ten", "eleven", "twelve", "twenty", "hundred", "thousand", "million",
                "half", "twice", "double", "triple", "dozen", "third", "quarter")
QUANTITY_RE = re.compile(
    r"#"                                                   # a registered number
    r"|(?<![\w\-′])(?:" + "|".join(NUMBER_WORDS) + r")(?![\w\-′])(?!\s+another)"
    r"|(?<![\w\-′])(?:doubl|tripl|halv)(?:es|ed|ing)(?![\w\-′])"   # doubles, halved
    r"|\d+(?:\.\d+)?\s*[x×](?![\w\d])|×"                  # a multiple: 1.75x, 3 ×
    r"|(?<![\w\-])times(?![\w\-])"
    r"|%|(?<![\w\-])per\s?cent(?![\w\-])", re.I)
# a pronoun or anaphor as a subject (the first word of the sentence or of a clause, after
# a comma, a semicolon, a colon or a conjunction): the sentence is about what the one
# before it (or its lead: a glossary entry's term, a slide's title) was about, and
# inherits its entities
ANAPHOR_RE = re.compile(r"(?:^|[,;:(]\s*|(?<![\w\-′])(?:and|but|yet|so|while|whereas|then|"
                        r"although|though|because|since|where|when)\s+)"
                        r"(?:it|its|they|their|them|this|these|those|both|neither|either|"
                        r"the\s+former|the\s+latter|the\s+others?|each|such|one)(?![\w\-′])",
                        re.I)
# one-letter names that are also English words: a variant "A" is not the article in
# "A ring of workers" (a capital letter followed by a lower-case word)
WORD_LETTERS = frozenset({"A", "I"})
ARTICLE_RE = re.compile(r"\s+[a-z]")
# a word, as names and letters are matched: hyphens and the prime belong to it
TOKEN_RE = re.compile(r"[\w′\-]+")
BOUND_RE = re.compile(r"[\w′\-]")
# words that quantify over a set: with one of the study's data nouns a few words on
# they make a statement about all of its data, which a reason cannot exempt
QUANTIFIERS = ("every", "each", "only", "no", "none", "all")
QUANTIFIER_WINDOW = 3
# the comparing words that order two things (cit/sentences.py COMPARING_WORDS has more):
# a sentence naming two entities with one of these compares them
ORDERING_WORDS = (
    "than", "below", "above", "beat(?:s|ing)?", "beaten", "outperform(?:s|ed|ing)?",
    "exceed(?:s|ed|ing)?", "same as", "as well as", "better", "worse", "faster", "slower",
    "sooner", "later", "higher", "lower", "larger", "smaller", "cheaper", "fewer", "more",
    "less", "best", "worst", "ahead", "behind", "trail(?:s|ed|ing)?", "match(?:es|ed)",
    "lag(?:s|ged|ging)?", "edg(?:e|es|ed|ing) out", "overt(?:akes?|ook|aken|aking)",
    "win(?:s|ning)?", "won", "los(?:es|ing)", "lost")
ORDERING_RE = re.compile(r"(?<![\w\-′])(?:" + "|".join(w.replace(" ", r"\s+")
                                                       for w in ORDERING_WORDS)
                         + r")(?![\w\-′])", re.I)

# a quantifier right after one of these is a condition, not a statement about the data
CONDITION_RE = re.compile(r"(?<![\w\-])(?:if|whether|unless|until)\s+$", re.I)
# a comparison put as a question, a hypothesis or a refutation criterion asserts nothing
QUESTION_RE = re.compile(r"(?<![\w\-])(?:whether|hypothes[ie]s(?:ed)?|refuted\s+if|"
                         r"would\s+(?:not\s+)?(?:refute|support))(?![\w\-])|\?\s*$", re.I)

SENTENCE_RULES = {"catalogue": FieldRule(dict, required=False),
                  "entities": FieldRule(dict, required=False),
                  "data_nouns": FieldRule(list, item_kind=str),
                  "reasons": FieldRule(dict, nonblank=True),
                  "probes": FieldRule(str, required=False, nonblank=True)}
PROBE_RULES = {"text": FieldRule(str, nonblank=True), "compares": FieldRule(bool),
               "candidate": FieldRule(bool, required=False),
               "after": FieldRule(str, required=False, nonblank=True),
               "idiom": FieldRule(str, required=False, nonblank=True),
               "holds": FieldRule(bool, required=False, nullable=True)}
CATALOGUE_RULES = {"file": FieldRule(str, nonblank=True), "list": FieldRule(str, nonblank=True),
                   "fields": FieldRule(list, nonblank=True, item_kind=str)}
REASON_KEY_RE = re.compile(r"[a-z][a-z0-9-]*")


@dataclass(frozen=True)
class Vocabulary:
    """The study's entity names (`names`: case-insensitive, `letters`: exact), its data
    nouns and its reason keys (key -> the line saying what it covers)."""
    names: tuple[str, ...] = ()
    letters: tuple[str, ...] = ()
    data_nouns: tuple[str, ...] = ()
    reasons: tuple[tuple[str, str], ...] = ()
    # the detector's self-test (docs/claims.md): (file:line, sentence, compares, whether
    # it must be flagged, the sentence before it)
    probes: tuple[tuple[str, str, bool, bool, str], ...] = ()

    def _firsts(self) -> dict[str, tuple[str, ...]]:
        """Each name, lower-cased, under its first word, longest first."""
        out: dict[str, list[str]] = {}
        for n in sorted({" ".join(n.lower().split()) for n in self.names}, key=len, reverse=True):
            m = TOKEN_RE.match(n)
            if m:
                out.setdefault(m.group(0), []).append(n)
        return {k: tuple(v) for k, v in out.items()}

    def _quantified_re(self) -> re.Pattern | None:
        if not self.data_nouns:
            return None
        nouns = "|".join(re.escape(n) + r"(?:s|es)?(?:['’]s?)?" for n in self.data_nouns)
        return re.compile(r"(?<![\w\-])(?:" + "|".join(QUANTIFIERS) + r")(?![\w\-])"
                          r"(?:\W+[\w′’'\-]+){0,%d}?\W+(?:%s)(?![\w\-])"
                          % (QUANTIFIER_WINDOW - 1, nouns), re.I)

    def patterns(self) -> "Patterns":
        nouns = (re.compile(r"(?<![\w\-])(?:%s)(?:s|es)?(?![\w\-])"
                            % "|".join(re.escape(n) for n in self.data_nouns), re.I)
                 if self.data_nouns else None)
        return Patterns(self._firsts(), frozenset(self.letters), self._quantified_re(),
                        dict(self.reasons), nouns)


@dataclass(frozen=True)
class Patterns:
    """The compiled vocabulary (made once per check): the names by their first word,
    the letters, the quantifier pattern, the reasons; `seen` keeps each text's entities
    for the check's other questions about the same sentence."""
    firsts: dict
    letters: frozenset
    quantified_re: re.Pattern | None
    reasons: dict
    data_noun_re: re.Pattern | None = None
    seen: dict = field(default_factory=dict, compare=False, repr=False)

    def entities(self, text: str) -> list[str]:
        """The distinct entities a sentence names, in the order it names them (names
        lower-cased)."""
        return list(dict.fromkeys(" ".join(e.split()) for _, _, e in self._spans(text)))

    def about(self, text: str, inherited=()) -> list[str]:
        """What makes a sentence a candidate by its subject, in this order: the entities it
        names, those it `inherited` (the sentence before it, its lead) when it holds a
        pronoun or anaphor (ANAPHOR_RE), the data nouns it names, its first quantity; []
        when none."""
        ents = self.entities(text)
        if inherited and ANAPHOR_RE.search(text):
            ents += [e for e in inherited if e not in ents]
        nouns = ([" ".join(m.group(0).lower().split()) for m in self.data_noun_re.finditer(text)]
                 if self.data_noun_re else [])
        q = QUANTITY_RE.search(text)
        return list(dict.fromkeys(ents + nouns + ([q.group(0).lower()] if q else [])))

    def _spans(self, text: str) -> list[tuple[int, int, str]]:
        """(start, end, entity) of each name or letter, leftmost, longest first: a name
        matches whole words, case aside; a letter exactly, and "A"/"I" not before a
        lower-case word (the article, the pronoun)."""
        got = self.seen.get(text)
        if got is not None:
            return got
        low, spans, until = text.lower(), [], 0
        for m in TOKEN_RE.finditer(text):
            start, end = m.span()
            if start < until:
                continue
            for name in self.firsts.get(low[start:end], ()):
                stop = start + len(name)
                if low.startswith(name, start) and not BOUND_RE.match(low, stop):
                    spans.append((start, stop, name))
                    until = stop
                    break
            else:
                word = m.group(0)
                if word in self.letters and not (word in WORD_LETTERS
                                                 and ARTICLE_RE.match(text, end)):
                    spans.append((start, end, word))
        self.seen[text] = spans
        return spans

    def unexemptable(self, text: str, inherited=()) -> str | None:
        """Why a reason cannot exempt this sentence, or None: it quantifies over the
        study's data (not as a condition: "if every seed reaches it"), or it orders two
        entities (an ordering word between two different ones; an anaphor stands for the
        `inherited` entities it does not name itself) where it does not put that as a
        question or hypothesis (QUESTION_RE)."""
        for q in (self.quantified_re.finditer(text) if self.quantified_re else ()):
            if not CONDITION_RE.search(text[:q.start()]):
                return f"it quantifies over the data ({' '.join(q.group(0).split())!r})"
        if QUESTION_RE.search(text):
            return None
        spans = self._spans(text)
        own = {e for _, _, e in spans}
        spans = spans + [(m.start(), m.end(), e) for m in ANAPHOR_RE.finditer(text)
                         for e in inherited if e not in own]
        for order in ORDERING_RE.finditer(text):
            before = {e for s, _, e in spans if s < order.start()}
            after = {e for s, _, e in spans if s >= order.end()}
            pair = next(((a, b) for a in before for b in after if a != b), None)
            if pair:
                return (f"it compares {pair[0]!r} and {pair[1]!r} "
                        f"({order.group(0).lower()!r})")
        return None


def load_vocabulary(root: Path, block: dict | None, where, reads: Reads) -> Vocabulary:
    """site.yaml's `sentences` block (`where(key)`: its place for errors): the entity
    names it lists by class, those of the catalogue file it names (`file`, the `list` of
    entries in it, the `fields` of each that are names), its data nouns and reasons."""
    if not block:
        return Vocabulary()
    check_fields(block, SENTENCE_RULES, where, "sentences")
    names: list[str] = []
    for cls, words in (block.get("entities") or {}).items():
        if not isinstance(words, list) or not all(isinstance(w, str) and w.strip() for w in words):
            raise BuildError(where("entities"), f"sentences: entities: {cls!r} must be a "
                             "list of names")
        names += words
    cat = block.get("catalogue")
    if cat:
        names += _catalogue_names(root, cat, where("catalogue"), reads)
    letters = tuple(n for n in names if len(n.rstrip("′")) == 1 and n[0].isupper())
    reasons = []
    for key, line in block["reasons"].items():
        if not REASON_KEY_RE.fullmatch(str(key)) or not isinstance(line, str) or not line.strip():
            raise BuildError(where("reasons"), f"sentences: reasons: {key!r} needs a "
                             "lower-case key and one line saying what it covers")
        reasons.append((key, " ".join(line.split())))
    probes = _probes(root, block["probes"], reads) if block.get("probes") else ()
    return Vocabulary(tuple(n for n in names if n not in letters), letters,
                      tuple(block["data_nouns"]), tuple(reasons), probes)


def _probes(root: Path, rel: str, reads: Reads) -> tuple[tuple[str, str, bool, bool, str], ...]:
    """The probe file's `entries`: each a `text`, whether it `compares` (and, for the
    reader, whether the comparison `holds` on the study's data), whether it is a
    `candidate` (it must be flagged; by default, when it compares: a sentence that names
    the data compares nothing yet is one) and the sentence `after` which it is read (the
    antecedent of its pronoun)."""
    out = []
    for line, raw in yamlio.entries(reads.text(Path(root) / rel), rel):
        check_fields(raw, PROBE_RULES, lambda key: f"{rel}:{line}", "probe")
        out.append((f"{rel}:{line}", " ".join(raw["text"].split()), raw["compares"],
                    raw.get("candidate", raw["compares"]), " ".join(raw.get("after", "").split())))
    return tuple(out)


def _catalogue_names(root: Path, cat: dict, where: str, reads: Reads) -> list[str]:
    check_fields(cat, CATALOGUE_RULES, lambda key: where, "sentences: catalogue")
    path = Path(root) / cat["file"]
    data, node = yamlio.load_with_nodes(reads.text(path), cat["file"])
    entries = data.get(cat["list"]) if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise BuildError(where, f"sentences: catalogue: {cat['file']} has no list "
                         f"{cat['list']!r}")
    out = []
    for entry in entries:
        for f in cat["fields"]:
            value = entry.get(f) if isinstance(entry, dict) else None
            out += [v for v in (value if isinstance(value, list) else [value])
                    if isinstance(v, str) and v.strip()]
    return out

