"""study/blocks/explorer.py: the @[explorer] block draws from the simulator's computation
it is handed (no state kept anywhere), shows registered numbers before any control
moves, and asks for explorer-boot.js (which fetches explorer.js) by src."""

import json
import re

import pytest

from study.blocks.explorer import explorer_blocks
from study.blocks.explorer import explorer_data, explorer_payload, highlighted
from cit.blocks import BlockInputs
from tests.conftest import study_palette
from cit.markdown import PageContext
from cit.registry import Registry
from study.runs import load_folder
from study.sim.compute import compute_from_paths
from study.sim.register import register_sim
from study.sim.report import RESULTS
from tests.conftest import ROOT

HEADLINE = "results/tinystories-gpu"


@pytest.fixture(scope="module")
def computed(vendored_root):
    return compute_from_paths(ROOT, load_folder(vendored_root / HEADLINE, HEADLINE))


@pytest.fixture(scope="module")
def registry(computed):
    reg = Registry()
    register_sim(reg, computed, RESULTS, ROOT)
    return reg


def _render(registry, computed):
    ctx = PageContext(registry, "/transit/", "../", "content/pages/transit.md", {}, {})
    inputs = BlockInputs(registry, ROOT, ROOT / "content", ROOT / "templates",
                         {"explorer": explorer_payload(computed)}, palette=study_palette())
    spec = explorer_blocks(inputs)["explorer"]
    return spec, spec.function(ctx), ctx


def test_the_block_is_rendered_with_its_page_not_in_the_late_pass(registry, computed):
    spec, _, _ = _render(registry, computed)
    assert spec.late_order is None


def test_its_data_is_the_computation_it_was_handed(registry, computed):
    _, html, _ = _render(registry, computed)
    m = re.search(r'<script type="application/json" class="explorer-data" '
                  r'id="explorer-data">(.*?)</script>', html, re.S)
    # as computed, with the colours the block's default gives (each colour's first variant)
    shown = highlighted({"data": explorer_data(computed)}, ())["data"]
    assert json.loads(m.group(1)) == json.loads(json.dumps(shown))
    assert json.loads(m.group(1)) != json.loads(json.dumps(explorer_data(computed)))


def test_every_output_starts_as_a_registered_number(registry, computed):
    _, html, ctx = _render(registry, computed)
    shown = set(re.findall(r'<data class="num" value="[^"]*" data-id="([^"]+)"', html))
    assert shown and shown == ctx.numbers_shown
    assert shown <= set(registry.numbers)


def test_the_script_is_asked_for_by_src_and_nothing_is_written_inline(registry, computed):
    """Under the site's Content-Security-Policy an inline script would not run."""
    _, html, ctx = _render(registry, computed)
    assert ctx.scripts == [("explorer-boot.js", False)]
    assert re.findall(r"<script(?![^>]*type=\"application/json\")[^>]*>", html) == []
