"""Math, citations and cross-references in content Markdown (docs/math-citations.md).

- `$…$` and `$$…$$` are TeX, turned into MathML at build time (latex2mathml; no script
  on the page). Inside it, `\\num{id}` shows a registered number (a `<data class="num">`
  inside `<mtext>`, checked like any number) and `\\const{2}` a constant of the formula
  itself; a digit in an index or exponent is an index. Any other digit is a naked
  number (cit/naked.py). A display equation may be labelled: `$$…$$ (eq:name)`.
- `[@key]` / `[@a; @b]` cites entries of the study's BibTeX file (site.yaml
  `bibliography`), numbered on each page by first citation; the page then ends with its
  numbered bibliography, and each citation opens its entry as a card.
- `[@eq:name]`, `[@fig:name]`, `[@tbl:name]` refer to a numbered equation, figure or
  table of the same page. A figure's or table's caption is a paragraph
  `Figure: words {#fig:name}` / `Table: words {#tbl:name}` (after the figure or table).

Unknown keys and labels, a label given twice, a lone `$` and TeX that does not parse
fail the build in one line naming the content file and line. The TeX libraries are
imported only by pages holding a `$` (`needs_math`), pybtex only by pages that cite.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from .errors import BuildError
from .markup import drop_reason_marks

REF_RE = re.compile(r"\[(@[^\[\]\n]*)\]")
KEY_RE = re.compile(r"[A-Za-z0-9][\w:.\-]*")
LABEL_RE = re.compile(r"(eq|fig|tbl):[a-z0-9][a-z0-9-]*")
KINDS = {"eq": "Equation", "fig": "Figure", "tbl": "Table"}
CAPTION_RE = re.compile(r"(Figure|Table):\s+(.*?)\s*\{#((?:fig|tbl):[^}\s]*)\}\s*\Z", re.S)
CONST_RE = re.compile(r"\\const\{([^{}]*)\}")
NUM_RE = re.compile(r"\\num\{([^{}]*)\}")
SCRIPTED = {"msub", "msup", "msubsup", "munder", "mover", "munderover"}
MATHML_NS = ' xmlns="http://www.w3.org/1998/Math/MathML"'


@dataclass
class PageRefs:
    """One page's labels and citations, kept in its PageContext as the render goes:
    `labels`, label -> (number, "file:line", its anchor); `counts`, kind -> last number;
    `cited`, key -> number, in the order first cited; `cards`, "cite:key" -> (label,
    entry text), each citation's card (filled with the bibliography, `bibliography_html`)."""
    labels: dict = field(default_factory=dict)
    counts: dict = field(default_factory=dict)
    cited: dict = field(default_factory=dict)
    cards: dict = field(default_factory=dict)


def needs_math(text: str) -> bool:
    """Whether a page's Markdown needs the math parser (it holds a `$`)."""
    return "$" in text


# ---------------------------------------------------------------------------
# TeX -> MathML

def _braces(tex: str) -> str | None:
    """Why the braces of `tex` do not balance, or None (`\\{` and `\\}` are literal)."""
    depth = 0
    for m in re.finditer(r"\\.|[{}]", tex):
        t = m.group()
        if t == "{":
            depth += 1
        elif t == "}":
            depth -= 1
            if depth < 0:
                return "a `}` closes no `{`"
    return f"{depth} `{{` not closed" if depth else None


def _slots(tex: str, where: str, shown: str) -> tuple[str, list]:
    """`tex` with each `\\num{id}` and `\\const{..}` replaced by a placeholder
    `\\text{CITSLOTkX}`, and what each placeholder stands for: ("num", id) or
    ("const", digits)."""
    slots: list = []

    def slot(kind: str, inner: str) -> str:
        slots.append((kind, inner))
        return rf"\text{{CITSLOT{len(slots) - 1}X}}"

    def const(m) -> str:
        if not re.fullmatch(r"\d+(\.\d+)?", m.group(1)):
            raise BuildError(where, f"malformed TeX {shown!r}: \\const{{{m.group(1)}}} "
                             "holds something other than a number")
        return slot("const", m.group(1))

    return CONST_RE.sub(const, NUM_RE.sub(lambda m: slot("num", m.group(1).strip()), tex)), slots


