"""Content Markdown -> HTML fragments, with the site's three extensions
(docs/numbers.md, "In content"):

- `:n[ID]` shows a registered number as a `<data class="num">` element;
- `:t[key]` / `:t[key|words]` links a glossary term;
- a paragraph that is exactly `@[name]` is replaced by a generated block.

Raw HTML in content is off (escaped). Every bad reference fails with the content
file and line, counted in the file itself (front matter included).

`PageContext` is the object through which a page records which numbers and terms it
shows. Front matter is read by cit/frontmatter.py, the glossary by cit/glossary.py.
"""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Mapping

from markdown_it import MarkdownIt
from markdown_it.rules_inline import autolink as _autolink, image as _image, link as _link
from markdown_it.token import Token

from .claimrefs import (claim_token, core_claims, render_claim_mark, render_claim_open,
                        where_of)
from .errors import BuildError, did_you_mean
from .fragments import core_fragments
from .frontmatter import Chunk
from .glossary import Term
from .markup import number_element
from .mathcite import PageRefs, add_math, add_refs
from .registry import ID_RE, Registry

BLOCK_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:\-]*")

# ---------------------------------------------------------------------------
# the page context: what a page shows, and how it shows numbers and terms

def slugify(text: str) -> str:
    """A stable anchor id from heading text."""
    t = unicodedata.normalize("NFKC", text).lower()
    t = re.sub(r"[^\w\s-]", "", t)
    t = re.sub(r"[\s_-]+", "-", t).strip("-")
    return t or "section"


@dataclass
class PageContext:
    """Everything a block or an inline reference needs while one page is rendered.

    `url` is the page's site URL ("/", "/results/", "/decks/01-overview/"); `root`
    the relative prefix back to the site root ("", "../", "../../"); `path` the content
    file, for error messages. `glossary` is every term; `blocks` the block table
    (name -> cit.blocks.BlockSpec); `site` the site-wide facts late blocks read
    (cit.render.SiteState; None outside a site render).

    What the render records: `numbers_shown`, every id shown on the page (they go into
    the page's provenance script); `numbers_appearing`, the ids that count as
    appearing here (numbers.json and the number index; a listing such as the index
    itself shows without counting); `terms_linked`, the term keys linked on the page;
    `scripts`, static scripts a block asked for; `slugs`, element ids taken;
    `late_markers`, marker -> name of each late block left for the late pass;
    `late_pass`, True while that pass runs (a late block then renders in place);
    `prov_extra`, keys a block adds to the page's provenance script (the number index's
    rows)."""
    registry: Registry
    url: str
    root: str
    path: str
    glossary: Mapping[str, Term]
    blocks: Mapping
    site: object = None
    numbers_shown: set[str] = field(default_factory=set)
    numbers_appearing: set[str] = field(default_factory=set)
    terms_linked: set[str] = field(default_factory=set)
    scripts: list[tuple[str, bool]] = field(default_factory=list)
    slugs: set[str] = field(default_factory=set)
    claims_cited: set[str] = field(default_factory=set)
    late_markers: dict[str, str] = field(default_factory=dict)
    late_pass: bool = False
    prov_extra: dict = field(default_factory=dict)   # more keys for the provenance script
    refs: PageRefs = field(default_factory=PageRefs)  # labels and citations (cit/mathcite.py)

    def num(self, id: str, *, record: bool = True, where: str | None = None,
            exact: bool = False) -> str:
        """Render number `id` as a data element and note that it is on this page.
        `record=False` shows it without counting it as appearing here (the number
        index lists every number; that listing is not an appearance). A mean ± sd over
        one seed shows as its value and "one seed" (Registry.one_seed), unless `exact`."""
        n = self.registry.get(id, where or self.path)
        single = None if exact else self.registry.one_seed.get(id)
        if single is not None:
            return (self.num(single, record=record, where=where, exact=True)
                    + ' <span class="one-seed">(one seed)</span>')
        self.numbers_shown.add(id)
        if record:
            self.numbers_appearing.add(id)
        return number_element(n)

    def term(self, key: str, words: str | None = None, *, where: str | None = None) -> str:
        """A link to the glossary entry `key`; undefined keys fail."""
        t = self.glossary.get(key)
        if t is None:
            shown = repr(key) if len(key) <= 60 else f"{key[:40]!r}… ({len(key)} characters)"
            raise BuildError(where or self.path, f"undefined glossary term {shown}"
                             + did_you_mean(key, self.glossary) + " (terms are the keys "
                             "of content/glossary.yaml: add it there)")
        self.terms_linked.add(key)
        e = html.escape
        shown = t.term if words is None else words
        return (f'<a class="term" href="{e(self.root)}glossary/index.html#term-{e(key)}" '
                f'data-term="{e(key)}">{e(shown)}</a>')

    def claim(self, cid: str, marked: bool, *, where: str | None = None):
        """The checked claim a sentence cites (cit/claims.py); fails on an unknown id,
        a false claim or a missing or needless hypothesis marker."""
        from .claims import check_reference
        c = check_reference(self.registry.claims, cid, marked, where or self.path)
        self.claims_cited.add(cid)
        return c

    def add_script(self, name: str, module: bool = False) -> None:
        """Ask for `static/<name>` to be loaded on this page (once, in order)."""
        if (name, module) not in self.scripts:
            self.scripts.append((name, module))

    def unique_id(self, base: str) -> str:
        """An element id not yet used on this page."""
        slug, i = base, 2
        while slug in self.slugs:
            slug, i = f"{base}-{i}", i + 1
        self.slugs.add(slug)
        return slug

    def link(self, url: str) -> str:
        """Relative href for a site URL ("/results/" -> "../results/index.html"),
        with an explicit index.html so the site works from file://."""
        return self.root + url.lstrip("/") + "index.html"


