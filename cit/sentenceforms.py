"""Forms of English that compare, rank, tell a change or give a cause, whatever the word
(docs/claims.md, "Sentences the build finds"). The word list of cit/sentences.py names
words; these name shapes a word takes, so a comparison in a verb or an adjective no page
uses yet is still found: a superlative after a determiner ("the slowest"), a verb that
outdoes ("outran"), an equative ("as cheap as"), a comparative after a verb of being or
motion ("ran hotter"), a place in a ranking ("came in last", "a distant second"), a change
of level ("worsened", "fell"), parity ("on a par", "tied"), a connective of cause
("hence", "thanks to") and an outcome of training ("diverged", "fell apart").

Each form is English, not the study's: the study's own names are site.yaml's
(cit/sentencerules.py). The exceptions are the English words that only look like a form
("the test" is no superlative, "output" no verb that outdoes).
"""

from __future__ import annotations

import re

# nouns and adjectives ending in -est that are no superlative
NOT_SUPERLATIVE = ("test", "tests", "rest", "interest", "request", "contest", "digest",
                   "manifest", "harvest", "guest", "west", "chest", "nest", "quest",
                   "priest", "protest", "forest", "honest", "modest", "earnest", "arrest",
                   "crest", "pest", "vest", "zest", "jest", "unrest", "behest", "conquest",
                   "bequest", "tempest", "suggest", "invest", "attest", "detest")
# words beginning with "out" that outdo nothing
NOT_OUTDOING = ("output", "outcome", "outline", "outside", "outset", "outlier", "outlet",
                "outlook", "outage", "outbreak", "outfit", "outgoing", "outright",
                "outward", "outbound", "outdoor", "outer", "outermost", "outcry", "outlaw",
                "outpost", "outskirt", "outsource", "outreach", "outburst", "outcast",
                "outflow", "outlay", "outpour", "outrage", "outspoken", "outstanding",
                "outsider")
# words ending in -er that are no comparative after a verb of being
NOT_COMPARATIVE = ("never", "under", "over", "either", "neither", "other", "rather",
                   "whether", "ever", "after", "together", "per", "order", "number",
                   "power", "water", "paper", "layer", "buffer", "header", "user", "server",
                   "worker", "folder", "filter", "counter", "marker", "master", "chapter",
                   "register", "transfer", "parameter", "optimiser", "optimizer", "answer",
                   "hover", "cover", "offer", "enter", "render", "wonder", "consider")


def _words(words) -> str:
    return "|".join(sorted(set(words), key=len, reverse=True))