def _convert(tex: str, display: bool, where: str, shown: str) -> str:
    """MathML of placeholder TeX (see _slots), indices marked; BuildError(where) when
    latex2mathml refuses it or leaves a command it does not know."""
    import xml.etree.ElementTree as ET
    from latex2mathml.converter import convert
    try:
        out = convert(tex, display="block" if display else "inline")
    except Exception as e:    # latex2mathml's errors share no base class but Exception
        why = type(e).__name__.replace("Error", "").replace("Or", " or ")
        why = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", why).lower()
        raise BuildError(where, f"malformed TeX {shown!r}: {why}") from None
    unknown = re.search(r"<mi>(\\[A-Za-z]+)</mi>", out)
    if unknown:
        raise BuildError(where, f"malformed TeX {shown!r}: unknown command {unknown.group(1)}")
    root = ET.fromstring(out.replace(MATHML_NS, "", 1))
    _mark_indices(root, False)
    return ET.tostring(root, encoding="unicode", short_empty_elements=False)


def tex_to_mathml(tex: str, display: bool, where: str, ctx, converted=None) -> str:
    """MathML for `tex`, its `\\num{id}` shown through `ctx.num` and its `\\const{..}`
    marked; BuildError(where, ...) when it does not parse. `converted`, when given, maps
    (placeholder TeX, display) to its MathML already made (a memo, _page_mathml)."""
    shown = tex if len(tex) <= 60 else tex[:57] + "…"
    bad = _braces(tex)
    if bad:
        raise BuildError(where, f"malformed TeX {shown!r}: {bad}")
    tex2, slots = _slots(tex, where, shown)
    text = (converted or {}).get(_memo_key(tex2, display))
    if text is None:
        text = _convert(tex2, display, where, shown)
    for k, (kind, inner) in enumerate(slots):
        made = (f'<mn class="math-const">{inner}</mn>' if kind == "const"
                else "<mtext>" + ctx.num(inner, where=where) + "</mtext>")
        text = text.replace(f"<mtext>CITSLOT{k}X</mtext>", made)
    if "CITSLOT" in text:
        raise BuildError(where, f"malformed TeX {shown!r}: \\num or \\const inside a command "
                         "that takes text")
    return text


def _memo_key(tex2: str, display: bool) -> str:
    return ("D" if display else "I") + tex2


def _page_mathml(env) -> dict:
    """The MathML of every formula of this chunk (collected by _core_labels), made at once
    through the site's memo: an edit to a page with math whose formulas did not change
    converts nothing and does not import latex2mathml. A formula that does not convert is
    left out, so its error comes from tex_to_mathml at its own line."""
    if "mathml" in env:
        return env["mathml"]
    site = getattr(env["ctx"], "site", None)
    memo = getattr(site, "memo", None)
    formulas = sorted({_memo_key(*_slots_quiet(t, d)) for t, d in env.get("formulas", ())})

    def compute() -> dict:
        out = {}
        for k in formulas:
            try:
                out[k] = _convert(k[1:], k[0] == "D", "", "")
            except BuildError:
                pass
        return out
    if memo is None or not formulas:
        env["mathml"] = {}
        return env["mathml"]
    from importlib.metadata import version
    key = hashlib.sha256(json.dumps([Path(__file__).read_text(encoding="utf-8"),
                                     version("latex2mathml"), formulas]).encode()).hexdigest()
    name = "mathml-" + re.sub(r"[^A-Za-z0-9]+", "-", f"{env['path']}-{env['line0']}")
    env["mathml"] = memo(name, key, compute)
    return env["mathml"]


def _slots_quiet(tex: str, display: bool) -> tuple[str, bool]:
    try:
        return _slots(tex, "", "")[0], display
    except BuildError:
        return "", display


def _mark_indices(el, inside: bool) -> None:
    """Numbers in an index, limit or exponent position get class math-index."""
    if inside and el.tag == "mn":
        el.set("class", "math-index")
    kids = list(el)
    for k, child in enumerate(kids):
        _mark_indices(child, inside or (el.tag in SCRIPTED and k > 0))


# ---------------------------------------------------------------------------
# the parser's rules

def add_math(md) -> None:
    """Plug `$…$` / `$$…$$` into parser `md` (imports the plugin: only a page that
    needs it asks, see needs_math)."""
    from mdit_py_plugins.dollarmath import dollarmath_plugin
    md.use(dollarmath_plugin, allow_labels=True, allow_space=True, allow_digits=True,
           double_inline=False, label_normalizer=lambda s: s.strip())
    md.add_render_rule("math_inline", _render_math)
    md.add_render_rule("math_block", _render_math)
    md.add_render_rule("math_block_label", _render_math)


