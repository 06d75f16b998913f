"""Generic blocks a content paragraph `@[name]` can ask for (docs/architecture.md).

`generic_blocks(registry)` returns name -> BlockSpec for:

- `table:<id>` for every registry Table (caption, header cells with scope, numbers
  right-aligned in class "n", each Ref cell a number element);
- `table:number-index`: every registry number, how it is shown, its kind, the pages it
  appears on and its provenance, in closed groups by id prefix whose rows a script
  builds from the page's provenance script when opened, and each source file once in a
  table after them (late: rendered once every other page is done);
- `table:tested`: build_info["verification"], a list of (label, number id);
- `glossary`: every term with its definition and the pages that use it (late);
- `decks`: the series, one link per deck with its description.

Text that comes from the registry rather than from a writer (ids, units, source
paths, locators, computations) sits in elements of class "prov", which the
allow-list exempts from the naked-number check.
"""

from __future__ import annotations

from html import escape as e
from ..errors import BuildError
from ..markdown import render_inline
from ..markup import scroll_region
from ..registry import Ref, Registry, Table
from .spec import BlockSpec

PAGE_TEXT = True     # its string literals reach pages (docs/claims.md, "Sentences the build finds")


def table_html(ctx, t: Table, *, table_id: str | None = None) -> str:
    """A registry Table as accessible HTML."""
    numeric_cols = [bool(t.rows) and all(isinstance(r[j], Ref) for r in t.rows if j < len(r))
                    for j in range(len(t.columns))]
    row_header = bool(t.rows) and all(isinstance(r[0], str) for r in t.rows if r)
    tid = e(table_id or ctx.unique_id("table-" + t.id))
    out = [f'{scroll_region(tid + "-caption")}<table class="data" id="{tid}">']
    cap = e(t.caption)
    if t.source:
        cap += f' <span class="table-source prov">Source: {e(t.source)}</span>'  # :x[label]
    out.append(f'<caption id="{tid}-caption">{cap}</caption>')
    out.append("<thead><tr>")
    for j, c in enumerate(t.columns):
        cls = ' class="n"' if numeric_cols[j] else ""
        if isinstance(c, Ref):
            # a header that is itself a number (e.g. a step): its unit says what it counts
            n = ctx.registry.get(c.id, f"table {t.id} header {j + 1}")
            label = (f"{e(n.unit)} " if n.unit else "") + ctx.num(c.id)
        else:
            label = e(c)
        out.append(f'<th scope="col"{cls}>{label}</th>')
    out.append("</tr></thead>\n<tbody>")
    for i, row in enumerate(t.rows):
        if len(row) != len(t.columns):
            raise BuildError(f"table {t.id} row {i + 1}",
                             f"{len(row)} cells for {len(t.columns)} columns")
        out.append("<tr>")
        for j, cell in enumerate(row):
            where = f"table {t.id} row {i + 1} column {j + 1}"
            if isinstance(cell, Ref):
                out.append(f'<td class="n">{ctx.num(cell.id, where=where)}</td>')
            elif isinstance(cell, str):
                if j == 0 and row_header:
                    out.append(f'<th scope="row">{e(cell)}</th>')
                else:
                    out.append(f"<td>{e(cell)}</td>")
            else:
                raise BuildError(where, f"a cell must be text or a Ref, not {type(cell).__name__}")
        out.append("</tr>\n")
    out.append("</tbody></table></div>")
    return "".join(out)


def _pages_links(ctx, urls) -> str:
    if not urls:
        return "only here"  # :x[label]
    return ", ".join(f'<a href="{e(ctx.link(u))}">{e(ctx.site.label(u))}</a>' for u in urls)


def number_index(ctx) -> str:
    """Every number in the registry with where it appears and its provenance, light
    enough for a phone (docs/numbers.md, "The number index"): one closed group per id
    prefix (`build.…`, `bench.…`), whose rows static/numindex.js builds when the
    reader opens it (or follows a link to a row, `#n-<id>`), from the page's provenance
    script. That script holds every number (kind, value, text, unit, sources, locator,
    computation) and, under `x`, what only the index shows: `p`, the pages as [link,
    label]; `r`, id -> [raw value attribute, [page indices]]. The files the numbers come
    from are listed once below the groups, in the page itself."""
    reg = ctx.registry
    ids = sorted(reg.numbers)
    groups: dict[str, list[str]] = {}
    for i in ids:
        groups.setdefault(i.split(".", 1)[0], []).append(i)
    for anchor in [f"index-{g}" for g in groups] + ["number-index", "number-index-files",
                                                    "number-index-files-caption"]:
        if anchor in ctx.slugs:
            raise BuildError(ctx.path, f"the number index's anchor {anchor!r} is taken")
        ctx.slugs.add(anchor)
    ctx.numbers_shown.update(ids)      # shown through the provenance script, not counted
    ctx.add_script("numindex.js")
    urls = [p.url for p in ctx.site.pages]
    at = {u: k for k, u in enumerate(urls)}
    ctx.prov_extra["x"] = {
        "p": [[ctx.link(u), ctx.site.label(u)] for u in urls],
        "r": {i: [reg.numbers[i].raw(), [at[u] for u in ctx.site.appears.get(i, [])]] for i in ids}}
    # said once for all the groups; each group's empty .index-wait is where numindex.js
    # reports a provenance file that did not load
    out = ['<p class="index-note">A group’s rows are built from the page’s provenance file '  # :x[method]
           "when it is opened; without JavaScript, <code>numbers.json</code> at the site’s "
           "root lists every number with its provenance.</p>\n",
           '<div class="number-index" id="number-index">']
    for g, members in groups.items():
        kinds = ", ".join(sorted({reg.numbers[i].kind for i in members}))
        out.append(f'<details class="index-group" id="index-{e(g)}" data-group="{e(g)}">'  # :x[label]
                   f'<summary><code class="prov">{e(g)}.…</code> <span class="index-kinds">'
                   f'{e(kinds)}</span></summary><p class="index-wait"></p></details>\n')
    out.append("</div>\n")
    out.append(_source_files_table(reg, ids))
    return "".join(out)


