"""cit/htmlscan.py: the one HTML reader gives the naked-number check the callbacks
html.parser.HTMLParser gives on the pages the build writes, and the link check, the
stylesheet scan and the page records what those pages hold."""

from html.parser import HTMLParser

import pytest

from cit import htmlscan

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
        "source", "track", "wbr"}


class _Recorder:
    """Every callback, consecutive text joined; an element that closes itself (`<br>`,
    `<path/>`) is a start and an end, as walk gives it."""

    def __init__(self):
        self.out: list = []

    def handle_starttag(self, tag, attrs):
        self.out.append(("start", tag, list(attrs)))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        self.handle_endtag(tag)

    def handle_endtag(self, tag):
        self.out.append(("end", tag))

    def handle_data(self, data):
        if self.out and self.out[-1][0] == "data":
            self.out[-1] = ("data", self.out[-1][1] + data)
        else:
            self.out.append(("data", data))


def _standard(text: str) -> list:
    rec = _Recorder()

    class Parser(HTMLParser):
        def handle_starttag(self, tag, attrs):
            rec.handle_starttag(tag, attrs)
            if tag in VOID:
                rec.handle_endtag(tag)
        handle_startendtag = rec.handle_startendtag
        handle_endtag = rec.handle_endtag
        handle_data = rec.handle_data
    p = Parser(convert_charrefs=True)
    p.feed(text)
    p.close()
    return rec.out


def _walked(text: str) -> list:
    rec = _Recorder()
    htmlscan.walk(text, rec)
    return rec.out


FRAME = {"html", "head", "body"}


def _framed(events: list) -> list:
    """The events without white space beside the document's frame (<html>, <head>,
    <body>), which an HTML5 parser places inside it and html.parser outside."""
    def frame(k):
        return 0 <= k < len(events) and events[k][0] != "data" and events[k][1] in FRAME
    return [e for k, e in enumerate(events)
            if not (e[0] == "data" and not e[1].strip() and (frame(k - 1) or frame(k + 1)))]


DOC = ('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta name="description" content="A &amp; B 3">'
       '\n<title>T</title>\n</head>\n<body>\n{}\n</body>\n</html>\n')


@pytest.mark.parametrize("body", [
    '<p class="x  y" data-id=\'a.b\' hidden>Text &lt;5&gt; &#8212; &nbsp;done</p>',
    '<script type="module">if (a < b && "</p>") { x(); }</script><p>after 7</p>',
    "<style>p > a { color: red }</style><p><br><img alt='two 2' src=x.png><input disabled></p>",
    "<!-- a comment with 5 digits --><p>kept 6</p>",
    '<p><a href="../x/index.html#frag" title="T &quot;9&quot;">link</a> tail 1 &lt; 2</p>',
    '<svg viewBox="0 0 10 10"><path d="M0 0L1 1"/><text x="1">4</text></svg>',
])
def test_the_same_callbacks_as_the_standard_parser(body):
    text = DOC.format(body)
    assert _framed(_walked(text)) == _framed(_standard(text))


def test_the_same_callbacks_on_the_built_site(built_site):
    pages = sorted(built_site.rglob("*.html"))
    assert len(pages) > 10
    for page in pages:
        text = page.read_text()
        assert _framed(_walked(text)) == _framed(_standard(text)), page


def test_ids_links_and_features_are_those_of_the_page():
    text = DOC.format('<main id="main" class="page wide"><a href="x.html#y" id="a1">x</a>'
                      '<label for="q">Q</label><input id="q"><!-- <a href="no.html"> -->'
                      '<script>var s = "<a href=\'nor.html\'>";</script></main>')
    assert htmlscan.element_ids(text) == ["main", "a1", "q"]
    assert [(t, a.get("href"), a.get("for")) for t, a in htmlscan.link_attributes(text)
            if t != "meta"] == [
        ("main", None, None), ("a", "x.html#y", None), ("label", None, "q"), ("input", None, None)]
    assert {"main", "a", "label", "input", ".page", ".wide"} <= htmlscan.features(text)
    assert ".nor" not in htmlscan.features(text) and "no" not in htmlscan.features(text)
