"""The render stage: content Markdown + the registry -> every file of the site, in memory.

`render_site(...)` reads `content/` (hub.md, pages/*.md, decks/0N-name.md,
glossary.yaml) and `templates/`, renders each page with Jinja (StrictUndefined,
autoescape) and returns a `Site` whose `files` the build writes atomically. Nothing is
written here. Every link is relative and names `index.html` explicitly, so the site
works from file:// as well as from a server.

Order: the hub, the pages (by file name) and the decks (by order) are rendered first;
blocks marked late (the glossary, the number index) are rendered afterwards, when it
is known which page shows which number and term.

Weight: a page carries no provenance. Each page's numbers (kind, value, text, unit,
sources, locator, computation) and its terms' definitions go to a compact script of its
own, `static/prov/<page>.js` (`prov_payload`), which static/cards.js loads when a reader
first reaches for a number or a term. Stylesheets are a base sheet plus feature sheets
that a page links only when it uses the feature (`sheet_needs`); the build strips
comments and spaces from CSS (`minify_css`) and comment lines and indentation from JS
(`strip_js`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping

import jinja2
from markupsafe import Markup

from . import naked, plotlybundle
from .errors import BuildError
from .markdown import (Document, PageContext, Term, load_glossary, make_markdown,
                       parse_document, plain_text, render_chunk, render_inline)
from .registry import Registry

SITE_TITLE = "Compute in Transit"
DECK_FILE_RE = re.compile(r"^(\d{2})-([a-z0-9][a-z0-9-]*)\.md$")
PAGE_FILE_RE = re.compile(r"^([a-z0-9][a-z0-9-]*)\.md$")
RESERVED = {"decks", "static", "index"}
# the site's navigation, in this order; other pages follow, by file name
NAV = (("/", "Hub"), ("decks", "Decks"), ("/optics/", "Optics"), ("/transit/", "Transit"),
       ("/notebook/", "Notebook"), ("/method/", "Method"), ("/tested/", "Tested"),
       ("/glossary/", "Glossary"))
GLOSSARY_URL = "/glossary/"
PLOTLY = plotlybundle.SCRIPT
PROV_DIR = "static/prov"


@dataclass
class Page:
    """One output page."""
    layout: str               # hub | page | deck
    url: str                  # "/", "/optics/", "/decks/01-sources/"
    out: str                  # "index.html", "optics/index.html", ...
    root: str                 # "", "../", "../../"
    doc: Document
    ctx: PageContext | None = None
    body: str = ""
    slides: list = field(default_factory=list)
    has_h1: bool = False

    @property
    def title(self) -> str:
        return self.doc.meta.title


@dataclass
class SiteState:
    """Site-wide facts that blocks may read through `ctx.site`.

    `pages`: every page in site order; `terms`: the glossary; `appears`: number id ->
    sorted page URLs where it counts as shown; `term_pages`: term key -> sorted page
    URLs that link it (the glossary page itself excluded); `md`: the Markdown parser
    (for rendering glossary definitions)."""
    registry: Registry
    pages: list[Page]
    terms: dict[str, Term]
    md: object
    build_info: Mapping
    appears: dict[str, list[str]] = field(default_factory=dict)
    term_pages: dict[str, list[str]] = field(default_factory=dict)
    definitions: dict[str, str] = field(default_factory=dict)

    def page(self, url: str) -> Page:
        for p in self.pages:
            if p.url == url:
                return p
        raise KeyError(url)

    def title(self, url: str) -> str:
        return self.page(url).title

    def label(self, url: str) -> str:
        """A short name for links to a page: the navigation label, or a deck's title."""
        for u, lab in NAV:
            if u == url:
                return lab
        return self.title(url)

    def decks(self) -> list[Page]:
        return [p for p in self.pages if p.layout == "deck"]


