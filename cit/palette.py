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
# the page a mark is drawn on, per mode: templates/static/site.css's --bg in light, dark
# and print (tests/unit/test_palette_contrast.py holds them equal), and the contrast a
# mark needs against it (WCAG 2's 3:1 for graphics; docs/variants.md, "Colours")
BACKGROUNDS = {"light": "#fbfaf7", "dark": "#141518", "print": "#ffffff"}
MIN_CONTRAST = 3.0


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


def _luminance(colour: str) -> float:
    """WCAG 2's relative luminance of `#rrggbb`."""
    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(int(colour[i:i + 2], 16) / 255) for i in (1, 3, 5))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    """WCAG 2's contrast ratio of two `#rrggbb` colours, 1 to 21."""
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _nearest_passing(colour: str, mode: str) -> str:
    """`colour` mixed toward black (a light page) or white (dark) in steps of 5 %, the
    first mix with enough contrast: a shade to suggest."""
    towards = 255 if mode == "dark" else 0
    rgb = [int(colour[i:i + 2], 16) for i in (1, 3, 5)]
    for k in range(1, 21):
        mix = "#" + "".join(f"{round(c + (towards - c) * k / 20):02x}" for c in rgb)
        if contrast(mix, BACKGROUNDS[mode]) >= MIN_CONTRAST:
            return mix
    return "#000000" if towards == 0 else "#ffffff"


def contrast_problem(shade: str, mode: str) -> str | None:
    """Why a mark shade is too faint on the `mode` page, with a shade that is not; None
    when it has at least MIN_CONTRAST."""
    ratio = contrast(shade, BACKGROUNDS[mode])
    if ratio >= MIN_CONTRAST:
        return None
    return (f"{mode} shade {shade} has {ratio:.2f}:1 contrast against the {mode} page "
            f"({BACKGROUNDS[mode]}), under the {MIN_CONTRAST:g}:1 a mark needs to be seen; "
            f"give a {'lighter' if mode == 'dark' else 'darker'} {mode} shade "
            f"(such as {_nearest_passing(shade, mode)})")


def check_contrast(spec: Mapping, where: str, what: str) -> None:
    """A palette entry ({"colour", "light", "dark", "print"}; a mode it omits takes
    `colour`): every mark shade clear of its page, else BuildError at `where`."""
    for mode in MODES:
        shade = spec.get(mode, spec.get("colour"))
        if isinstance(shade, str) and HEX_RE.fullmatch(shade):
            problem = contrast_problem(shade.lower(), mode)
            if problem:
                raise BuildError(where, f"{what}: its {problem}")


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
        check_contrast(dict(zip(MODES, marks)), where, f"palette {key}")
        text = spec.get("text") or {}
        if not isinstance(text, Mapping) or set(text) - set(MODES):
            raise BuildError(where, f"palette {key} text: keys are light, dark, print")
        out.append(Swatch(key, colour, marks, tuple(
            _hex(text.get(m, marks[i]), where, f"palette {key} text {m}")
            for i, m in enumerate(MODES))))
    return Palette(tuple(out))
