"""cit/htmlscan.py gives the naked-number check what html.parser.HTMLParser gave it."""

from html.parser import HTMLParser

import pytest

from cit.htmlscan import TagStream


def _events(base, text: str) -> list:
    """Every callback, consecutive text joined (HTMLParser may split text at a stray
    '<'; what the check reads is the same)."""
    out: list = []

    class Recorder(base):
        def handle_starttag(self, tag, attrs):
            out.append(("start", tag, list(attrs)))

        def handle_startendtag(self, tag, attrs):
            out.append(("startend", tag, list(attrs)))

        def handle_endtag(self, tag):
            out.append(("end", tag))

        def handle_data(self, data):
            if out and out[-1][0] == "data":
                out[-1] = ("data", out[-1][1] + data)
            else:
                out.append(("data", data))

    r = Recorder(convert_charrefs=True) if base is HTMLParser else Recorder()
    r.feed(text)
    r.close()
    return out


@pytest.mark.parametrize("text", [
    '<!DOCTYPE html><html lang="en"><head><meta name="description" content="A &amp; B 3"></head>',
    '<P Class="x  y" data-id=\'a.b\' hidden>Text &lt;5&gt; &#8212; &nbsp;done</P>',
    '<script type="module">if (a < b && "</p>") { x(); }</script><p>after 7</p>',
    "<style>p > a { color: red }</style><br/><img alt='two 2' src=x.png><input disabled>",
    "<!-- a comment with 5 digits --><p>kept 6</p><?xml version='1.0'?>",
    '<a href="../x/index.html#frag" title="T &quot;9&quot;">link</a> tail 1 < 2 and 3 > 2',
    '<svg viewBox="0 0 10 10"><path d="M0 0L1 1"/><text x="1">4</text></svg>',
])
def test_the_same_callbacks_as_the_standard_parser(text):
    assert _events(TagStream, text) == _events(HTMLParser, text)


def test_the_same_callbacks_on_the_built_site(built_site):
    pages = sorted(built_site.rglob("*.html"))
    assert len(pages) > 10
    for page in pages:
        text = page.read_text()
        assert _events(TagStream, text) == _events(HTMLParser, text), page
