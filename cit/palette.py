"""The site's colour palette, as the study hands it to the engine (docs/site-config.md,
"The palette").

A data stage returns it as plain JSON under `data["palette"]`: key -> {"colour",
"light", "dark", "print", "text"}. `colour` is the key's own colour (chart lines,
legend swatches); `light`, `dark` and `print` are the shades marks are drawn in on the
page in each mode; `text` gives, per mode, the shade a text in the key's colour takes
(each mode defaults to its mark shade). Every colour is `#rrggbb`. The engine never
names a key itself: the charts draw a series in its `variant`'s colour, svgplot
accepts the palette's keys (and `muted`), and `css()` writes the custom properties
and rules the stylesheets use (`--var-KEY`, `--fig-KEY`, `--text-KEY`,
`[data-variant="KEY"]`, `.svg-figure .c-KEY`), appended to the base sheet.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping

from .errors import BuildError

HEX_RE = re.compile(r"#[0-9a-fA-F]{6}")
KEY_RE = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
MODES = ("light", "dark", "print")
CONTEXT = "muted"        # the one key svgplot takes beyond the palette (figures.css)


@dataclass(frozen=True)
class Swatch:
    """One key's colours, each `#rrggbb` in lower case."""
    key: str
    colour: str
    marks: tuple[str, str, str]     # light, dark, print
    text: tuple[str, str, str]


@dataclass(frozen=True)
class Palette:
    swatches: tuple[Swatch, ...] = ()

    @property
    def keys(self) -> frozenset[str]:
        return frozenset(s.key for s in self.swatches)

    def chart_colour(self, key: str, where: str) -> str:
        """The key's own colour as the chart figures write it (upper case)."""
        for s in self.swatches:
            if s.key == key:
                return s.colour.upper()
        raise BuildError(where, f"no colour for {key!r}: the palette the data stages "
                         f"returned has {', '.join(sorted(self.keys)) or 'no keys'}")

    def css(self) -> str:
        """The custom properties, per mode, and the per-key rules. A mode restates only
        what differs from light; `--text-KEY` is written only where a text shade differs
        from its mark shade (the sheets read `var(--text-KEY, var(--fig-KEY))`)."""
        if not self.swatches:
            return ""
        own = "".join(f"--var-{s.key}:{s.colour};" for s in self.swatches)
        light = "".join(f"--fig-{s.key}:{s.marks[0]};" + (
            f"--text-{s.key}:{s.text[0]};" if s.text[0] != s.marks[0] else "")
            for s in self.swatches)
        out = [f":root{{{own}{light}}}"]
        # dark is for the screen only, so print starts from light whichever scheme the
        # reader prefers, and each restates only what differs from light
        for i, media in ((1, "screen and (prefers-color-scheme:dark)"), (2, "print")):
            props = "".join(_mode_props(s, i) for s in self.swatches)
            if props:
                out.append(f"@media {media}{{:root{{{props}}}}}")
        out += [f'[data-variant="{s.key}"]{{--swatch:var(--var-{s.key})}}'
                for s in self.swatches]
        out += [f".svg-figure .c-{s.key}{{--c:var(--fig-{s.key})}}" for s in self.swatches]
        return "/* the palette, written by the build from the study's (cit/palette.py) */\n" \
            + "\n".join(out) + "\n"


def _mode_props(s: Swatch, i: int) -> str:
    """What mode `i` (dark 1, print 2) sets for swatch `s` beyond light's: its mark shade
    where that differs, and its text shade where the text in force would otherwise be
    wrong (light's own text, or the mode's mark shade when light wrote none)."""
    out = f"--fig-{s.key}:{s.marks[i]};" if s.marks[i] != s.marks[0] else ""
    light_text = s.text[0] != s.marks[0]
    if (light_text and s.text[i] != s.text[0]) or (not light_text and s.text[i] != s.marks[i]):
        out += f"--text-{s.key}:{s.text[i]};"
    return out


def _hex(value, where: str, what: str) -> str:
    if not isinstance(value, str) or not HEX_RE.fullmatch(value):
        raise BuildError(where, f"{what} must be a colour #rrggbb, not {value!r}")
    return value.lower()


def palette_from(data, where: str) -> Palette:
    """The palette from a stage's plain data (None: an empty palette); BuildError
    naming `where` (the stage's site.yaml line) and the key at fault."""
    if data is None:
        return Palette()
    if not isinstance(data, Mapping):
        raise BuildError(where, f"the palette must be a mapping of keys, not {type(data).__name__}")
    out = []
    for key, spec in data.items():
        if not isinstance(key, str) or not KEY_RE.fullmatch(key) or key == CONTEXT:
            raise BuildError(where, f"palette key {key!r} must be a letter then letters, "
                             f"digits or _ (and not {CONTEXT!r}, the figures' own)")
        if not isinstance(spec, Mapping) or set(spec) - {"colour", "text", *MODES}:
            raise BuildError(where, f"palette {key}: keys are colour, light, dark, print, text")
        colour = _hex(spec.get("colour"), where, f"palette {key} colour")
        marks = tuple(_hex(spec.get(m, colour), where, f"palette {key} {m}") for m in MODES)
        text = spec.get("text") or {}
        if not isinstance(text, Mapping) or set(text) - set(MODES):
            raise BuildError(where, f"palette {key} text: keys are light, dark, print")
        out.append(Swatch(key, colour, marks, tuple(
            _hex(text.get(m, marks[i]), where, f"palette {key} text {m}")
            for i, m in enumerate(MODES))))
    return Palette(tuple(out))
