"""The variant catalogue (data/variants.yaml, study/variants.py, docs/variants.md): a run
no entry takes fails naming the run's line and the catalogue; the catalogue is checked
with its own lines; the stylesheets' and the charts' colours come from it; and no
variant's colour is typed anywhere else in the code or the templates."""

import json
import re
import shutil
from pathlib import Path

import pytest

from cit.errors import BuildError
from cit.palette import palette_from
from study import variants
from study.runs import load_run
from tests.conftest import ROOT, give_caches, run_build, script_json
from tests.unit.test_runs import log_copy  # noqa: F401  (the fixture: a real log to edit)

HEADLINE = "results/tinystories-gpu"
HEX_RE = re.compile(r"#[0-9a-fA-F]{6}\b")


def _set_config(path: Path, **fields) -> None:
    lines = path.read_text().splitlines()
    rec = json.loads(lines[0])
    rec["config"].update(fields)
    path.write_text("\n".join([json.dumps(rec)] + lines[1:]) + "\n")


def test_a_run_of_a_variant_the_catalogue_lacks_names_the_run_line_and_the_catalogue(log_copy):
    _set_config(log_copy, variant="sparse")
    with pytest.raises(BuildError) as e:
        load_run(log_copy, "x/log.jsonl")
    assert str(e.value).startswith("x/log.jsonl:1: variant 'sparse' (band ")
    assert "is not in data/variants.yaml" in str(e.value)


def test_each_run_takes_the_first_entry_whose_when_holds(log_copy):
    _set_config(log_copy, variant="band", band="zigzag", chunk_mode="2d", chunk=64)
    run = load_run(log_copy, "x/log.jsonl")
    assert (run.variant.key, run.variant.slug(run.cfg)) == ("F", "F.zigzag.2d64")
    _set_config(log_copy, band="low")
    run = load_run(log_copy, "x/log.jsonl")
    assert (run.variant.key, run.variant.slug(run.cfg)) == ("C", "C.2d64")


def test_a_build_whose_catalogue_drops_a_variant_fails_at_a_real_run_log(project_copy):
    """F taking the high band only: the upstream zig-zag and random-band runs are
    nobody's; the build stops at the first one's config line, naming the catalogue, and
    writes nothing."""
    cat = project_copy / variants.FILE
    text = cat.read_text()
    assert text.count("when: {variant: band}\n") == 1
    cat.write_text(text.replace("when: {variant: band}\n", "when: {variant: band, band: high}\n"))
    out = project_copy / "site"
    r = run_build(out, root=project_copy)
    assert r.returncode == 1 and not out.exists()
    assert re.search(rf"{HEADLINE}/[^:]+\.jsonl:1: variant 'band' \(band '(zigzag|random)'\) "
                     r"is not in data/variants\.yaml", r.stderr), r.stderr


@pytest.mark.parametrize("edit, line_of, message", [
    (lambda t: t.replace("chart_label: low {shape}", "chart_label: low {shap}"),
     "chart_label: low {shap}", "variant C `chart_label`: no field {shap}"),
    (lambda t: t.replace("  - key: D\n", "  - key: C\n"), "  - key: C\n    letter: D",
     "variant key 'C' given twice"),
    (lambda t: t.replace('shades: {light: "#b87f00"', 'shades: {light: "b87f00"'),
     'shades: {light: "b87f00"', "variant B shades `light`"),
    (lambda t: t.replace("when: {variant: calib}", "when: {varient: calib}"),
     "when: {varient: calib}", "variant D `when`: 'varient'"),
    (lambda t: t.replace("E.e8p8.reset100.sent, E.e10p8.reset100.sent]", "E.e8p8.reset100.sent, B]"),
     "E.e8p8.reset100.sent, B]", "tables.headline: 'B' given twice"),
])
def test_a_catalogue_defect_names_the_catalogue_and_its_line(edit, line_of, message):
    text = edit((ROOT / variants.FILE).read_text())
    line = text[:text.index(line_of)].count("\n") + 1
    with pytest.raises(BuildError) as e:
        variants.parse(text)
    assert str(e.value).startswith(f"data/variants.yaml:{line}: {message}"), str(e.value)


def test_the_palette_css_holds_each_mode_and_each_key_once():
    css = palette_from(variants.load(ROOT).palette(), "test").css()
    cat = variants.load(ROOT)
    for v in cat.variants:
        assert css.count(f"--var-{v.key}:{v.colour};") == 1
        assert f'[data-variant="{v.key}"]{{--swatch:var(--var-{v.key})}}' in css
        assert f".svg-figure .c-{v.key}{{--c:var(--fig-{v.key})}}" in css
        assert f"--fig-{v.key}:{v.shades[0]};" in css
    dark = css[css.index("@media screen and (prefers-color-scheme:dark)"):]
    dark = dark[:dark.index("}}") + 2]
    for sw in palette_from(cat.palette(), "test").swatches:  # (light, dark, print)
        if sw.marks[1] != sw.marks[0]:
            assert f"--fig-{sw.key}:{sw.marks[1]};" in dark, sw.key
        if sw.text[1] != sw.text[0] and sw.text[1] != sw.marks[1]:
            assert f"--text-{sw.key}:{sw.text[1]};" in dark, sw.key
    assert any(sw.marks[1] != sw.marks[0] for sw in palette_from(cat.palette(), "test").swatches)
    assert "--fig-C:" not in dark          # the same as in light: not restated
    for sw in palette_from(cat.palette(), "test").swatches:   # a text shade equal to
        assert (f"--text-{sw.key}:" in css) == (sw.text != sw.marks), sw.key   # its mark: not written
    # dark is for the screen only, so print restates only what differs from light
    assert "@media print" not in css or all(
        f"--fig-{v.key}:{v.shades[0]};" not in css[css.index("@media print"):]
        for v in cat.variants)