@dataclass
class Site:
    """Everything the build writes, and what the render learned on the way.

    `files`: relative output path -> bytes. `appears`: number id -> sorted page URLs
    (every registry id is a key; ids shown nowhere map to []). `unused_terms`: glossary
    keys no page links. `naked_report`: the no-naked-numbers check over `files`.
    `pages`: page URL -> title, in site order."""
    files: dict[str, bytes]
    appears: dict[str, list[str]]
    unused_terms: list[str]
    naked_report: naked.NakedReport
    pages: dict[str, str]
    sources: dict[str, str] = field(default_factory=dict)   # output page -> content file
    claim_pages: dict[str, list[str]] = field(default_factory=dict)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise BuildError(str(path), f"not UTF-8: {e}") from None


def discover(content_dir: Path, rel: Callable[[Path], str]) -> list[Page]:
    """The pages content/ defines, in site order, with their front matter checked."""
    pages: list[Page] = []
    hub = content_dir / "hub.md"
    if not hub.is_file():
        raise BuildError(rel(hub), "missing: the hub page")
    doc = parse_document(_read(hub), rel(hub))
    _expect_layout(doc, "hub")
    pages.append(Page("hub", "/", "index.html", "", doc))
    pdir = content_dir / "pages"
    for f in sorted(pdir.glob("*.md")) if pdir.is_dir() else []:
        m = PAGE_FILE_RE.match(f.name)
        if not m or m.group(1) in RESERVED:
            raise BuildError(rel(f), "page file names are lower-case words with hyphens "
                                     "(and not decks, static or index)")
        doc = parse_document(_read(f), rel(f))
        _expect_layout(doc, "page")
        slug = m.group(1)
        pages.append(Page("page", f"/{slug}/", f"{slug}/index.html", "../", doc))
    ddir = content_dir / "decks"
    decks: list[Page] = []
    seen: dict[int, str] = {}
    for f in sorted(ddir.glob("*.md")) if ddir.is_dir() else []:
        m = DECK_FILE_RE.match(f.name)
        if not m:
            raise BuildError(rel(f), "deck file names are `0N-name.md`")
        doc = parse_document(_read(f), rel(f))
        _expect_layout(doc, "deck")
        if doc.meta.order != int(m.group(1)):
            raise BuildError(f"{rel(f)}:1", f"front matter `order` is {doc.meta.order} but the "
                                            f"file name says {int(m.group(1))}")
        if doc.meta.order in seen:
            raise BuildError(rel(f), f"deck order {doc.meta.order} also used by {seen[doc.meta.order]}")
        seen[doc.meta.order] = rel(f)
        slug = f.name[:-3]
        decks.append(Page("deck", f"/decks/{slug}/", f"decks/{slug}/index.html", "../../", doc))
    pages.extend(sorted(decks, key=lambda p: p.doc.meta.order))
    return pages


def _expect_layout(doc: Document, layout: str) -> None:
    if doc.meta.layout != layout:
        raise BuildError(f"{doc.path}:1", f"layout is {doc.meta.layout!r}; files here must be {layout!r}")


def _nav(state: SiteState, current: Page) -> list[dict]:
    by_url = {p.url: p for p in state.pages}
    items = []

    def item(url, label):
        p = by_url[url]
        return {"label": label, "href": current.ctx.link(url), "current": p is current,
                "children": []}

    for url, label in NAV:
        if url == "decks":
            decks = state.decks()
            if decks:
                it = item(decks[0].url, label)
                it["current"] = current.layout == "deck"
                it["children"] = [item(d.url, d.title) for d in decks]
                items.append(it)
        elif url in by_url:
            items.append(item(url, label))
    known = {u for u, _ in NAV}
    for p in state.pages:
        if p.layout == "page" and p.url not in known:
            items.append(item(p.url, p.title))
    return items


def _static_files(templates_dir: Path) -> dict[str, bytes]:
    sdir = templates_dir / "static"
    out: dict[str, bytes] = {}
    if sdir.is_dir():
        for f in sorted(sdir.rglob("*")):
            if f.is_file():
                out["static/" + f.relative_to(sdir).as_posix()] = f.read_bytes()
    return out


# ---- stylesheets: a base sheet on every page, feature sheets where the feature is

