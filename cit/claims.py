"""Checked claims: the sentences that compare, order or bound things, held to the data
like the numbers are (docs/claims.md).

A data stage defines predicates over the data it owns (in the study's own modules).
Each predicate returns a `Verdict`: true or false, and the
figures that decided it, formatted by cit.fmt. `ClaimBook.add` turns a verdict into a
`Claim` in the registry (kind `claim`). A content sentence cites it as `:c[id]`, or
`:c[id|hypothesis]` where the claim rests on single-seed groups; rendering a
reference to a false claim, to an unknown id, or with the wrong marker fails the
build naming the file and line (`check_reference`). The Markdown side (the reference
token and the sentence it wraps) is cit/claimrefs.py.
"""

from __future__ import annotations

import re
import html
from dataclasses import dataclass

from .errors import BuildError
from .registry import ID_RE, Source

PAGE_TEXT = True     # its string literals reach pages (docs/claims.md, "Sentences the build finds")

CLAIM_KIND = "claim"
HYPOTHESIS = "hypothesis"
CLAIM_REF_RE = re.compile(r"^([A-Za-z0-9_][A-Za-z0-9_.\-′]*)(?:\|(hypothesis))?$")


@dataclass(frozen=True)
class Verdict:
    """What a predicate found: `holds`, and the figures that decided it as
    (label, text) pairs, texts made by cit.fmt. `seeds`: the seed count of each group
    the claim compares (empty when it compares no trained groups)."""
    holds: bool
    evidence: tuple[tuple[str, str], ...]
    seeds: tuple[int, ...] = ()


@dataclass(frozen=True)
class Claim:
    """A checked claim as the registry holds it. `checked` says in words what the
    predicate tests; `hypothesis` is true when any group the claim compares had one
    seed, unless its predicate tests a margin measured in seed spreads (`seed_margin`:
    a one-seed group's value then sits many standard deviations between seeds from the
    others), or when the predicate says it rests on one seed (`one_seed`); the sentence
    must then carry the hypothesis marker (docs/claims.md, "One seed")."""
    id: str
    checked: str
    holds: bool
    evidence: tuple[tuple[str, str], ...]
    sources: tuple[Source, ...]
    computation: str
    seeds: tuple[int, ...] = ()
    one_seed: bool = False
    kind: str = CLAIM_KIND
    seed_margin: bool = False
    # the sentence's loose words as the predicate tests them: ("far below", "by more
    # than ten times the largest seed sd"); cit/sentences.py requires one for each
    # loose word (VAGUE_WORDS) of a sentence that cites the claim
    words: tuple[tuple[str, str], ...] = ()

    def defines(self, word: str) -> bool:
        """Whether one of `words` holds `word` (one word, or several in a row)."""
        return any(f" {word} " in f" {' '.join(w.lower().split())} " for w, _ in self.words)

    @property
    def hypothesis(self) -> bool:
        single = bool(self.seeds) and min(self.seeds) == 1 and not self.seed_margin
        return single or self.one_seed

    def evidence_text(self) -> str:
        return "; ".join(f"{label} = {text}" for label, text in self.evidence)

    def words_text(self) -> str:
        return "; ".join(f"“{w}” = {meaning}" for w, meaning in self.words)

    def as_json(self, appears: list[str]) -> dict:
        return {"id": self.id, "kind": self.kind, "checked": self.checked,
                "verdict": "verified" if self.holds else "false",
                "evidence": [{"label": k, "text": v} for k, v in self.evidence],
                "seeds": list(self.seeds), "hypothesis": self.hypothesis,
                "words": [{"word": w, "tested_as": m} for w, m in self.words],
                "provenance": {"sources": [s.as_json() for s in self.sources],
                               "computation": self.computation},
                "appears": appears}


