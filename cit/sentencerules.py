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

import yaml

from . import yamlio
from .errors import BuildError
from .fieldcheck import FieldRule, check_fields
from .reads import Reads
from .sentenceforms import FORMS_RE, NOT_SUPERLATIVE

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
QUANTIFIERS = ("every", "each", "only", "no", "none", "all", "any", "not a single", "not one")
QUANTIFIER_WINDOW = 3
# ... or further on, through a noun phrase: up to this many words, none of them one of
# NOT_IN_A_NOUN_PHRASE, and no punctuation ("Each of the three top-k seeds", "every one
# of our band seeds", "all three of its seeds")
NOUN_PHRASE_WINDOW = 4
NOT_IN_A_NOUN_PHRASE = ("is", "are", "was", "were", "be", "been", "has", "have", "had",
                        "into", "from", "with", "for", "at", "to", "in", "on", "by", "as",
                        "across", "over", "under", "between", "through", "after", "before",
                        "per", "against", "within", "without", "about", "among", "than",
                        "that", "which", "who", "and", "or", "but", "if", "when")
# adverbs that make a statement about every case: with a data noun anywhere in the
# sentence ("The repaired runs, without exception, failed"; "its seeds always ended")
# ("never" is not one: "never trained" says what a design is)
UNIVERSAL_ADVERBS = ("without exception", "invariably", "always", "in every case",
                     "in all cases", "across the board", "each time", "every time")
# the comparing words that order two things (cit/sentences.py COMPARING_WORDS has more):
# a sentence naming two entities with one of these compares them
ORDERING_WORDS = (
    "than", "below", "above", "beat(?:s|ing)?", "beaten", "outperform(?:s|ed|ing)?",
    "exceed(?:s|ed|ing)?", "same as", "as well as", "better", "worse", "faster", "slower",
    "sooner", "later", "higher", "lower", "larger", "smaller", "cheaper", "fewer", "more",
    "less", "best", "worst", "ahead", "behind", "trail(?:s|ed|ing)?", "match(?:es|ed)",
    "lag(?:s|ged|ging)?", "edg(?:e|es|ed|ing) out", "overt(?:akes?|ook|aken|aking)",
    "win(?:s|ning)?", "won", "los(?:es|ing)", "lost",
    "beneath", "surpass(?:es|ed|ing)?", "best(?:s|ed)", "better(?:s|ed)",
    "edg(?:e|es|ed|ing) (?:past|ahead|by)", "in front", "no match", "match(?:ing)?",
    "keeps? pace", "kept pace", "on a par", "level with", "within a hair",
    "break(?:s|ing)? even", "broke even", "before",
    "(?:finished|finishes|ended|ends|stays?|stayed|sits?|sat|landed|lands|remained|remains|"
    "came|comes|fell|falls) (?:\\w+ly |well |just |far )?(?:under|over)")
# the ordering words that order two things wherever in the sentence the two are named
# ("Of the random band and AdamW, the random band comes out ahead"): the ordering words
# but those that also say where or when (above, below, behind, later), or that compare
# amounts rather than rank the things named (more, less, larger, ...)
WEAK_ORDERING = frozenset({"than", "below", "above", "behind", "later", "before",
                           "more", "less",
                           "fewer", "larger", "smaller", "higher", "lower", "same as",
                           "as well as", "best", "worst"})
# the forms of cit/sentenceforms.py that rank or equate what a sentence names; a
# superlative ranks them when "of" or "among" follows it, or the clause ends ("the
# strongest of the fixed bands", "came out the best."), not where it picks a part of
# one ("the lowest frequencies of each chunk")
ORDERING_FORMS = ("superlative", "outdoing", "comparative", "equative", "rank", "parity")
RANKING_AFTER_RE = re.compile(r"\s+(?:of|among)(?![\w\-])|\s*(?:[.;:,!?)]|$)")
ORDERING_RE = re.compile(r"(?<![\w\-′])(?:" + "|".join(w.replace(" ", r"\s+")
                                                       for w in ORDERING_WORDS)
                         + r")(?![\w\-′])", re.I)
