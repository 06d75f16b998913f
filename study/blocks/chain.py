"""The chain animation on the hub (docs/architecture.md, "Adding a block"): `content/chain.yaml` describes the
proposed system as data (lanes, blocks, edges, a provenance tag per block, the numbers
each block shows by registry id, and which path, E or E′, each piece belongs to).

This module validates that file (its schema: study/blocks/chainschema.py) and renders it as an inline SVG diagram
plus an HTML ordered list that says the same thing in words, with the numbers. The SVG
never carries a digit: numbers reach the page only as `<data>` elements in the list and
the per-path summaries, through the render stage's `num(id)`. `static/chain.js` adds the
E / E′ toggle and the moving packets; without it, both paths stay drawn and the list
describes both.

Text fields may reference numbers as `{registry.id}` (the number alone) or
`{registry.id|unit}` (the number followed by its registry unit).
"""

from __future__ import annotations

import html
import os
import re
from pathlib import Path
from typing import Callable

import yaml

from cit import yamlio
from cit.errors import BuildError
from cit.markup import drop_reason_marks, wrap_text
from cit.reads import Reads
from .chainschema import TAGS as TAG_ORDER, Chain, Edge, parse_chain
from cit.blocks.spec import BlockSpec

PAGE_TEXT = True     # its string literals reach pages (docs/claims.md, "Sentences the build finds")



PLACEHOLDER_RE = re.compile(r"\{([A-Za-z0-9_][A-Za-z0-9_.\-′]*)(\|unit)?\}")
DIGIT_RE = re.compile(r"\d")
# a checked claim at the end of a sentence, as in content Markdown (docs/claims.md)
CLAIM_TOKEN_RE = re.compile(r"\s*:c\[([^\]\n]*)\]([.!?;,:]*)")

# Layout constants, in SVG user units. The diagram scales with its container; these
# only fix proportions, so the output is the same on every build.
MARGIN = 16
BLOCK_W = 156
BLOCK_H = 84
GAP_X = 40
LANE_HEAD = 48      # room above a lane's blocks for its label and the feedback arc
LANE_FOOT = 20
LINE_H = 16
WRAP = 17           # characters per label line at the block's font size
ARC_RISE = 32       # control-point height of a feedback arc above the blocks
TAG_H = 18
CHAR_W = 6.6        # average advance of the edge labels' font, for centring


# ---------------------------------------------------------------- loading and checks

def _display(path: Path) -> str:
    """The path as errors show it: relative to the working directory when inside it."""
    try:
        return os.path.relpath(path) if not os.path.relpath(path).startswith("..") else str(path)
    except ValueError:
        return str(path)


def _node_line(root, loc) -> int:
    """The 1-based line of the YAML node at location `loc`, a key path (or its nearest
    existing ancestor), so an error can point at the line to fix."""
    node = root
    line = (root.start_mark.line + 1) if root is not None else 1
    for part in loc:
        nxt = None
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                if getattr(k, "value", None) == part:
                    nxt = v
                    line = k.start_mark.line + 1
                    break
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            if 0 <= part < len(node.value):
                nxt = node.value[part]
                line = nxt.start_mark.line + 1
        if nxt is None:
            break
        node = nxt
    return line


def _owner(raw, loc) -> str:
    """Which block or edge a location belongs to, in words, for error messages."""
    if len(loc) >= 2 and loc[0] in ("blocks", "edges", "paths", "lanes") and isinstance(loc[1], int):
        items = raw.get(loc[0]) if isinstance(raw, dict) else None
        item = items[loc[1]] if isinstance(items, list) and loc[1] < len(items) else None
        kind = {"blocks": "block", "edges": "edge", "paths": "path", "lanes": "lane"}[loc[0]]
        if isinstance(item, dict):
            if kind == "edge":
                return f"edge {item.get('from')!r} -> {item.get('to')!r}"
            if "id" in item:
                return f"{kind} {item['id']!r}"
        return f"{kind} number {loc[1] + 1}"
    return "top level"