SHEET_WHEN_RE = re.compile(r"\A/\* when: ([^*]+?) \*/")
CSS_PARTS_RE = re.compile(r'("(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\')|(/\*.*?\*/)', re.S)
BASE_SHEET = "site.css"


def minify_css(text: str) -> str:
    """A stylesheet without comments and needless white space; strings stay as written.

    Only spaces that CSS never needs go: runs of white space become one space, and the
    spaces around `{ } ; , >` and after a property's colon are dropped; spaces that
    carry meaning (descendant selectors, `a :is(…)`, `calc(1rem - 2px)`) stay."""
    out = []
    pos = 0
    for m in CSS_PARTS_RE.finditer(text):
        out.append(_squeeze(text[pos:m.start()]))
        out.append(m.group(1) if m.group(1) is not None else " ")
        pos = m.end()
    out.append(_squeeze(text[pos:]))
    css = "".join(out)
    # a comment became a space; squeeze once more around it, outside strings
    parts = CSS_PARTS_RE.split(css)
    return "".join(_squeeze(part) if k % 3 == 0 else (part or "")
                   for k, part in enumerate(parts)).strip() + "\n"


def _squeeze(css: str) -> str:
    css = re.sub(r"\s+", " ", css)
    css = re.sub(r" ?([{};,>]) ?", r"\1", css)
    css = re.sub(r"([{;(])([-a-zA-Z]+): ", r"\1\2:", css)
    return css.replace(";}", "}")


def strip_js(js: str) -> str:
    """A script without its comment lines, indentation and blank lines; every line of
    code stays a line of its own, as written (no joining, no renaming).

    Only what cannot be code goes: a line that starts (after spaces) with `//`, and a
    `/* … */` comment that starts a line and ends one. A script with a backtick or a
    line ending in a backslash (a literal may span lines there, and a line of it may
    look like a comment) is left exactly as written."""
    lines = js.split("\n")
    if "`" in js or any(line.rstrip().endswith("\\") for line in lines):
        return js
    kept: list[str] = []
    i = 0
    while i < len(lines):
        lead = lines[i].strip()
        if lead.startswith("//") and "*/" not in lead:
            i += 1
            continue
        if lead.startswith("/*"):
            # the comment's end: on this line after its start, or on a later one
            end, rest = i, lead[2:]
            while "*/" not in rest and end + 1 < len(lines):
                end += 1
                rest = lines[end]
            if "*/" in rest and not rest.split("*/", 1)[1].strip():
                i = end + 1
                continue
        if lead:
            kept.append(lead)
        i += 1
        if lead.rfind("/*") > lead.rfind("*/"):
            # a comment opens after code: keep its lines as they are, up to its end
            while i < len(lines):
                kept.append(lines[i].strip())
                i += 1
                if "*/" in kept[-1]:
                    break
    return "\n".join(line for line in kept if line) + "\n"


def sheet_needs(css: str) -> tuple[str, ...] | None:
    """What a feature sheet's first line (`/* when: table .chart-figure */`) asks a page
    to hold before it is linked: tag names and .classes; None for a sheet on every page."""
    m = SHEET_WHEN_RE.match(css)
    return tuple(m.group(1).split()) if m else None


def page_features(html_text: str) -> set[str]:
    """The tag names and the .classes used on a rendered page."""
    found = {t.lower() for t in re.findall(r"<([A-Za-z][A-Za-z0-9-]*)", html_text)}
    for classes in re.findall(r'\sclass="([^"]*)"', html_text):
        found.update("." + c for c in classes.split())
    return found


def plotly_js() -> bytes:
    """The plotly.js partial bundle committed under vendored/plotly/, verified against
    its lock and the Python plotly package's plotly.js version (no CDN)."""
    return plotlybundle.bundle_bytes()


def prov_path(url: str) -> str:
    """The provenance script of the page at `url`, relative to the site root:
    "/" -> "static/prov/index.js", "/decks/01-sources/" -> "static/prov/decks/01-sources.js"."""
    return f"{PROV_DIR}/{url.strip('/') or 'index'}.js"