def _forms() -> dict[str, str]:
    """Each form's name -> its pattern (whole words, case aside)."""
    return {
        "superlative": r"(?:the|its|their|our|his|her|a)\s+(?:[a-z]+\s+)?"
                       r"(?!(?:%s)\b)[a-z]{2,}est" % _words(NOT_SUPERLATIVE),
        "outdoing": r"(?!(?:%s)[a-z]*\b)out[a-z]{3,}" % _words(NOT_OUTDOING),
        "equative": r"as\s+(?!(?:long|soon|far|follows|such|to|if|of|in|it|a|the|for|is)\b)"
                    r"[a-z]+\s+as",
        "comparative": r"(?:is|are|was|were|be|been|being|got|gets|grew|grows|ran|runs|"
                       r"came|comes|stays?|stayed|remains?|remained|looks?|looked|seems?|"
                       r"seemed|proved|proves|turned\s+out|comes\s+out|came\s+out)\s+"
                       r"(?:[a-z]+ly\s+)?(?!(?:%s)\b)[a-z]{2,}(?:er|ier)"
                       r"|(?:the|a|an)\s+(?!(?:%s)\b)[a-z]{2,}(?:er|ier)\s+ones?"
                       % (_words(NOT_COMPARATIVE), _words(NOT_COMPARATIVE)),
        "rank": r"(?:came|comes|come|finished|finishes|finish|placed|places|ranked|ranks|"
                r"rank|ended|ends|landed|lands)\s+(?:up\s+)?(?:in\s+)?(?:the\s+)?"
                r"(?:first|second|third|fourth|last|top|bottom)"
                r"|(?:came|comes|come)\s+out\s+(?:on\s+)?(?:top|ahead|first|last|behind)"
                r"|on\s+top|(?:first|second|last)\s+past\s+the\s+post"
                r"|winners?|losers?|leaders?|laggards?|champions?|also-rans?|podium"
                r"|gold|silver|bronze|took\s+the\s+(?:gold|lead|crown)|in\s+(?:their|its)\s+wake"
                r"|wears?\s+the\s+crown|relegated|undefeated|unbeaten|outclass(?:es|ed)?"
                r"|(?:distant|close|narrow|clear|poor)\s+(?:first|second|third|fourth|last)"
                r"|runners?-up|in\s+front\s+of|(?:first|last)\s+place"
                r"|at\s+the\s+(?:back|front|head|rear|tail)\s+of"
                r"|(?:leads?|led|leading)\s+(?:the\s+)?(?:field|pack|way|others|rest)",
        "change": r"improv(?:e|es|ed|ing|ement|ements)|worsen(?:s|ed|ing)?"
                  r"|degrad(?:e|es|ed|ing|ation)|deteriorat(?:e|es|ed|ing|ion)"
                  r"|regress(?:es|ed|ion)?|rose|rises?|risen|fell|fallen|plung(?:e|es|ed)"
                  r"|climb(?:s|ed)?|jump(?:s|ed)|soar(?:s|ed)?|sank|sinks?|shr[ai]nk(?:s)?"
                  r"|shrunk|grew|widen(?:s|ed)?|narrow(?:s|ed)|dwindl(?:e|es|ed)",
        "parity": r"on\s+(?:a\s+)?par|neck\s+and\s+neck|tied|ties|comparable|similar(?:ly)?"
                  r"|resembl(?:e|es|ed|ing)|equal(?:s|led|ly)?|rivals?|rivalled"
                  r"|keeps?\s+pace|kept\s+pace|akin\s+to|level\s+with|indistinguishable",
        "cause": r"hence|therefore|thus|consequently|as\s+a\s+result|thanks\s+to|owing\s+to"
                 r"|results?\s+in|resulted\s+in|stems?\s+from|stemmed\s+from|leads?\s+to"
                 r"|attributable|responsible\s+for|accounts?\s+for|accounted\s+for",
        "outcome": r"diverg(?:e|es|ed|ing|ence)|converg(?:e|es|ed|ing|ence)"
                   r"|collaps(?:e|es|ed|ing)|stall(?:s|ed)|plateau(?:s|ed)?"
                   r"|blew\s+up|blows?\s+up|rescue[sd]?|f[ae]ll\s+apart|falls\s+apart"
                   r"|broke\s+down|breaks?\s+down|struggl(?:e|es|ed|ing)"
                   r"|succeed(?:s|ed)?|hurts?|helped|won|lost|pa(?:ys?|id|ying)\s+off"
                   r"|trained\s+(?:fine|well|badly)|failed\s+to\s+train",
    }


# every form, each a named group, matched as whole words
FORMS_RE = re.compile(r"(?<![\w\-′])(?:" + "|".join(f"(?P<{name}>{pattern})"
                                                    for name, pattern in _forms().items())
                      + r")(?![\w\-′])", re.I)


def forms_in(text: str, taken=()) -> list[str]:
    """The forms `text` takes, each as "form: words" ("superlative: the slowest"), but
    for those that overlap a span of `taken` ((start, end) of a word already found)."""
    return [f"{m.lastgroup}: {' '.join(m.group(0).lower().split())}"
            for m in FORMS_RE.finditer(text)
            if not any(s < m.end() and m.start() < e for s, e in taken)]
