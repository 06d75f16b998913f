"""Content files: front matter (checked by cit/fieldcheck.py, unknown keys refused), the
body that follows it, and a deck's split into slides and each slide's speaker notes.

Errors name the content file and the line, counted in the file itself (front matter
included): see docs/architecture.md, "Errors".
"""

from __future__ import annotations

from dataclasses import dataclass

import yaml

from . import yamlio
from .errors import BuildError
from .fieldcheck import FieldRule, check_fields, key_places
from .markup import drop_reason_marks

FENCE = "---"
NOTES_NAME = "notes"
NOTES_OPEN = f"::: {NOTES_NAME}"
NOTES_CLOSE = ":::"


FRONT_MATTER_RULES = {"title": FieldRule(str, nonblank=True),
                      "description": FieldRule(str, nonblank=True),
                      "layout": FieldRule(str, choices=("hub", "page", "deck")),
                      "order": FieldRule(int, required=False, nullable=True)}


@dataclass(frozen=True)
class FrontMatter:
    """What a content file declares about itself; nothing else is allowed. `order`
    (a deck's place in the series) is given for decks and only for them."""
    title: str
    description: str
    layout: str
    order: int | None = None
    # the title and description as written, with any reason mark :x[key] the sentence
    # check reads (docs/claims.md); the fields above have them taken out
    written: tuple[tuple[str, str], ...] = ()


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


def parse_content_file(text: str, path: str) -> ContentFile:
    """Split a content file into validated front matter and body.

    `path` is how errors name the file (e.g. "content/pages/results.md")."""
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
    meta = _front_matter(data, fm_text, path)
    return ContentFile(path, meta, Chunk("".join(lines[end + 1:]), end + 2))


def _front_matter(data: dict, fm_text: str, path: str) -> FrontMatter:
    """The checked front matter; errors name the key's line (line 2 for the mapping),
    found in the node tree only when there is an error."""
    def where(key):
        return key_places(path, yamlio.compose(fm_text, path, 2), first_line=2, default=2)(key)
    check_fields(data, FRONT_MATTER_RULES, where, "front matter")
    written = tuple((k, data[k]) for k in ("title", "description"))
    shown = {k: drop_reason_marks(v) for k, v in written}
    meta = FrontMatter(**dict(data, **shown), written=written)
    if meta.layout == "deck" and meta.order is None:
        raise BuildError(where("layout"), "front matter: a deck needs `order` (its place "
                         "in the series)")
    if meta.layout != "deck" and meta.order is not None:
        raise BuildError(where("order"), "front matter `order` is only for decks")
    return meta


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


def split_notes(slide: Chunk, path: str) -> tuple[Chunk, Chunk | None]:
    """A slide's speaker notes, written in it between a line `::: notes` and a line
    `:::`, taken out of it: (the slide without them, the notes or None). Both keep
    their file lines (the notes' lines become blank lines in the slide), so errors in
    either name the right line. A second notes block, or one never closed, is refused."""
    lines = slide.text.splitlines(keepends=True)
    opened = [i for i, line in enumerate(lines) if line.strip() == NOTES_OPEN]
    if not opened:
        return slide, None
    start = opened[0]
    if len(opened) > 1:
        raise BuildError(f"{path}:{slide.first_line + opened[1]}",
                         "a slide has one `::: notes` block; this is a second")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].strip() == NOTES_CLOSE), None)
    if end is None:
        raise BuildError(f"{path}:{slide.first_line + start}",
                         "speaker notes `::: notes` are not closed by a `:::` line")
    notes = Chunk("".join(lines[start + 1:end]), slide.first_line + start + 1)
    if not notes.text.strip():
        raise BuildError(f"{path}:{slide.first_line + start}", "the speaker notes are empty")
    kept = lines[:start] + ["\n"] * (end - start + 1) + lines[end + 1:]
    return Chunk("".join(kept), slide.first_line), notes