def prov_payload(registry: Registry, ids, terms: Mapping[str, tuple[str, str]],
                 claim_ids=()) -> dict:
    """The provenance of numbers `ids` and the definitions of `terms` (key -> (term,
    definition)), compacted for a page's lazily loaded script.

    `t`: every string once (kinds, units, paths, commits, blob SHA-1s, locators,
    computations), sorted; `s`: the sources, each [path] or [path, commit, blob] as
    indices into `t` (null where a part is absent), sorted; `n`: id -> [kind, value, text,
    unit, [source indices], locator, computation], with kind, unit, locator and
    computation as indices into `t` and value (JSON number, string or null) and text
    as they are; `g`: term key -> [term, definition]; `c`: checked claim id -> [what was
    checked, verdict, [[label, figure], …], [source indices], computation, hypothesis]
    (cit/claims.py). site.js and the tests decode it."""
    numbers = [registry.numbers[i] for i in sorted(ids)]
    claims = [registry.claims[i] for i in sorted(claim_ids)]
    strings: set[str] = set()
    for n in numbers:
        strings |= {n.kind, n.unit, n.locator, n.computation}
    for n in numbers + claims:
        for src in n.sources:
            strings |= {x for x in (src.path, src.commit, src.blob_sha1) if x}
    table = sorted(strings)
    at = {x: k for k, x in enumerate(table)}

    def source(src) -> tuple:
        if not src.commit and not src.blob_sha1:
            return (at[src.path],)
        return (at[src.path], at.get(src.commit), at.get(src.blob_sha1))

    sources = sorted({source(src) for n in numbers + claims for src in n.sources},
                     key=lambda t: tuple(-1 if x is None else x for x in t))
    sat = {s: k for k, s in enumerate(sources)}
    entries = {}
    for n in numbers:
        value = n.as_json([])["value"]
        entries[n.id] = [at[n.kind], value, n.text, at[n.unit],
                         [sat[source(src)] for src in n.sources], at[n.locator],
                         at[n.computation]]
    out = {"t": table, "s": [list(x) for x in sources], "n": entries,
           "g": {k: list(terms[k]) for k in sorted(terms)}}
    if claims:
        out["c"] = {c.id: [c.checked, c.holds, [list(e) for e in c.evidence],
                           [sat[source(src)] for src in c.sources], c.computation,
                           c.hypothesis] for c in claims}
    return out


def prov_script(url: str, payload: Mapping) -> bytes:
    """The page's provenance script: it files `payload` under the page's URL in
    window.CIT_PROV (a classic script, so site.js can load it from file:// too)."""
    body = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return (f"/* Provenance of the numbers and definitions of the terms on {url}; "
            f"written by the build, read by site.js. */\n"
            f"(window.CIT_PROV=window.CIT_PROV||{{}})[{json.dumps(url)}]={body};\n").encode("utf-8")


def _render_page_body(state: SiteState, page: Page) -> None:
    md = state.md
    ctx = page.ctx
    if page.layout == "deck":
        chunks = page.doc.slides()
        if not chunks:
            raise BuildError(page.doc.path, "a deck needs at least one slide")
        for k in range(1, len(chunks) + 1):
            ctx.slugs.add(f"slide-{k}")
        for k, chunk in enumerate(chunks, start=1):
            r = render_chunk(md, chunk, ctx, page.doc.path)
            if r.first_heading is None:
                raise BuildError(f"{page.doc.path}:{chunk.first_line}",
                                 "every slide needs a heading (its title)")
            page.slides.append({"id": f"slide-{k}", "heading": r.first_heading,
                                "title": r.first_heading_text, "html": r.html})
    else:
        r = render_chunk(md, page.doc.body, ctx, page.doc.path, sections=True,
                         findings_cards=page.layout == "hub")
        page.body = r.html
        page.has_h1 = r.has_h1


def _page_sheets(sheets: Mapping[str, tuple[str, ...] | None], features: set[str]) -> list[str]:
    """The stylesheets a page links: the base sheet first, then (by name) every other
    sheet that is for every page or whose `when:` selectors the page uses."""
    base = [n for n in sheets if n == BASE_SHEET]
    rest = sorted(n for n, when in sheets.items() if n != BASE_SHEET and (
        when is None or any(w in features for w in when)))
    return base + rest