def add_refs(md) -> None:
    """Citations, cross-references and captions (no import; every page)."""
    md.inline.ruler.before("link", "cit_cite", _cite_rule)
    md.core.ruler.before("text_join", "cit_lone_dollar", _lone_dollar)
    md.core.ruler.push("cit_xref_labels", _core_labels)
    md.add_render_rule("cit_cite", _render_cite)
    md.add_render_rule("cit_caption_open", _render_caption_open)


def _cite_rule(state, silent: bool) -> bool:
    """`[@…]`: citation keys or labels, `;`-separated."""
    src, pos = state.src, state.pos
    if not src.startswith("[@", pos):
        return False
    m = REF_RE.match(src, pos)
    if not m:
        return False
    if not silent:
        keys = [k.strip() for k in m.group(1).split(";")]
        tok = state.push("cit_cite", "", 0)
        tok.meta = {"pos": pos, "keys": keys, "written": m.group()}
    state.pos = m.end()
    return True


def _line_of(env, token, pos: int | None = None) -> int:
    """Content-file line of a block token (or of offset `pos` in an inline one)."""
    first = token.map[0] if token.map else 0
    extra = token.content.count("\n", 0, pos) if pos is not None else 0
    return env["line0"] + first + 1 + extra


def _lone_dollar(state) -> None:
    """A `$` left as text opens no math: refused (a dollar sign is written `\\$`)."""
    for tok in state.tokens:
        if tok.type != "inline":
            continue
        for c in tok.children or ():
            if c.type == "text" and "$" in c.content:
                pos = tok.content.find(c.content) if c.content in tok.content else None
                raise BuildError(f"{state.env['path']}:{_line_of(state.env, tok, pos)}",
                                 "a `$` that opens no math (closing `$` missing?); write `\\$` "
                                 "for a dollar sign")


def _core_labels(state) -> None:
    """Number this chunk's labelled equations and captions in order, give every math
    and citation token its line, and turn caption paragraphs into captions."""
    env, tokens = state.env, state.tokens
    refs = env["ctx"].refs
    formulas = env.setdefault("formulas", [])
    for i, tok in enumerate(tokens):
        if tok.type.startswith("math_block"):
            formulas.append((tok.content.strip(), True))
            tok.meta = dict(tok.meta or {}, line=_line_of(env, tok))
            if tok.type == "math_block_label":
                tok.meta["label"] = _take_label(env, refs, tok.info, tok.meta["line"])
        elif tok.type == "inline":
            cursor = 0
            for c in tok.children or ():
                if c.type == "math_inline":
                    formulas.append((c.content.strip(), False))
                    at = tok.content.find(c.content, cursor)
                    cursor = max(at, cursor)
                    c.meta = dict(c.meta or {}, line=_line_of(env, tok, max(at, 0)))
                elif c.type == "cit_cite":
                    c.meta["line"] = _line_of(env, tok, c.meta["pos"])
            if i > 0 and tokens[i - 1].type == "paragraph_open":
                _caption(env, refs, tokens, i)


def _take_label(env, refs: PageRefs, label: str, line: int) -> str:
    where = f"{env['path']}:{line}"
    if not LABEL_RE.fullmatch(label):
        raise BuildError(where, f"label {label!r}: write eq:NAME, fig:NAME or tbl:NAME "
                         "(lower-case letters, digits and hyphens)")
    if label in refs.labels:
        raise BuildError(where, f"label {label!r} given twice (first at {refs.labels[label][1]})")
    kind = label.split(":", 1)[0]
    refs.counts[kind] = refs.counts.get(kind, 0) + 1
    refs.labels[label] = (refs.counts[kind], where, label.replace(":", "-"))
    return label


def _caption(env, refs: PageRefs, tokens, i: int) -> None:
    """`Figure: words {#fig:name}` as the whole paragraph: a numbered caption."""
    tok = tokens[i]
    m = CAPTION_RE.match(tok.content)
    if not m:
        if re.match(r"(Figure|Table):\s", tok.content) and re.search(r"\{#(fig|tbl):", tok.content):
            raise BuildError(f"{env['path']}:{_line_of(env, tok)}", "a caption's label "
                             "{#...} must end its paragraph (a reason mark goes before it)")
        return
    word, label = m.group(1), m.group(3)
    if label.split(":")[0] != {"Figure": "fig", "Table": "tbl"}[word]:
        raise BuildError(f"{env['path']}:{_line_of(env, tok)}",
                         f"a {word.lower()}'s caption takes a {word[:3].lower()}: label, not {label!r}")
    _take_label(env, refs, label, _line_of(env, tok))
    last = next((c for c in reversed(tok.children) if c.type == "text"), None)
    if last is None or "{#" not in last.content:
        raise BuildError(f"{env['path']}:{_line_of(env, tok)}", "a caption's label must end "
                         "its paragraph as plain text")
    last.content = last.content[:last.content.rindex("{#")].rstrip()
    first = tok.children[0]
    if first.type == "text" and first.content.startswith(word + ":"):
        first.content = first.content[len(word) + 1:].lstrip()
    opener = tokens[i - 1]
    opener.type = "cit_caption_open"
    opener.meta = {"label": label}


