"""Check an upstream results.md against our recomputation, character for character
(docs/experiment-tables.md, "The comparison"), and count coverage: every digit run in the file must be
accounted for by a compared table cell, a compared row label, a section ordinal, or a
prose number matched to a named quantity.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cit.errors import BuildError
from cit.pipetable import read_table
from .tables import ResultsDoc, NumbersOnly, Quantity

DIGITS = re.compile(r"\d+")
# A number token in prose: optional letter prefix (BF16, int64, x86_64), digits with
# separators, decimals, an exponent, +suffixes (2.11.0+cu130), a trailing x (2.5x).
TOKEN = re.compile(r"[A-Za-z]*\d+(?:,\d{3})*(?:\.\d+)*(?:[eE]-?\d+)?(?:[+_][A-Za-z0-9]+)*x?")
HEADING = re.compile(r"^(#+)\s+(\d+)\.\s")


@dataclass
class ParsedResultsMd:
    prose: list[tuple[int, str]]                 # (line number, text) of non-table lines
    headings: list[tuple[int, str, int]]         # (line, text, ordinal) of numbered headings
    tables: list[tuple[str, int, list[str], list[tuple[int, list[str]]]]]
    # (section, header line, header cells, [(line, cells)])


def parse_results_md(text: str) -> ParsedResultsMd:
    """Split a results.md into prose lines, numbered headings and pipe tables."""
    lines = text.split("\n")
    prose, headings, tables = [], [], []
    section = "top"  # before any numbered heading
    i = 0
    while i < len(lines):
        line = lines[i]
        m = HEADING.match(line)
        if m:
            section = f"§{m.group(2)}"
            headings.append((i + 1, line, int(m.group(2))))
            i += 1
            continue
        if line.startswith("|"):
            header, body, after = read_table(lines, i)
            tables.append((section, i + 1, header, body))
            i = after
            continue
        prose.append((i + 1, line))
        i += 1
    return ParsedResultsMd(prose, headings, tables)


def digit_runs(s: str) -> int:
    return len(DIGITS.findall(s))


@dataclass
class Checked:
    verified: int               # digit runs accounted for
    total: int                  # digit runs in the file
    locators: dict[str, str]    # quantity id -> where in the file it was compared


def check(doc: ResultsDoc, text: str, name: str = "results.md") -> Checked:
    """Compare; raise BuildError on the first difference or on incomplete coverage."""
    p = parse_results_md(text)
    total = digit_runs(text)
    verified = 0
    locators = {}

    for n, (line, _text, ordinal) in enumerate(p.headings, start=1):
        if ordinal != n:
            raise BuildError(f"{name}:{line}", f"section numbered {ordinal}, expected {n}")
        verified += 1

    if len(p.tables) != len(doc.tables):
        raise BuildError(name, f"{len(p.tables)} tables, recomputed {len(doc.tables)}")
    for (section, hline, header, body), t in zip(p.tables, doc.tables):
        if section != t.section:
            raise BuildError(f"{name}:{hline}", f"table in {section}, recomputed in {t.section}")
        if header != t.columns:
            raise BuildError(f"{name}:{hline}", f"{section} header {header}, recomputed {t.columns}")
        verified += sum(digit_runs(h) for h in header)
        if len(body) != len(t.rows):
            raise BuildError(f"{name} {section}", f"{len(body)} rows, recomputed {len(t.rows)}")
        for (line, cells), row in zip(body, t.rows):
            if len(cells) != len(row):
                raise BuildError(f"{name}:{line}", f"{len(cells)} cells, recomputed {len(row)}")
            label = " / ".join(cells[:t.label_cols])
            for col, cell, want in zip(t.columns, cells, row):
                if isinstance(want, NumbersOnly):
                    got = tuple(TOKEN.findall(cell))
                    if got != want.numbers:
                        raise BuildError(f"{name} {section} row \"{label}\" col \"{col}\"",
                                         f"numbers {list(got)}, recomputed from "
                                         f"{want.file}: {list(want.numbers)}")
                    verified += digit_runs(cell)
                    continue
                expected = want.text if isinstance(want, Quantity) else want
                if cell != expected:
                    raise BuildError(f"{name} {section} row \"{label}\" col \"{col}\"",
                                     f"expected \"{cell}\", recomputed \"{expected}\"")
                if isinstance(want, Quantity):
                    locators[want.id] = (f"{name} {section}, row \"{label}\", "
                                         f"column \"{col}\" (line {line})")
                verified += digit_runs(cell)

    numbered = [(line, TOKEN.findall(t)) for line, t in p.prose if TOKEN.search(t)]
    if len(numbered) != len(doc.prose):
        where, what = _unmatched_prose_line(numbered, doc.prose, name, len(text.split("\n")))
        raise BuildError(where, f"{what} ({len(numbered)} prose lines carry numbers, "
                         f"recomputation names quantities for {len(doc.prose)})")
    for (line, tokens), quantities in zip(numbered, doc.prose):
        if len(tokens) != len(quantities):
            raise BuildError(f"{name}:{line}", f"{len(tokens)} numbers {tokens}, recomputation "
                             f"names {len(quantities)}: {[q.id for q in quantities]}")
        for tok, q in zip(tokens, quantities):
            if tok != q.text:
                raise BuildError(f"{name}:{line}", f"{q.id}: expected \"{tok}\", "
                                 f"recomputed \"{q.text}\"")
            locators.setdefault(q.id, f"{name}, prose line {line}")
            verified += digit_runs(tok)
    if verified != total:
        raise BuildError(name, f"only {verified} of {total} numbers verified")
    return Checked(verified, total, locators)


def _unmatched_prose_line(numbered, prose, name: str, last_line: int) -> tuple[str, str]:
    """Where the file's prose lines with numbers and the recomputation's part ways: the
    first line whose numbers are not those of the quantities in the same place. With
    more lines than quantities that line is one the recomputation does not name; with
    fewer, the quantities expected there are missing."""
    for k, ((line, tokens), quantities) in enumerate(zip(numbered, prose)):
        if tokens != [q.text for q in quantities]:
            break
    else:
        k = min(len(numbered), len(prose))
    if len(numbered) > len(prose):
        line, tokens = numbered[k]
        return f"{name}:{line}", f"numbers {tokens} that the recomputation does not name"
    ids = [q.id for q in prose[k]]
    line = numbered[k][0] if k < len(numbered) else last_line
    after = f" (after line {numbered[k - 1][0]})" if k else ""
    return f"{name}:{line}", f"a prose line with {ids} is missing before this line{after}"