def _late_order(blocks, name: str) -> int:
    return getattr(blocks[name], "cit_late_order", 0)


def render_site(registry: Registry, content_dir, templates_dir, blocks: Mapping[str, Callable],
                build_info: Mapping, *, repo_root=None,
                allowlist_path=naked.ALLOWLIST_PATH) -> Site:
    """Render the whole site in memory.

    `blocks`: block name -> callable(ctx) -> HTML (see PageContext); the lead merges
    generic_blocks(registry), chart_blocks(registry) and the others'.
    `build_info` keys read here: `commit` (str), `commit_date` (str); blocks read more
    (`verification` for table:tested). `repo_root` (default: content_dir's parent) only
    shapes the file names in error messages."""
    content_dir, templates_dir = Path(content_dir), Path(templates_dir)
    root = Path(repo_root) if repo_root else content_dir.resolve().parent

    def rel(p: Path) -> str:
        try:
            return p.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            return str(p)

    for key in ("commit", "commit_date"):
        if not isinstance(build_info.get(key), str) or not build_info[key]:
            raise BuildError("build_info", f"missing {key!r}")

    pages = discover(content_dir, rel)
    gpath = content_dir / "glossary.yaml"
    terms = load_glossary(_read(gpath), rel(gpath)) if gpath.is_file() else {}
    md = make_markdown()
    state = SiteState(registry, pages, terms, md, build_info)
    blocks = dict(blocks)

    # plain-text definitions for the pages' provenance scripts (rendered once, recording nothing)
    for k, t in sorted(terms.items()):
        scratch = PageContext(registry, GLOSSARY_URL, "../", t.path, terms, blocks, state)
        state.definitions[k] = plain_text(render_inline(md, t.definition, scratch, t.path, t.line))

    for p in pages:
        p.ctx = PageContext(registry, p.url, p.root, p.doc.path, terms, blocks, state)
        _render_page_body(state, p)

    # late blocks, in their declared order, each seeing the usage so far
    late_names = sorted({n for p in pages for n in p.ctx.late.values()},
                        key=lambda n: (_late_order(blocks, n), n))
    def tally() -> None:
        appears: dict[str, set[str]] = {i: set() for i in registry.numbers}
        used: dict[str, set[str]] = {k: set() for k in terms}
        for p in pages:
            for i in p.ctx.recorded:
                appears[i].add(p.url)
            if p.url != GLOSSARY_URL:
                for k in p.ctx.terms_used:
                    used[k].add(p.url)
        state.appears = {i: sorted(appears[i]) for i in sorted(appears)}
        state.term_pages = {k: sorted(used[k]) for k in sorted(used)}

    for name in late_names:
        tally()
        for p in pages:
            p.ctx.defer_late = False
            for marker, n in list(p.ctx.late.items()):
                if n != name:
                    continue
                try:
                    out = blocks[name](p.ctx)
                except BuildError as e:
                    raise BuildError(f"{p.doc.path} (@[{name}]) {e.where}", e.message) from None
                if p.layout == "deck":
                    for s in p.slides:
                        s["html"] = s["html"].replace(marker, out)
                else:
                    p.body = p.body.replace(marker, out)
    tally()

    if any(p.ctx.terms for p in pages):
        if not any(p.url == GLOSSARY_URL and "glossary" in p.ctx.late.values() for p in pages):
            raise BuildError("content/pages/glossary.md",
                             "terms are linked but no /glossary/ page shows @[glossary]")

    files = _static_files(templates_dir)
    sheets: dict[str, tuple[str, ...] | None] = {}
    for name in sorted(files):
        if name.endswith(".css"):
            css = files[name].decode("utf-8")
            sheets[name[len("static/"):]] = sheet_needs(css)
            files[name] = minify_css(css).encode("utf-8")
        elif name.endswith(".js"):
            files[name] = strip_js(files[name].decode("utf-8")).encode("utf-8")
    if any(k.startswith(PROV_DIR + "/") for k in files):
        raise BuildError(f"templates/{PROV_DIR}", "this folder is the build's own "
                         "(each page's provenance script); remove it from templates/")
    static_names = {k[len("static/"):] for k in files}
    needs_plotly = any((PLOTLY, False) in p.ctx.scripts for p in pages)
    if needs_plotly:
        files["static/" + PLOTLY] = plotly_js()
        static_names.add(PLOTLY)

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(templates_dir)),
                             autoescape=True, undefined=jinja2.StrictUndefined,
                             keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True)
    build = {"commit": build_info["commit"], "commit_short": build_info["commit"][:12],
             "commit_date": build_info["commit_date"]}
    for p in pages:
        scripts: list[tuple[str, bool]] = []
        if "site.js" in static_names:
            scripts.append(("site.js", False))
        if p.layout == "hub" and "chain.js" in static_names:
            scripts.append(("chain.js", False))
        if p.layout == "deck" and "deck.js" in static_names:
            scripts.append(("deck.js", False))
        for s in p.ctx.scripts:
            if s[0] not in static_names:
                raise BuildError(p.doc.path, f"a block asks for static/{s[0]}, which does not exist")
            if s[0] == PLOTLY:
                continue   # fetched by charts.js when a reader reaches for a chart
            if s not in scripts:
                scripts.append(s)
        # a page's numbers' provenance and its terms' definitions load on demand
        has_prov = bool(p.ctx.numbers or p.ctx.terms or p.ctx.claims)
        if has_prov:
            terms_shown = {k: (state.terms[k].term, state.definitions[k]) for k in p.ctx.terms}
            files[prov_path(p.url)] = prov_script(
                p.url, prov_payload(registry, p.ctx.numbers, terms_shown, p.ctx.claims))
        ctx = {
            "site_title": SITE_TITLE,
            "title": p.title,
            "description": p.doc.meta.description,
            "layout": p.layout,
            "url": p.url,
            "root": p.root,
            "home": p.ctx.link("/"),
            "nav": _nav(state, p),
            "build": build,
            "stylesheets": [],         # set below, from what the page renders to
            "scripts": [{"src": f"{p.root}static/{n}", "module": m} for n, m in scripts],
            "prov": f"{p.root}{prov_path(p.url)}" if has_prov else "",
            "body": Markup(p.body),
            "show_h1": not p.has_h1,
            "slides": [dict(s, html=Markup(s["html"])) for s in p.slides],
            "prev_deck": None,
            "next_deck": None,
        }
        if p.layout == "deck":
            decks = state.decks()
            i = decks.index(p)
            if i > 0:
                ctx["prev_deck"] = {"href": p.ctx.link(decks[i - 1].url), "title": decks[i - 1].title}
            if i + 1 < len(decks):
                ctx["next_deck"] = {"href": p.ctx.link(decks[i + 1].url), "title": decks[i + 1].title}
        try:
            # the hub and the pages share one template (its <main> takes the layout as class)
            template = env.get_template("deck.html" if p.layout == "deck" else "page.html")
            feats = page_features(template.render(**ctx))
            ctx["stylesheets"] = [f"{p.root}static/{n}" for n in _page_sheets(sheets, feats)]
            html = template.render(**ctx)
        except jinja2.TemplateError as e:
            where = f"templates/{getattr(e, 'name', None) or p.layout + '.html'}"
            if getattr(e, "lineno", None):
                where += f":{e.lineno}"
            raise BuildError(where, f"while rendering {p.url}: {e}") from None
        files[p.out] = html.encode("utf-8")

    rep = naked.report(files, numbers=registry.numbers, series=registry.series,
                       allowlist_path=allowlist_path)
    unused = sorted(k for k, u in state.term_pages.items() if not u)
    claim_pages = {c: sorted(p.url for p in pages if c in p.ctx.claims)
                   for c in sorted(registry.claims)}
    return Site(files=dict(sorted(files.items())), appears=state.appears,
                unused_terms=unused, naked_report=rep,
                pages={p.url: p.title for p in pages},
                sources={p.out: p.doc.path for p in pages}, claim_pages=claim_pages)