# ---------------------------------------------------------------------------
# the Markdown parser and its extensions

_NUM_OPEN = ":n["
_TERM_OPEN = ":t["
_CLAIM_OPEN = ":c["
_REASON_OPEN = ":x["


def _inline_rule(state, silent: bool) -> bool:
    """`:n[ID]`, `:t[key]`, `:t[key|words]`; any other `:n[`, `:t[` or `@[` is an error
    (kept as a token so the error can name its line)."""
    src, pos = state.src, state.pos
    head = src[pos:pos + 3]
    if head == _CLAIM_OPEN:
        return claim_token(state, silent)
    if head == _REASON_OPEN:
        return _reason_token(state, silent)
    if head in (_NUM_OPEN, _TERM_OPEN):
        end = src.find("]", pos + 3)
        inner = src[pos + 3:end] if end >= 0 else ""
        nl = "\n" in inner
        if head == _NUM_OPEN:
            ok = end >= 0 and not nl and bool(ID_RE.match(inner))
            kind = "cit_num"
            meta = {"id": inner}
        else:
            key, _, words = inner.partition("|")
            ok = end >= 0 and not nl and bool(key.strip()) and (not _ or bool(words.strip()))
            kind = "cit_term"
            meta = {"key": key.strip(), "words": words.strip() if _ else None}
        if not ok:
            if silent:
                return False
            tok = state.push("cit_bad", "", 0)
            tok.meta = {"pos": pos, "msg": f"malformed reference starting {src[pos:pos + 40]!r}"
                                            f" (expected {head}…])"}
            state.pos = pos + 3
            return True
        if not silent:
            tok = state.push(kind, "", 0)
            tok.meta = dict(meta, pos=pos)
        state.pos = end + 1
        return True
    if src.startswith("@[", pos):
        if silent:
            return False
        tok = state.push("cit_bad", "", 0)
        tok.meta = {"pos": pos, "msg": "a block `@[name]` must be a paragraph on its own line, "
                                       "with blank lines around it"}
        state.pos = pos + 2
        return True
    return False


