"""A mark shade too faint for its page is refused (cit/palette.py, docs/variants.md
"Colours"): in the variant catalogue at the shade's own line, in a stage's palette at
the stage; the backgrounds checked against are the stylesheet's own."""

import re

import pytest

from cit.errors import BuildError
from cit.palette import BACKGROUNDS, MIN_CONTRAST, contrast, palette_from
from study import variants
from tests.conftest import ROOT

CATALOGUE = (ROOT / "data" / "variants.yaml").read_text()


def _hex6(c: str) -> str:
    return "#" + "".join(ch * 2 for ch in c[1:]) if len(c) == 4 else c.lower()


def test_the_backgrounds_are_the_stylesheets_page_backgrounds():
    css = (ROOT / "templates" / "static" / "site.css").read_text()
    bg = re.compile(r"--bg:\s*(#[0-9a-fA-F]{3,6})\b")
    dark = css.index("prefers-color-scheme: dark")
    printed = css.index("@media print")
    assert {"light": _hex6(bg.search(css).group(1)),
            "dark": _hex6(bg.search(css, dark).group(1)),
            "print": _hex6(bg.search(css, printed).group(1))} == BACKGROUNDS


def _shades_line(key: str) -> tuple[int, str]:
    """The line (1-based) and text of variant `key`'s shades in the catalogue."""
    lines = CATALOGUE.splitlines()
    start = lines.index(f"  - key: {key}")
    n = next(i for i in range(start, len(lines)) if lines[i].strip().startswith("shades:"))
    return n + 1, lines[n]


@pytest.mark.parametrize("key, mode, shade, way", [
    ("A", "light", "#ffff66", "darker"), ("B", "dark", "#202020", "lighter"),
    ("C", "print", "#f0f0f0", "darker")])
def test_a_faint_shade_in_the_catalogue_is_refused_at_its_line(key, mode, shade, way):
    line, text = _shades_line(key)
    old = re.search(rf'{mode}: "(#[0-9a-fA-F]{{6}})"', text).group(1)
    edited = CATALOGUE.replace(text, text.replace(f'{mode}: "{old}"', f'{mode}: "{shade}"'))
    with pytest.raises(BuildError) as e:
        variants.parse(edited)
    assert e.value.where == f"data/variants.yaml:{line}"
    assert f"variant {key}: its {mode} shade {shade} has" in e.value.message
    assert f"give a {way} {mode} shade" in e.value.message
    suggested = re.search(r"such as (#[0-9a-f]{6})", e.value.message).group(1)
    assert contrast(suggested, BACKGROUNDS[mode]) >= MIN_CONTRAST
    assert contrast(shade, BACKGROUNDS[mode]) < MIN_CONTRAST


def test_every_shade_the_catalogue_has_now_is_clear_of_its_page():
    cat = variants.parse(CATALOGUE)
    ratios = [contrast(s, BACKGROUNDS[m]) for v in cat.variants
              for m, s in zip(("light", "dark", "print"), v.shades)]
    assert ratios and min(ratios) >= MIN_CONTRAST


def test_a_stage_palette_whose_colour_is_faint_is_refused_at_the_stage():
    with pytest.raises(BuildError) as e:
        palette_from({"A": {"colour": "#ffff66"}}, "site.yaml:12")
    assert e.value.where == "site.yaml:12"
    ratio = contrast("#ffff66", BACKGROUNDS["light"])
    assert e.value.message.startswith(f"palette A: its light shade #ffff66 has {ratio:.2f}:1")
    assert palette_from({"A": {"colour": "#ffff66", "light": "#7a7a00", "print": "#7a7a00"}},
                        "site.yaml:12").keys == {"A"}
