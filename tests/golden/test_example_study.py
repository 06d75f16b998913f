"""The second study (examples/toyopt), built by the same engine with no edit of it: its
whole output tree against the committed expectation (tools/example_expected.py writes
it), so an engine change that alters any output shows up here as a diff; and a study
`python -m cit new DIR` starts builds at once."""

import difflib
import importlib.util
import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT

EXAMPLE = ROOT / "examples" / "toyopt"


def _tool():
    spec = importlib.util.spec_from_file_location("example_expected",
                                                  ROOT / "tools" / "example_expected.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def built():
    """The example's output, built once for this module (cold, at the fixed stamp)."""
    tool = _tool()
    return tool, tool.build("toyopt")


def test_the_example_study_builds_to_its_expected_tree_byte_for_byte(built):
    tool, files = built
    expected = EXAMPLE / "expected"
    assert tool.manifest(files) == (expected / "MANIFEST").read_text()
    for rel, data in files.items():
        if tool.by_hash(rel):
            continue
        want = (expected / rel).read_bytes()
        if data != want:
            diff = difflib.unified_diff(want.decode().splitlines(), data.decode().splitlines(),
                                        f"expected/{rel}", f"built/{rel}", lineterm="", n=1)
            raise AssertionError("\n".join(list(diff)[:40]))


def test_the_example_has_the_parts_a_study_needs(built):
    """Two pages and the hub, a deck, a glossary, a chart, two checked claims cited as
    verified, and its own figures on the report it checked (and the engine's 404 page)."""
    _, files = built
    pages = sorted(k for k in files if k.endswith(".html"))
    assert pages == ["404.html", "decks/01-overview/index.html", "glossary/index.html", "index.html",
                     "results/index.html"]
    hub = files["index.html"].decode()
    assert 'class="chart"' in hub
    numbers = json.loads(files["numbers.json"])
    claims = {c["id"] for c in numbers["claims"]}
    assert claims == {"toy.sgd_first_to_target", "toy.momentum_highest_final"}
    for cid in claims:
        assert f'value="verified" data-id="{cid}"' in hub
    build = numbers["build"]
    assert build["report_numbers"] == build["report_total"] > 0


def test_a_study_cit_new_makes_builds_at_once_with_its_own_stage(tmp_path):
    """`python -m cit new DIR && python build.py --root DIR`, DIR a fresh folder: the
    copy builds (its stage ran: its report's numbers are verified) into DIR/site."""
    target = tmp_path / "mystudy"
    new = subprocess.run([sys.executable, "-m", "cit", "new", str(target)], cwd=ROOT,
                         capture_output=True, text=True)
    assert new.returncode == 0, new.stderr
    assert (target / "site.yaml").is_file() and not (target / "expected").exists()
    r = subprocess.run([sys.executable, "build.py", "--root", str(target), "--no-cache"],
                       cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    numbers = json.loads((target / "site" / "numbers.json").read_text())
    assert numbers["build"]["report_numbers"] == numbers["build"]["report_total"] > 0
    again = subprocess.run([sys.executable, "-m", "cit", "new", str(target)], cwd=ROOT,
                           capture_output=True, text=True)
    assert again.returncode != 0 and "exists and is not empty" in again.stderr