def test_a_colour_edited_in_the_catalogue_changes_the_stylesheet_and_the_charts(
        tmp_path, warm_copy, built_site):
    """A copy of the project with top-k's colour changed in data/variants.yaml, built
    from the untouched project's caches: its site.css and its charts take the new colour
    (the data stages, the chart memo and the static files are all keyed by it)."""
    from tests.conftest import _copy_project
    proj = _copy_project(tmp_path / "proj")
    give_caches(warm_copy, proj)
    cat = proj / variants.FILE
    old = "#e69f00"                         # top-k's own colour and its dark shade
    assert cat.read_text().count(old) == 2
    # (a purple clear of the dark page, as its dark shade must be: test_palette_contrast.py)
    cat.write_text(cat.read_text().replace(old, "#9a5bbf"))
    out = tmp_path / "site"
    r = run_build(out, root=proj, cold=False)
    assert r.returncode == 0, r.stderr
    css = (out / "static" / "site.css").read_text()
    assert "--var-B:#9a5bbf;" in css and old not in css
    assert old in (built_site / "static" / "site.css").read_text()

    def b_colour(site: Path) -> set:
        fig = script_json((site / "index.html").read_text(), "fig-loss-curves-json")
        return {t["line"]["color"] for t in fig["data"] if t.get("legendgroup") == "curve.B"
                and "color" in t.get("line", {})}
    assert b_colour(built_site) == {old.upper()} and b_colour(out) == {"#9A5BBF"}


# The site's icon: an image file of its own, which cannot read the page's custom
# properties; it is the site's mark (two of the palette's colours), not a variant's.
NOT_A_VARIANT = {"templates/static/favicon.svg"}


def _hard_coded(root: Path, colours: set[str]) -> list[str]:
    """file:line of every catalogue colour written in the code or the templates."""
    found = []
    for folder in ("cit", "study", "templates"):
        for f in sorted((root / folder).rglob("*")):
            if f.suffix not in (".py", ".css", ".js", ".html", ".svg") or "__pycache__" in f.parts \
                    or f.relative_to(root).as_posix() in NOT_A_VARIANT:
                continue
            for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
                for m in HEX_RE.finditer(line):
                    if m.group().lower() in colours:
                        found.append(f"{f.relative_to(root)}:{n}: {m.group()}")
    return found


def _catalogue_colours() -> set[str]:
    cat = variants.load(ROOT)
    return {c for v in cat.variants for c in (v.colour, *v.shades, *v.text.values())}


def test_no_variant_colour_is_typed_in_the_code_or_the_templates():
    assert _hard_coded(ROOT, _catalogue_colours()) == []


def test_the_colour_check_finds_one_planted_in_a_stylesheet(tmp_path):
    shutil.copytree(ROOT / "templates", tmp_path / "templates")
    for folder in ("cit", "study"):
        (tmp_path / folder).mkdir()
    sheet = tmp_path / "templates" / "static" / "site.css"
    planted = sorted(_catalogue_colours())[0].upper()
    sheet.write_text(sheet.read_text() + f".x {{ color: {planted}; }}\n")
    lines = sheet.read_text().count("\n")
    assert _hard_coded(tmp_path, _catalogue_colours()) == [
        f"templates/static/site.css:{lines}: {planted}"]


def test_a_headline_row_no_group_has_names_its_line_in_the_catalogue():
    """The hub's headline table's rows are the catalogue's (tables.headline): a slug
    that no group with completed runs has fails at its line, listing those that do."""
    from types import SimpleNamespace
    from cit.registry import Registry
    from study.experiment import _register_headline_table
    text = (ROOT / variants.FILE).read_text()
    assert text.count("B, C.1d256, C.2d64,") == 1
    bad = text.replace("B, C.1d256, C.2d64,", "B, C.1d256, C.2d65,")
    cat = variants.parse(bad)
    groups = [SimpleNamespace(slug=s) for s, _ in variants.parse(text).headline_rows]
    line = bad[:bad.index("C.2d65")].count("\n") + 1
    with pytest.raises(BuildError) as e:
        _register_headline_table(Registry(), groups, cat, "x.md")
    assert str(e.value).startswith(f"data/variants.yaml:{line}: tables.headline: no group "
                                   "with completed runs has the slug 'C.2d65'")