def _reason_token(state, silent: bool) -> bool:
    """`:x[key]`: an exempt sentence's reason (docs/claims.md), for the sentence check
    only; the reader sees nothing, not even the space before it."""
    src, pos = state.src, state.pos
    end = src.find("]", pos + 3)
    if end < 0 or "\n" in src[pos + 3:end] or not src[pos + 3:end].strip():
        if silent:
            return False
        tok = state.push("cit_bad", "", 0)
        tok.meta = {"pos": pos, "msg": f"malformed reason starting {src[pos:pos + 40]!r} "
                                       "(expected :x[key])"}
        state.pos = pos + 3
        return True
    if not silent:
        state.pending = state.pending.rstrip(" \t")
    state.pos = end + 1
    return True


# URL schemes a content link may not use (docs/output.md, "What a content link may
# name"): each would run code or open something the site does not check
REFUSED_SCHEMES = {"javascript": "it would run code in the reader's browser",
                   "vbscript": "it would run code in the reader's browser",
                   "data": "it is a document the site does not check; put the file in "
                           "templates/static/ and link to it",
                   "file": "it names a file on the reader's own computer"}
_IMAGE_DATA_RE = re.compile(r"data:image/(?:gif|png|jpeg|webp);")
_URL_SCHEME_RE = re.compile(r"([a-z][a-z0-9+.-]*):")


def refused_link(url: str, image: bool = False) -> str | None:
    """Why a content link's URL (as the parser normalised it) is refused, or None. It is
    read as a browser reads a URL: percent-escapes and character references decoded,
    tabs and line breaks inside dropped, leading spaces and control characters stripped,
    so `java&#x09;script:` is `javascript:`. An image may be a `data:image/...` URL."""
    from urllib.parse import unquote
    plain = re.sub(r"[\t\n\r]", "", unquote(html.unescape(url)))
    plain = plain.lstrip("".join(map(chr, range(0x21)))).lower()
    m = _URL_SCHEME_RE.match(plain)
    if not m or m.group(1) not in REFUSED_SCHEMES:
        return None
    if image and _IMAGE_DATA_RE.match(plain):
        return None
    return f"a {m.group(1)}: URL is refused ({REFUSED_SCHEMES[m.group(1)]})"


def _checked_links(rule):
    """Markdown-it's link, image or autolink rule, followed by our URL check: a link it
    made whose URL `refused_link` refuses becomes an error token naming its line (the
    parser's own check would drop the link silently; it is turned off, see
    make_markdown)."""
    def check(state, silent: bool) -> bool:
        start, n = state.pos, len(state.tokens)
        if not rule(state, silent):
            return False
        for tok in state.tokens[n:] if not silent else ():
            if tok.type in ("link_open", "image"):
                why = refused_link(tok.attrGet("href" if tok.type == "link_open" else "src")
                                   or "", image=tok.type == "image")
                if why:
                    written = state.src[start:state.pos]
                    shown = repr(written if len(written) <= 60 else written[:57] + "…")
                    tok.type, tok.meta = "cit_bad", {"pos": start, "msg": f"link {shown}: {why}"}
                break
        return True
    return check


_BLOCK_LINE_RE = re.compile(r"@\[(" + BLOCK_NAME_RE.pattern + r")((?: [a-z]+=\S+)*)\]")


def _block_rule(state, start: int, end: int, silent: bool) -> bool:
    """A line that is exactly `@[name]`, or `@[name key=value ...]` (the block's options,
    docs/syntax.md), at the start of a block."""
    if state.sCount[start] - state.blkIndent >= 4:
        return False
    pos = state.bMarks[start] + state.tShift[start]
    line = state.src[pos:state.eMarks[start]].rstrip()
    m = _BLOCK_LINE_RE.fullmatch(line)
    if not m:
        return False
    if silent:
        return True
    tok = state.push("cit_block", "", 0)
    tok.meta = {"name": m.group(1), "options": m.group(2)}
    tok.map = [start, start + 1]
    state.line = start + 1
    return True


def _plain(children) -> str:
    """Heading text for its slug: words only (numbers would make anchors unstable)."""
    out = []
    for c in children or ():
        if c.type in ("text", "code_inline"):
            out.append(c.content)
        elif c.type == "cit_term":
            out.append(c.meta["words"] or c.meta["key"])
        elif c.type in ("softbreak", "hardbreak"):
            out.append(" ")
    return "".join(out)


