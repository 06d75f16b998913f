"""Incremental rebuilds: a page is rendered again only when one of its inputs changed;
every other page keeps the bytes the last good build made of it.

A page's inputs, each hashed into its key (`page_key`):
- its Markdown file;
- the site: every template and static file, the code, the build stamp, and each
  page's front matter (navigation and deck links name every page) (`site_key`);
- the glossary entries of the terms it links;
- the registry entries of the numbers it shows; a page that uses a block (`@[...]`)
  depends on the whole registry and the other content files instead, since a block may
  read any of them;
- for a page with a late block (the glossary, the number index), which page shows which
  number and links which term: the usage of every other page.

What a page's last render recorded (`PageRecord`: its output, provenance script, the
numbers and terms it used, its scripts, its anchors) is what the next build checks the
key against and reuses. Records live in memory for `--serve` and in
`.cache/pages.json` for `python build.py`, behind the same verified header as the
data-stage cache (cit/cache.py), with each page's HTML and provenance script in a blob
file named by its SHA-256: a record is used only when the file's hash, its blobs'
hashes and the page key match, and its output was checked (naked numbers, links) when
it was made.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping


BLOCK_RE = re.compile(r"@\[")
ID_RE = re.compile(r'\sid="([^"]+)"')


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


def paths_digest(root: Path, paths: Iterable[Path]) -> str:
    """Hash of the files among `paths` (each path relative to root, and its bytes), in
    sorted order; a path that is not a file is left out."""
    h = hashlib.sha256()
    for p in sorted(x for x in paths if x.is_file()):
        h.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def files_digest(root: Path, folders: Iterable[str], pattern: str = "*") -> str:
    """Hash of every file (path and bytes) under `folders` of root, or of `folders`
    themselves when they are files."""
    paths: list[Path] = []
    for folder in folders:
        base = root / folder
        paths += ([p for p in base.rglob(pattern) if "__pycache__" not in p.parts]
                  if base.is_dir() else [base])
    return paths_digest(root, paths)


def block_inputs_digest(root: Path) -> str:
    """What a block may read besides the registry: the data files, the lock and the
    content files that are not pages, the glossary excepted (a page depends on the
    entries of the terms it links, and a late page on all of them)."""
    return paths_digest(root, [
        *(p for p in (root / "content").glob("*.y*ml") if p.name != "glossary.yaml"),
        *(root / "data").rglob("*"), root / "vendored" / "lock.yaml"])


def site_key(root: Path, build_info: Mapping, fronts: Iterable[tuple]) -> str:
    """What every page depends on: templates and static files, the code, the build
    stamp, and each page's front matter (`fronts`: (out, layout, title, description,
    order) per page, in site order)."""
    return _h(files_digest(root, ("templates",)),
              files_digest(root, ("cit", "study"), "*.py"), files_digest(root, ("build.py",)),
              str(build_info.get("commit")), str(build_info.get("commit_date")),
              json.dumps([list(f) for f in fronts], ensure_ascii=False))


def number_entries(registry, ids: Iterable[str]) -> str:
    """Hash of the registry entries `ids` (a missing one hashes as missing)."""
    parts = []
    for i in sorted(set(ids)):
        n = registry.numbers.get(i)
        parts.append(json.dumps(n.as_json([]), sort_keys=True, default=str) if n else f"missing {i}")
    return _h(*parts)


def term_entries(glossary: Mapping, keys: Iterable[str]) -> str:
    parts = []
    for k in sorted(set(keys)):
        t = glossary.get(k)
        parts.append(json.dumps([k, t.term, t.definition], ensure_ascii=False) if t else f"missing {k}")
    return _h(*parts)


def registry_digest(registry) -> str:
    """Hash of the whole registry: numbers, series and tables (their pickle: plain data
    in insertion order), and claims."""
    import io
    import pickle
    buf = io.BytesIO()
    pickler = pickle.Pickler(buf, protocol=4)
    pickler.fast = True      # no memo: the bytes depend on the values, not on which
    #                          objects happen to be shared (a fresh and an unpickled
    #                          registry share differently)
    pickler.dump((registry.numbers, registry.series, registry.tables))
    claims = [registry.claims[c].as_json([]) for c in sorted(registry.claims)]
    return _h(buf.getvalue(), json.dumps(claims, sort_keys=True, default=str))


def text_key(*parts) -> str:
    """A key over strings and JSON-able values."""
    return _h(*(p if isinstance(p, str) else json.dumps(p, sort_keys=True, default=str)
                for p in parts))


def usage_digest(usage: Mapping[str, tuple[set, set]]) -> str:
    """Hash of which page shows which number and links which term (`usage`: page out ->
    (numbers appearing, terms linked))."""
    return _h(json.dumps({k: [sorted(a), sorted(t)] for k, (a, t) in sorted(usage.items())}))


@dataclass
class KeyInputs:
    """The site-wide parts of the page keys of one build."""
    site: str
    registry: object
    glossary: Mapping
    content_other: str             # the content files that are not pages (blocks read them)
    _registry_digest: str | None = None

    def registry_hash(self) -> str:
        if self._registry_digest is None:
            self._registry_digest = registry_digest(self.registry)
        return self._registry_digest


def page_key(inputs: KeyInputs, source: bytes, rec: PageRecord | None,
             others_usage: str = "") -> str:
    """The key of a page whose Markdown is `source`, given what its last render used
    (`rec`; None: never rendered, so its key matches nothing)."""
    if rec is None:
        return ""
    uses_blocks = bool(BLOCK_RE.search(source.decode("utf-8", "replace")))
    data = (_h(inputs.registry_hash(), inputs.content_other) if uses_blocks else
            _h(number_entries(inputs.registry, rec.numbers_shown + rec.numbers_appearing),
               claim_entries(inputs.registry, rec.claims_cited)))
    # a page with a late block may list every term (the glossary does)
    terms = list(inputs.glossary) if others_usage else rec.terms_linked
    return _h(inputs.site, source, term_entries(inputs.glossary, terms), data, others_usage)


def claim_entries(registry, ids) -> str:
    parts = []
    for c in sorted(set(ids)):
        claim = registry.claims.get(c)
        parts.append(json.dumps(claim.as_json([]), sort_keys=True, default=str)
                     if claim else f"missing {c}")
    return _h(*parts)


def anchors_of(html: str) -> str:
    """Hash of the element ids of a page (what links into it can point at)."""
    return _h(*sorted(ID_RE.findall(html)))


def record_page(inputs: KeyInputs, source: bytes, out: str, html: str, prov_path: str,
                prov: str, ctx, others_usage: str = "") -> PageRecord:
    """The record of a page just rendered, under the key its inputs give now."""
    rec = PageRecord(key="", out=out, html=html, prov_path=prov_path, prov=prov,
                     numbers_shown=sorted(ctx.numbers_shown),
                     numbers_appearing=sorted(ctx.numbers_appearing),
                     terms_linked=sorted(ctx.terms_linked),
                     claims_cited=sorted(ctx.claims_cited),
                     scripts=[list(s) for s in ctx.scripts],
                     late_names=sorted(set(ctx.late_markers.values())),
                     anchors=anchors_of(html))
    rec.key = page_key(inputs, source, rec, others_usage)
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
