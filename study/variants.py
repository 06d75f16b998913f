"""The variant catalogue, data/variants.yaml (docs/variants.md): each variant's key,
letter, name, which runs it takes, its labels and registry id (templates filled from a
run's config), its colours; the hub's headline table's rows, the decks' figure lists
and the energy selectors.

`load(root, reads)` checks every key, naming the file and line. `Catalogue.of(cfg,
where)` is the variant of a run's config, a BuildError naming the run's line and the
catalogue when no entry takes it. `palette()` is the engine's palette (cit/palette.py)
and `as_json()` what the figure blocks read (the experiment stage returns both).
"""

from __future__ import annotations

import string
from dataclasses import dataclass, field
from pathlib import Path

from cit import yamlio
from cit.errors import BuildError
from cit.fieldcheck import FieldRule, check_fields, key_places
from cit.fmt import fmt_general
from cit.palette import contrast_problem
from cit.reads import Reads

PAGE_TEXT = True     # its string literals reach pages (docs/claims.md, "Sentences the build finds")

FILE = "data/variants.yaml"
STUDY_ROOT = Path(__file__).resolve().parents[1]
HEX = r"#[0-9a-fA-F]{6}"
TEXT = FieldRule(str, nonblank=True)
OPTIONAL = FieldRule(str, required=False, nonblank=True)
VARIANT_RULES = {
    "key": FieldRule(str, pattern=r"[A-Za-z][A-Za-z0-9_]*"), "letter": TEXT, "name": TEXT,
    "when": FieldRule(dict, required=False), "follows": OPTIONAL, "slug": OPTIONAL,
    "row_label": OPTIONAL, "headline_label": OPTIONAL, "chart_label": OPTIONAL,
    "chart_detail": OPTIONAL, "figure_label": OPTIONAL,
    "energy": FieldRule(bool, required=False), "colour": FieldRule(str, pattern=HEX),
    "shades": FieldRule(dict), "text": FieldRule(dict, required=False),
    # the other names prose gives it; the sentence check reads them (site.yaml sentences)
    "aliases": FieldRule(list, required=False, item_kind=str)}
# what a variant that takes runs must say (a hypothetical one says none of it)
RUN_KEYS = ("slug", "row_label", "headline_label", "chart_label", "figure_label")
LABELS = RUN_KEYS + ("chart_detail",)
MODES = ("light", "dark", "print")
SHADE_RULES = {m: FieldRule(str, pattern=HEX) for m in MODES}
TEXT_RULES = {m: FieldRule(str, required=False, pattern=HEX) for m in MODES}
# the config fields a `when` may test (study/runs.py RunConfig)
WHEN_FIELDS = ("variant", "band", "chunk_mode", "feedback")
TOP_RULES = {"variants": FieldRule(list, nonblank=True), "tables": FieldRule(dict),
             "figures": FieldRule(dict), "selectors": FieldRule(list, nonblank=True)}
TABLE_RULES = {"headline": FieldRule(list, item_kind=str, nonblank=True)}
FIGURE_RULES = {"headline": FieldRule(list, item_kind=str, nonblank=True),
                "seeds": FieldRule(list, item_kind=str, nonblank=True),
                "bytes": FieldRule(list, nonblank=True)}
BYTES_RULES = {"number": TEXT, "name": TEXT, "variant": TEXT}
SELECTOR_RULES = {"key": TEXT, "column": TEXT, "name": OPTIONAL, "variant": OPTIONAL}


def _chunks(c) -> str:
    return (f"2-D {c.chunk}x{c.chunk} chunks" if c.chunk_mode == "2d"
            else f"1-D {c.chunk}-point chunks")  # :x[label]


def _settings(c) -> str:
    """The optics runs' settings, worded as upstream's results.md words them."""
    if c.enob is None and c.planes is None:
        return ", perfect optics (no quantisation or noise: C with power-of-2 chunks)"  # :x[label]
    return (f", ENOB {fmt_general(c.enob)}, {c.planes} planes"
            + (f", full scale re-set every {c.fs_every} steps" if c.fs_every  # :x[label]
               else ", full scale fixed")
            + (", feedback of the band sent" if c.feedback == "sent"  # :x[label]
               else ", feedback of the exact band"))  # :x[label]


def _enob(c) -> str:
    return "exact" if c.enob is None else f"ENOB {fmt_general(c.enob)}"


