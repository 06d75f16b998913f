"""Fragments in a deck's slides (docs/architecture.md, "Decks"): a list item whose text
begins with the mark `[+]` (`- [+] A point.`) is revealed on the next → rather than with
its slide. The mark is taken out of the item's text and the item gets the class `step`,
which static/deck.css hides and static/deck-steps.js (asked for on the page) reveals;
printed, or read without scripts, every item shows. The mark is refused where nothing could reveal it (a page, speaker notes, a
glossary definition) with the file and line."""

from __future__ import annotations

from .errors import BuildError

MARK = "[+]"
# the script that reveals them (templates/static/deck-steps.js), added to a deck with any
SCRIPT = "deck-steps.js"


def _marked(inline) -> bool:
    text = inline.content
    return text.startswith(MARK) and (len(text) == len(MARK) or text[len(MARK)].isspace())


def without_mark(text: str) -> str:
    """A list item's text as read, a leading fragment mark taken out (the sentence check
    reads the Markdown source: the mark is not a word)."""
    if text.startswith(MARK) and (len(text) == len(MARK) or text[len(MARK)] in " \t"):
        return text[len(MARK):].lstrip(" \t")
    return text


def _strip(inline) -> None:
    """Take the mark (and the blank after it) out of an item's inline token: its content
    and its first text child (which may follow the opening of a claim's sentence, a
    token with no text of its own)."""
    inline.content = without_mark(inline.content)
    for k, child in enumerate(inline.children or []):
        if child.type == "text":
            if child.content.startswith(MARK):
                child.content = child.content[len(MARK):].lstrip(" \t")
                if not child.content:
                    inline.children.pop(k)
            return
        if child.content:
            return


def core_fragments(state) -> None:
    """markdown-it core rule: each list item opening with `[+]` becomes a fragment; on
    anything but a slide (env["slide"] false) the mark is an error."""
    env = state.env
    tokens = state.tokens
    for i, tok in enumerate(tokens):
        if tok.type != "list_item_open":
            continue
        j = i + 1
        if j < len(tokens) and tokens[j].type == "paragraph_open":
            j += 1
        if j >= len(tokens) or tokens[j].type != "inline" or not _marked(tokens[j]):
            continue
        if not env.get("slide"):
            line = env.get("line0", 0) + (tok.map[0] if tok.map else 0) + 1
            raise BuildError(f"{env.get('path', '?')}:{line}",
                             f"a fragment mark `{MARK}` reveals a list item on a deck's "
                             "slide; here nothing can reveal it (take the mark out)")
        _strip(tokens[j])
        tok.attrJoin("class", "step")
        env["ctx"].add_script(SCRIPT)
