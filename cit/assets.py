"""Assets: the static files a page links, and the per-page provenance scripts.

- `static_assets(templates_dir, needs_plotly, memo, bundle_root)`: every file of
  templates/static/, stylesheets minified (`minify_css`) and scripts stripped of
  comments (`strip_js`), plus the bundled plotly.min.js when a page draws a chart
  (from the project at `bundle_root`); with what each feature sheet asks a page to
  hold (`sheet_needs`, its first line `/* when: ... */`).
- `page_sheets` / `page_scripts`: which of them one page links, in order.
- `link_stylesheets`: the page's stylesheets put into its one rendered HTML.
- `prov_path` / `prov_payload` / `prov_script`: the page's lazily loaded provenance
  script, `static/prov/<page>.js`, which static/cards.js reads.

Nothing here reads content or the registry's meaning; see docs/architecture.md.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from markupsafe import escape

from . import htmlscan, plotlybundle
from .blocks.spec import compute_now
from .errors import BuildError
from .reads import Reads, utf8
from .registry import Registry

PLOTLY = plotlybundle.SCRIPT
PROV_DIR = "static/prov"
# what the template is given as its one stylesheet while the page's own are not known
STYLESHEET_SLOT = "cit-stylesheet-slot"


def static_files(templates_dir: Path, reads: Reads | None = None,
                 study_static: Path | None = None,
                 origin: dict[str, str] | None = None) -> dict[str, bytes]:
    """Every file under templates/static/ (the engine's) and under `study_static` (the
    study's own scripts and styles, site.yaml's `static`), each shipped under static/,
    read through `reads` (a link out of the project, a FIFO or a link to a folder is
    refused, not shipped). A name both folders hold fails the build: neither may
    replace the other's file. `origin`, when given, gets each name's project path."""
    reads = reads or Reads(templates_dir.parent)
    files: dict[str, bytes] = {}
    for sdir in (templates_dir / "static", *([study_static] if study_static else [])):
        for f in reads.tree(sdir):
            name = "static/" + f.relative_to(sdir).as_posix()
            if name in files:
                raise BuildError(reads.rel(f), f"the engine's templates ship {name} already; "
                                 "give the study's file another name")
            files[name] = reads.bytes(f)
            if origin is not None:
                origin[name] = reads.rel(f)
    return files


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


def plotly_js(root: Path | None = None) -> bytes:
    """The plotly.js partial bundle committed under vendored/plotly/ of the project at
    `root` (default: this code's), verified against its lock and the Python plotly
    package's plotly.js version (no CDN)."""
    return plotlybundle.bundle_bytes(root) if root else plotlybundle.bundle_bytes()


def prov_path(url: str) -> str:
    """The provenance script of the page at `url`, relative to the site root:
    "/" -> "static/prov/index.js", "/decks/01-sources/" -> "static/prov/decks/01-sources.js"."""
    return f"{PROV_DIR}/{url.strip('/') or 'index'}.js"


# Where a locator names the line of its file: "path:12 (…)", "… (line 12)", "… prose
# line 12", "… lines 1–168" (the forms study/ writes; docs/numbers.md, "Locators").
LOCATOR_LINES = (re.compile(r"^[^\s:]+:(\d+)\b()"), re.compile(r"\(line (\d+)\)()"),
                 re.compile(r"\bprose line (\d+)\b()"), re.compile(r"\blines (\d+)[–-](\d+)\b"))


def record_anchor(n) -> tuple[str, str] | None:
    """The upstream file a number's locator starts with and the line(s) it names there,
    as GitHub's anchor: ("results/x.jsonl", "L12") or ("results/colab_sweep.log",
    "L1-L168"); None when the locator names no line of an upstream source."""
    src = next((s for s in n.sources if s.commit and n.locator.startswith(s.path)), None)
    if src is None:
        return None
    for pattern in LOCATOR_LINES:
        m = pattern.search(n.locator)
        if m:
            return src.path, f"L{m.group(1)}" + (f"-L{m.group(2)}" if m.group(2) else "")
    return None


def prov_payload(registry: Registry, ids, terms: Mapping[str, tuple[str, str]],
                 claim_ids=(), source_url: str | None = None,
                 code_url: str | None = None) -> dict:
    """The provenance of numbers `ids` and the definitions of `terms` (key -> (term,
    definition)), compacted for a page's lazily loaded script.

    `t`: every string once (kinds, units, paths, commits, blob SHA-1s, locators,
    computations), sorted; `s`: the sources, each [path] or [path, commit, blob] as
    indices into `t` (null where a part is absent), sorted; `n`: id -> [kind, value, text,
    unit, [source indices], locator, computation], with kind, unit, locator and
    computation as indices into `t` and value (JSON number, string or null) and text
    as they are, and an eighth item where the locator names a line of its upstream file:
    [source index, "L12"] (`record_anchor`); `g`: term key -> [term, definition]; `c`:
    checked claim id -> [what was checked, verdict, [[label, figure], …], [source
    indices], computation, hypothesis] (cit/claims.py); `u`: with `source_url` (the
    upstream files' web address before "<commit>/<path>"), that address, so a card links
    each upstream file at its commit; `r`: with `code_url` (our own repository's files at
    the build's commit, ".../blob/SHA/"), that address, so a card links our own source
    files, and `o`: id -> [path, line] of the code that made each number (its
    `Number.site`, path as an index into `t`). cards.js and the tests decode it."""
    numbers = [registry.numbers[i] for i in sorted(ids)]
    claims = [registry.claims[i] for i in sorted(claim_ids)]
    strings: set[str] = set()
    for n in numbers:
        strings |= {n.kind, n.unit, n.locator, n.computation}
        if code_url and n.site:
            strings.add(n.site[0])
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
        anchor = record_anchor(n)
        if anchor:
            src = next(s for s in n.sources if s.path == anchor[0])
            entries[n.id].append([sat[source(src)], anchor[1]])
    out = {"t": table, "s": [list(x) for x in sources], "n": entries,
           "g": {k: list(terms[k]) for k in sorted(terms)}}
    if source_url and any(src.commit for n in numbers + claims for src in n.sources):
        out["u"] = source_url
    if code_url:
        out["r"] = code_url
        out["o"] = {n.id: [at[n.site[0]], n.site[1]] for n in numbers if n.site}
    if claims:
        out["c"] = {c.id: [c.checked, c.holds, [list(e) for e in c.evidence],
                           [sat[source(src)] for src in c.sources], c.computation,
                           c.hypothesis, [list(w) for w in c.words]] for c in claims}
    return out


def prov_script(url: str, payload: Mapping) -> bytes:
    """The page's provenance script: it files `payload` under the page's URL in
    window.CIT_PROV (a classic script, so site.js can load it from file:// too)."""
    body = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return (f"/* Provenance of the numbers and definitions of the terms on {url}; "
            f"written by the build, read by site.js. */\n"
            f"(window.CIT_PROV=window.CIT_PROV||{{}})[{json.dumps(url)}]={body};\n").encode("utf-8")


def page_sheets(sheets: Mapping[str, tuple[str, ...] | None], features: set[str]) -> list[str]:
    """The stylesheets a page links: the base sheet first, then (by name) every other
    sheet that is for every page or whose `when:` selectors the page uses."""
    base = [n for n in sheets if n == BASE_SHEET]
    rest = sorted(n for n, when in sheets.items() if n != BASE_SHEET and (
        when is None or any(w in features for w in when)))
    return base + rest


@dataclass
class StaticAssets:
    """templates/static/ as the site ships it: `files` (site path -> bytes), `sheets`
    (stylesheet name -> what it needs a page to hold, None for every page), `names`
    (every file's name under static/)."""
    files: dict[str, bytes]
    sheets: dict[str, tuple[str, ...] | None]
    names: set[str]


def static_assets(templates_dir: Path, needs_plotly: bool, memo=compute_now,
                  bundle_root: Path | None = None, reads: Reads | None = None,
                  study_static: Path | None = None, palette_css: str = "") -> StaticAssets:
    """Read, minify and list templates/static/ and the study's `study_static` folder
    (and plotly.min.js when a chart needs it, from the project at `bundle_root`, default
    this code's), with `palette_css` (the study's colours, cit/palette.py) appended to
    the base sheet. The minified texts are made by `memo(name, key, compute)` under a
    key of their sources and this module's code (the build's memo keeps them in
    .cache/)."""
    origin: dict[str, str] = {}
    files = static_files(templates_dir, reads, study_static, origin)
    texts = {n: utf8(files[n], origin[n]) for n in sorted(files)
             if n.endswith((".css", ".js"))}
    base = f"static/{BASE_SHEET}"
    if palette_css and base in texts:
        texts[base] += "\n" + palette_css
    key = hashlib.sha256(Path(__file__).read_bytes() + json.dumps(texts).encode()).hexdigest()
    made = memo("static-assets", key, lambda: {n: _minified(n, t) for n, t in texts.items()})
    sheets: dict[str, tuple[str, ...] | None] = {}
    for name, (text, needs) in sorted(made.items()):
        files[name] = text.encode("utf-8")
        if name.endswith(".css"):
            sheets[name[len("static/"):]] = tuple(needs) if needs is not None else None
    if any(k.startswith(PROV_DIR + "/") for k in files):
        raise BuildError(f"templates/{PROV_DIR}", "this folder is the build's own "
                         "(each page's provenance script); remove it from templates/")
    if needs_plotly:
        files["static/" + PLOTLY] = plotly_js(bundle_root)
    return StaticAssets(files, sheets, {k[len("static/"):] for k in files})


def _minified(name: str, text: str) -> list:
    """[the file's text minified, what a stylesheet needs (sheet_needs; None for a
    script)]."""
    if name.endswith(".css"):
        return [minify_css(text), sheet_needs(text)]
    return [strip_js(text), None]


def page_scripts(layout_scripts, asked: list[tuple[str, bool]], names: set[str],
                 where: str) -> list[tuple[str, bool]]:
    """The scripts a page loads, in order: site.js, its layout's scripts (site.yaml's
    `layouts`, those templates/static holds), then those its
    blocks asked for (name, is-module), each once; plotly is asked for (so it is
    shipped) but not loaded: charts.js fetches it on a reader's reach. A block asking
    for a missing script fails, naming the page's content file."""
    scripts = [(n, False) for n in ("site.js", *layout_scripts) if n in names]
    for s in asked:
        if s[0] not in names:
            raise BuildError(where, f"a block asks for static/{s[0]}, which does not exist")
        if s[0] == PLOTLY:
            continue   # fetched by charts.js when a reader reaches for a chart
        if s not in scripts:
            scripts.append(s)
    return scripts


def link_stylesheets(html_text: str, sheets: Mapping[str, tuple[str, ...] | None],
                     root: str) -> str:
    """Put a page's stylesheets into its HTML, rendered once with `STYLESHEET_SLOT` as
    its one stylesheet: the page's features are read with the slot's line left out,
    and the line is repeated for each sheet the page needs (none: it goes)."""
    lines = html_text.split("\n")
    at = next(i for i, line in enumerate(lines) if STYLESHEET_SLOT in line)
    features = htmlscan.features("\n".join(lines[:at] + lines[at + 1:]))
    links = [lines[at].replace(STYLESHEET_SLOT, str(escape(f"{root}static/{n}")))
             for n in page_sheets(sheets, features)]
    return "\n".join(lines[:at] + links + lines[at + 1:])
