"""List the comparison candidates the sentence check finds on the site (docs/claims.md,
"Sentences the build finds"), each with what made it one and what it carries: a claim,
a reason key, or nothing (the build refuses those).

    python tools/sentence_candidates.py            # the counts: candidates, claims, reasons per key
    python tools/sentence_candidates.py --list     # and every candidate, file:line, one a line
    python tools/sentence_candidates.py --unmarked # only the candidates with neither
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cit import sentences as S  # noqa: E402
from cit.reads import Reads  # noqa: E402
from cit.sentencerules import load_vocabulary  # noqa: E402
from cit.siteconfig import load_site  # noqa: E402


def candidates(root: Path = ROOT):
    """(sentence, signals, mark) of every candidate or marked sentence; mark is
    "claim", "reason:<key>" or "" (neither)."""
    site = load_site(root)
    reads = Reads(root)
    vocab = load_vocabulary(root, site.sentences, lambda key: "site.yaml", reads)
    found = S.collect(root, reads, None, "", site.packages(), site.yaml_name_keys, vocab)
    out = []
    for s in found:
        sig = list(s.found or ())
        mark = "claim" if s.claims else f"reason:{s.reasons[0]}" if s.reasons else ""
        if sig or mark:
            out.append((s, sig, mark))
    return out


def main(argv: list[str]) -> int:
    rows = candidates()
    counts = Counter(m or "none" for _, _, m in rows)
    for s, sig, mark in rows:
        if "--list" in argv or ("--unmarked" in argv and not mark):
            print(f"{s.where}\t{mark or '-'}\t{', '.join(sig)}\t{s.text}")
    print(f"candidates {len(rows)}; with claims {counts.pop('claim', 0)}; "
          f"unmarked {counts.pop('none', 0)}; "
          + ", ".join(f"{k} {n}" for k, n in sorted(counts.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