class _Checker:
    """Collects the file's node tree so every semantic error can name a line."""

    def __init__(self, path: Path, root, raw):
        self.path, self.root, self.raw = path, root, raw

    def fail(self, loc, message: str):
        raise BuildError(f"{_display(self.path)}:{_node_line(self.root, loc)}",
                         f"{_owner(self.raw, loc)}: {message}")

    def where(self, loc) -> str:
        """`file:line (owner)` of the node at `loc`, for errors found while rendering."""
        return f"{_display(self.path)}:{_node_line(self.root, loc)} ({_owner(self.raw, loc)})"


def _check_text(ck: _Checker, loc, text: str, *, placeholders: bool):
    """Page text in the chain carries no digits; numbers come only from the registry."""
    rest = PLACEHOLDER_RE.sub("", text) if placeholders else text
    if placeholders:
        rest = drop_reason_marks(CLAIM_TOKEN_RE.sub("", rest))
    elif CLAIM_TOKEN_RE.search(text):
        ck.fail(loc, f"{loc[-1]}: claim references are not allowed here (the SVG shows "
                     f"no marks): {text!r}")
    if not placeholders and PLACEHOLDER_RE.search(text):
        ck.fail(loc, f"{loc[-1]}: number placeholders are not allowed here (the SVG "
                     f"shows no numbers): {text!r}")
    m = DIGIT_RE.search(rest)
    if m:
        ck.fail(loc, f"{loc[-1]}: a digit in page text ({text!r}); reference a registry "
                     "number as {id} instead")
    if "{" in rest or "}" in rest:
        ck.fail(loc, f"{loc[-1]}: a malformed number placeholder in {text!r}")


def load_chain(path: Path | str, reads: Reads | None = None) -> Chain:
    """Read (through `reads`, cit/reads.py) and validate content/chain.yaml. Bad input
    raises BuildError naming the file, the line and the block or edge."""
    return _load_checked(path, reads)[0]


