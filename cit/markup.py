"""Small HTML and text pieces shared by the Markdown layer and the blocks.

The one HTML form of a number (`number_element`), JSON safe inside a
`<script type="application/json">` (`json_for_script`), the scroll wrapper of a wide
table (`scroll_region`), the one greedy line-wrap helper (`wrap_text`) and the removal of
a sentence's reason marks from text a reader sees (`drop_reason_marks`). Nothing here
knows about pages or the registry's contents: see docs/architecture.md.
"""

from __future__ import annotations

import html
import json
import re


# The kinds a page shows in the number's shape (site.css sets them in italics): the only
# kinds a number element carries as `data-kind`. Every other kind reaches the reader in
# the number's card, from the page's provenance (docs/numbers.md).
SHAPED_KINDS = frozenset({"hypothetical", "extrapolated", "illustrative"})


def kind_attribute(kind: str) -> str | None:
    """The `data-kind` a number element of `kind` carries: the kind if the page styles
    it, else None (no attribute)."""
    return kind if kind in SHAPED_KINDS else None


def number_element(n) -> str:
    """The one HTML form of a registered number: a `<data class="num">` element with
    its raw value and id as attributes (and its kind where the page styles it) and its
    text as content (docs/numbers.md)."""
    e = html.escape
    kind = kind_attribute(n.kind)
    shaped = f' data-kind="{e(kind)}"' if kind else ""
    return (f'<data class="num" value="{e(n.raw())}" data-id="{e(n.id)}"{shaped}>'
            f'{e(n.text)}</data>')


def json_for_script(obj) -> str:
    """JSON that is safe inside `<script type="application/json">` (no `</script>`
    can be formed), with sorted keys so output is reproducible."""
    s = json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return s.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def scroll_region(caption_id: str) -> str:
    """The wrapper that lets a wide table scroll sideways on a phone: focusable, so a
    keyboard can scroll it too, and named by the table's caption."""
    return (f'<div class="table-wrap" tabindex="0" role="region" '
            f'aria-labelledby="{caption_id}">')


def wrap_text(text: str, width: int, sep: str = " ") -> list[str]:
    """Greedy wrap of `text` into lines of at most `width` characters where it can.

    The text breaks only at `sep` (a space by default: between words; ", " for a list
    of phrases). A line that ends at a break keeps the separator's visible part
    (", " leaves a trailing comma). A single part longer than `width` stands alone."""
    parts = text.split() if sep == " " else text.split(sep)
    keep = sep.rstrip()
    lines: list[str] = []
    cur = ""
    for part in parts:
        cand = f"{cur}{sep}{part}" if cur else part
        if cur and len(cand) > width:
            lines.append(cur + keep)
            cur = part
        else:
            cur = cand
    if cur:
        lines.append(cur)
    return lines


# a sentence's reason mark, `:x[key]`, with the space before it: read by the sentence
# check where it is written (cit/sentences.py), never shown (docs/claims.md)
REASON_MARK_RE = re.compile(r"\s*:x\[[^\]\n]*\]")


def drop_reason_marks(text: str) -> str:
    """`text` as a reader sees it: its reason marks taken out."""
    return REASON_MARK_RE.sub("", text)