@dataclass
class ClaimBook:
    """Registers claims of one stage into the registry's claim table."""
    claims: dict[str, Claim]
    numbers: object = None        # the registry's numbers, to keep the id spaces apart
    prefix: str = ""

    def add(self, id: str, checked: str, verdict: Verdict, *, sources, computation: str,
            one_seed: bool = False, seed_margin: bool = False, words=()) -> Claim:
        cid = self.prefix + id
        if not ID_RE.match(cid):
            raise BuildError("registry", f"bad claim id {cid!r}")
        if cid in self.claims or (self.numbers is not None and cid in self.numbers):
            raise BuildError("registry", f"claim id {cid!r} registered twice")
        if not checked.strip() or "\n" in checked:
            raise BuildError("registry", f"claim {cid!r}: what it checked must be one line")
        c = Claim(cid, checked, bool(verdict.holds), tuple(verdict.evidence),
                  tuple(sources), computation, tuple(verdict.seeds), one_seed,
                  words=tuple((w, m) for w, m in words), seed_margin=seed_margin)
        self.claims[cid] = c
        return c


def parse_reference(inner: str) -> tuple[str, bool] | None:
    """`id` or `id|hypothesis` -> (id, marked); None when malformed."""
    m = CLAIM_REF_RE.match(inner)
    return (m.group(1), m.group(2) is not None) if m else None


def check_reference(claims: dict[str, Claim], cid: str, marked: bool, where: str) -> Claim:
    """The claim a sentence cites, or BuildError naming `where` (file:line), the claim
    and its evidence."""
    c = claims.get(cid)
    if c is None:
        raise BuildError(where, f"unknown claim id {cid!r}")
    if not c.holds:
        raise BuildError(where, f"claim {cid!r} is false: {c.checked}. "
                                f"Evidence: {c.evidence_text()}")
    if c.hypothesis and not marked:
        raise BuildError(where, f"claim {cid!r} compares a single-seed group "
                                f"(seeds {', '.join(map(str, c.seeds)) or 'one'}); the sentence "
                                f"must carry the hypothesis marker: :c[{cid}|{HYPOTHESIS}]")
    if marked and not c.hypothesis:
        raise BuildError(where, f"claim {cid!r} rests on several seeds "
                                f"({', '.join(map(str, c.seeds))}); drop the hypothesis marker")
    return c


def false_claims(claims: dict[str, Claim]) -> list[str]:
    """Every false claim, as `id: checked. Evidence: …` (none may be published)."""
    return [f"{c.id}: {c.checked}. Evidence: {c.evidence_text()}"
            for c in sorted(claims.values(), key=lambda c: c.id) if not c.holds]


def open_html(c: Claim) -> str:
    """Start of the sentence a claim guards (the span ends after its mark)."""
    return f'<span class="claim" data-claim="{html.escape(c.id)}">'


MARK_RE = re.compile(r'<data class="claim-mark[^"]*"[^>]*>.*?</data>', re.S)


def without_marks(html_text: str) -> str:
    """HTML with the claim marks taken out (a term's tooltip shows its words only)."""
    return MARK_RE.sub("", html_text)


def mark_html(c: Claim) -> str:
    """The small mark after the sentence, which opens the claim's card, and the end
    of the sentence's span. A hypothesis says so in words."""
    e = html.escape
    # no id here: the naked-number check reads labels, and ids carry digits. The mark's
    # accessible name ("Checked claim: show the evidence") is given by static/site.js with
    # its role (button): a <data> may carry aria-label only with a role
    text = "hypothesis ✓" if c.hypothesis else "✓"
    cls = "claim-mark claim-hyp" if c.hypothesis else "claim-mark"
    return f'<data class="{cls}" value="verified" data-id="{e(c.id)}">{text}</data></span>'


def claim_book(registry, prefix: str = "") -> "ClaimBook":
    """A stage's way to register its checked claims in `registry` (a cit.registry.Registry)."""
    return ClaimBook(registry.claims, registry.numbers, prefix)