def _without_reasons(node):
    """The chain's values with every reason mark `:x[key]` taken out: the sentence check
    reads them from the file (docs/claims.md); the reader never sees them."""
    if isinstance(node, dict):
        return {k: _without_reasons(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_without_reasons(v) for v in node]
    return drop_reason_marks(node) if isinstance(node, str) else node


def _load_checked(path: Path | str, reads: Reads | None = None) -> tuple[Chain, _Checker]:
    """The validated chain and the checker that still knows each node's line."""
    path = Path(path)
    reads = reads or Reads.beside(path)
    text = reads.maybe_text(path)
    if text is None:
        raise BuildError(_display(path), "cannot read the chain file: it is missing")
    try:
        root = yamlio.compose(text, _display(path))
        raw = yamlio.load(text, _display(path))
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = mark.line + 1 if mark else 1
        raise BuildError(f"{_display(path)}:{line}", f"not valid YAML: {e}") from None
    if not isinstance(raw, dict):
        raise BuildError(f"{_display(path)}:1", "the chain file must be a mapping")
    raw = _without_reasons(raw)
    ck = _Checker(path, root, raw)
    chain = parse_chain(raw, lambda loc: f"{_display(path)}:{_node_line(root, loc)}",
                        lambda loc: _owner(raw, loc))
    _check_texts(ck, chain)
    seen = _check_blocks(ck, chain)
    _check_edges(ck, chain, seen)
    _check_routes(ck, chain, seen)
    return chain, ck


def _check_texts(ck: _Checker, chain: Chain):
    """Titles, tags, path and lane labels: no digits, placeholders only where allowed."""
    paths = chain.path_ids()
    if len(set(paths)) != len(paths):
        ck.fail(("paths",), "a path id is declared twice")
    _check_text(ck, ("title",), chain.title, placeholders=False)
    _check_text(ck, ("description",), chain.description, placeholders=False)
    for tag, words in chain.tags.items():
        _check_text(ck, ("tags", tag), words, placeholders=False)
    for tag in TAG_ORDER:
        if tag not in chain.tags:
            ck.fail(("tags",), f"tags: no description for the tag {tag!r}")
    for i, p in enumerate(chain.paths):
        _check_text(ck, ("paths", i, "name"), p.name, placeholders=False)
        _check_text(ck, ("paths", i, "label"), p.label, placeholders=False)
        _check_text(ck, ("paths", i, "summary"), p.summary, placeholders=True)
    for i, ln in enumerate(chain.lanes):
        _check_text(ck, ("lanes", i, "label"), ln.label, placeholders=False)


def _check_blocks(ck: _Checker, chain: Chain) -> dict[str, int]:
    """Block ids unique, lanes and paths known, one block per lane column.
    Returns block id -> index."""
    paths = chain.path_ids()
    lanes = {ln.id for ln in chain.lanes}
    seen: dict[str, int] = {}
    slots: dict[tuple[str, int], str] = {}
    next_col: dict[str, int] = {}
    for i, b in enumerate(chain.blocks):
        if b.id in seen:
            ck.fail(("blocks", i, "id"), f"block id {b.id!r} is used twice")
        seen[b.id] = i
        if b.lane not in lanes:
            ck.fail(("blocks", i, "lane"), f"unknown lane {b.lane!r} (lanes: {sorted(lanes)})")
        for p in b.paths:
            if p not in paths:
                ck.fail(("blocks", i, "paths"), f"unknown path name {p!r} (paths: {paths})")
        col = b.col if b.col is not None else next_col.get(b.lane, 0)
        if (b.lane, col) in slots:
            ck.fail(("blocks", i, "col"), f"lane {b.lane!r} column {col} is already taken "
                                          f"by block {slots[(b.lane, col)]!r}")
        slots[(b.lane, col)] = b.id
        next_col[b.lane] = col + 1
        _check_text(ck, ("blocks", i, "label"), b.label, placeholders=False)
        _check_text(ck, ("blocks", i, "detail"), b.detail, placeholders=True)
    return seen


def _check_edges(ck: _Checker, chain: Chain, seen: dict[str, int]):
    """Each edge joins two known, different blocks that are on every path it carries."""
    paths = chain.path_ids()
    for j, e in enumerate(chain.edges):
        for end, name in (("from", e.source), ("to", e.to)):
            if name not in seen:
                ck.fail(("edges", j, end), f"{end}: unknown block {name!r}")
        for p in e.paths:
            if p not in paths:
                ck.fail(("edges", j, "paths"), f"unknown path name {p!r} (paths: {paths})")
            for end in (e.source, e.to):
                if p not in chain.block(end).paths:
                    ck.fail(("edges", j, "paths"), f"path {p!r} runs along this edge but "
                                                   f"block {end!r} is not on it")
        if e.source == e.to:
            ck.fail(("edges", j), "an edge from a block to itself")
        if e.kind == "feedback" and chain.block(e.source).lane != chain.block(e.to).lane:
            ck.fail(("edges", j, "kind"), "a feedback edge must stay within one lane")
        _check_text(ck, ("edges", j, "label"), e.label, placeholders=False)
        _check_text(ck, ("edges", j, "detail"), e.detail, placeholders=True)


def _check_routes(ck: _Checker, chain: Chain, seen: dict[str, int]):
    """Each path must be one unbroken chain of flow edges, so the packets have one route."""
    paths = chain.path_ids()
    for p in paths:
        members = [b.id for b in chain.blocks if p in b.paths]
        if not members:
            ck.fail(("paths", paths.index(p)), f"no block is on path {p!r}")
        outgoing: dict[str, str] = {}
        incoming: dict[str, str] = {}
        for j, e in enumerate(chain.edges):
            if e.kind != "flow" or p not in e.paths:
                continue
            if e.source in outgoing:
                ck.fail(("edges", j), f"path {p!r} leaves block {e.source!r} twice; a path "
                                      "must be a single chain")
            if e.to in incoming:
                ck.fail(("edges", j), f"path {p!r} enters block {e.to!r} twice; a path "
                                      "must be a single chain")
            outgoing[e.source] = e.to
            incoming[e.to] = e.source
        starts = [b for b in members if b not in incoming]
        if len(starts) != 1:
            ck.fail(("paths", paths.index(p)),
                    f"path {p!r} must have exactly one first block; found {starts}")
        walk, cur = [], starts[0]
        while cur is not None and cur not in walk:
            walk.append(cur)
            cur = outgoing.get(cur)
        if sorted(walk) != sorted(members):
            missing = sorted(set(members) - set(walk))
            ck.fail(("blocks", seen[missing[0]] if missing else 0),
                    f"path {p!r} does not reach block(s) {missing} from {starts[0]!r}")


def chain_number_ids(chain: Chain) -> list[str]:
    """Every registry id the chain shows, sorted (for the build's checks and the report)."""
    ids = set()
    texts = [b.detail for b in chain.blocks] + [e.detail for e in chain.edges]
    texts += [p.summary for p in chain.paths]
    for t in texts:
        ids.update(m.group(1) for m in PLACEHOLDER_RE.finditer(t))
    return sorted(ids)


# ---------------------------------------------------------------- layout

def _layout(chain: Chain):
    """Block rectangles: {block id: (x, y)} of the top-left corner, and the canvas size.
    Columns come from each block's `col` or its order within its lane."""
    cols: dict[str, int] = {}
    next_col: dict[str, int] = {}
    for b in chain.blocks:
        c = b.col if b.col is not None else next_col.get(b.lane, 0)
        cols[b.id] = c
        next_col[b.lane] = c + 1
    ncols = max(cols.values()) + 1
    lane_h = LANE_HEAD + BLOCK_H + LANE_FOOT
    lane_y = {ln.id: MARGIN + i * lane_h for i, ln in enumerate(chain.lanes)}
    reverse = {ln.id: ln.reverse for ln in chain.lanes}
    pos = {}
    for b in chain.blocks:
        c = cols[b.id]
        slot = (ncols - 1 - c) if reverse[b.lane] else c
        pos[b.id] = (MARGIN + slot * (BLOCK_W + GAP_X), lane_y[b.lane] + LANE_HEAD)
    width = 2 * MARGIN + ncols * BLOCK_W + (ncols - 1) * GAP_X
    height = 2 * MARGIN + len(chain.lanes) * lane_h
    return pos, lane_y, width, height


def _edge_geometry(chain: Chain, e: Edge, pos) -> tuple[str, tuple[float, float, str]]:
    """An edge's SVG path data and where its label goes: (x, y, "middle" or "start")."""
    (sx, sy), (tx, ty) = pos[e.source], pos[e.to]
    s_lane, t_lane = chain.block(e.source).lane, chain.block(e.to).lane
    if e.kind == "feedback":
        x1, x2, y = sx + BLOCK_W / 2, tx + BLOCK_W / 2, sy
        top = y - ARC_RISE
        d = f"M{x1:g},{y:g} C{x1:g},{top:g} {x2:g},{top:g} {x2:g},{y:g}"
        return d, ((x1 + x2) / 2, y - ARC_RISE * 0.75, "middle")
    if s_lane == t_lane:
        y = sy + BLOCK_H / 2
        if tx > sx:
            x1, x2 = sx + BLOCK_W, tx
        else:
            x1, x2 = sx, tx + BLOCK_W
        return f"M{x1:g},{y:g} L{x2:g},{y:g}", ((x1 + x2) / 2, y - 12, "middle")
    down = ty > sy
    x1, x2 = sx + BLOCK_W / 2, tx + BLOCK_W / 2
    y1 = sy + BLOCK_H if down else sy
    y2 = ty if down else ty + BLOCK_H
    if x1 == x2:
        return f"M{x1:g},{y1:g} L{x2:g},{y2:g}", (x1 + 8, (y1 + y2) / 2, "start")
    ym = (y1 + y2) / 2
    d = f"M{x1:g},{y1:g} C{x1:g},{ym:g} {x2:g},{ym:g} {x2:g},{y2:g}"
    return d, ((x1 + x2) / 2, ym - 6, "middle")


def _path_class(chain: Chain, paths: list[str]) -> str:
    """`path-both` for pieces on every path, else `path-<id>` for the one path."""
    if sorted(paths) == sorted(chain.path_ids()):
        return "path-both"
    return " ".join(f"path-{p}" for p in paths)


def _esc(s: str) -> str:
    """Escape text content. Quotes stay as they are: the chain never puts free text in an
    attribute, and a character reference such as &#x27; would put digits in the source."""
    return html.escape(s, quote=False)


# ---------------------------------------------------------------- rendering

def _fill(text: str, registry, num: Callable[[str], str], where: str, claim=None) -> str:
    """Escape text and replace each `{id}` with the number's `<data>` element; a
    sentence ending in `:c[id]` (or `:c[id|hypothesis]`) is wrapped and marked as a
    checked claim, looked up by `claim(id, marked, where)` (cit/claims.py)."""
    from cit.claimrefs import SENTENCE_END_RE
    from cit.claims import mark_html, open_html, parse_reference
    text = drop_reason_marks(text)
    out, last = [], 0
    for m in CLAIM_TOKEN_RE.finditer(text):
        parsed = parse_reference(m.group(1))
        if parsed is None:
            raise BuildError(where, f"malformed or misplaced claim reference {m.group(0).strip()!r}")
        if claim is None:     # a sentence is never shown with its claim unchecked
            raise BuildError(where, f"claim reference ':c[{m.group(1)}]' with no claims "
                             "to check it against (render_chain needs `claim`)")
        head = text[last:m.start()]
        ends = list(SENTENCE_END_RE.finditer(head))
        cut = ends[-1].end() if ends else 0
        c = claim(parsed[0], parsed[1], where)
        out.append(_fill_numbers(head[:cut], registry, num, where) + open_html(c)
                   + _fill_numbers(head[cut:], registry, num, where) + _esc(m.group(2))
                   + mark_html(c))
        last = m.end()
    out.append(_fill_numbers(text[last:], registry, num, where))
    return "".join(out)


def _fill_numbers(text: str, registry, num: Callable[[str], str], where: str) -> str:
    """Escape text and replace each `{id}` with the number's `<data>` element."""
    out, last = [], 0
    for m in PLACEHOLDER_RE.finditer(text):
        out.append(_esc(text[last:m.start()]))
        nid = m.group(1)
        number = registry.get(nid, where)
        frag = num(nid)
        if m.group(2) and number.unit and not number.text.endswith(number.unit):
            tail = frag.rsplit("</data>", 1)[-1]
            if number.unit not in tail:
                frag += f'\u00a0<span class="unit">{_esc(number.unit)}</span>'
        out.append(frag)
        last = m.end()
    out.append(_esc(text[last:]))
    return "".join(out)


def _svg(chain: Chain) -> str:
    pos, lane_y, width, height = _layout(chain)
    out = [f'<svg class="chain-svg" viewBox="0 0 {width} {height}" '
           f'xmlns="http://www.w3.org/2000/svg" role="img" '
           f'aria-labelledby="chain-svg-title chain-svg-desc">',
           f'<title id="chain-svg-title">{_esc(chain.title)}</title>',
           f'<desc id="chain-svg-desc">{_esc(chain.description)}</desc>',
           '<defs>']
    for cls in ["both"] + chain.path_ids():
        out.append(f'<marker id="chain-arrow-{cls}" viewBox="0 0 10 10" refX="9" refY="5" '
                   f'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
                   f'<path class="chain-arrowhead path-{cls}" d="M0,0 L10,5 L0,10 z"/></marker>')
    out.append('</defs>')

    out.append('<g class="chain-lanes">')
    for i, ln in enumerate(chain.lanes):
        y = lane_y[ln.id]
        if i:
            out.append(f'<line class="chain-lane-rule" x1="{MARGIN}" y1="{y}" '
                       f'x2="{width - MARGIN}" y2="{y}"/>')
        out.append(f'<text class="chain-lane-label" x="{MARGIN}" y="{y + 16}">{_esc(ln.label)}</text>')
    out.append('</g>')

    out.append('<g class="chain-edges">')
    labels = []
    for e in chain.edges:
        d, (lx, ly, align) = _edge_geometry(chain, e, pos)
        pcls = _path_class(chain, e.paths)
        marker = "both" if pcls == "path-both" else e.paths[0]
        eid = f"chain-edge-{e.source}-{e.to}"
        out.append(f'<path id="{eid}" class="chain-edge chain-edge-{e.kind} {pcls}" '
                   f'data-path="{" ".join(e.paths)}" data-kind="{e.kind}" '
                   f'data-from="{e.source}" data-to="{e.to}" d="{d}" '
                   f'marker-end="url(#chain-arrow-{marker})"/>')
        if e.label:
            labels.append(_edge_label(e, pcls, lx, ly, align))
    out.append('</g>')

    out.append('<g class="chain-blocks">')
    for b in chain.blocks:
        x, y = pos[b.id]
        pcls = _path_class(chain, b.paths)
        out.append(f'<g class="chain-block tag-{b.tag} {pcls}" data-block="{b.id}" '
                   f'data-path="{" ".join(b.paths)}">')
        out.append(f'<rect class="chain-box" x="{x}" y="{y}" width="{BLOCK_W}" '
                   f'height="{BLOCK_H}" rx="8"/>')
        lines = wrap_text(b.label, WRAP)
        text_block = len(lines) * LINE_H
        avail = BLOCK_H - TAG_H - 8
        ty = y + (avail - text_block) / 2 + LINE_H - 3
        out.append(f'<text class="chain-label" x="{x + BLOCK_W / 2:g}" y="{ty:g}" '
                   f'text-anchor="middle">')
        for k, line in enumerate(lines):
            dy = "0" if k == 0 else str(LINE_H)
            out.append(f'<tspan x="{x + BLOCK_W / 2:g}" dy="{dy}">{_esc(line)}</tspan>')
        out.append('</text>')
        out.append(_tag_svg(b.tag, x + BLOCK_W / 2, y + BLOCK_H - TAG_H - 6))
        out.append('</g>')
    out.append('</g>')
    out.append('<g class="chain-labels">' + "".join(labels) + '</g>')
    out.append('<g class="chain-packets" aria-hidden="true"></g>')
    out.append('</svg>')
    return "\n".join(out)


def _edge_label(e: Edge, pcls: str, lx: float, ly: float, align: str) -> str:
    """An edge's label centred on (lx, ly), with its tag pill to the right when it has one.
    Widths are estimates (SVG cannot measure text here); the halo keeps it legible."""
    text_w = round(CHAR_W * len(e.label))
    pill_w = _pill_w(e.tag) if e.tag else 0
    total = text_w + (8 + pill_w if e.tag else 0)
    x0 = lx if align == "start" else lx - total / 2
    parts = [f'<g class="chain-edge-label {pcls}" data-path="{" ".join(e.paths)}">',
             f'<text x="{x0:g}" y="{ly + 4:g}">{_esc(e.label)}</text>']
    if e.tag:
        parts.append(_tag_svg(e.tag, x0 + text_w + 8 + pill_w / 2, ly - TAG_H / 2))
    parts.append('</g>')
    return "".join(parts)


def _pill_w(tag: str) -> int:
    return 7 * len(tag) + 16


def _tag_svg(tag: str, cx: float, top: float) -> str:
    """A provenance tag pill, centred at cx; the word itself is the information."""
    w = _pill_w(tag)
    return (f'<g class="chain-tag tag-{tag}"><rect x="{cx - w / 2:g}" y="{top:g}" '
            f'width="{w}" height="{TAG_H}" rx="9"/>'
            f'<text x="{cx:g}" y="{top + 13:g}" text-anchor="middle">{tag}</text></g>')


def render_chain(registry, chain_yaml_path, num: Callable[[str], str],
                 reads: Reads | None = None, claim=None) -> str:
    """The `@[chain]` block: controls (shown by chain.js), the SVG, the tag legend, a
    summary per path and an ordered list of the steps with their numbers. `num(id)`
    returns a registered number's `<data>` HTML and records that the page shows it; an
    unknown id raises BuildError naming chain.yaml, the line and the block. `claim(id,
    marked, where)`: the checked claim a text's `:c[id]` cites (PageContext.claim)."""
    chain, ck = _load_checked(chain_yaml_path, reads)
    where = ck.where

    names = {p.id: p.name for p in chain.paths}
    first = chain.paths[0].id
    out = [f'<figure class="chain" data-active="{first}" data-paths="{" ".join(chain.path_ids())}">']

    out.append('<div class="chain-controls" hidden>')
    out.append('<fieldset class="chain-toggle"><legend>Path shown</legend>')
    for p in chain.paths:
        checked = " checked" if p.id == first else ""
        out.append(f'<label class="path-{p.id}"><input type="radio" name="chain-path" '  # :x[label]
                   f'value="{p.id}"{checked}> <span class="chain-path-name">{_esc(p.name)}</span> '
                   f'{_esc(p.label)}</label>')
    out.append('</fieldset>')
    out.append('<button type="button" class="chain-pause" aria-pressed="false">'
               'Pause the packets</button>')
    out.append('</div>')

    # focusable and named: on a phone the drawing scrolls sideways, by keyboard too
    out.append('<div class="chain-canvas" tabindex="0" role="region" '
               'aria-label="The chain, drawn (scrolls sideways on a narrow screen)">')
    out.append(_svg(chain))
    out.append('</div>')

    out.append('<ul class="chain-legend" aria-label="Provenance tags">')
    for tag in TAG_ORDER:
        out.append(f'<li><span class="chain-tag-pill tag-{tag}">{tag}</span> '  # :x[label]
                   f'{_esc(chain.tags[tag])}</li>')
    out.append('</ul>')

    for i, p in enumerate(chain.paths):
        if p.summary:
            body = _fill(p.summary, registry, num, where(("paths", i, "summary")), claim)
            out.append(f'<p class="chain-summary path-{p.id}" data-path="{p.id}">'  # :x[label]
                       f'<strong class="chain-path-name">{_esc(p.name)}</strong>: '
                       f'{_esc(p.label)}. {body}</p>')

    out.append('<ol class="chain-steps">')
    items = [(("blocks", i), b.label, b.tag, b.paths, b.detail, f"chain-step-{b.id}")
             for i, b in enumerate(chain.blocks)]
    items += [(("edges", j), e.label, e.tag, e.paths, e.detail,
               f"chain-step-{e.source}-{e.to}")
              for j, e in enumerate(chain.edges) if e.detail]
    for loc, label, tag, paths, detail, sid in items:
        pcls = _path_class(chain, paths)
        only = ""
        if pcls != "path-both":
            only = (' <span class="chain-only">only on '  # :x[label]
                    + " and ".join(_esc(names[p]) for p in paths) + '</span>')
        tag_html = f' <span class="chain-tag-pill tag-{tag}">{tag}</span>' if tag else ""
        body = _fill(detail, registry, num, where(loc + ("detail",)), claim)
        out.append(f'<li id="{sid}" class="{pcls}" data-path="{" ".join(paths)}">'  # :x[label]
                   f'<strong>{_esc(label[:1].upper() + label[1:])}</strong>{tag_html}{only} {body}</li>')
    out.append('</ol>')
    out.append('</figure>')
    return "\n".join(out)


def chain_blocks(inputs) -> dict[str, BlockSpec]:
    """`@[chain]`, the hub's chain animation drawn from content/chain.yaml (a
    cit.blocks.BlockInputs gives the folder), which loads static/chain.js on its page."""
    registry, chain_yaml = inputs.registry, Path(inputs.content_dir) / "chain.yaml"

    def chain_block(ctx) -> str:
        ctx.add_script("chain.js")
        return render_chain(registry, chain_yaml, ctx.num, getattr(ctx.site, "reads", None),
                            claim=lambda cid, marked, where: ctx.claim(cid, marked, where=where))

    return {"chain": BlockSpec(chain_block)}
