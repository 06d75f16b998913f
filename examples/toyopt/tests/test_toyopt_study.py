"""This study's own test: it builds, every claim holds, every report cell is verified,
and its bad inputs fail with the file and line (the engine's own tests also build it with
TensorBoard event files in place of its CSV exports: tests/unit/test_logs_chart.py). Run from a checkout of the engine:
`python -m pytest examples/toyopt/tests` (or DIR/tests for a study `python -m cit new`
made)."""

import shutil
from pathlib import Path

import pytest

from cit.build import run_stages
from cit.errors import BuildError
from cit.siteconfig import load_site
from cit.vendor import write_lock

ROOT = Path(__file__).resolve().parents[1]


def _copy(tmp_path: Path) -> Path:
    dst = tmp_path / "study"
    shutil.copytree(ROOT, dst, ignore=shutil.ignore_patterns("__pycache__", ".cache", "expected"))
    templates = (ROOT / (_templates(ROOT))).resolve()
    if not templates.is_relative_to(ROOT.resolve()):
        # the engine's templates, named relative to the checkout: the copy gets its own
        # (site.yaml may name no folder outside its project but the engine's)
        shutil.copytree(templates, dst / "templates", ignore=shutil.ignore_patterns("__pycache__"))
        site = dst / "site.yaml"
        site.write_text(site.read_text().replace(f"templates: {_templates(ROOT)}",
                                                 "templates: templates"))
    return dst


def _relock(root: Path) -> None:
    """Pin the study's logs again with the engine's own lock writer, as `cit vendor lock
    --from vendored` does (a test edits a log)."""
    write_lock(root / "vendored", root / "vendored" / "lock.yaml",
               patterns=load_site(root).pinned)


def _templates(root: Path) -> str:
    return load_site(root).templates


def test_it_builds_with_every_claim_holding_and_every_report_cell_verified():
    result = run_stages(ROOT, use_cache=False)
    claims = result.registry.claims
    assert claims and all(c.holds for c in claims.values())
    f = result.figures
    assert f["report_numbers"][0] == f["report_total"][0] > 0
    assert {"index.html", "results/index.html", "glossary/index.html",
            "decks/01-overview/index.html"} <= set(result.files)


def test_a_run_of_an_optimiser_the_study_does_not_list_names_its_log(tmp_path):
    root = _copy(tmp_path)
    study = root / "data" / "study.yaml"
    study.write_text("".join(l for l in study.read_text().splitlines(True) if "key: adam" not in l))
    with pytest.raises(BuildError) as e:
        run_stages(root, use_cache=False)
    assert e.value.where == "vendored/logs/adam.csv:2"       # the run's first row
    assert "'adam', which data/study.yaml does not list" in e.value.message


def test_a_log_line_that_is_not_a_record_names_its_file_and_line(tmp_path):
    root = _copy(tmp_path)
    log = root / "vendored" / "logs" / "sgd-s2.jsonl"
    lines = log.read_text().splitlines(True)
    old = log.read_bytes()
    lines[2] = '{"type": "eval", "step": 20, "loss": "low"}\n'
    log.write_text("".join(lines))
    _relock(root)                               # re-pinned, so the log itself is what fails
    with pytest.raises(BuildError) as e:
        run_stages(root, use_cache=False)
    assert e.value.where == "vendored/logs/sgd-s2.jsonl:3"
    assert "loss is 'low', not a number" in e.value.message


@pytest.mark.parametrize("name, row, message", [
    ("run-momentum-s1-tag-loss.csv", 4, "not a number"),
    ("adam.csv", 6, "not a number")])
def test_a_csv_row_that_is_not_a_record_names_its_file_and_line(tmp_path, name, row, message):
    root = _copy(tmp_path)
    log = root / "vendored" / "logs" / name
    lines = log.read_text().splitlines(True)
    cells = lines[row - 1].rstrip("\n").split(",")
    lines[row - 1] = ",".join(cells[:-1] + ["n/a"]) + "\n"
    log.write_text("".join(lines))
    _relock(root)
    with pytest.raises(BuildError) as e:
        run_stages(root, use_cache=False)
    assert e.value.where == f"vendored/logs/{name}:{row}"
    assert message in e.value.message


def test_a_faint_colour_in_the_study_file_is_refused_at_its_line(tmp_path):
    root = _copy(tmp_path)
    study = root / "data" / "study.yaml"
    lines = study.read_text().splitlines(True)
    n = next(i for i, l in enumerate(lines) if "key: adam" in l)
    lines[n] = lines[n].replace('"#009e73"', '"#ffff66"')
    study.write_text("".join(lines))
    with pytest.raises(BuildError) as e:
        run_stages(root, use_cache=False)
    assert e.value.where == f"data/study.yaml:{n + 1}"
    assert e.value.message.startswith("optimiser adam: its light shade #ffff66 has ")


def test_a_naked_number_names_its_markdown_file_and_line(tmp_path):
    root = _copy(tmp_path)
    page = root / "content" / "pages" / "results.md"
    page.write_text(page.read_text() + "\nAdam took 17 tries in the first week.\n")
    line = len(page.read_text().splitlines())
    with pytest.raises(BuildError) as e:
        run_stages(root, use_cache=False)
    assert e.value.where == "naked-number check"
    assert (f"\n  content/pages/results.md:{line} (results/index.html): naked number '17' "
            "in “") in e.value.message
    assert "write each as a registered number, :n[id]" in e.value.message