def _core_lines_and_slugs(state) -> None:
    """Give every extension token its source line, and every heading a unique id."""
    env = state.env
    ctx: PageContext = env["ctx"]
    last_map = [0, 1]
    tokens = state.tokens
    for i, tok in enumerate(tokens):
        if tok.map:
            last_map = tok.map
        if tok.type == "cit_block":
            tok.meta["line"] = env["line0"] + tok.map[0] + 1
        if tok.type == "inline" and tok.children:
            for c in tok.children:
                if c.type.startswith("cit_"):
                    c.meta["line"] = env["line0"] + last_map[0] + 1 + tok.content.count("\n", 0, c.meta["pos"])
        if tok.type == "heading_open":
            text = _plain(tokens[i + 1].children if i + 1 < len(tokens) else ())
            tok.attrSet("id", ctx.unique_id(slugify(text)))
            if "first_heading" not in env:
                env["first_heading"] = tok.attrGet("id")
                env["first_heading_text"] = " ".join(text.split())
                if env["first_heading_text"] == env.get("title_heading"):
                    _promote_to_h1(tokens, i)
            if tok.tag == "h1":
                env["has_h1"] = True


def _promote_to_h1(tokens, i: int) -> None:
    """The heading opened at tokens[i] becomes the page's level-one heading (a deck's
    first slide titled as the deck: the page names itself once, docs/architecture.md
    "Decks")."""
    tokens[i].tag = "h1"
    for tok in tokens[i + 1:]:
        if tok.type == "heading_close":
            tok.tag = "h1"
            return


_SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_RULES = {"link": _link, "image": _image, "autolink": _autolink}


def folder_href(href: str) -> str:
    """Content links name pages as folders ("results/", "../../"); file:// does not
    open a folder's index.html by itself, so the file name is added."""
    if not href or href.startswith(("#", "/")) or _SCHEME_RE.match(href):
        return href
    path, hash_, frag = href.partition("#")
    path, q, query = path.partition("?")
    if path.endswith("/") or path in (".", ".."):
        path = path.rstrip("/") + "/index.html"
    return path + q + query + hash_ + frag


def _core_links(state) -> None:
    """Relative links to folders get their index.html (see folder_href)."""
    for tok in state.tokens:
        for c in tok.children or ():
            if c.type == "link_open":
                c.attrSet("href", folder_href(c.attrGet("href") or ""))


PERMALINK_LEVELS = ("h2", "h3", "h4")


def permalink(anchor: str) -> str:
    """The visible link a heading carries to itself (docs/architecture.md, "Finding your
    way on a page")."""
    return f'<a class="permalink" href="#{anchor}" aria-label="Link to this section">#</a>'


def _core_sections(state) -> None:
    """On hub and pages, wrap each `##` section in <section>; on the hub, each `###`
    under a "Findings" section becomes a card (<article class="card finding">). Every
    `##` to `####` heading gets its permalink, and the `##` ones are listed, (id, text),
    in env["outline"]."""
    env = state.env
    if not env.get("sections"):
        return
    def raw(html_text: str):
        t = Token("cit_raw", "", 0)
        t.content = html_text
        return t

    out = []
    in_section = in_card = False
    findings = False
    open_heading = None
    outline = env.setdefault("outline", [])
    for i, tok in enumerate(state.tokens):
        if tok.type == "heading_open" and tok.tag in PERMALINK_LEVELS:
            open_heading = tok.attrGet("id")
            if tok.tag == "h2":
                outline.append((open_heading, " ".join(_plain(state.tokens[i + 1].children).split())))
        if tok.type == "heading_close" and open_heading:
            out.append(raw(permalink(open_heading)))
            open_heading = None
        if tok.type == "heading_open" and tok.level == 0 and tok.tag in ("h2", "h3"):
            hid = tok.attrGet("id")
            if tok.tag == "h2":
                if in_card:
                    out.append(raw("</article>\n"))
                    in_card = False
                if in_section:
                    out.append(raw("</section>\n"))
                findings = env.get("findings_cards", False) and hid.startswith("findings")
                cls = "section section-findings" if findings else "section"
                out.append(raw(f'<section class="{cls}" aria-labelledby="{hid}">\n'))
                in_section = True
            elif findings:
                if in_card:
                    out.append(raw("</article>\n"))
                out.append(raw(f'<article class="card finding" aria-labelledby="{hid}">\n'))
                in_card = True
        out.append(tok)
    if in_card:
        out.append(raw("</article>\n"))
    if in_section:
        out.append(raw("</section>\n"))
    state.tokens = out


