"""The schema of content/chain.yaml (pydantic models), read by cit/blocks/chain.py only
when the hub's @[chain] block renders: a page edit elsewhere does not import pydantic
(docs/architecture.md, "Rebuilding fast")."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

PATH_ID_RE = r"^[A-Za-z][A-Za-z_]*$"
BLOCK_ID_RE = r"^[a-z][a-z_\-]*$"

Tag = Literal["paper", "experiment", "simulation", "assumption"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class PathSpec(_Model):
    """One path through the chain (E or E′)."""
    id: str = Field(pattern=PATH_ID_RE)
    name: str = Field(min_length=1)
    label: str = Field(min_length=1)
    summary: str = ""


class Lane(_Model):
    """A horizontal band of the diagram; `reverse` lays its columns right to left."""
    id: str = Field(pattern=BLOCK_ID_RE)
    label: str = Field(min_length=1)
    reverse: bool = False


class Block(_Model):
    """One step of the chain, drawn as a box with its label and provenance tag."""
    id: str = Field(pattern=BLOCK_ID_RE)
    label: str = Field(min_length=1)
    tag: Tag
    lane: str
    col: int | None = Field(default=None, ge=0)
    paths: list[str] = Field(min_length=1)
    detail: str = Field(min_length=1)


class Edge(_Model):
    """An arrow between two blocks. `flow` edges carry the packets from the sending GPU to
    the weight update; `feedback` edges loop back within a lane."""
    source: str = Field(alias="from")
    to: str
    paths: list[str] = Field(min_length=1)
    kind: Literal["flow", "feedback"] = "flow"
    label: str = ""
    tag: Tag | None = None
    detail: str = ""


class Chain(_Model):
    """The whole of content/chain.yaml."""
    title: str = Field(min_length=1)
    description: str = Field(min_length=1)
    tags: dict[Tag, str]
    paths: list[PathSpec] = Field(min_length=1)
    lanes: list[Lane] = Field(min_length=1)
    blocks: list[Block] = Field(min_length=1)
    edges: list[Edge]

    def path_ids(self) -> list[str]:
        return [p.id for p in self.paths]

    def block(self, block_id: str) -> Block:
        return next(b for b in self.blocks if b.id == block_id)