UNIVERSAL_RE = re.compile(r"(?<![\w\-])(?:" + "|".join(w.replace(" ", r"\s+")
                                                      for w in UNIVERSAL_ADVERBS)
                          + r")(?![\w\-])", re.I)

# The direction an ordering word gives the thing named before it against the one named
# after it, where it gives one: its value is lower or higher ("below", "more"), or it
# ranks better or worse ("beats", "trails"). A claim-citing sentence that orders two
# things its claim's test also orders must order them the same way (docs/claims.md).
DIRECTIONS = (
    ("lower", "below|lower|less|fewer|smaller|beneath|sooner|earlier|cheaper|shorter"
              "|(?:finished|ended|ends|stays?|stayed|sits?|sat|landed|remained|remains"
              "|came|comes|fell|falls) (?:\\w+ly |well |just |far )?under"),
    ("higher", "above|higher|more|larger|later|exceeds?|exceeded|longer|greater"
               "|(?:finished|ended|ends|stays?|stayed|sits?|sat|landed|remained|remains"
               "|came|comes) (?:\\w+ly |well |just |far )?over"),
    ("better", "better|beats?|beaten|beating|outperform(?:s|ed|ing)?|ahead|in front|wins?|won"
               "|overt(?:akes?|ook|aken|aking)|surpass(?:es|ed|ing)?|edg(?:e|es|ed|ing) "
               "(?:out|past|ahead|by)"),
    ("worse", "worse|trail(?:s|ed|ing)?|lag(?:s|ged|ging)?|behind|los(?:es|ing)|lost|bested"),
    ("even", "break(?:s|ing)? even|broke even|match(?:es|ed|ing)?|on a par|level with"
             "|keeps? pace|kept pace|same as|reach(?:es|ed)?"))
OPPOSITE = {"lower": "higher", "higher": "lower", "better": "worse", "worse": "better",
            "even": "even"}
# a negation a few words before an ordering word turns it ("never beats", "does not
# break even", "no sooner")
NEGATION_RE = re.compile(r"(?<![\w\-])(?:not|never|no|nowhere|neither|nor|n't)(?![\w\-])"
                         r"(?:\W+[\w′\-]+){0,3}\W*$", re.I)
# ... or one right after the thing it is ordered against ("breaks even with AdamW nowhere")
NEGATION_AFTER_RE = re.compile(r"\W*(?:[\w′\-]+\W+){0,2}?(?:nowhere|never|at\s+no)(?![\w\-])",
                               re.I)

# a quantifier right after one of these is a condition, not a statement about the data
CONDITION_RE = re.compile(r"(?<![\w\-])(?:if|whether|unless|until|where|when)\s+$", re.I)
# a quantifier right before one of the study's entities ("Every fixed band diverged",
# "all the repaired runs") says something of every run of it
QUANTIFIED_ENTITY_RE = re.compile(r"(?<![\w\-])(?:every|each|all|none\s+of|no|any|not\s+a\s+single)"
                                  r"(?:\s+(?:of\s+)?(?:the|our|its|their))?\s+$", re.I)
# the forms that rank what they name against the rest, with one thing named: a
# superlative ("the lowest loss of all"), a place in a ranking ("came last", "the
# winner"), an outcome of training ("diverged") not denied ("never diverged" is
# asserted too, so it counts as well)
ONE_THING_FORMS = ("superlative", "rank", "outcome")
# a comparison put as a question, a hypothesis or a refutation criterion asserts nothing
QUESTION_RE = re.compile(r"(?<![\w\-])(?:whether|hypothes[ie]s(?:ed)?|refuted\s+if|"
                         r"would\s+(?:not\s+)?(?:refute|support))(?![\w\-])|\?\s*$", re.I)
# ... but a hypothesis said to have come true is a finding ("As the hypothesis predicted,
# the low band beat top-k")
ANSWERED_RE = re.compile(r"(?<![\w\-])(?:predicted|expected|confirm(?:s|ed)?|bore\s+out|"
                         r"borne\s+out|came\s+true|held\s+up|was\s+right)(?![\w\-])", re.I)

