"""The one reader of Markdown pipe tables, for a study's own checks of results files
(in this repository, study/resultsmd.py and study/sim/report.py).

A row is a line that starts with `|`; its cells are the text between pipes, stripped.
A separator row (`|---|:--:|`) has only dashes and colons in every cell.
"""

from __future__ import annotations


def split_row(line: str) -> list[str]:
    """The cells of one pipe-table row, stripped: `| a | b |` -> ["a", "b"]."""
    return [c.strip() for c in line.strip().strip("|").split("|")]


def is_separator(cells: list[str]) -> bool:
    """True for the row under a table's header (`---`, `:--`, `--:` in every cell)."""
    return all(c and set(c) <= set("-:") for c in cells)


def read_table(lines: list[str], start: int) -> tuple[list[str], list[tuple[int, list[str]]], int]:
    """The pipe table whose header is `lines[start]` (0-based): its header cells, its
    body rows as (1-based line number, cells), and the index of the first line after it.
    The line after the header is the separator and is skipped."""
    header = split_row(lines[start])
    i = start + 2
    body = []
    while i < len(lines) and lines[i].startswith("|"):
        body.append((i + 1, split_row(lines[i])))
        i += 1
    return header, body, i
