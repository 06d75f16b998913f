"""The no-naked-numbers check (docs/numbers.md, "In content").

Every digit a reader can see on a rendered page (text, and the alt / title /
aria-label / placeholder attributes and the meta description, title and image text of
link previews, TEXT_META) must be either

- inside a `<data class="num">` element, i.e. a registered number (when the registry's
  numbers are given, its value, kind and text are checked against the entry), or
- the text of a registered number inside a figure's mark (`<g class="fig-mark"
  data-id=…>`, cit/svgplot.py): the mark must show its number's text; the rest of the
  mark's text is checked like page text, or
- a value cell of a chart's fallback table (a `<table data-fx=… data-fy=…>`: its column
  headers name their series with `data-series`, row i holds point i, the row header
  shows x and each cell y, followed by the lowest and highest seed in brackets when the
  table has `data-range` and they differ); each cell's text must equal the registry
  series' value formatted as the table says (checked when the registry's series are
  given), or
- matched by an entry of the one allow-list file, `data/allowlist.yaml` (structural
  numerals such as "2-D" or "size 8"; an entry may be limited to text inside an
  element with a class or tag).

Text inside `<script>` and `<style>` is not visible and is not checked (the JSON there
is generated from the registry), except a chart's words: the legend names, axis and
legend titles and annotations in each `<script id="fig-...">` figure are checked like
page text. Anything else that contains a digit is a failure that
names the page and shows the text around it.
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from . import yamlio
from .htmlscan import walk
from .markup import kind_attribute
from .fieldcheck import FieldRule, check_fields
from .reads import Reads

from .errors import BuildError
from .fmt import SERIES_FORMATS, series_cell, series_text

ALLOWLIST_PATH = Path(__file__).resolve().parent.parent / "data" / "allowlist.yaml"
MAX_ENTRIES = 40
CHECKED_ATTRS = ("alt", "title", "aria-label", "aria-description", "placeholder")
# the meta elements whose content a reader sees (a search result, a link preview)
TEXT_META = {"description", "og:title", "og:description", "og:site_name", "og:image:alt",
             "twitter:title", "twitter:description", "twitter:image:alt"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
        "source", "track", "wbr"}
INLINE = {"a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "dfn", "em", "i", "kbd",
          "mark", "q", "s", "samp", "small", "span", "strong", "sub", "sup", "time", "u",
          "var", "del", "ins"}
SEP = "\n"          # between block elements, so patterns never join two blocks
HOLE = "\ufffc"     # where an exempt element's text was
DIGITS_RE = re.compile(r"\d+")


def digit_runs(text: str) -> re.Pattern:
    """The digit runs of `text`: `\\d` (Unicode decimal digits, every script's) and every
    other character Unicode gives a numeric value that the text holds: superscripts and
    subscripts, vulgar fractions, circled digits, Roman numerals, CJK numerals (categories
    No and Nl, and numeric letters). Built per text from the characters present, so an
    all-ASCII page costs nothing more."""
    extra = "".join(sorted(c for c in set(text)
                           if not c.isascii() and c.isnumeric() and not c.isdecimal()))
    return re.compile(rf"[\d{re.escape(extra)}]+") if extra else DIGITS_RE


# How a chart's fallback table formats its values, by the name the table gives in
# data-fx / data-fy; cit/blocks/charts.py formats with these too.


@dataclass(frozen=True)
class AllowEntry:
    pattern: re.Pattern
    reason: str
    within: str | None


ALLOW_ENTRY_RULES = {"pattern": FieldRule(str), "reason": FieldRule(str),
                     "within": FieldRule(str, required=False, nullable=True)}


def load_allowlist(path: Path | str = ALLOWLIST_PATH, reads: Reads | None = None
                   ) -> list[AllowEntry]:
    """Read (through `reads`, cit/reads.py) and validate the allow-list; more than
    MAX_ENTRIES entries is an error."""
    path = Path(path)
    reads = reads or Reads.beside(path)
    name = reads.rel(path)
    out = []
    for line, raw in yamlio.entries(reads.text(path), name):
        check_fields(raw, ALLOW_ENTRY_RULES, lambda key: f"{name}:{line}", "allow-list entry")
        try:
            pat = re.compile(raw["pattern"])
        except re.error as e:
            raise BuildError(f"{name}:{line}", f"bad regex {raw['pattern']!r}: {e}") from None
        if not raw["reason"].strip():
            raise BuildError(f"{name}:{line}", "every allow-list entry needs a reason")
        out.append(AllowEntry(pat, raw["reason"], raw.get("within")))
    if len(out) > MAX_ENTRIES:
        raise BuildError(name, f"{len(out)} allow-list entries; at most {MAX_ENTRIES}")
    return out


@dataclass
class _ChartTable:
    """Where the scanner is inside a chart's fallback table."""
    fx: str
    fy: str
    ranged: bool
    columns: list = None      # series id per value column
    section: str = ""         # thead | tbody
    row: int = -1
    col: int = -1
    cell: list | None = None  # text of the open cell


class _Scanner:
    """Collects a page's visible text as parts: (text, selectors in force), SEP or HOLE."""

    def __init__(self, page: str, numbers, series):
        self.page = page
        self.numbers = numbers
        self.series = series
        # (tag, the selectors in force inside it: its own and its ancestors')
        self.stack: list[tuple[str, frozenset[str]]] = []
        self.parts: list = []
        self.problems: list[str] = []
        self.skip = 0             # depth inside script/style
        self.exempt = 0           # depth inside an exempt data element
        self.exempt_text: list[str] = []
        self.exempt_attrs: dict = {}
        self.figure: list[str] | None = None
        self.chart: _ChartTable | None = None
        # (selectors in force, tag, class attribute) -> the selectors inside the tag:
        # a long table repeats a few shapes thousands of times
        self.inner_selectors: dict = {}

    def _selectors(self, extra=frozenset()) -> frozenset[str]:
        inside = self.stack[-1][1] if self.stack else frozenset()
        return inside | extra if extra else inside

    def _selectors_inside(self, tag: str, class_attr: str) -> frozenset[str]:
        inside = self._selectors()
        key = (inside, tag, class_attr)
        sel = self.inner_selectors.get(key)
        if sel is None:
            sel = inside | frozenset([tag] + ["." + c for c in class_attr.split()])
            self.inner_selectors[key] = sel
        return sel

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        sel = self._selectors_inside(tag, a.get("class") or "")
        if tag not in INLINE:
            self.parts.append(SEP)
        if self.exempt:
            if tag not in VOID:
                self.stack.append((tag, sel))
            return
        for name in CHECKED_ATTRS:
            if a.get(name):
                self.parts.extend([SEP, (a[name], sel), SEP])
        if tag == "meta" and a.get("content") and (
                a.get("name") or a.get("property") or "").lower() in TEXT_META:
            self.parts.extend([SEP, (a["content"], sel), SEP])
        if tag in VOID:
            return
        self.stack.append((tag, sel))
        if tag == "table" and "data-fx" in a:
            self._open_chart_table(a)
        elif self.chart is not None:
            self._chart_tag(tag, a)
        if tag in ("script", "style"):
            self.skip += 1
            if tag == "script" and a.get("type") == "application/json" and \
                    (a.get("id") or "").startswith("fig-"):
                self.figure = []
        elif (tag == "data" and "num" in classes) or ("fig-mark" in classes and "data-id" in a):
            self.exempt = len(self.stack)
            self.exempt_text = []
            self.exempt_attrs = dict(a, **{"cit-mark": tag != "data"})

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        # tolerate unclosed inline elements: pop to the matching tag
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                depth = i + 1
                if self.exempt and depth == self.exempt:
                    self._close_exempt()
                if self.chart is not None and tag in ("th", "td", "tr", "table"):
                    self._close_cell()
                    if tag == "table":
                        self._close_chart_table()
                if tag in ("script", "style"):
                    self.skip = max(0, self.skip - 1)
                    if self.figure is not None:
                        self._figure_labels("".join(self.figure))
                        self.figure = None
                del self.stack[i:]
                break
        if tag not in INLINE:
            self.parts.append(SEP)

    def handle_data(self, data):
        if self.skip:
            if self.figure is not None:
                self.figure.append(data)
            return
        if self.exempt:
            self.exempt_text.append(data)
            return
        if self.chart is not None and self.chart.cell is not None:
            self.chart.cell.append(data)
            return
        self.parts.append((data, self._selectors()))

    def _figure_labels(self, text: str) -> None:
        """A chart's visible words (legend names, axis and legend titles, annotations)
        are page text too, though they sit in the figure's JSON."""
        try:
            fig = json.loads(text)
        except ValueError:
            self.problems.append(f"{self.page}: a chart's figure JSON does not parse")
            return
        labels = [t.get("name") for t in fig.get("data", ()) if t.get("showlegend", True)]
        layout = fig.get("layout", {})
        for key, axis in sorted(layout.items()):
            if key.startswith(("xaxis", "yaxis")) or key in ("title", "legend"):
                title = axis.get("title") if isinstance(axis, dict) else None
                labels.append(title.get("text") if isinstance(title, dict) else title)
        labels += [a.get("text") for a in layout.get("annotations", ())]
        sel = self._selectors(frozenset({".chart-label"}))
        for label in labels:
            if isinstance(label, str) and label:
                self.parts.extend([SEP, (re.sub(r"<br\s*/?>", " ", label), sel), SEP])

    def _close_exempt(self):
        a = self.exempt_attrs
        text = "".join(self.exempt_text)
        self.exempt = 0
        if a["cit-mark"]:
            self._close_mark(a, text)
            return
        self.parts.append(HOLE)
        self._check_num(a, text)

    def _close_mark(self, a, text):
        """A figure's mark (cit/svgplot.py): its text (its title, and any label) must
        show its number's text; every occurrence of it is exempt, the rest is page text.
        Its raw value is in data-value."""
        nid = a.get("data-id")
        if not nid:
            self.problems.append(f"{self.page}: figure mark without data-id: {text!r}")
            return
        if self.numbers is None:
            self.parts.append(HOLE)
            return
        n = self.numbers.get(nid)
        if n is None:
            self.problems.append(f"{self.page}: figure mark for unknown id {nid!r}")
            return
        shown = n.text
        if shown not in text:
            self.problems.append(f"{self.page}: figure mark {nid!r} does not show its text "
                                 f"{shown!r}: {text.strip()!r}")
        rest = text.split(shown) if shown else [text]
        sel = self._selectors(frozenset({".fig-mark"}))
        for k, part in enumerate(rest):
            if k:
                self.parts.append(HOLE)
            self.parts.extend([SEP, (part, sel), SEP])
        if (a.get("data-value"), a.get("data-kind")) != (n.raw(), n.kind):
            self.problems.append(
                f"{self.page}: figure mark {nid!r} has value {a.get('data-value')!r}, kind "
                f"{a.get('data-kind')!r}; the registry has {n.raw()!r}, {n.kind!r}")

    def _check_num(self, a, text):
        nid = a.get("data-id")
        if not nid:
            self.problems.append(f"{self.page}: number element without data-id: {text!r}")
            return
        if self.numbers is None:
            return
        n = self.numbers.get(nid)
        if n is None:
            self.problems.append(f"{self.page}: number element for unknown id {nid!r}")
        elif (text, a.get("value"), a.get("data-kind")) != (n.text, n.raw(),
                                                             kind_attribute(n.kind)):
            self.problems.append(
                f"{self.page}: number {nid!r} shows {text!r} (value {a.get('value')!r}, "
                f"data-kind {a.get('data-kind')!r}); the registry has {n.text!r} "
                f"(value {n.raw()!r}, data-kind {kind_attribute(n.kind)!r} for kind "
                f"{n.kind!r})")

    # ---- a chart's fallback table

    def _open_chart_table(self, a):
        fx, fy = a.get("data-fx"), a.get("data-fy")
        for name in (fx, fy):
            if name not in SERIES_FORMATS:
                self.problems.append(f"{self.page}: chart table format {name!r} is not one of "
                                     f"{sorted(SERIES_FORMATS)}")
        self.chart = _ChartTable(fx, fy, "data-range" in a, [])

    def _chart_tag(self, tag, a):
        t = self.chart
        if tag in ("thead", "tbody"):
            t.section = tag
        elif tag == "tr" and t.section == "tbody":
            self._close_cell()
            t.row, t.col = t.row + 1, -1
        elif tag == "th" and t.section == "thead" and a.get("data-series") is not None:
            sid = a["data-series"]
            if self.series is not None and sid not in self.series:
                self.problems.append(f"{self.page}: chart table column for unknown series {sid!r}")
            t.columns.append(sid)
        elif tag in ("th", "td") and t.section == "tbody":
            self._close_cell()
            t.col += 1
            t.cell = []

    def _close_cell(self):
        t = self.chart
        if t.cell is None:
            return
        text, t.cell = "".join(t.cell).strip(), None
        self.parts.append(HOLE)
        where = f"{self.page}: chart table row {t.row + 1}"
        if t.col > len(t.columns) or not t.columns:
            self.problems.append(f"{where}: value {text!r} in a column that names no series")
            return
        if self.series is None:
            return
        sids = t.columns if t.col == 0 else [t.columns[t.col - 1]]
        for sid in sids:
            s = self.series.get(sid)
            if s is None or t.fx not in SERIES_FORMATS or t.fy not in SERIES_FORMATS:
                continue  # reported when the column or table opened
            if t.row >= len(s.x):
                self.problems.append(f"{where}: series {sid!r} has only {len(s.x)} points")
                continue
            want = (series_text(s.x[t.row], t.fx) if t.col == 0
                    else series_cell(s, t.row, t.fy, t.ranged))
            if text != want:
                axis = "x" if t.col == 0 else "y"
                self.problems.append(f"{where}: {text!r} is not series {sid!r} at point "
                                     f"{t.row} ({axis}), which shows as {want!r}")

    def _close_chart_table(self):
        t, self.chart = self.chart, None
        if self.series is None:
            return
        for sid in t.columns:
            s = self.series.get(sid)
            if s is not None and t.row + 1 != len(s.x):
                self.problems.append(f"{self.page}: chart table shows {t.row + 1} of the "
                                     f"{len(s.x)} points of series {sid!r}")


def _matches(entry: AllowEntry, selectors: frozenset[str]) -> bool:
    return entry.within is None or entry.within in selectors


MARK_RE = re.compile(r"[:@][a-z]*\[[^\]]*\]")     # :n[id], @[chart:x]: not the reader's digits
WORD_RE = re.compile(r"[^\W\d_]{3,}")


def source_line(source: str, digits: str, before: str, after: str) -> int | None:
    """The line (1-based) of the content file text `source` that most likely wrote the
    naked `digits` seen between `before` and `after` on the page: of the lines holding
    that digit run outside a mark, the one sharing most words with the text around it
    (the first on a tie); None when no line holds it (a block or a template wrote it)."""
    run = re.compile(rf"(?<!\d){re.escape(digits)}(?!\d)")
    near = set(WORD_RE.findall(before)[-3:] + WORD_RE.findall(after)[:3])
    best, best_score = None, -1
    for n, line in enumerate(source.splitlines(), 1):
        bare = MARK_RE.sub(" ", line)
        if run.search(bare):
            score = len(near & set(WORD_RE.findall(bare)))
            if score > best_score:
                best, best_score = n, score
    return best


def scan_page(page: str, html_text: str, allowlist: list[AllowEntry], *,
              numbers: Mapping | None = None, series: Mapping | None = None,
              source: tuple[str, str] | None = None) -> list[str]:
    """Failures for one page (see the module docstring); with `source` (the content
    file's path and text), each naked digit run is named at its line there too."""
    sc = _Scanner(page, numbers, series)
    walk(html_text, sc)
    text_parts: list[str] = []
    allowed: list[tuple[int, int]] = []     # spans of the text an entry allows
    offset = 0
    limited = [e for e in allowlist if e.within is not None]
    digits = digit_runs("".join(p[0] if isinstance(p, tuple) else p for p in sc.parts))
    for p in sc.parts:
        t, sel = p if isinstance(p, tuple) else (p, None)
        if sel is not None and limited and digits.search(t):   # only digits need allowing
            for e in limited:
                if _matches(e, sel):
                    allowed.extend((offset + m.start(), offset + m.end())
                                   for m in e.pattern.finditer(t))
        text_parts.append(t)
        offset += len(t)
    text = "".join(text_parts)
    for e in allowlist:
        if e.within is None:
            allowed.extend(m.span() for m in e.pattern.finditer(text))
    covered = _merged(allowed)
    starts = [a for a, _ in covered]
    failures = list(sc.problems)
    for m in digits.finditer(text):
        k = bisect.bisect_right(starts, m.start()) - 1
        if k >= 0 and covered[k][1] >= m.end():
            continue
        lo, hi = max(0, m.start() - 40), min(len(text), m.end() + 40)
        excerpt = " ".join(text[lo:hi].replace(HOLE, "[n]").split())
        line = source and source_line(source[1], m.group(), text[lo:m.start()], text[m.end():hi])
        at = f"{source[0]}:{line} ({page})" if line else page
        failures.append(f"{at}: naked number {m.group()!r} in “{excerpt}”")
    return failures


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The union of half-open spans as sorted, disjoint, non-touching spans: a digit run
    is allowed when one of them holds it whole."""
    out: list[list[int]] = []
    for a, b in sorted(spans):
        if b <= a:
            continue
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


@dataclass(frozen=True)
class NakedReport:
    """What the check found over a whole site."""
    failures: tuple[str, ...]
    allowlist_size: int
    pages_checked: int

    @property
    def ok(self) -> bool:
        return not self.failures


def check_pages(files: Mapping[str, bytes], *, numbers: Mapping | None = None,
                series: Mapping | None = None, allowlist: list[AllowEntry] | None = None,
                sources: Mapping[str, tuple[str, str]] | None = None) -> list[str]:
    """Failures over every `.html` file in `files` (relative path -> bytes).

    Give `numbers` (registry.numbers) to also check each number element against its
    entry, `series` (registry.series) to check each chart fallback value, and
    `sources` (page -> its content file's path and text) to name each naked number's
    line in the Markdown."""
    entries = load_allowlist() if allowlist is None else allowlist
    pages = sorted(p for p in files if p.endswith(".html"))
    found = scan_pages(files, pages, entries, numbers=numbers, series=series, sources=sources)
    return [f for p in pages for f in found[p]]


def scan_pages(files: Mapping[str, bytes], paths, entries: list[AllowEntry], *,
               numbers: Mapping | None = None, series: Mapping | None = None,
               sources: Mapping[str, tuple[str, str]] | None = None) -> dict:
    """{path: its failures} for each of `paths` in `files` (see scan_page)."""
    return {p: scan_page(p, files[p].decode("utf-8"), entries, numbers=numbers, series=series,
                         source=(sources or {}).get(p)) for p in paths}


def report(files: Mapping[str, bytes], *, numbers=None, series=None,
           allowlist_path: Path | str = ALLOWLIST_PATH) -> NakedReport:
    """Run the check and say how big the allow-list is."""
    entries = load_allowlist(allowlist_path)
    fails = check_pages(files, numbers=numbers, series=series, allowlist=entries)
    pages = sum(1 for p in files if p.endswith(".html"))
    return NakedReport(tuple(fails), len(entries), pages)
