"""The original study page's own simulator figures (data/sim/quoted.yaml): quoted for
comparison, never recomputed. The eleven marked `against: true` are the transit figures
results.md's section "Against the original" sets beside ours, and the calibration
(calibrate.py) may fit the scenario's `fitted` inputs to them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from cit import yamlio
from cit.errors import BuildError
from cit.fmt import GBPS, SECONDS, fmt
from cit.reads import Reads

QUOTED = "data/sim/quoted.yaml"


def be_text(kind: str, shown: str | None) -> str:
    """A break-even as results.md prints it (report.f_be's words)."""
    if kind == "whole":
        return "whole range"
    if kind == "none":
        return "none in range"
    return f"{kind} {GBPS.after(shown)}"


def at_precision(q: "QuotedFigure", kind: str, ours) -> str:
    """Our figure as the original printed its own: a time (seconds, or None: never) to
    its decimals, a break-even (`kind`, GB/s) in its words. Two figures read the same
    when this equals `q.text()` (results.md, "Against the original")."""
    if kind == "time":
        return "never" if ours is None else SECONDS.text(ours, q.decimals)
    return be_text(kind, None if ours is None
                   else GBPS.text(ours, q.decimals or 0, sig=False, scaled=True))


class QuotedFigure(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    value: float | None = None
    decimals: int | None = Field(None, ge=0)
    kind: Literal["below", "above", "whole", "none"] | None = None
    unit: str
    what: str = Field(min_length=1)
    ours: str | None = None
    why: str | None = None
    against: bool = False      # one of the transit figures set beside ours in results.md

    @field_validator("what", "why")
    @classmethod
    def _no_digits(cls, v):
        if v is not None and any(ch.isdigit() for ch in v):
            raise ValueError("must not contain digits (it is shown as text on the site)")
        return v

    def text(self) -> str:
        if self.kind in ("whole", "none"):
            return be_text(self.kind, None)
        if self.value is None or self.decimals is None:
            raise ValueError("needs value and decimals")
        shown = fmt(self.value, self.decimals)
        return be_text(self.kind, shown) if self.kind else shown


class QuotedFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    citation: str = Field(min_length=1)
    figures: dict[str, QuotedFigure]
    lines: dict[str, int] = Field(default_factory=dict)   # figure key -> its line (set on load)

    def where(self, key: str, display: str = QUOTED) -> str:
        return f"{display}:{self.lines.get(key, 1)}"


def load_quoted(path: Path, display: str = QUOTED, reads: Reads | None = None) -> QuotedFile:
    text = (reads or Reads.beside(path)).maybe_text(path)
    if text is None:
        raise BuildError(display, "quoted figures file missing")
    try:
        data = QuotedFile.model_validate(yamlio.load(text, display))
    except (yaml.YAMLError, ValidationError) as e:
        # name the line of the offending figure when we can find it
        line = 1
        if isinstance(e, ValidationError):
            loc = [str(x) for x in e.errors()[0]["loc"]]
            key = loc[1] if len(loc) > 1 and loc[0] == "figures" else loc[0] if loc else ""
            for i, l in enumerate(text.split("\n"), 1):
                if l.strip().startswith(f"{key}:"):
                    line = i
                    break
            raise BuildError(f"{display}:{line}", f"{'.'.join(loc)}: {e.errors()[0]['msg']}") \
                from None
        raise BuildError(f"{display}:{line}", f"not valid YAML: {e}") from None
    for key, f in data.figures.items():
        try:
            f.text()
        except ValueError as e:
            raise BuildError(display, f"figures.{key}: {e}") from None
    lines = {}
    for i, line in enumerate(text.split("\n"), 1):
        head = line.rstrip()
        if head.startswith("  ") and not head.startswith("   ") and head.endswith(":"):
            lines.setdefault(head.strip()[:-1], i)
    return data.model_copy(update={"lines": {k: lines[k] for k in data.figures if k in lines}})


def against(q: QuotedFile) -> list[str]:
    """The keys of the figures results.md sets beside ours, in file order."""
    return [k for k, f in q.figures.items() if f.against]