def _render_num(self, tokens, idx, options, env) -> str:
    tok = tokens[idx]
    return env["ctx"].num(tok.meta["id"], where=where_of(env, tok))


def _render_term(self, tokens, idx, options, env) -> str:
    tok = tokens[idx]
    return env["ctx"].term(tok.meta["key"], tok.meta["words"], where=where_of(env, tok))


def _render_bad(self, tokens, idx, options, env) -> str:
    tok = tokens[idx]
    raise BuildError(where_of(env, tok), tok.meta["msg"])


def _render_raw(self, tokens, idx, options, env) -> str:
    return tokens[idx].content


def _render_block(self, tokens, idx, options, env) -> str:
    tok = tokens[idx]
    where = where_of(env, tok)
    ctx: PageContext = env["ctx"]
    name = tok.meta["name"]
    spec = ctx.blocks.get(name)
    if spec is None:
        raise BuildError(where, f"unknown block @[{name}]" + did_you_mean(name, ctx.blocks)
                         + " (the engine's blocks and those of site.yaml's `blocks:` "
                         "providers; docs/syntax.md)")
    if spec.late_order is not None and not ctx.late_pass:
        # rendered after every other page, when usage across the site is known
        marker = f"<!--cit-late:{name}:{len(ctx.late_markers)}-->"
        ctx.late_markers[marker] = name
        return marker + "\n"
    options = block_options(tok.meta.get("options", ""), name, spec, where)
    try:
        out = spec.function(ctx, **options) if spec.options else spec.function(ctx)
    except BuildError as e:
        raise BuildError(f"{where} (@[{name}]) {e.where}", e.message) from None
    return out.rstrip("\n") + "\n"


def block_options(written: str, name: str, spec, where: str) -> dict[str, tuple[str, ...]]:
    """A block line's options, ` key=a,b,...` after its name, as key -> values; a key the
    block does not take, or one given twice, fails at the line."""
    out: dict[str, tuple[str, ...]] = {}
    for item in written.split():
        key, _, value = item.partition("=")
        if key not in spec.options:
            takes = ", ".join(spec.options) or "none"
            raise BuildError(where, f"@[{name}] takes no option {key!r} (its options: {takes})")
        if key in out:
            raise BuildError(where, f"@[{name}]: option {key!r} is given twice")
        values = tuple(v for v in value.split(",") if v)
        if not values:
            raise BuildError(where, f"@[{name}]: option {key!r} has no value")
        out[key] = values
    return out


def make_markdown(math: bool = False) -> MarkdownIt:
    """The site's Markdown parser: CommonMark + tables + strikethrough + typographic
    quotes, raw HTML off, and the three extensions, with citations and cross-references
    (cit/mathcite.py); with `math`, `$…$` and `$$…$$` too (a parser made only for pages
    that hold a `$`, so other pages never import the TeX libraries). The typographer's
    replacements are off: they turn a variant's name in brackets, "(C)", into a
    copyright sign."""
    md = MarkdownIt("commonmark", {"html": False, "typographer": True})
    md.enable(["table", "strikethrough", "smartquotes"])
    # every link is kept and checked by our rule, which names the line of a refused one
    md.validateLink = lambda url: True
    for name in ("link", "image", "autolink"):
        md.inline.ruler.at(name, _checked_links(_RULES[name]))
    md.inline.ruler.before("link", "cit_refs", _inline_rule)
    md.block.ruler.before("paragraph", "cit_block", _block_rule)
    md.core.ruler.push("cit_lines_slugs", _core_lines_and_slugs)
    md.core.ruler.push("cit_claims", core_claims)
    md.core.ruler.push("cit_links", _core_links)
    md.core.ruler.push("cit_sections", _core_sections)
    md.core.ruler.push("cit_fragments", core_fragments)   # cit/fragments.py
    md.add_render_rule("cit_num", _render_num)
    md.add_render_rule("cit_term", _render_term)
    md.add_render_rule("cit_bad", _render_bad)
    md.add_render_rule("cit_block", _render_block)
    md.add_render_rule("cit_raw", _render_raw)
    md.add_render_rule("cit_claim_open", render_claim_open)
    md.add_render_rule("cit_claim", render_claim_mark)
    add_refs(md)
    add_folds(md)
    if math:
        add_math(md)
    return md


