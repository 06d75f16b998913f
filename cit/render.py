"""The render stage: content Markdown + the registry -> every file of the site, in memory.

`render_site(...)` reads `content/` (hub.md, pages/*.md, decks/0N-name.md,
glossary.yaml) and `templates/`, and returns a `Site` whose `files` the build checks
and writes. Nothing is written here. It runs in four steps (docs/architecture.md):

1. discover: the pages content/ defines, in site order, front matter checked;
2. bodies: each page's Markdown rendered with its blocks, late blocks left as markers;
3. late pass: the late blocks (the glossary, the number index), in their declared
   order, once it is known which page shows which number and term;
4. templates: each page through Jinja (StrictUndefined, autoescape) with its
   stylesheets, scripts and provenance script (cit/assets.py).

Every link is relative and names `index.html` explicitly, so the site works from
file:// as well as from a server; 404.html, which a host serves at any address, is
the exception (its links start at the site's root path; docs/sharing.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping

import jinja2
from markupsafe import Markup

from . import incremental, sharing
from .assets import (PLOTLY, STYLESHEET_SLOT, StaticAssets, link_stylesheets,
                     page_scripts, prov_path, prov_payload, prov_script, static_assets)
from .blocks.spec import BlockSpec, compute_now
from .claims import without_marks
from .errors import BuildError
from .frontmatter import ContentFile, parse_content_file, split_notes
from .glossary import Term, load_glossary
from .markdown import PageContext, make_markdown, plain_text, render_chunk, render_inline
from .mathcite import bibliography_html, needs_math
from .reads import Reads
from .registry import KINDS, Registry
from .siteconfig import SiteConfig, load_site

PAGE_TEXT = True     # its string literals reach pages (docs/claims.md, "Sentences the build finds")

DECK_FILE_RE = re.compile(r"^(\d{2})-([a-z0-9][a-z0-9-]*)\.md$")
PAGE_FILE_RE = re.compile(r"^([a-z0-9][a-z0-9-]*)\.md$")
RESERVED = {"decks", "static", "index", "pagefind"}   # the site's own folders
GLOSSARY_URL = "/glossary/"
OUTLINE_MIN = 3   # `##` sections that earn a page its outline


@dataclass
class Page:
    """One output page."""
    layout: str               # hub | page | deck
    url: str                  # "/", "/results/", "/decks/01-overview/"
    out: str                  # "index.html", "results/index.html", ...
    root: str                 # "", "../", "../../"
    doc: ContentFile
    ctx: PageContext | None = None
    body: str = ""
    slides: list = field(default_factory=list)
    has_h1: bool = False
    reads: dict = field(default_factory=dict)     # what its blocks read (cit/reads.py)
    outline: list = field(default_factory=list)   # [(id, text)] of its `##` headings

    @property
    def title(self) -> str:
        return self.doc.meta.title


@dataclass
class SiteState:
    """Site-wide facts that blocks may read through `ctx.site`.

    `pages`: every page in site order; `glossary`: every term; `md`: the Markdown
    parser (for rendering glossary definitions); `blocks`: the block table;
    `build_info`: the build's stamp and figures (`commit`, `commit_date`,
    `verification`; `figures`, key -> value, part of the site key); `config`: site.yaml
    (cit/siteconfig.py: title, navigation, layouts). Filled in as the render goes:
    `definitions`, term key -> its
    definition as plain text (for the provenance scripts); then, before each late
    block and at the end, `appears`, number id -> sorted page URLs where it counts as
    shown, and `term_pages`, term key -> sorted page URLs that link it (the glossary
    page itself excluded)."""
    registry: Registry
    pages: list[Page]
    glossary: Mapping[str, Term]
    md: object
    blocks: Mapping[str, BlockSpec]
    build_info: Mapping
    config: SiteConfig
    appears: dict[str, list[str]] = field(default_factory=dict)
    term_pages: dict[str, list[str]] = field(default_factory=dict)
    definitions: dict[str, str] = field(default_factory=dict)
    reads: Reads | None = None      # every file a block opens goes through it
    template_ids: frozenset = frozenset()   # ids the templates give (see template_ids)
    # what the render parses once per build: the math parser, the bibliography by its
    # text's hash (cit/mathcite.py)
    parsed: dict = field(default_factory=dict)
    memo: object = None     # the build's memo (cit/blocks/spec.py compute_now when cold)

    def parser(self, text: str):
        """The Markdown parser for a page's text: the math one only where it holds a `$`
        (the TeX libraries are imported then; mathcite.needs_math)."""
        if not needs_math(text):
            return self.md
        if "math-md" not in self.parsed:
            self.parsed["math-md"] = make_markdown(math=True)
        return self.parsed["math-md"]

    def page(self, url: str) -> Page:
        for p in self.pages:
            if p.url == url:
                return p
        raise KeyError(url)

    def title(self, url: str) -> str:
        return self.page(url).title

    def label(self, url: str) -> str:
        """A short name for links to a page: the navigation label, or a deck's title."""
        for u, lab in self.config.nav:
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
    keys no page links. `pages`: page URL -> title, in site order. `sources`: output
    page -> the content file it was rendered from (for the link check's errors).
    `claim_pages`: checked claim id -> sorted page URLs that cite it."""
    files: dict[str, bytes]
    appears: dict[str, list[str]]
    unused_terms: list[str]
    pages: dict[str, str]
    claim_pages: dict[str, list[str]] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)   # output page -> content file
    records: dict = field(default_factory=dict)       # output page -> incremental.PageRecord
    rendered: list[str] = field(default_factory=list)  # pages rendered (not reused)
    kept: set[str] = field(default_factory=set)        # files kept from the last build


def render_site(registry: Registry, content_dir, templates_dir,
                blocks: Mapping[str, BlockSpec], build_info: Mapping, *,
                repo_root=None, code: str | None = None, previous: Mapping | None = None,
                memo=compute_now, bundle_root=None, reads: Reads | None = None,
                site: SiteConfig | None = None, static_root=None, palette_css: str = "",
                compiled: jinja2.BytecodeCache | None = None) -> Site:
    """Render the whole site in memory: discover -> bodies -> late pass -> templates.

    `blocks`: the block table (cit.blocks.block_table). `build_info` keys read here:
    `commit` (str), `commit_date` (str), `source_url` (optional: the upstream files' web
    address, which cards link; cit.vendor.file_url_base); blocks read more
    (`verification` for table:tested). `repo_root` (default: content_dir's parent) is
    what content file names are relative to, in error messages and in the page records.
    `bundle_root`: the project whose vendored/plotly/ bundle is shipped (default: this
    code's). `site`: site.yaml's title, navigation, layouts and the study's static
    folder (default: read from repo_root); `static_root`: the folder that one is
    relative to (default: repo_root). `palette_css`: the palette's stylesheet text
    (cit/palette.py), appended to the base sheet.

    Every file is read through `reads` (cit/reads.py; default: one for `repo_root`).
    Incremental (cit/incremental.py): with `code` (incremental.code_key) every page gets
    a record (`Site.records`) holding what the build read for it; a page whose record in
    `previous` still matches its key and reads is not rendered again but keeps its bytes
    (`Site.kept`: its output files). `memo` keeps the minified static files
    (cit/assets.py: static_assets). `compiled` (--serve: a TemplateMemory): the
    templates' compiled code, kept from one build to the next."""
    content_dir, templates_dir = Path(content_dir), Path(templates_dir)
    root = Path(repo_root) if repo_root else content_dir.resolve().parent
    reads = reads or Reads(root, templates_dir.parent, *([static_root] if static_root else []))
    rel = _relative_names(root)
    site = site if site is not None else load_site(root, reads)
    for key in ("commit", "commit_date"):
        if not isinstance(build_info.get(key), str) or not build_info[key]:
            raise BuildError("build_info", f"missing {key!r}")
    gpath = content_dir / "glossary.yaml"
    gtext = reads.maybe_text(gpath)
    glossary = load_glossary(gtext, rel(gpath)) if gtext is not None else {}
    state = SiteState(registry, discover(content_dir, rel, reads), glossary, make_markdown(),
                      dict(blocks), build_info, site, reads=reads)
    state.memo = memo
    state.definitions = _plain_definitions(state)
    state.template_ids = template_ids(templates_dir, reads)
    previous = previous or {}
    sources = {p.out: reads.bytes(root / p.doc.path) for p in state.pages}
    site_key = code and incremental.site_key(code, build_info, [
        (p.out, p.layout, p.title, p.doc.meta.description, getattr(p.doc.meta, "order", None))
        for p in state.pages])
    reused = _bodies(state, site_key, previous, sources)
    _late_pass(state)
    _recheck_late_reuse(state, previous, reused)
    _check_glossary_page(state)
    needs_plotly = any((PLOTLY, False) in p.ctx.scripts for p in state.pages)
    assets = static_assets(templates_dir, needs_plotly, memo, bundle_root, reads,
                           _study_static(site, static_root or root), palette_css)
    files = dict(assets.files)
    share, shared = _sharing(state, templates_dir, previous, reused, palette_css)
    files.update(shared)
    files.update(_render_templates(state, templates_dir, assets, reused, share, compiled))
    for o in reused:
        rec = previous[o]
        files[o] = rec.html.encode("utf-8")
        if rec.prov_path:
            files[rec.prov_path] = rec.prov.encode("utf-8")
    unused = sorted(k for k, u in state.term_pages.items() if not u)
    claim_pages = {c: sorted(p.url for p in state.pages if c in p.ctx.claims_cited)
                   for c in sorted(registry.claims)}
    return Site(files=dict(sorted(files.items())), appears=state.appears,
                unused_terms=unused, pages={p.url: p.title for p in state.pages},
                sources={p.out: p.doc.path for p in state.pages}, claim_pages=claim_pages,
                records=_records(state, files, site_key, previous, reused, sources),
                rendered=[p.out for p in state.pages if p.out not in reused],
                kept={k for o in reused for k in (o, previous[o].prov_path) if k})


def _sharing(state: SiteState, templates_dir: Path, previous, reused,
             palette_css: str = "") -> tuple[dict, dict]:
    """What sharing adds (cit/sharing.py, docs/sharing.md): the pages' share image, as
    `{"image": its file or None, "alt": its words}`, and the files sitemap.xml,
    robots.txt and share.png, made when the build has a base URL. The image is the hub's
    figure site.yaml's `share_figure` names; a name the hub does not show fails."""
    base = state.build_info.get("base_url")
    fig = state.config.share_figure
    if not base:
        return {"image": None, "alt": ""}, {}
    files = {sharing.SITEMAP: sharing.sitemap_xml(base, [p.url for p in state.pages]),
             sharing.ROBOTS: sharing.robots_txt(base)}
    if not fig:
        return {"image": None, "alt": ""}, files
    hub = state.pages[0]
    html_text = previous[hub.out].html if hub.out in reused else hub.body
    svg = sharing.figure_svg(html_text, fig)
    where = state.config.where.get("share_figure", "site.yaml")
    if svg is None:
        raise BuildError(where, f"share_figure: the hub shows no figure with id {fig!r} "
                                "(an <svg> drawn at build time, cit/svgplot.py)")
    css = [state.reads.text(f) for f in sorted(
        state.reads.glob(templates_dir / "static", "*.css"), key=lambda f: f.name != "site.css")]
    css.insert(1, palette_css)      # the palette, as the build appends it to site.css
    files[sharing.IMAGE] = sharing.share_png(svg, "\n".join(css), where)
    return {"image": sharing.IMAGE, "alt": sharing.figure_title(svg)}, files


def _relative_names(root: Path) -> Callable[[Path], str]:
    def rel(p: Path) -> str:
        try:
            return p.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            return str(p)
    return rel


def _check_entries(folder: Path, rel: Callable[[Path], str]) -> None:
    """Every entry of a content folder is named `*.md`: anything else (a sub-folder,
    another suffix such as `extra.MD`) is an error naming it, not silently left out. An
    editor's working files (hidden, `~` or `#` names) are passed over."""
    if not folder.is_dir():
        return
    for f in sorted(folder.iterdir()):
        if f.name.startswith((".", "#")) or f.name.endswith("~"):
            continue
        if f.name.endswith(".md"):
            continue        # read (or refused, when not a file) by reads.glob
        kind = _file_kind(f)
        what = "a file with another suffix" if kind == "file" else (
            kind + "; sub-folders are not read" if kind == "a folder" else kind)
        raise BuildError(rel(f), f"not read: only `*.md` files are pages here (this "
                         f"is {what})")


def _file_kind(path: Path) -> str:
    """What is at `path` in words ("file", "a folder", "a FIFO", ...); follows links."""
    import stat
    try:
        mode = path.stat().st_mode
    except OSError as e:
        return f"unreadable ({e.strerror})"
    if stat.S_ISREG(mode):
        return "file"
    return ("a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "a device or other special file")


def discover(content_dir: Path, rel: Callable[[Path], str], reads: Reads) -> list[Page]:
    """The pages content/ defines, in site order, with their front matter checked."""
    pages: list[Page] = []
    hub = content_dir / "hub.md"
    text = reads.maybe_text(hub)
    if text is None:
        raise BuildError(rel(hub), "missing: the hub page")
    doc = parse_content_file(text, rel(hub))
    _expect_layout(doc, "hub")
    pages.append(Page("hub", "/", "index.html", "", doc))
    pdir = content_dir / "pages"
    _check_entries(pdir, rel)
    for f in reads.glob(pdir, "*.md"):
        m = PAGE_FILE_RE.match(f.name)
        if not m or m.group(1) in RESERVED:
            raise BuildError(rel(f), "page file names are lower-case words with hyphens "
                                     "(and not decks, static, index or pagefind)")
        doc = parse_content_file(reads.text(f), rel(f))
        _expect_layout(doc, "page")
        slug = m.group(1)
        pages.append(Page("page", f"/{slug}/", f"{slug}/index.html", "../", doc))
    ddir = content_dir / "decks"
    decks: list[Page] = []
    seen: dict[int, str] = {}
    _check_entries(ddir, rel)
    for f in reads.glob(ddir, "*.md"):
        m = DECK_FILE_RE.match(f.name)
        if not m:
            raise BuildError(rel(f), "deck file names are `0N-name.md`")
        doc = parse_content_file(reads.text(f), rel(f))
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


def _expect_layout(doc: ContentFile, layout: str) -> None:
    if doc.meta.layout != layout:
        raise BuildError(f"{doc.path}:1", f"layout is {doc.meta.layout!r}; files here must be {layout!r}")


def _nav(state: SiteState, current: Page) -> list[dict]:
    by_url = {p.url: p for p in state.pages}
    items = []

    def item(url, label):
        p = by_url[url]
        return {"label": label, "href": current.ctx.link(url), "current": p is current,
                "children": []}

    for url, label in state.config.nav:
        if url == "decks":
            decks = state.decks()
            if decks:
                it = item(decks[0].url, label)
                it["current"] = current.layout == "deck"
                it["children"] = [item(d.url, d.title) for d in decks]
                items.append(it)
        elif url in by_url:
            items.append(item(url, label))
    known = {u for u, _ in state.config.nav}
    for p in state.pages:
        if p.layout == "page" and p.url not in known:
            items.append(item(p.url, p.title))
    return items


def _render_body(state: SiteState, page: Page) -> None:
    """A page's body (or a deck's slides) into `page`, late blocks left as markers."""
    ctx = page.ctx
    md = state.parser(page.doc.body.text)
    if page.layout == "deck":
        chunks = page.doc.slides()
        if not chunks:
            raise BuildError(page.doc.path, "a deck needs at least one slide")
        for k in range(1, len(chunks) + 1):
            ctx.slugs.add(f"slide-{k}")
        for k, chunk in enumerate(chunks, start=1):
            chunk, notes = split_notes(chunk, page.doc.path)
            # the first slide titled as the deck is the page's h1 (no hidden copy)
            r = render_chunk(md, chunk, ctx, page.doc.path,
                             title_heading=page.title if k == 1 else None, slide=True)
            page.has_h1 = page.has_h1 or (k == 1 and r.has_h1)
            if r.first_heading is None:
                raise BuildError(f"{page.doc.path}:{chunk.first_line}",
                                 "every slide needs a heading (its title)")
            page.slides.append({"id": f"slide-{k}", "heading": r.first_heading,
                                "title": r.first_heading_text, "html": r.html,
                                "notes": render_chunk(md, notes, ctx, page.doc.path).html
                                if notes else ""})
        if ctx.refs.cited:
            raise BuildError(page.doc.path, "a deck cannot cite [@key] yet: it has no place "
                             "for a bibliography (docs/math-citations.md)")
    else:
        r = render_chunk(md, page.doc.body, ctx, page.doc.path, sections=True,
                         findings_cards=page.layout in state.config.findings_cards)
        bib = bibliography_html(ctx)
        page.body = r.html + bib
        page.has_h1 = r.has_h1
        page.outline = r.outline + ([("references", "References")] if bib else [])


def _plain_definitions(state: SiteState) -> dict[str, str]:
    """Each term's definition as plain text, for the pages' provenance scripts (rendered
    once into a scratch context, recording nothing on any page)."""
    out = {}
    for k, t in sorted(state.glossary.items()):
        scratch = PageContext(state.registry, GLOSSARY_URL, "../", t.path, state.glossary,
                              state.blocks, state)
        out[k] = plain_text(without_marks(
            render_inline(state.md, t.definition, scratch, t.path, t.definition_line)))
    return out


def _tally(state: SiteState) -> None:
    """Which pages show each number and link each term, so far."""
    appears: dict[str, set[str]] = {i: set() for i in state.registry.numbers}
    used: dict[str, set[str]] = {k: set() for k in state.glossary}
    for p in state.pages:
        for i in p.ctx.numbers_appearing:
            appears[i].add(p.url)
        if p.url != GLOSSARY_URL:
            for k in p.ctx.terms_linked:
                used[k].add(p.url)
    state.appears = {i: sorted(appears[i]) for i in sorted(appears)}
    state.term_pages = {k: sorted(used[k]) for k in sorted(used)}


def _late_pass(state: SiteState, pages: list[Page] | None = None) -> None:
    """Render the late blocks of `pages` (default: every page) in their declared order,
    each seeing the usage so far, into the markers the bodies left; then tally once more
    for the final usage."""
    blocks = state.blocks
    pages = state.pages if pages is None else pages
    names = sorted({n for p in pages for n in p.ctx.late_markers.values()},
                   key=lambda n: (blocks[n].late_order, n))
    for name in names:
        _tally(state)
        for p in pages:
            p.ctx.late_pass = True
            for marker, n in list(p.ctx.late_markers.items()):
                if n == name:
                    _fill_marker(p, marker, _run_late(p, name, blocks[name]))
    _tally(state)


def _run_late(p: Page, name: str, spec: BlockSpec) -> str:
    try:
        with p.ctx.site.reads.scope(private=True) as got:
            html_text = spec.function(p.ctx)
    except BuildError as e:
        raise BuildError(f"{p.doc.path} (@[{name}]) {e.where}", e.message) from None
    p.reads.update(got)
    return html_text


def _fill_marker(p: Page, marker: str, html_text: str) -> None:
    if p.layout == "deck":
        for s in p.slides:
            s["html"] = s["html"].replace(marker, html_text)
            s["notes"] = s["notes"].replace(marker, html_text)
    else:
        p.body = p.body.replace(marker, html_text)


def _check_glossary_page(state: SiteState) -> None:
    if any(p.ctx.terms_linked for p in state.pages):
        if not any(p.url == GLOSSARY_URL and "glossary" in _late_names(p)
                   for p in state.pages):
            raise BuildError("content/pages/glossary.md",
                             "terms are linked but no /glossary/ page shows @[glossary]")


def _study_static(site: SiteConfig, root: Path) -> Path | None:
    """The study's own static folder (site.yaml `static`), which must exist."""
    if not site.static:
        return None
    folder = Path(root) / site.static
    if not folder.is_dir():
        raise BuildError(site.where.get("static", "site.yaml"), f"static: {site.static} is "
                         "not a folder of the project")
    return folder


def _render_templates(state: SiteState, templates_dir: Path, assets: StaticAssets,
                      reused=frozenset(), share: Mapping | None = None,
                      compiled: jinja2.BytecodeCache | None = None) -> dict[str, bytes]:
    """Each page through its template, and its provenance script where it has one; then
    404.html (`share`: the pages' share image, from _sharing; `compiled`: see
    render_site)."""
    share = share or {"image": None, "alt": ""}
    env = jinja2.Environment(loader=_template_loader(templates_dir, state.reads),
                             autoescape=True, undefined=jinja2.StrictUndefined,
                             keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
                             bytecode_cache=compiled)
    _check_site_names(state, assets.names)
    files: dict[str, bytes] = {}
    for p in state.pages:
        if p.out in reused:
            continue
        # a page's numbers' and claims' provenance and its terms' definitions load on demand
        has_prov = bool(p.ctx.numbers_shown or p.ctx.terms_linked or p.ctx.claims_cited
                        or p.ctx.refs.cards)
        if has_prov:
            terms_shown = {k: (state.glossary[k].term, state.definitions[k])
                           for k in p.ctx.terms_linked}
            terms_shown.update(p.ctx.refs.cards)     # each citation's card
            own = own_code_url(state)
            payload = prov_payload(state.registry, p.ctx.numbers_shown, terms_shown,
                                   p.ctx.claims_cited, state.build_info.get("source_url"),
                                   own[1] if own else None)
            payload.update(p.ctx.prov_extra)
            files[prov_path(p.url)] = prov_script(p.url, payload)
        scripts = page_scripts(state.config.layout_scripts[p.layout], p.ctx.scripts,
                               assets.names, p.doc.path)
        ctx = _template_context(state, p, scripts, has_prov, share)
        files[p.out] = _render_page(env, p, ctx, assets).encode("utf-8")
    files[sharing.NOT_FOUND] = _not_found_page(state, env, assets).encode("utf-8")
    return files


def check_nav(cfg: SiteConfig, urls: set[str]) -> None:
    """Each of site.yaml's nav items names one of the site's pages (`urls`); one that
    named none was dropped without a word before (docs/faults.md, N9). The build calls
    it (a test may render a few pages under the project's navigation)."""
    for url, _ in cfg.nav:
        if url != "decks" and url not in urls:
            raise BuildError(cfg.where.get(f"nav {url}", "site.yaml"), f"nav: {url!r} is "
                             "no page of the site (/NAME/ is content/pages/NAME.md)")


def _check_site_names(state: SiteState, names) -> None:
    """site.yaml's layouts' scripts name files of static/ that exist; one that did not
    was dropped without a word before (docs/faults.md, N9)."""
    cfg = state.config
    for layout, scripts in cfg.layout_scripts.items():
        for name in scripts:
            if name not in names:
                raise BuildError(cfg.where.get(f"layouts {layout}", "site.yaml"),
                                 f"layouts: {layout}: static/{name} does not exist")


NOT_FOUND_TITLE = "Page not found"
NOT_FOUND_TEXT = "There is no page at this address."


def _not_found_page(state: SiteState, env: jinja2.Environment, assets: StaticAssets) -> str:
    """404.html, in the site's layout (templates/404.html): what it says and the list of
    the site's pages. A host serves it at any missing address, at any depth, so its
    links start with the base URL's path (`/` without a base URL), not with `../`."""
    root = sharing.base_path(state.build_info.get("base_url"))
    where = "templates/404.html"
    page = Page("page", "/" + sharing.NOT_FOUND, sharing.NOT_FOUND, root, doc=None)
    page.ctx = PageContext(state.registry, page.url, root, where, state.glossary,
                           state.blocks, state)
    scripts = page_scripts(state.config.layout_scripts["page"], [], assets.names, where)
    ctx = {
        "site_title": state.config.title, "title": NOT_FOUND_TITLE,
        "description": NOT_FOUND_TEXT, "layout": "page", "url": page.url, "root": root,
        "home": page.ctx.link("/"), "nav": _nav(state, page), "build": _stamp(state),
        "edit_url": None, "kinds": [], "stylesheets": [STYLESHEET_SLOT],
        "scripts": [{"src": f"{root}static/{n}", "module": m} for n, m in scripts],
        "prov": "", "share": _share_meta(state, page, {"image": None}, index=False),
        "pages": [{"href": page.ctx.link(p.url), "title": p.title} for p in state.pages],
    }
    try:
        html_text = env.get_template("404.html").render(**ctx)
    except jinja2.TemplateError as e:
        raise BuildError(where + (f":{e.lineno}" if getattr(e, "lineno", None) else ""),
                         f"while rendering 404.html: {e}") from None
    return link_stylesheets(html_text, assets.sheets, root)


def _stamp(state: SiteState) -> dict:
    """The footer's build stamp: the commit (a link to it in the project's repository,
    site.yaml `repository`, when the build has one) and its date."""
    info = state.build_info
    repo = own_code_url(state)
    return {"commit": info["commit"], "commit_short": info["commit"][:12],
            "commit_date": info["commit_date"],
            "commit_url": f"{repo[0]}/commit/{info['commit']}" if repo else None}


COMMIT_RE = re.compile(r"[0-9a-f]{40}")


def own_code_url(state: SiteState) -> tuple[str, str] | None:
    """(the repository's address, its files' address at the build's commit, ".../blob/
    SHA/") for links to our own source (docs/site-config.md, "Links to our own
    source"); None without a repository in site.yaml or a commit (a build outside git)."""
    repo = state.config.repository
    commit = state.build_info.get("commit", "")
    if not repo or not COMMIT_RE.fullmatch(commit):
        return None
    return repo[0], f"{repo[0]}/blob/{commit}/"


def _edit_url(state: SiteState, p: Page) -> str | None:
    """"Edit this page": the page's Markdown on the repository's branch."""
    repo = state.config.repository
    return f"{repo[0]}/edit/{repo[1]}/{p.doc.path}" if repo and p.doc else None


def _share_meta(state: SiteState, p: Page, share: Mapping, index: bool = True) -> dict:
    """A page's sharing meta (base.html): canonical and image addresses (when the build
    has a base URL), the image's size and words; `index` False asks crawlers to leave
    the page out (404.html)."""
    meta = sharing.page_meta(state.build_info.get("base_url") if index else None, p.url,
                             share.get("image"))
    return dict(meta, alt=share.get("alt", ""), width=sharing.CARD_W,
                height=sharing.CARD_H, index=index)


class TemplateMemory(jinja2.BytecodeCache):
    """The templates' compiled code in memory, for the builds of one `--serve` process
    (compiling them was the longest step of its rebuild after a page edit). Jinja keeps
    each under the template's name and checks it against a checksum of the template's
    text before use, so an edited template is compiled again (docs/architecture.md,
    "Serving"). Never on disk."""

    def __init__(self) -> None:
        self.kept: dict[str, bytes] = {}

    def load_bytecode(self, bucket) -> None:
        if bucket.key in self.kept:
            bucket.bytecode_from_string(self.kept[bucket.key])

    def dump_bytecode(self, bucket) -> None:
        self.kept[bucket.key] = bucket.bytecode_to_string()


def _template_loader(templates_dir: Path, reads: Reads) -> jinja2.BaseLoader:
    """Jinja's templates, read through `reads` (never a link out of the project; UTF-8
    errors name the template's line). Each is read and compiled once per build: its
    environment lives for one build, so what it loaded stays up to date (an `uptodate`
    of False made Jinja read and compile base.html again for every page: 26 compiles in
    a cold build of 13 pages)."""
    def load(name: str):
        text = reads.maybe_text(Path(templates_dir, *jinja2.loaders.split_template_path(name)))
        return None if text is None else (text, None, lambda: True)
    return jinja2.FunctionLoader(load)


def _outline(p: Page) -> tuple[list[dict], str, str]:
    """The page's outline (its `##` headings, when it has OUTLINE_MIN of them, which
    makes a page longer than two screens; docs/architecture.md) and its body split
    where the outline goes: before its first section."""
    at = p.body.find("<section")
    if len(p.outline) < OUTLINE_MIN or at < 0:
        return [], "", p.body
    return [{"id": i, "text": t} for i, t in p.outline], p.body[:at], p.body[at:]


def _kinds_shown(reg: Registry, shown) -> list[str]:
    """The kinds of the numbers a page shows, in the registry's order of kinds, for the
    footer (from the page's own numbers, which its cache key covers)."""
    kinds = {reg.numbers[i].kind for i in shown if i in reg.numbers}
    return [k for k in KINDS if k in kinds]


def _template_context(state: SiteState, p: Page, scripts, has_prov: bool,
                      share: Mapping) -> dict:
    outline, lead, rest = _outline(p)
    ctx = {
        "site_title": state.config.title,
        "title": p.title,
        "description": p.doc.meta.description,
        "layout": p.layout,
        "url": p.url,
        "root": p.root,
        "home": p.ctx.link("/"),
        "nav": _nav(state, p),
        "build": _stamp(state),
        "edit_url": _edit_url(state, p),
        "share": _share_meta(state, p, share),
        "kinds": _kinds_shown(state.registry, p.ctx.numbers_shown),
        "stylesheets": [STYLESHEET_SLOT],   # the page's own, once its HTML is known
        "scripts": [{"src": f"{p.root}static/{n}", "module": m} for n, m in scripts],
        "prov": f"{p.root}{prov_path(p.url)}" if has_prov else "",
        "body_lead": Markup(lead),
        "outline": outline,
        "body": Markup(rest),
        "show_h1": not p.has_h1,
        "slides": [dict(s, html=Markup(s["html"]), notes=Markup(s["notes"])) for s in p.slides],
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
    return ctx


def _render_page(env: jinja2.Environment, p: Page, ctx: dict, assets: StaticAssets) -> str:
    try:
        # the hub and the pages share one template (its <main> takes the layout as class)
        template = env.get_template("deck.html" if p.layout == "deck" else "page.html")
        html_text = template.render(**ctx)
    except jinja2.TemplateError as e:
        where = f"templates/{getattr(e, 'name', None) or p.layout + '.html'}"
        if getattr(e, "lineno", None):
            where += f":{e.lineno}"
        raise BuildError(where, f"while rendering {p.url}: {e}") from None
    return link_stylesheets(html_text, assets.sheets, p.root)


def _late_names(p: Page) -> list[str]:
    """The late blocks a page holds (a reused page's record says)."""
    if isinstance(p.ctx, incremental.ReusedContext):
        return p.ctx.late_names
    return sorted(set(p.ctx.late_markers.values()))


def _bodies(state: SiteState, site_key: str | None, previous, sources) -> set[str]:
    """Render each page's body, or reuse its record when its key still matches. A page
    with late blocks (which read every other page's usage) is decided last, under the
    usage of the pages without them; its reuse holds only if the late pages rendered
    again keep their recorded usage (render_site checks that after the late pass).
    Returns the outputs reused."""
    late = {o for o, r in previous.items() if r.late_names}
    reused: set[str] = set()

    def matches(p: Page, others: str = "") -> bool:
        rec = previous.get(p.out)
        if not site_key or rec is None:
            return False
        figures = incremental.figures_shown(state.build_info, rec)
        if incremental.page_key(site_key, sources[p.out], others, figures) != rec.key:
            return False
        with state.reads.scope(private=True):     # a check: not this build's own reads
            return state.reads.unchanged(rec.reads)

    def reuse(p: Page) -> None:
        p.ctx = incremental.reused_context(previous[p.out])
        reused.add(p.out)

    for p in state.pages:
        if p.out not in late:
            reuse(p) if matches(p) else _render_fresh(state, p)
    late_pages = [p for p in state.pages if p.out in late]
    if late_pages:
        others = incremental.usage_of([p for p in state.pages if p.out not in late])
        new_late = any(p.ctx.late_markers for p in state.pages
                       if p.out not in late and p.out not in reused)
        for p in late_pages:
            reuse(p) if not new_late and matches(p, others) else _render_fresh(state, p)
    return reused


def template_ids(templates_dir: Path, reads: Reads) -> frozenset:
    """The element ids the templates write as they are (`id="main"`; not those made of
    a template value, such as a slide's): a page's headings and blocks never take one,
    so `## Main` is `main-2` rather than a second `main` on the page."""
    from .htmlscan import element_ids
    lexer = jinja2.Environment()
    found = set()
    for f in reads.glob(templates_dir, "*.html"):
        # the template's own markup: Jinja's lexer drops its tags, values and comments
        try:
            markup = "".join(v for _, kind, v in lexer.lex(reads.text(f)) if kind == "data")
        except jinja2.TemplateSyntaxError:
            continue        # the page's render names the template's line
        found.update(element_ids(markup))
    return frozenset(found)


def _render_fresh(state: SiteState, p: Page) -> None:
    p.ctx = PageContext(state.registry, p.url, p.root, p.doc.path, state.glossary,
                        state.blocks, state)
    p.ctx.slugs.update(state.template_ids)
    with state.reads.scope(private=True) as got:      # what its blocks read
        _render_body(state, p)
    p.reads = got


def _recheck_late_reuse(state: SiteState, previous, reused: set[str]) -> None:
    """After the late pass: if a late page rendered again now shows or links other
    numbers or terms than its record says, the late pages reused on that record are
    stale (each lists the others' usage): render them, and run their late blocks."""
    def usage(numbers, terms) -> tuple:
        return sorted(set(numbers)), sorted(set(terms))
    late_rendered = [p for p in state.pages if p.out not in reused and p.ctx.late_markers]
    changed = any(
        p.out not in previous or usage(p.ctx.numbers_appearing | p.ctx.numbers_shown,
                                       p.ctx.terms_linked)
        != usage(previous[p.out].numbers_appearing + previous[p.out].numbers_shown,
                 previous[p.out].terms_linked) for p in late_rendered)
    stale = [p for p in state.pages if p.out in reused and previous[p.out].late_names]
    if not (changed and stale):
        return
    for p in stale:
        reused.discard(p.out)
        _render_fresh(state, p)
    _late_pass(state, stale)


def _records(state: SiteState, files, site_key, previous, reused, sources) -> dict:
    """Every page's record for the next build (reused ones as they were). A page
    rendered now records every read of the build outside the pages' own (the data, the
    templates, the static files, the glossary, the allow-list; not the other pages'
    Markdown) and the reads of its own blocks."""
    if not site_key:
        return {}
    pages = state.pages
    page_files = {"f:" + p.doc.path for p in pages}
    shared = {k: v for k, v in state.reads.shared().items() if k not in page_files}
    late = {p.out for p in pages if _late_names(p)}
    others = incremental.usage_of([p for p in pages if p.out not in late])
    out = {}
    for p in pages:
        if p.out in reused:
            out[p.out] = previous[p.out]
            continue
        prov = prov_path(p.url)
        out[p.out] = incremental.record_page(
            site_key, sources[p.out], p.out, files[p.out].decode("utf-8"),
            prov if prov in files else "", files[prov].decode("utf-8") if prov in files else "",
            p.ctx, shared | p.reads, others if p.out in late else "", state.build_info)
    return out