SENTENCE_RULES = {"catalogue": FieldRule(dict, required=False),
                  "question_reason": FieldRule(str, required=False, nonblank=True),
                  "members": FieldRule(dict, required=False),
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


DIRECTIONS_RE = tuple((way, re.compile(words.replace(" ", r"\s+"), re.I))
                      for way, words in DIRECTIONS)


def _turned(way: str) -> str:
    """The direction read from the other side ("A below B" is "B above A")."""
    neg = way.startswith("not ")
    base = OPPOSITE[way[4:] if neg else way]
    return "not " + base if neg else base


def _contradicts(way: str, want: str) -> bool:
    """Whether saying `way` denies `want`: the opposite direction ("below" where the test
    says "above"), or the same one negated on one side only ("beats" where the test says
    "never beats")."""
    neg, want_neg = way.startswith("not "), want.startswith("not ")
    base, want_base = way.removeprefix("not "), want.removeprefix("not ")
    if neg != want_neg:
        return base == want_base
    return not neg and base != "even" and OPPOSITE[want_base] == base


def _plain_name(name: str) -> str:
    """A name as two names are compared: a letter as written, any other name lower-cased,
    without a leading "the", "every" or "each" and a plural's "s"."""
    if len(name.rstrip("′")) == 1:
        return name
    name = re.sub(r"^(?:the|every|each)\s+", "", " ".join(name.lower().split()))
    return name[:-1] if name.endswith("s") and len(name) > 3 else name


@dataclass(frozen=True)
class Vocabulary:
    """The study's entity names (`names`: case-insensitive, `letters`: exact), its data
    nouns and its reason keys (key -> the line saying what it covers)."""
    names: tuple[str, ...] = ()
    letters: tuple[str, ...] = ()
    data_nouns: tuple[str, ...] = ()
    reasons: tuple[tuple[str, str], ...] = ()
    # (name, the catalogue entry it names, whether it is the entry's own letter or name
    # rather than an alias): the letter or name and any alias of one entry name one
    # thing ("C" and "low band"); two aliases may name two things of one entry (the high
    # band and the random band are both F)
    same_as: tuple[tuple[str, int, bool], ...] = ()
    # (a group's name, the catalogue letters of its members): site.yaml `members`
    members: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # the one reason under which a comparison put as a question or hypothesis is exempt
    # (site.yaml `question_reason`; by default the key `question` where declared)
    question_reason: str | None = None
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
        quantifier = "|".join(q.replace(" ", r"\s+") for q in QUANTIFIERS)
        phrase_word = r"(?!(?:%s)(?![\w\-′]))[\w′’'\-]+" % "|".join(NOT_IN_A_NOUN_PHRASE)
        return re.compile(r"(?<![\w\-])(?:%s)(?![\w\-])"
                          r"(?:(?:\W+[\w′’'\-]+){0,%d}?|(?:[ \t\n]+%s){0,%d}?)\W+(?:%s)(?![\w\-])"
                          % (quantifier, QUANTIFIER_WINDOW - 1, phrase_word,
                             NOUN_PHRASE_WINDOW, nouns), re.I)

    def patterns(self) -> "Patterns":
        nouns = (re.compile(r"(?<![\w\-])(?:%s)(?:s|es)?(?![\w\-])"
                            % "|".join(re.escape(n) for n in self.data_nouns), re.I)
                 if self.data_nouns else None)
        return Patterns(self._firsts(), frozenset(self.letters), self._quantified_re(),
                        dict(self.reasons), nouns,
                        {_plain_name(n): (e, head) for n, e, head in self.same_as},
                        self._member_entries(), self.question_reason, self.data_nouns)

    def _member_entries(self) -> dict:
        """A group's name (as _plain_name gives it) -> the catalogue entries it holds."""
        entry = {n: e for n, e, _ in self.same_as}
        return {_plain_name(g): frozenset(entry[x] for x in letters if x in entry)
                for g, letters in self.members}


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
    # a name (as _plain_name gives it) -> (its catalogue entry, whether it is the entry's
    # letter or name): Vocabulary.same_as
    same_as: dict = field(default_factory=dict)
    # a group's name -> the catalogue entries it holds: Vocabulary.members
    members: dict = field(default_factory=dict)
    question_reason: str | None = None
    data_nouns_of: tuple = ()
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

    def distinct(self, entities) -> list[str]:
        """`entities` less those that name one already listed (a plural, "the …", a
        variant's letter beside its name or an alias: `same_as`)."""
        out: list[str] = []
        for e in entities:
            if not any(self._same(e, o) for o in out):
                out.append(e)
        return out

    def _same(self, a: str, b: str) -> bool:
        a, b = _plain_name(a), _plain_name(b)
        ea, eb = self.same_as.get(a), self.same_as.get(b)
        return a == b or (ea is not None and eb is not None and ea[0] == eb[0]
                          and (ea[1] or eb[1]))

    def unexemptable(self, text: str, inherited=(), asks: bool = False) -> str | None:
        """Why a reason cannot exempt this sentence, or None: it quantifies over the
        study's data (a quantifier before a data noun, `quantified_re`, or an adverb of
        every case with one anywhere, UNIVERSAL_RE), not as a condition ("if every seed
        reaches it"); or it orders two entities, where it does not put that as a question
        or hypothesis (QUESTION_RE; only where `asks`: its reason is the study's
        `question_reason`): an ordering word or form (ORDERING_RE, ORDERING_FORMS)
        with a different entity before it and after it (an anaphor stands for the
        `inherited` entities it does not name itself), or one of the stronger ones
        anywhere in a sentence that names two different entities itself."""
        why = self._quantifies(text)
        if why or (asks and QUESTION_RE.search(text) and not ANSWERED_RE.search(text)):
            return why
        spans = self._spans(text)
        why = self._two_variants(spans) or self._of_one_variant(text, spans, inherited)
        if why:
            return why
        own = self.distinct([e for _, _, e in spans])
        spans = spans + [(m.start(), m.end(), e) for m in ANAPHOR_RE.finditer(text)
                         for e in inherited if e not in own]
        for start, end, word in self._orderings(text):
            before = self.distinct([e for s, _, e in spans if s < start])
            after = [e for s, _, e in spans if s >= end]
            pair = next(((a, b) for a in before for b in after
                         if len(self.distinct([a, b])) == 2), None)
            if pair:
                return f"it compares {pair[0]!r} and {pair[1]!r} ({word!r})"
            if len(own) >= 2 and word not in WEAK_ORDERING and not word.startswith("superlative"):
                return f"it compares {own[0]!r} and {own[1]!r} ({word!r})"
        return None

    def _two_variants(self, spans) -> str | None:
        """"it names two variants …" when the spans name two catalogue entries."""
        named: dict = {}
        for _, _, e in spans:
            entry = self.same_as.get(_plain_name(e))
            if entry:
                named.setdefault(entry[0], e)
        if len(named) < 2:
            return None
        first, second = list(named.values())[:2]
        return f"it names two variants, {first!r} and {second!r}, whatever it says of them"

    def _of_one_variant(self, text: str, spans, inherited) -> str | None:
        """Why a sentence about a variant's runs (its own, or through a pronoun subject
        the one it inherits) states a result: an adverb of every case, a quantifier right
        before the variant, or a form that ranks it or gives its outcome."""
        variants = [(s, end, e) for s, end, e in spans if self._runs_of(e)]
        if not variants and ANAPHOR_RE.search(text):       # "It is the also-ran"
            variants = [(0, 0, e) for e in inherited if self._runs_of(e)][:1]
        if not variants:
            return None
        every = UNIVERSAL_RE.search(text)
        if every:
            return f"it quantifies over the data ({every.group(0)!r})"
        for start, end, _ in variants:
            q = QUANTIFIED_ENTITY_RE.search(text[:start])
            if q and not CONDITION_RE.search(text[:q.start()]):
                return f"it quantifies over the data ({text[q.start():end]!r})"
        for _, _, word in self._orderings(text, all_superlatives=True):
            if word.split(":")[0] in ONE_THING_FORMS:
                return f"it ranks or gives the outcome of {variants[0][2]!r} ({word!r})"
        return None

    def relations(self, text: str) -> list[tuple[str, str, str, str]]:
        """(the thing named before, its direction against the next, the thing named after,
        the words) of each ordering word of `text` that has a direction (DIRECTIONS) and
        a thing named on each side of it, with no other ordering word between it and the
        thing after: the nearest ones. A negation before the word makes it "not …"."""
        spans = self._spans(text)
        orders = [o for o in self._orderings(text) if o[2] != "than"]  # "more … than": one
        out = []
        for k, (start, end, word) in enumerate(orders):
            way = next((w for w, pattern in DIRECTIONS_RE if pattern.fullmatch(word)), None)
            if word.startswith("outdoing:"):          # "outpaced", "out-learned": better
                way = "better"
            stop = orders[k + 1][0] if k + 1 < len(orders) else len(text)
            before = [e for s, _, e in spans if s < start]
            after = [(e, s_end) for s, s_end, e in spans if end <= s < stop]
            if way and before and after:
                if NEGATION_RE.search(text[:start]) or NEGATION_AFTER_RE.match(text, after[0][1]):
                    way = "not " + way
                out.append((before[-1], way, after[0][0], word))
        return out

    def _runs_of(self, name: str) -> bool:
        """Whether a name stands for runs of the study: a catalogue variant, or a group
        whose members site.yaml lists."""
        plain = _plain_name(name)
        return plain in self.same_as or bool(self.members.get(plain))

    def entries_of(self, name: str) -> frozenset:
        """The catalogue entries a name stands for: its own, or a group's members; a name
        of neither stands for itself."""
        plain = _plain_name(name)
        own = self.same_as.get(plain)
        if own:
            return frozenset({own[0]})
        return self.members.get(plain) or frozenset({plain})

    def disagreement(self, text: str, tested: str) -> str | None:
        """Why a sentence does not say what its claims' test (`tested`: what they checked,
        in words) says, or None: it names a variant the test names neither by one of its
        catalogue names nor through a group it names (`members`), or it orders two things
        the test orders the other way. Two aliases of one entry count as one here: the
        catalogue does not say which aliases are synonyms ("random positions", "random
        band") and which name parts of the entry ("repaired optics", "first-design
        optics"), so a sentence that swaps the parts of one entry is not caught."""
        named = frozenset().union(*(self.entries_of(e) for e in self.entities(tested)))
        for start, end, e in self._spans(text):
            held = self.entries_of(e) if self._runs_of(e) else frozenset()
            # a variant, or a group of which the test names none; a group quantified
            # over ("every DeMo variant") must be named whole
            every = QUANTIFIED_ENTITY_RE.search(text[:start])
            if held and (held - named if every or len(held) == 1 else not held & named):
                said = text[every.start() if every else start:end]
                return f"it names {said!r}, which the test does not: {tested!r}"
        why = self._scope_beyond(text, tested)
        if why:
            return why
        theirs = self.relations(tested)
        for a, way, b, word in self.relations(text):
            ia, ib = self.entries_of(a), self.entries_of(b)
            for a2, way2, b2, word2 in theirs:
                ia2, ib2 = self.entries_of(a2), self.entries_of(b2)
                if ia & ia2 and ib & ib2 and not ia & ib2:
                    want = way2
                elif ia & ib2 and ib & ia2 and not ia & ia2:
                    want = _turned(way2)
                else:
                    continue
                if _contradicts(way, want):
                    return (f"it says {a} {word!r} {b} ({way}), where the test says {a2} "
                            f"{word2!r} {b2} ({way2}): {tested!r}")
        return None

    def _scope_beyond(self, text: str, tested: str) -> str | None:
        """Where the sentence says more than the test: "every", "each" or "all" of a data
        noun the test does not name at all ("at every evaluation" for a test of final
        losses), or it ranks a variant against the rest (a superlative, a place in a
        ranking) where the test ranks nothing and quantifies over nothing."""
        low = tested.lower()
        for m in (self.quantified_re.finditer(text) if self.quantified_re else ()):
            noun = self._noun_of(m.group(0))
            if re.match(r"(?:every|each|all)\b", m.group(0), re.I) and noun not in low \
                    and not CONDITION_RE.search(text[:m.start()]):
                return (f"it says {' '.join(m.group(0).split())!r}, where the test names no "
                        f"{noun}: {tested!r}")
        for m in re.finditer(r"(?<![\w\-])(?:every|each|all|any)\s+([\w′\-]+)", text, re.I):
            some = re.search(r"(?<![\w\-])(?:some|at\s+least\s+one)\s+%s(?![\w\-])"
                             % re.escape(m.group(1)), tested, re.I)
            if some:                  # "at every WAN bandwidth" for "below some WAN bandwidth"
                return (f"it says {m.group(0)!r} where the test says {some.group(0)!r}: "
                        f"{tested!r}")
        ranks = self._ranks(text)
        if ranks and any(self._runs_of(e) for e in self.entities(text)) and not (
                self._ranks(tested) or UNIVERSAL_RE.search(tested)
                or (self.quantified_re and self.quantified_re.search(tested))
                or re.search(r"(?<![\w\-])(?:every|each|all|no|none|any)(?![\w\-])", tested, re.I)):
            return f"it ranks ({ranks[0]!r}), which the test does not: {tested!r}"
        return None

    def _ranks(self, text: str) -> list[str]:
        """The superlatives and places in a ranking of `text`."""
        return [w for _, _, w in self._orderings(text, all_superlatives=True)
                if w.split(":")[0] in ("superlative", "rank")]

    def _noun_of(self, phrase: str) -> str:
        """The data noun a quantified phrase ends in, singular ("seeds" -> "seed")."""
        last = re.findall(r"[\w′\-]+", phrase.lower())[-1]
        for n in sorted(self.data_nouns_of, key=len, reverse=True):
            if last.startswith(n.lower()):
                return n.lower()
        return last

    def _quantifies(self, text: str) -> str | None:
        found = list(self.quantified_re.finditer(text)) if self.quantified_re else []
        if self.data_noun_re and self.data_noun_re.search(text):
            found += UNIVERSAL_RE.finditer(text)
        for q in found:
            if not CONDITION_RE.search(text[:q.start()]):
                return f"it quantifies over the data ({' '.join(q.group(0).split())!r})"
        return None

    @staticmethod
    def _orderings(text: str, all_superlatives: bool = False) -> list[tuple[int, int, str]]:
        """(start, end, words) of each ordering word and ordering form of `text` (a
        superlative only where it ranks: RANKING_AFTER_RE, unless `all_superlatives`)."""
        out = [(m.start(), m.end(), " ".join(m.group(0).lower().split()))
               for m in ORDERING_RE.finditer(text)]
        out += [(m.start(), m.end(), f"{m.lastgroup}: {' '.join(m.group(0).lower().split())}")
                for m in FORMS_RE.finditer(text)
                if m.lastgroup in ORDERING_FORMS + ONE_THING_FORMS
                and (m.lastgroup != "superlative" or all_superlatives
                     or RANKING_AFTER_RE.match(text, m.end()))
                and not any(s < m.end() and m.start() < e for s, e, _ in out)]
        return sorted(out)


# a superlative standing alone, as a label writes one ("Top-k (lowest loss)")
BARE_SUPERLATIVE_RE = re.compile(
    r"(?<![\w\-′])(?:best|worst|least|most|(?!(?:%s)\b)[a-z]{2,}est)(?![\w\-′])"
    % "|".join(NOT_SUPERLATIVE), re.I)


def ranking_words(text: str) -> list[str]:
    """The ordering words and the forms that rank, equate or give an outcome in `text`
    (every superlative included): what a name or a label never holds (a label names a
    thing, it does not rank it: "Top-k (the winner)")."""
    bare = [f"superlative: {m.group(0).lower()}" for m in BARE_SUPERLATIVE_RE.finditer(text)]
    return [w for _, _, w in Patterns._orderings(text, all_superlatives=True)] + bare


def name_problems(node, file: str, keys) -> list[tuple[str, str]]:
    """(file:line, what is wrong) for each string under one of `keys` (None: every
    string) of a YAML node tree that ranks or compares (ranking_words)."""
    out = []

    def walk(n, key=None):
        if isinstance(n, yaml.MappingNode):
            for k, v in n.value:
                walk(v, k.value)
        elif isinstance(n, yaml.SequenceNode):
            for v in n.value:
                walk(v, key)
        elif isinstance(n, yaml.ScalarNode) and (keys is None or key in keys):
            words = ranking_words(n.value)
            if words:
                out.append((f"{file}:{n.start_mark.line + 1}",
                            f"the name or label {n.value!r} ranks or compares "
                            f"({', '.join(words)}); a name says what a thing is: put the "
                            "comparison in a sentence with its claim"))
    walk(node)
    return out


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
    same_as: list[tuple[str, int, bool]] = []
    if cat:
        same_as = _catalogue_names(root, cat, where("catalogue"), reads)
        names += [n for n, _, _ in same_as]
    letters = tuple(n for n in names if len(n.rstrip("′")) == 1 and n[0].isupper())
    reasons = []
    for key, line in block["reasons"].items():
        if not REASON_KEY_RE.fullmatch(str(key)) or not isinstance(line, str) or not line.strip():
            raise BuildError(where("reasons"), f"sentences: reasons: {key!r} needs a "
                             "lower-case key and one line saying what it covers")
        reasons.append((key, " ".join(line.split())))
    probes = _probes(root, block["probes"], reads) if block.get("probes") else ()
    members = []
    for group, held in (block.get("members") or {}).items():
        if not isinstance(held, list) or not all(isinstance(x, str) for x in held):
            raise BuildError(where("members"), f"sentences: members: {group!r} must be a "
                             "list of the catalogue's letters")
        unknown = [x for x in held if x not in {n for n, _, head in same_as if head}]
        if unknown:
            raise BuildError(where("members"), f"sentences: members: {group!r} names "
                             f"{unknown[0]!r}, which is no letter or name of the catalogue")
        members.append((str(group), tuple(held)))
    asks = block.get("question_reason") or ("question" if "question" in dict(reasons) else None)
    if asks not in dict(reasons) and asks is not None:
        raise BuildError(where("question_reason"), f"sentences: question_reason: {asks!r} is "
                         "not one of the reasons")
    return Vocabulary(tuple(n for n in names if n not in letters), letters,
                      tuple(block["data_nouns"]), tuple(reasons), tuple(same_as),
                      tuple(members), asks, probes)


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


def _catalogue_names(root: Path, cat: dict, where: str,
                     reads: Reads) -> list[tuple[str, int, bool]]:
    """(name, its entry's place in the list, whether it is one of the entry's own names:
    a field before the last of `fields`, the letter or the name, not an alias)."""
    check_fields(cat, CATALOGUE_RULES, lambda key: where, "sentences: catalogue")
    path = Path(root) / cat["file"]
    data, node = yamlio.load_with_nodes(reads.text(path), cat["file"])
    entries = data.get(cat["list"]) if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise BuildError(where, f"sentences: catalogue: {cat['file']} has no list "
                         f"{cat['list']!r}")
    labels = name_problems(yamlio.mapping_value(node, cat["list"]), cat["file"], None)
    if labels:
        raise BuildError(*labels[0])
    out = []
    last = len(cat["fields"]) - 1
    for k, entry in enumerate(entries):
        for i, f in enumerate(cat["fields"]):
            value = entry.get(f) if isinstance(entry, dict) else None
            out += [(v, k, i < last) for v in (value if isinstance(value, list) else [value])
                    if isinstance(v, str) and v.strip()]
    return out