# The words a label template may ask for, each from a run's config (docs/variants.md).
FIELDS = {
    "chunks": _chunks,
    "shape": lambda c: f"{c.chunk_mode[0]}-D {c.chunk}" + (f"x{c.chunk}" if c.chunk_mode == "2d" else ""),
    "dims": lambda c: f"{c.chunk_mode}{c.chunk}",
    "band": lambda c: c.band,
    "band_words": lambda c: c.band.replace("zigzag", "zig-zag"),
    "Band_words": lambda c: c.band.replace("zigzag", "zig-zag").capitalize(),
    "planes": lambda c: f"{c.planes}",
    "enob": _enob,
    "enob_id": lambda c: "x" if c.enob is None else fmt_general(c.enob),
    "fs_id": lambda c: f"reset{c.fs_every}" if c.fs_every else "fixed",
    "feedback_id": lambda c: "sent" if c.feedback == "sent" else "exact",
    "design": lambda c: ("repaired" if c.feedback == "sent" and c.fs_every
                         else "repaired, scale fixed" if c.feedback == "sent" else "first"),
    "design_long": lambda c: "repaired optics" if c.feedback == "sent" else "first-design optics",  # :x[label] :x[label]
    "readout": lambda c: (f"no quantisation, {_chunks(c)}" if c.enob is None  # :x[label]
                          else f"ENOB {fmt_general(c.enob)}, {c.planes} planes"),
    "settings": _settings,
}


@dataclass(frozen=True)
class Variant:
    """One entry of the catalogue; `line` is its line in the file."""
    key: str
    letter: str
    name: str
    line: int
    when: tuple[tuple[str, str], ...] = ()
    follows: str | None = None
    labels: dict = field(default_factory=dict)     # template name -> template
    energy: bool = False
    colour: str = ""
    shades: tuple[str, str, str] = ("", "", "")
    text: dict = field(default_factory=dict)

    def takes(self, cfg) -> bool:
        return bool(self.when) and all(getattr(cfg, k) == v for k, v in self.when)

    def fill(self, name: str, cfg) -> str:
        """The template `name` filled from a run's config ("" when the entry has none)."""
        template = self.labels.get(name, "")
        return template.format(**{f: FIELDS[f](cfg) for f in _fields(template)})

    def slug(self, cfg) -> str:
        return self.fill("slug", cfg)

    def row_label(self, cfg) -> str:
        return f"{self.letter}  {self.fill('row_label', cfg)}"

    def headline_label(self, cfg) -> str:
        return f"{self.letter}  {self.fill('headline_label', cfg)}"

    def chart_label(self, cfg, detail: bool = False) -> str:
        return (f"{self.letter} {self.fill('chart_label', cfg)}"
                + (self.fill("chart_detail", cfg) if detail else ""))

    def figure_label(self, cfg) -> str:
        return f"{self.letter}, {self.fill('figure_label', cfg)}"


@dataclass(frozen=True)
class Catalogue:
    variants: tuple[Variant, ...]
    figures: dict
    selectors: tuple[dict, ...]
    file: str = FILE
    # the hub's headline table's rows: (group slug, its line in the file), in order
    headline_rows: tuple[tuple[str, int], ...] = ()

    def of(self, cfg, where: str) -> Variant:
        """The variant of a run's config: the first entry whose `when` holds."""
        for v in self.variants:
            if v.takes(cfg):
                return v
        takes = "; ".join(f"{v.key}: " + ", ".join(f"{k} {val}" for k, val in v.when)
                          for v in self.variants if v.when)
        raise BuildError(where, f"variant {cfg.variant!r} (band {cfg.band!r}) is not in "
                         f"{self.file}: no entry takes this run ({takes}); add one there")

    def get(self, key: str) -> Variant:
        return next(v for v in self.variants if v.key == key)

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(v.key for v in self.variants)

    def hypothetical_of(self, key: str) -> str:
        """The hypothetical variant following `key` (C -> Cprime), else `key`."""
        return next((v.key for v in self.variants if v.follows == key), key)

    def palette(self) -> dict:
        """The engine's palette (cit/palette.py), key -> colours, in catalogue order."""
        out = {}
        for v in self.variants:
            out[v.key] = {"colour": v.colour, **dict(zip(MODES, v.shades))}
            if v.text:
                out[v.key]["text"] = dict(v.text)
        return out

    def as_json(self) -> dict:
        """What the study's blocks read from the stage data (figures.py)."""
        return {"keys": list(self.keys), "letters": {v.key: v.letter for v in self.variants},
                "follows": {v.key: v.follows for v in self.variants if v.follows},
                "figures": self.figures, "selectors": list(self.selectors)}


def _fields(template: str) -> list[str]:
    return [f for _, f, _, _ in string.Formatter().parse(template) if f is not None]


def load(root: Path | None = None, reads: Reads | None = None) -> Catalogue:
    """data/variants.yaml of the project at `root` (default: the one this study lives
    in), read through `reads`, checked."""
    root = Path(root) if root is not None else STUDY_ROOT
    return parse((reads or Reads(root)).text(root / FILE))


def for_reads(reads: Reads) -> Catalogue:
    """The catalogue of the project `reads` reads (its root), else this study's own."""
    return load(reads.root if (reads.root / FILE).is_file() else STUDY_ROOT,
                reads if (reads.root / FILE).is_file() else None)