def _source_files_table(reg: Registry, ids: list[str]) -> str:
    """The files the numbers come from, each once: path, commit and blob SHA-1."""
    files = sorted({src for i in ids for src in reg.numbers[i].sources},
                   key=lambda s: (s.path, s.commit or "", s.blob_sha1 or ""))
    out = [scroll_region("number-index-files-caption") + '<table class="data number-sources" id="number-index-files">'
           '<caption id="number-index-files-caption">The files the numbers come from: upstream '
           "files with the commit their bytes were read at and their git blob SHA-1, and our "
           "own files</caption>"
           '<thead><tr><th scope="col">File</th>'
           '<th scope="col">Commit</th><th scope="col">Blob SHA-1</th></tr></thead>\n<tbody>']
    for src in files:
        out.append(f'<tr><td class="prov"><code>{e(src.path, quote=False)}</code></td>'
                   f'<td class="prov">{e(src.commit or "this repository", quote=False)}</td>'
                   f'<td class="prov">{e(src.blob_sha1 or "", quote=False)}</td></tr>\n')
    out.append("</tbody></table></div>")
    return "".join(out)


def tested(ctx) -> str:
    """This build's verification figures (build_info["verification"])."""
    rows = ctx.site.build_info.get("verification")
    if not rows:
        raise BuildError("build_info", "`verification` (a list of (label, number id)) is missing or empty")
    out = [scroll_region("tested-caption") + '<table class="data tested" id="tested">',
           '<caption id="tested-caption">This build’s own checks</caption>',
           '<thead><tr><th scope="col">Check</th><th scope="col" class="n">Result</th></tr></thead>\n<tbody>']
    for k, row in enumerate(rows):
        if len(row) != 2:
            raise BuildError(f"build_info verification row {k + 1}", "expected (label, number id)")
        label, nid = row
        out.append(f'<tr><th scope="row">{e(label)}</th>'
                   f'<td class="n">{ctx.num(nid, where=f"build_info verification row {k + 1}")}</td></tr>\n')
    out.append("</tbody></table></div>")
    return "".join(out)


def glossary(ctx) -> str:
    """Every term: definition (with its cross links), and the pages that use it."""
    if ctx.url != "/glossary/":
        raise BuildError(ctx.path, "@[glossary] belongs on the /glossary/ page (term links point there)")
    site_state = ctx.site
    terms = sorted(ctx.glossary.items(), key=lambda kv: (kv[1].term.casefold(), kv[0]))
    # the page's outline is its list of terms (the page has one section; cit/render.py)
    ctx.slugs.add("glossary-outline-title")
    out = ['<nav class="page-outline" aria-labelledby="glossary-outline-title"><details>'  # :x[label]
           '<summary id="glossary-outline-title">All terms</summary><ol class="term-outline">',
           *(f'<li><a href="#term-{e(k)}">{e(t.term)}</a></li>' for k, t in terms),
           '</ol></details></nav>\n<dl class="glossary">']
    for key, t in terms:
        ctx.slugs.add(f"term-{key}")
        definition = render_inline(site_state.md, t.definition, ctx, t.path, t.definition_line)
        see = ""
        if t.see:
            links = ", ".join(ctx.term(k, where=f"{t.path}:{t.line}") for k in t.see)
            see = f'<p class="see-also">See also: {links}.</p>'  # :x[label]
        pages = site_state.term_pages.get(key, [])
        used = _pages_links(ctx, pages) if pages else "no page yet"
        out.append(f'<div class="glossary-entry"><dt id="term-{e(key)}"><dfn>{e(t.term)}</dfn></dt>'  # :x[label]
                   f"<dd><p>{definition}</p>{see}"
                   f'<p class="used-on">Used on: {used}.</p>'
                   f"</dd></div>\n")
    out.append("</dl>")
    return "".join(out)


def decks(ctx) -> str:
    """The series: each deck's title (a link) and description, in order."""
    ds = ctx.site.decks()
    if not ds:
        raise BuildError(ctx.path, "@[decks]: there are no decks in content/decks/")
    items = "".join(f'<li><a href="{e(ctx.link(d.url))}">{e(d.title)}</a>'
                    f'<p>{e(d.doc.meta.description)}</p></li>\n' for d in ds)
    return f'<ol class="deck-list">\n{items}</ol>'


def generic_blocks(registry: Registry) -> dict[str, BlockSpec]:
    """The blocks this module provides, by name: one `table:<id>` per registry table
    (call it after every table is registered), the number index, the build's checks,
    the glossary and the deck list."""
    out = {f"table:{tid}": BlockSpec(lambda ctx, t=t: table_html(ctx, t))
           for tid, t in sorted(registry.tables.items())}
    for name, spec in (("table:number-index", BlockSpec(number_index, late_order=1)),
                       ("table:tested", BlockSpec(tested)),
                       ("glossary", BlockSpec(glossary, late_order=0)),
                       ("decks", BlockSpec(decks))):
        if name in out:
            raise BuildError("registry", f"table id {name[6:]!r} clashes with the generated block @[{name}]")
        out[name] = spec
    return out