FOLD_NAME = "more"


def add_folds(md: MarkdownIt) -> None:
    """A fold: between a line `::: more SUMMARY` and a line `:::`, Markdown that a page
    shows closed under SUMMARY, as a <details> the reader opens (docs/syntax.md, "Folds").
    Its numbers and checked claims are in the page as any others are."""
    from mdit_py_plugins.container import container_plugin
    md.use(container_plugin, FOLD_NAME,
           render=lambda _renderer, tokens, idx, _options, env: _render_fold(md, tokens, idx, env))


def fold_summary(tok) -> str:
    """The summary a fold's opening token carries (`::: more SUMMARY`)."""
    return tok.info.strip()[len(FOLD_NAME):].strip()


def _render_fold(md: MarkdownIt, tokens, idx, env) -> str:
    """The fold's open and close tags; its summary is inline Markdown, roles and marks
    included, so its words are checked and shown as a line of text is."""
    tok = tokens[idx]
    if tok.nesting < 0:
        return "</details>\n"
    where = f"{env['path']}:{env['line0'] + 1 + (tok.map[0] if tok.map else 0)}"
    if env.get("slide"):
        raise BuildError(where, "a fold (`::: more`) is for pages: a slide shows all it holds")
    summary = fold_summary(tok)
    if not summary:
        raise BuildError(where, "a fold needs its summary: `::: more What the reader opens`")
    return f'<details class="more"><summary>{md.renderInline(summary, env)}</summary>\n'


@dataclass
class Rendered:
    """A chunk's HTML and what the parser noticed about it."""
    html: str
    first_heading: str | None
    first_heading_text: str | None
    has_h1: bool
    outline: list = field(default_factory=list)   # [(id, text)] of the `##` headings


def render_chunk(md: MarkdownIt, chunk: Chunk, ctx: PageContext, path: str, *,
                 sections: bool = False, findings_cards: bool = False,
                 title_heading: str | None = None, slide: bool = False) -> Rendered:
    """Render one chunk (a page body or a slide) into `ctx`'s page; a first heading whose
    text is `title_heading` is rendered as an h1 (`has_h1`); `slide`: a deck's slide,
    where a list item may be a fragment (cit/fragments.py)."""
    env = {"ctx": ctx, "path": path, "line0": chunk.first_line - 1,
           "sections": sections, "findings_cards": findings_cards,
           "title_heading": title_heading, "slide": slide}
    out = md.render(chunk.text, env)
    return Rendered(out, env.get("first_heading"), env.get("first_heading_text"),
                    env.get("has_h1", False), env.get("outline", []))


def render_inline(md: MarkdownIt, text: str, ctx: PageContext, path: str, line: int) -> str:
    """Render one line of inline Markdown (a glossary definition)."""
    env = {"ctx": ctx, "path": path, "line0": line - 1}
    tokens = md.parseInline(text, env)
    return md.renderer.render(tokens, md.options, env)


def plain_text(html_text: str) -> str:
    """Visible text of an HTML fragment (for JSON the front end shows as text)."""
    from html.parser import HTMLParser

    parts: list[str] = []

    class P(HTMLParser):
        def handle_data(self, data):
            parts.append(data)

    p = P(convert_charrefs=True)
    p.feed(html_text)
    p.close()
    return re.sub(r"\s+", " ", "".join(parts)).strip()
