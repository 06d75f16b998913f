"""The number registry: every number the site shows, with a stable id, its raw value,
its displayed text, its kind and its provenance (docs/numbers.md).

Stages add entries; pages only ever show a number by looking its id up here.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from .errors import BuildError, did_you_mean

KINDS = ("measured", "derived", "simulated", "hypothetical", "assumption",
         "quoted", "extrapolated", "illustrative", "fitted")
ID_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-′]*$")


@dataclass(frozen=True)
class Source:
    """A file a number was read from: upstream (with commit and git blob SHA-1) or our own path."""
    path: str
    commit: str | None = None
    blob_sha1: str | None = None

    def as_json(self) -> dict:
        out = {"path": self.path}
        if self.commit:
            out["commit"] = self.commit
        if self.blob_sha1:
            out["blob_sha1"] = self.blob_sha1
        return out


@dataclass(frozen=True)
class Number:
    id: str
    value: float | int | str | None
    text: str
    unit: str
    kind: str
    sources: tuple[Source, ...]
    locator: str
    computation: str

    def provenance(self) -> dict:
        return {"sources": [s.as_json() for s in self.sources],
                "locator": self.locator, "computation": self.computation}

    def raw(self) -> str:
        """The raw value as the `value` attribute shows it (full precision)."""
        v = self.value
        if v is None or (isinstance(v, float) and math.isnan(v)):
            return ""
        if isinstance(v, float):
            return repr(v)
        return str(v)

    def as_json(self, appears: list[str]) -> dict:
        v = self.value
        if isinstance(v, float) and not math.isfinite(v):
            v = None
        return {"id": self.id, "value": v, "text": self.text, "unit": self.unit,
                "kind": self.kind, "provenance": self.provenance(), "appears": appears}


@dataclass(frozen=True)
class Series:
    """A data series for a chart (e.g. a loss curve), with the same provenance as a number."""
    id: str
    x: tuple
    y: tuple
    extra: dict
    kind: str
    sources: tuple[Source, ...]
    locator: str
    computation: str


@dataclass(frozen=True)
class Ref:
    """A table cell that shows a registered number."""
    id: str


@dataclass(frozen=True)
class Table:
    """A table the site shows: header labels and rows whose cells are plain label text
    (str, e.g. a row label) or `Ref`s to registered numbers. `source` says where the
    table comes from (e.g. "results.md §1"), for the caption."""
    id: str
    caption: str
    columns: tuple[str, ...]
    rows: tuple[tuple, ...]
    source: str = ""


@dataclass
class Registry:
    numbers: dict[str, Number] = field(default_factory=dict)
    series: dict[str, Series] = field(default_factory=dict)
    tables: dict[str, Table] = field(default_factory=dict)
    # id of a "mean ± sd" over a group of one seed -> id of the bare value, which pages
    # show instead, followed by the words "one seed": "± 0.000" would read as no spread
    one_seed: dict[str, str] = field(default_factory=dict)

    def show_one_seed(self, id: str, value_id: str) -> None:
        """Pages show `id` (a mean ± sd whose sd is that of a single seed) as `value_id`
        and the words "one seed"; `id` keeps its text (it may be a results.md cell)."""
        self.get(id, "registry one_seed")
        self.get(value_id, "registry one_seed")
        if id in self.one_seed:
            raise BuildError("registry", f"number {id!r} already shown as one seed")
        self.one_seed[id] = value_id
    claims: dict = field(default_factory=dict)     # id -> cit.claims.Claim

    def add_table(self, id: str, caption: str, columns, rows, source: str = "") -> Table:
        """Register a table; every Ref in it must name a registered number."""
        rows = tuple(tuple(r) for r in rows)
        for r in rows:
            for c in r:
                if isinstance(c, Ref):
                    self.get(c.id, f"table {id}")
        if id in self.tables:
            raise BuildError("registry", f"table id {id!r} registered twice")
        t = Table(id, caption, tuple(columns), rows, source)
        self.tables[id] = t
        return t

    def add(self, id: str, value, text: str, *, unit: str = "", kind: str,
            sources, locator: str, computation: str) -> Number:
        if not ID_RE.match(id):
            raise BuildError("registry", f"bad number id {id!r}")
        if kind not in KINDS:
            raise BuildError("registry", f"number {id!r}: unknown kind {kind!r}")
        if id in self.numbers or id in self.claims:
            raise BuildError("registry", f"number id {id!r} registered twice")
        n = Number(id, value, text, unit, kind, tuple(sources), locator, computation)
        self.numbers[id] = n
        return n

    def add_series(self, id: str, x, y, *, kind: str, sources, locator: str,
                   computation: str, **extra) -> Series:
        if id in self.series:
            raise BuildError("registry", f"series id {id!r} registered twice")
        s = Series(id, tuple(x), tuple(y), extra, kind, tuple(sources), locator, computation)
        self.series[id] = s
        return s

    def get(self, id: str, where: str = "registry") -> Number:
        try:
            return self.numbers[id]
        except KeyError:
            raise BuildError(where, f"unknown number id {id!r}"
                             + did_you_mean(id, self.numbers) + " (a stage registers "
                             "each id with reg.add; docs/numbers.md)") from None

    def __contains__(self, id: str) -> bool:
        return id in self.numbers

    def __len__(self) -> int:
        return len(self.numbers)
