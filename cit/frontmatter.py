"""Content files: front matter (validated with pydantic, unknown keys refused), the
body that follows it, and a deck's split into slides.

Errors name the content file and the line, counted in the file itself (front matter
included): see docs/architecture.md, "Errors".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from . import yamlio
from .errors import BuildError

FENCE = "---"


class FrontMatter(BaseModel):
    """What a content file declares about itself; nothing else is allowed."""
    model_config = ConfigDict(extra="forbid", strict=True)

    title: str
    description: str
    layout: Literal["hub", "page", "deck"]
    order: int | None = None

    @model_validator(mode="after")
    def _order_only_for_decks(self):
        if self.layout == "deck" and self.order is None:
            raise ValueError("a deck needs `order` (its place in the series)")
        if self.layout != "deck" and self.order is not None:
            raise ValueError("`order` is only for decks")
        if not self.title.strip() or not self.description.strip():
            raise ValueError("title and description must not be empty")
        return self


@dataclass(frozen=True)
class Chunk:
    """A piece of Markdown and the file line (1-based) of its first line."""
    text: str
    first_line: int


@dataclass(frozen=True)
class ContentFile:
    """A content file: its display path, validated front matter, and its body."""
    path: str
    meta: FrontMatter
    body: Chunk

    def slides(self) -> list[Chunk]:
        """A deck's slides: the body split on lines that are exactly `---`."""
        return split_slides(self.body)


def _key_lines(text: str) -> dict[str, int]:
    """Line (0-based, within `text`) of each top-level key of a YAML mapping."""
    try:
        node = yamlio.compose(text)
    except yaml.YAMLError:
        return {}
    if not isinstance(node, yaml.MappingNode):
        return {}
    return {k.value: k.start_mark.line for k, _ in node.value
            if isinstance(k, yaml.ScalarNode)}


def parse_content_file(text: str, path: str) -> ContentFile:
    """Split a content file into validated front matter and body.

    `path` is how errors name the file (e.g. "content/pages/optics.md")."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip("\r\n") != FENCE:
        raise BuildError(f"{path}:1", "front matter missing: the file must start with a `---` line")
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip("\r\n") == FENCE), None)
    if end is None:
        raise BuildError(f"{path}:1", "front matter not closed: no second `---` line")
    fm_text = "".join(lines[1:end])
    try:
        data = yamlio.load(fm_text, path, first_line=2)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = 2 + mark.line if mark is not None else 1
        raise BuildError(f"{path}:{line}", f"front matter is not valid YAML: {getattr(e, 'problem', e)}") from None
    if not isinstance(data, dict):
        raise BuildError(f"{path}:2", "front matter must be a mapping of keys to values")
    try:
        meta = FrontMatter.model_validate(data)
    except ValidationError as e:
        key_lines = _key_lines(fm_text)
        err = e.errors()[0]
        key = str(err["loc"][0]) if err["loc"] else ""
        line = 2 + key_lines[key] if key in key_lines else 1
        what = f"`{key}`: " if key else ""
        raise BuildError(f"{path}:{line}", f"front matter {what}{err['msg']}") from None
    return ContentFile(path, meta, Chunk("".join(lines[end + 1:]), end + 2))


def split_slides(body: Chunk) -> list[Chunk]:
    """Split on lines that are exactly `---`; each slide keeps its first file line.

    Empty slides (only blank lines) are dropped, so a trailing separator is harmless."""
    slides: list[Chunk] = []
    cur: list[str] = []
    start = body.first_line
    for i, line in enumerate(body.text.splitlines(keepends=True)):
        if line.rstrip("\r\n") == FENCE:
            slides.append(Chunk("".join(cur), start))
            cur, start = [], body.first_line + i + 1
        else:
            cur.append(line)
    slides.append(Chunk("".join(cur), start))
    return [s for s in slides if s.text.strip()]
