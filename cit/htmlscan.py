"""The one reader of the HTML the build writes: lexbor's HTML5 parser, through
selectolax (pinned in pyproject.toml). The naked-number check (`walk`), the link check
(`link_attributes`), the stylesheets' feature scan (`features`) and the page records'
anchors (`element_ids`) all read a page through it, so they see the same document a
browser builds, entities resolved, comments and the raw text of <script> and <style>
told apart from page text.

`walk(text, handler)` calls html.parser.HTMLParser's handlers on the tree, in document
order: `handle_starttag(tag, attrs)` (tag and attribute names lower-cased, values with
character references resolved, a bare attribute's value None), `handle_data(text)` for
each text node (the text of <script> and <style> as written), `handle_endtag(tag)` for
every element, void ones included; comments are skipped. See docs/architecture.md,
"Rebuilding fast", for what it costs.
"""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser

# the attributes the link check reads (links.scan picks what it needs from them)
LINKING = ("id", "name", "href", "src", "action", "data", "for", "aria-labelledby",
           "aria-describedby", "aria-controls", "data-figure-id")
LINKING_SELECTOR = ", ".join(f"[{a}]" for a in LINKING)


def parse(text: str) -> LexborHTMLParser:
    return LexborHTMLParser(text)


def walk(text: str, handler) -> None:
    """Call `handler`'s start, data and end handlers over the document (see above)."""
    node = parse(text).root
    stack = []
    while node is not None:
        tag = node.tag
        if tag == "-text":
            handler.handle_data(node.text_content)
        elif not tag.startswith("-"):          # -comment, -doctype
            tag = tag.lower()
            handler.handle_starttag(tag, [(k.lower(), v) for k, v in node.attributes.items()])
            child = node.child
            if child is not None:
                stack.append(tag)
                node = child
                continue
            handler.handle_endtag(tag)
        while node.next is None and stack:
            node = node.parent
            handler.handle_endtag(stack.pop())
        node = node.next


def link_attributes(text: str) -> list[tuple[str, dict]]:
    """(tag, attributes) of every element carrying an attribute the link check reads,
    in document order."""
    out, seen = [], set()
    for n in parse(text).css(LINKING_SELECTOR):   # a node matching two selectors comes twice
        if n.mem_id not in seen:
            seen.add(n.mem_id)
            out.append((n.tag.lower(), {k.lower(): v for k, v in n.attributes.items()}))
    return out


def element_ids(text: str) -> list[str]:
    """Every element id of the page, in document order."""
    return [n.attributes["id"] for n in parse(text).css("[id]") if n.attributes["id"]]


def features(text: str) -> set[str]:
    """The tag names and the .classes used on the page."""
    tree = parse(text)
    found = {n.tag.lower() for n in tree.root.traverse()}
    for n in tree.css("[class]"):
        found.update("." + c for c in (n.attributes["class"] or "").split())
    return found