def parse(text: str, name: str = FILE) -> Catalogue:
    data, node = yamlio.load_with_nodes(text, name)
    check_fields(data, TOP_RULES, key_places(name, node), "the catalogue")
    items = {k.value: v for k, v in node.value}
    variants = tuple(_variant(raw, n, name) for raw, n in zip(data["variants"],
                                                               items["variants"].value))
    _check_variants(variants, name)
    figures = _figures(data["figures"], items["figures"], variants, name)
    selectors = _selectors(data["selectors"], items["selectors"], variants, name)
    return Catalogue(variants, figures, selectors, name,
                     _headline_rows(data["tables"], items["tables"], name))


def _variant(raw, node, name: str) -> Variant:
    where = key_places(name, node)
    check_fields(raw, VARIANT_RULES, where, "variant")
    key = raw["key"]
    check_fields(raw["shades"], SHADE_RULES, key_places(name, _sub(node, "shades")),
                 f"variant {key} shades")
    _check_shades(raw["shades"], key_places(name, _sub(node, "shades")), key)
    check_fields(raw.get("text", {}), TEXT_RULES, key_places(name, _sub(node, "text")),
                 f"variant {key} text")
    when = raw.get("when") or {}
    for k, v in when.items():
        if k not in WHEN_FIELDS or not isinstance(v, str):
            raise BuildError(where("when"), f"variant {key} `when`: {k!r}: {v!r} (it tests "
                             f"config fields {', '.join(WHEN_FIELDS)}, each against a word)")
    labels = {k: raw[k] for k in LABELS if k in raw}
    for k, template in labels.items():
        unknown = [f for f in _fields(template) if f not in FIELDS]
        if unknown:
            raise BuildError(where(k), f"variant {key} `{k}`: no field {{{unknown[0]}}} "
                             f"(fields: {', '.join(FIELDS)})")
    missing = [k for k in RUN_KEYS if k not in labels]
    if when and missing:
        raise BuildError(where(None), f"variant {key} takes runs, so it needs `{missing[0]}`")
    if not when and not raw.get("follows"):
        raise BuildError(where(None), f"variant {key}: give `when` (the runs it takes) or "
                         "`follows` (the variant a hypothetical one follows)")
    return Variant(key, raw["letter"], raw["name"], node.start_mark.line + 1,
                   tuple(when.items()), raw.get("follows"), labels, raw.get("energy", False),
                   raw["colour"].lower(), tuple(raw["shades"][m].lower() for m in MODES),
                   {m: c.lower() for m, c in raw.get("text", {}).items()})


def _check_shades(shades: dict, where, key: str) -> None:
    """Each mark shade clear of the page it is drawn on (cit/palette.py, 3:1), else a
    BuildError at the shade's own line."""
    for m in MODES:
        problem = contrast_problem(shades[m].lower(), m)
        if problem:
            raise BuildError(where(m), f"variant {key}: its {problem}")


def _sub(node, key: str):
    return next((v for k, v in node.value if k.value == key), None)


def _check_variants(variants: tuple[Variant, ...], name: str) -> None:
    seen: dict[str, int] = {}
    for v in variants:
        if v.key in seen:
            raise BuildError(f"{name}:{v.line}", f"variant key {v.key!r} given twice (first "
                             f"at line {seen[v.key]})")
        seen[v.key] = v.line
    for v in variants:
        if v.follows and v.follows not in seen:
            raise BuildError(f"{name}:{v.line}", f"variant {v.key} follows {v.follows!r}, "
                             "which the catalogue does not list")


def _figures(raw, node, variants, name: str) -> dict:
    check_fields(raw, FIGURE_RULES, key_places(name, node), "figures")
    keys = {v.key for v in variants}
    for item, n in zip(raw["bytes"], _sub(node, "bytes").value):
        check_fields(item, BYTES_RULES, key_places(name, n), "figures bytes")
        if item["variant"] not in keys:
            raise BuildError(f"{name}:{n.start_mark.line + 1}", f"figures bytes: no variant "
                             f"{item['variant']!r} in the catalogue")
    return raw


def _headline_rows(raw, node, name: str) -> tuple[tuple[str, int], ...]:
    """`tables.headline`: each slug with its line; a slug given twice fails at its line.
    Whether each names a group with runs is the experiment stage's check
    (study/experiment.py, _register_headline_table)."""
    check_fields(raw, TABLE_RULES, key_places(name, node), "tables")
    rows: dict[str, int] = {}
    for slug, n in zip(raw["headline"], _sub(node, "headline").value):
        line = n.start_mark.line + 1
        if slug in rows:
            raise BuildError(f"{name}:{line}", f"tables.headline: {slug!r} given twice "
                             f"(first at line {rows[slug]})")
        rows[slug] = line
    return tuple(rows.items())


def _selectors(raw, node, variants, name: str) -> tuple[dict, ...]:
    keys = {v.key for v in variants}
    for item, n in zip(raw, node.value):
        check_fields(item, SELECTOR_RULES, key_places(name, n), "selector")
        if "variant" in item and item["variant"] not in keys:
            raise BuildError(f"{name}:{n.start_mark.line + 1}", f"selector {item['key']}: "
                             f"no variant {item['variant']!r} in the catalogue")
    return tuple(raw)
