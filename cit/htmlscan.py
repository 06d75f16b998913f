"""A fast reader of the HTML the build writes, with html.parser.HTMLParser's callbacks.

The naked-number check reads every rendered page; /method alone is about a megabyte
and 24,000 tags, and the standard library's parser spent a quarter of a second on it,
a Python call or several per tag. `TagStream` finds tags, comments and declarations
with one regular expression over the whole text and calls the same handlers
(`handle_starttag(tag, attrs)`, `handle_startendtag`, `handle_endtag(tag)`,
`handle_data(text)`), with what HTMLParser(convert_charrefs=True) gives them: tag and
attribute names lower-cased, attribute values and text with character references
resolved, the text of <script> and <style> as written, comments and declarations
skipped. Text between two tags is one call. See docs/architecture.md, "Rebuilding fast".
"""

from __future__ import annotations

import html
import re

TOKEN_RE = re.compile(
    r"<!--.*?-->"                                   # a comment
    r"|<![^>]*>|<\?[^>]*>"                           # a declaration, a processing instruction
    r"|</([a-zA-Z][^\s/>]*)[^>]*>"                   # 1: an end tag's name
    r"|<([a-zA-Z][^\s/>]*)"                          # 2: a start tag's name,
    r"((?:\s*[^\s\"'>/=]+(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s\"'>]+))?)*)"   # 3: attributes
    r"\s*(/?)>",                                     # 4: "/" of a self-closing tag
    re.S)
ATTR_RE = re.compile(r"([^\s\"'>/=]+)(?:\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s\"'>]+)))?")
RAW_TEXT = ("script", "style")


def _unescape(text: str) -> str:
    return html.unescape(text) if "&" in text else text


def parse_attrs(text: str) -> list[tuple[str, str | None]]:
    """[(name, value)] of a start tag's attribute text; a bare attribute's value is None."""
    out = []
    for m in ATTR_RE.finditer(text):
        name, v1, v2, v3 = m.groups()
        value = v1 if v1 is not None else v2 if v2 is not None else v3
        out.append((name.lower(), _unescape(value) if value is not None else None))
    return out


class TagStream:
    """Subclass and override the handlers; `feed(text)` reads one whole document."""

    def handle_starttag(self, tag: str, attrs: list) -> None:
        pass

    def handle_startendtag(self, tag: str, attrs: list) -> None:
        self.handle_starttag(tag, attrs)
        self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        pass

    def handle_data(self, data: str) -> None:
        pass

    def feed(self, text: str) -> None:
        pos, n = 0, len(text)
        while pos < n:
            m = TOKEN_RE.search(text, pos)
            end = m.start() if m else n
            if end > pos:
                self.handle_data(_unescape(text[pos:end]))
            if m is None:
                return
            pos = m.end()
            if m.group(1) is not None:
                self.handle_endtag(m.group(1).lower())
            elif m.group(2) is not None:
                pos = self._start_tag(text, m, pos)

    def _start_tag(self, text: str, m, pos: int) -> int:
        """Dispatch a start tag; the raw text of a script or style follows it up to its
        end tag. Returns where reading goes on."""
        tag, attrs = m.group(2).lower(), parse_attrs(m.group(3))
        if m.group(4):
            self.handle_startendtag(tag, attrs)
            return pos
        self.handle_starttag(tag, attrs)
        if tag not in RAW_TEXT:
            return pos
        close = re.compile(rf"</{tag}\s*>", re.I).search(text, pos)
        end = close.start() if close else len(text)
        if end > pos:
            self.handle_data(text[pos:end])
        if close:
            self.handle_endtag(tag)
            return close.end()
        return end

    def close(self) -> None:
        """Nothing is held back between feeds (kept for HTMLParser's interface)."""