# ---------------------------------------------------------------------------
# rendering

def _where(env, tok) -> str:
    return f"{env['path']}:{(tok.meta or {}).get('line', env['line0'] + 1)}"


def _render_math(self, tokens, idx, options, env) -> str:
    tok = tokens[idx]
    display = tok.type != "math_inline"
    body = tex_to_mathml(tok.content.strip(), display, _where(env, tok), env["ctx"],
                         _page_mathml(env))
    if not display:
        return body
    label = (tok.meta or {}).get("label")
    # a display formula may scroll sideways on a phone: it takes the focus, so a
    # keyboard can scroll it (axe's scrollable-region-focusable)
    if not label:
        return f'<div class="equation" tabindex="0" role="group" aria-label="formula">{body}</div>\n'
    n, _, anchor = env["ctx"].refs.labels[label]
    return (f'<div class="equation" id="{anchor}" tabindex="0" role="group" '
            f'aria-labelledby="{anchor}-no">{body}'
            f'<span class="eqno xnum" id="{anchor}-no">({n})</span></div>\n')


def _render_caption_open(self, tokens, idx, options, env) -> str:
    label = tokens[idx].meta["label"]
    n, _, anchor = env["ctx"].refs.labels[label]
    return (f'<p class="caption" id="{anchor}"><span class="xnum">'
            f'{KINDS[label.split(":")[0]]} {n}.</span> ')


def _render_cite(self, tokens, idx, options, env) -> str:
    tok = tokens[idx]
    where, ctx = _where(env, tok), env["ctx"]
    keys = tok.meta["keys"]
    if not keys or any(not k.startswith("@") or not KEY_RE.fullmatch(k[1:]) for k in keys):
        raise BuildError(where, f"malformed reference {tok.meta['written']!r} (expected "
                         "[@key] or [@key; @other])")
    keys = [k[1:] for k in keys]
    labels = [k for k in keys if LABEL_RE.fullmatch(k)]
    if labels and len(labels) != len(keys):
        raise BuildError(where, f"{tok.meta['written']!r} mixes labels and citation keys")
    if labels:
        return ", ".join(_xref(ctx, k, where) for k in labels)
    bib = bibliography(ctx, where)
    parts = []
    for k in keys:
        if k not in bib:
            raise BuildError(where, f"unknown citation key {k!r} (not in {bib_path(ctx)})")
        n = ctx.refs.cited.setdefault(k, len(ctx.refs.cited) + 1)
        parts.append(f'<a class="term cite" href="#ref-{html.escape(k)}" '
                     f'data-term="cite:{html.escape(k)}">'
                     f'<span class="xnum">{n}</span></a>')
    return '<span class="cites">[' + ", ".join(parts) + "]</span>"


def _xref(ctx, label: str, where: str) -> str:
    got = ctx.refs.labels.get(label)
    if got is None:
        raise BuildError(where, f"unknown label {label!r} (labels are numbered on their own "
                         "page, and a reference follows its label on a deck's slides)")
    n, _, anchor = got
    kind = label.split(":", 1)[0]
    text = f"({n})" if kind == "eq" else f"{KINDS[kind]} {n}"
    return f'<a class="xref" href="#{anchor}"><span class="xnum">{text}</span></a>'


# ---------------------------------------------------------------------------
# the bibliography

@dataclass(frozen=True)
class Entry:
    key: str
    html: str      # the formatted entry
    text: str      # the same, plain (its card)


def bib_path(ctx) -> str:
    config = getattr(ctx.site, "config", None)
    path = getattr(config, "bibliography", None)
    if not path:
        raise BuildError(ctx.path, "a page cites, but site.yaml names no bibliography")
    return path


