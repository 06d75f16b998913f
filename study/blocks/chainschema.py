"""The schema of content/chain.yaml: what each mapping of the file may hold, checked by
cit/fieldcheck.py (it was pydantic, whose import and model building cost a hub rebuild
about 0.1 s; docs/architecture.md, "Rebuilding fast"), and the plain classes the chain
block draws from. Cross-references (lanes, paths, block ids, routes) are checked by
study/blocks/chain.py."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from cit.fieldcheck import FieldRule, check_fields

PATH_ID_RE = r"[A-Za-z][A-Za-z_]*"
BLOCK_ID_RE = r"[a-z][a-z_\-]*"
TAGS = ("paper", "experiment", "simulation", "assumption")

TEXT = FieldRule(str, nonblank=True)
PATH_NAMES = FieldRule(list, nonblank=True, item_kind=str)
PATH_RULES = {"id": FieldRule(str, pattern=PATH_ID_RE), "name": TEXT, "label": TEXT,
              "summary": FieldRule(str, required=False)}
LANE_RULES = {"id": FieldRule(str, pattern=BLOCK_ID_RE), "label": TEXT,
              "reverse": FieldRule(bool, required=False)}
BLOCK_RULES = {"id": FieldRule(str, pattern=BLOCK_ID_RE), "label": TEXT,
               "tag": FieldRule(str, choices=TAGS), "lane": FieldRule(str),
               "col": FieldRule(int, required=False, nullable=True, minimum=0),
               "paths": PATH_NAMES, "detail": TEXT}
EDGE_RULES = {"from": FieldRule(str), "to": FieldRule(str), "paths": PATH_NAMES,
              "kind": FieldRule(str, required=False, choices=("flow", "feedback")),
              "label": FieldRule(str, required=False),
              "tag": FieldRule(str, required=False, nullable=True, choices=TAGS),
              "detail": FieldRule(str, required=False)}
CHAIN_RULES = {"title": TEXT, "description": TEXT, "tags": FieldRule(dict),
               "paths": FieldRule(list, nonblank=True), "lanes": FieldRule(list, nonblank=True),
               "blocks": FieldRule(list, nonblank=True), "edges": FieldRule(list)}


@dataclass(frozen=True)
class PathSpec:
    """One path through the chain (E or E′)."""
    id: str
    name: str
    label: str
    summary: str = ""


@dataclass(frozen=True)
class Lane:
    """A horizontal band of the diagram; `reverse` lays its columns right to left."""
    id: str
    label: str
    reverse: bool = False


@dataclass(frozen=True)
class Block:
    """One step of the chain, drawn as a box with its label and provenance tag."""
    id: str
    label: str
    tag: str
    lane: str
    paths: list[str]
    detail: str
    col: int | None = None


@dataclass(frozen=True)
class Edge:
    """An arrow between two blocks. `flow` edges carry the packets from the sending GPU to
    the weight update; `feedback` edges loop back within a lane."""
    source: str
    to: str
    paths: list[str]
    kind: str = "flow"
    label: str = ""
    tag: str | None = None
    detail: str = ""


@dataclass(frozen=True)
class Chain:
    """The whole of content/chain.yaml."""
    title: str
    description: str
    tags: dict[str, str]
    paths: list[PathSpec] = field(default_factory=list)
    lanes: list[Lane] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)

    def path_ids(self) -> list[str]:
        return [p.id for p in self.paths]

    def block(self, block_id: str) -> Block:
        return next(b for b in self.blocks if b.id == block_id)


def parse_chain(raw, where_of: Callable[[tuple], str], owner_of: Callable[[tuple], str]) -> Chain:
    """The checked chain. `where_of(loc)`: "file:line" of the node at `loc` (a key path
    such as ("blocks", 2, "tag")); `owner_of(loc)`: the block or edge it belongs to, in
    words, which starts each error message."""
    def check(data, rules, loc):
        check_fields(data, rules, lambda key: where_of(loc + ((key,) if key else ())),
                     owner_of(loc))
        return data

    top = check(raw, CHAIN_RULES, ())
    for tag, words in top["tags"].items():
        if tag not in TAGS or not isinstance(words, str):
            check_fields({"tag": tag, "words": words}, {"tag": FieldRule(str, choices=TAGS),
                         "words": FieldRule(str)}, lambda key: where_of(("tags", tag)),
                         "tags")

    def items(name, rules, make):
        return [make(**check(item, rules, (name, i))) for i, item in enumerate(top[name])]
    return Chain(
        top["title"], top["description"], dict(top["tags"]),
        paths=items("paths", PATH_RULES, PathSpec),
        lanes=items("lanes", LANE_RULES, Lane),
        blocks=items("blocks", BLOCK_RULES, Block),
        edges=items("edges", EDGE_RULES,
                    lambda **kw: Edge(source=kw.pop("from"), **kw)))
