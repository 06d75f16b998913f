"""Incremental rebuilds: a page is rendered again only when something it depends on
changed; every other page keeps the bytes the last good build made of it.

A page's record (`PageRecord`) keeps what its last render used: its output, provenance
script, numbers, terms and claims, scripts and anchors, and `reads`: every file and
listing the build read while making it (cit/reads.py records them), except the other
pages' Markdown and what the other pages' blocks read. Those reads cover the data (the
vendored files, data/, the lock, from which the registry is made), the templates and
static files, the glossary, the allow-list (the naked-number check a reused page skips
depends on it) and whatever its blocks opened. A record is reused when

- its key matches (`page_key`): the code (`code_key`), the build stamp and every page's
  front matter (`site_key`), the build's figures it shows (`figures_shown`), its own
  Markdown, and, for a page with a late block (the glossary, the number index), which
  page shows which number and links which term (`usage_of` the others); and
- every read it recorded gives what it gave then (`Reads.unchanged`).

Nothing is listed by hand but the code, which Python imports rather than the build
reading it. Records live in memory for `--serve` and in `.cache/pages.json` for
`python build.py`, behind the same verified header as the data-stage cache
(cit/cache.py), each page's HTML and provenance script in a blob named by its SHA-256.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping

from . import htmlscan


ENGINE_ROOT = Path(__file__).resolve().parent.parent


@dataclass
class PageRecord:
    """One page as the last good build rendered it."""
    key: str
    out: str
    html: str
    prov_path: str
    prov: str
    numbers_shown: list[str]      # their provenance is in the page's script
    numbers_appearing: list[str]  # counted as appearing on the page
    terms_linked: list[str]
    claims_cited: list[str]
    scripts: list[list]
    late_names: list[str]
    anchors: str
    reads: dict[str, str]         # what its render read (cit/reads.py): entry -> digest


@dataclass
class ReusedContext:
    """Stands in for a page's PageContext when its record is reused: what the site-wide
    tally, numbers.json, the plotly decision and the glossary check read."""
    numbers_shown: set[str]
    numbers_appearing: set[str]
    terms_linked: set[str]
    claims_cited: set[str]
    scripts: list[tuple[str, bool]]
    late_names: list[str]
    late_markers: dict[str, str] = field(default_factory=dict)
    late_pass: bool = False


def _h(*parts: bytes | str) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode() if isinstance(p, str) else p)
        h.update(b"\0")
    return h.hexdigest()


def code_key(root: Path, packages: Iterable[str] = ()) -> str:
    """The code a build runs: every Python file of the engine (cit/ and build.py: the
    project's own when it is a checkout of the engine, else those beside this module)
    and of the study's `packages` (folders under root, cit.siteconfig: packages), which
    are imported, not read through cit/reads.py, so listed here."""
    engine = root if (root / "cit").is_dir() else ENGINE_ROOT
    h = hashlib.sha256()
    for base, folders in ((engine, ("cit",)), (root, tuple(packages))):
        files = [p for d in folders for p in (base / d).rglob("*.py")]
        files += [base / "build.py"] if base == engine else []
        for p in sorted(f for f in files if f.is_file()):
            h.update(p.relative_to(base).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def site_key(code: str, build_info: Mapping, fronts: Iterable[tuple]) -> str:
    """What every page depends on besides the files it read: the code, the build
    stamp, the upstream files' web address (cards link there), the site's base URL
    (canonical links, docs/sharing.md) and each page's front matter (`fronts`:
    (out, layout, title, description, order) per page, in site order: the navigation
    and deck links name every page). The build's own figures are not in it: an edit of
    one page can change them (the comparing-sentence counts), and only the pages that
    show one depend on it (`figures_shown`)."""
    return _h(code, str(build_info.get("commit")), str(build_info.get("commit_date")),
              str(build_info.get("source_url")), str(build_info.get("base_url")),
              json.dumps([list(f) for f in fronts], ensure_ascii=False))


def figures_shown(build_info: Mapping, page) -> str:
    """The values of the build's figures (numbers `build.<key>`) among the numbers a
    page shows (`page`: its render context or its record), as a string for its key."""
    ids = {*page.numbers_appearing, *page.numbers_shown}
    return json.dumps({k: v for k, v in sorted(build_info.get("figures", {}).items())
                       if f"build.{k}" in ids}, sort_keys=True, default=str)


def text_key(*parts) -> str:
    """A key over strings and JSON-able values."""
    return _h(*(p if isinstance(p, str) else json.dumps(p, sort_keys=True, default=str)
                for p in parts))


def usage_digest(usage: Mapping[str, tuple[set, set]]) -> str:
    """Hash of which page shows which number and links which term (`usage`: page out ->
    (numbers appearing, terms linked))."""
    return _h(json.dumps({k: [sorted(a), sorted(t)] for k, (a, t) in sorted(usage.items())}))


def page_key(site: str, source: bytes, others_usage: str = "", figures: str = "") -> str:
    """The key of a page whose Markdown is `source` (`site`: site_key; `others_usage`:
    for a page with a late block, usage_of the other pages; `figures`: figures_shown)."""
    return _h(site, source, others_usage, figures)


def anchors_of(html: str) -> str:
    """Hash of the element ids of a page (what links into it can point at)."""
    return _h(*sorted(htmlscan.element_ids(html)))


def record_page(site: str, source: bytes, out: str, html: str, prov_path: str,
                prov: str, ctx, reads: Mapping[str, str], others_usage: str,
                build_info: Mapping) -> PageRecord:
    """The record of a page just rendered, under the key its inputs give now, with the
    reads its render made (`reads`: cit/reads.py entries)."""
    figures = figures_shown(build_info, ctx)
    rec = PageRecord(key=page_key(site, source, others_usage, figures), out=out, html=html,
                     prov_path=prov_path, prov=prov,
                     numbers_shown=sorted(ctx.numbers_shown),
                     numbers_appearing=sorted(ctx.numbers_appearing),
                     terms_linked=sorted(ctx.terms_linked),
                     claims_cited=sorted(ctx.claims_cited),
                     scripts=[list(s) for s in ctx.scripts],
                     late_names=sorted(set(ctx.late_markers.values())),
                     anchors=anchors_of(html), reads=dict(sorted(reads.items())))
    return rec


def reused_context(rec: PageRecord) -> ReusedContext:
    return ReusedContext(set(rec.numbers_shown), set(rec.numbers_appearing),
                         set(rec.terms_linked), set(rec.claims_cited),
                         [tuple(s) for s in rec.scripts], list(rec.late_names))


def usage_of(pages) -> str:
    """Hash of which page shows which number and links which term (`pages`: each with
    `out` and a context)."""
    return usage_digest({p.out: (p.ctx.numbers_appearing | p.ctx.numbers_shown,
                                 p.ctx.terms_linked) for p in pages})


def records_to_json(records: Mapping[str, PageRecord], store) -> dict:
    """Records as JSON, each page's HTML and provenance script stored apart by
    `store(bytes) -> name` (cit/cache.py's blobs), so the records file stays small."""
    out = {}
    for o, r in records.items():
        d = dict(vars(r))
        d["html"], d["prov"] = store(r.html.encode()), store(r.prov.encode())
        out[o] = d
    return out


def records_from_json(value, load) -> dict[str, PageRecord]:
    """Records read back from .cache/ (cit/build.py), their texts by `load(name) ->
    bytes | None`; a record whose texts cannot be loaded is dropped (its page is
    rendered again), and {} when the records do not fit."""
    if not isinstance(value, dict):
        return {}
    out = {}
    try:
        for o, r in value.items():
            html, prov = load(r["html"]), load(r["prov"])
            if html is not None and prov is not None:
                out[o] = PageRecord(**dict(r, html=html.decode(), prov=prov.decode()))
    except (TypeError, KeyError, UnicodeDecodeError):
        return {}
    return out