def bibliography(ctx, where: str) -> dict:
    """The study's BibTeX file as key -> Entry, read through the site's reads (so the
    page's record holds it) and parsed once per text (kept on the SiteState)."""
    path = bib_path(ctx)
    site = ctx.site
    text = site.reads.text(site.reads.root / path)
    key = hashlib.sha256(text.encode()).hexdigest()
    parsed = site.parsed
    if parsed.get(("bib", path), (None,))[0] != key:
        parsed[("bib", path)] = (key, _parsed_bib(text, path, getattr(site, "memo", None)))
    return parsed[("bib", path)][1]


def _parsed_bib(text: str, path: str, memo) -> dict:
    """parse_bib through the build's memo, under the file's text, this module's code and
    pybtex's version: a page edit with the file unchanged does not import pybtex."""
    def compute() -> dict:
        return {k: [e.html, e.text] for k, e in parse_bib(text, path).items()}
    if memo is None:
        made = compute()
    else:
        from importlib.metadata import version
        key = hashlib.sha256(json.dumps([text, path, Path(__file__).read_text(encoding="utf-8"),
                                         version("pybtex")]).encode()).hexdigest()
        made = memo("bibliography", key, compute)
    return {k: Entry(k, h, t) for k, (h, t) in made.items()}


def parse_bib(text: str, path: str) -> dict:
    """key -> Entry of BibTeX `text`; BuildError(path:line) on a syntax error or a key
    given twice."""
    from pybtex.database import BibliographyDataError, parse_string
    from pybtex.scanner import PybtexSyntaxError
    seen: dict[str, int] = {}
    for m in re.finditer(r"^\s*@\w+\s*\{\s*([^,\s]+)\s*,", text, re.M):
        line = text.count("\n", 0, m.start(1)) + 1
        if m.group(1) in seen:
            raise BuildError(f"{path}:{line}", f"citation key {m.group(1)!r} given twice "
                             f"(first at line {seen[m.group(1)]})")
        seen[m.group(1)] = line
    try:
        db = parse_string(text, "bibtex")
    except PybtexSyntaxError as e:
        raise BuildError(f"{path}:{e.lineno}", f"BibTeX: {e.args[0] if e.args else e}") from None
    except BibliographyDataError as e:
        raise BuildError(path, f"BibTeX: {e}") from None
    return {k: _entry(k, e, f"{path}:{seen.get(k, 1)}") for k, e in db.entries.items()}


def _names(persons) -> str:
    names = []
    for p in persons:
        if str(p) == "others":
            return ", ".join(names) + " et al." if names else "et al."
        first = " ".join(n[0] + "." for n in p.first_names + p.middle_names if n)
        names.append(" ".join(x for x in (first, *p.last_names) if x))
    if len(names) < 2:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def _entry(key: str, e, where: str) -> Entry:
    """One entry as the bibliography shows it: authors, title, venue, year, identifier."""
    f = {k.lower(): re.sub(r"[{}]", "", v).strip() for k, v in e.fields.items()}
    who = _names(e.persons.get("author", ())) or f.get("organization") or f.get("publisher")
    if not who or not f.get("title"):
        raise BuildError(where, f"citation {key!r} needs an author (or organization) and a title")
    venue = f.get("journal") or f.get("booktitle") or f.get("howpublished")
    eprint = f.get("eprint") and f"{f.get('archiveprefix', 'arXiv')}:{f['eprint']}"
    note = f.get("note") and drop_reason_marks(f["note"])     # docs/claims.md
    parts = [x for x in (who, f["title"], venue, note, f.get("year"), eprint) if x]
    text = " ".join(x if x.endswith(".") else x + "." for x in parts)
    out = html.escape(text)
    url = f.get("url") or (f"https://arxiv.org/abs/{f['eprint']}" if f.get("eprint") else None)
    if url:
        out += f' <a href="{html.escape(url)}">{html.escape(url)}</a>'
        text += " " + url
    return Entry(key, out, text)


def bibliography_html(ctx) -> str:
    """The page's numbered bibliography (empty when it cites nothing)."""
    if not ctx.refs.cited:
        return ""
    bib = bibliography(ctx, ctx.path)
    ctx.refs.cards = {f"cite:{k}": (f"[{n}]", bib[k].text) for k, n in ctx.refs.cited.items()}
    items = "".join(f'<li id="ref-{html.escape(k)}">{bib[k].html}</li>\n'
                    for k, n in ctx.refs.cited.items())
    hid = ctx.unique_id("references")
    return (f'<section class="section references" aria-labelledby="{hid}">\n'
            f'<h2 id="{hid}">References<a class="permalink" href="#{hid}" '
            f'aria-label="Link to this section">#</a></h2>\n'
            f'<ol class="bib">\n{items}</ol>\n</section>\n')




