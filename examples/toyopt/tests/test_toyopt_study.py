"""This study's own test: it builds, every claim holds, every report cell is verified,
and its bad inputs fail with the file and line. Run from a checkout of the engine:
`python -m pytest examples/toyopt/tests` (or DIR/tests for a study `python -m cit new`
made)."""

import shutil
from pathlib import Path

import pytest

from cit.build import run_stages
from cit.errors import BuildError
from cit.vendor import git_blob_sha1

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


def _templates(root: Path) -> str:
    from cit.siteconfig import load_site
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
    assert e.value.where == "vendored/logs/adam-s1.jsonl:1"
    assert "'adam', which data/study.yaml does not list" in e.value.message


def test_a_log_line_that_is_not_a_record_names_its_file_and_line(tmp_path):
    root = _copy(tmp_path)
    log = root / "vendored" / "logs" / "sgd-s2.jsonl"
    lines = log.read_text().splitlines(True)
    old = log.read_bytes()
    lines[2] = '{"type": "eval", "step": 20, "loss": "low"}\n'
    log.write_text("".join(lines))
    lock = root / "vendored" / "lock.yaml"      # re-pinned, so the log itself is what fails
    lock.write_text(lock.read_text().replace(git_blob_sha1(old), git_blob_sha1(log.read_bytes()))
                    .replace(f"size: {len(old)}", f"size: {len(log.read_bytes())}"))
    with pytest.raises(BuildError) as e:
        run_stages(root, use_cache=False)
    assert e.value.where == "vendored/logs/sgd-s2.jsonl:3"
