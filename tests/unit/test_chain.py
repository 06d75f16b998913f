"""study/blocks/chain.py: content/chain.yaml is validated with clear errors (file, line, block),
and renders to an SVG without digits plus a step list whose numbers come from the
registry through `num`."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from study.blocks.chain import chain_number_ids, load_chain, render_chain
from cit.errors import BuildError
from cit.markup import number_element
from cit.registry import Registry

ROOT = Path(__file__).resolve().parents[2]
CHAIN_YAML = ROOT / "content" / "chain.yaml"

# A small chain with two paths that share their first and last blocks.
MINI = """\
title: "A small chain"
description: "Two paths from a source to a sink."
tags:
  paper: "from a paper"
  experiment: "from the experiment"
  simulation: "from the simulation"
  assumption: "assumed"
paths:
  - {id: E, name: "E", label: "the long way", summary: "It takes {demo.time|unit}."}
  - {id: Eprime, name: "E′", label: "the short way"}
lanes:
  - {id: top, label: "Top"}
  - {id: bottom, label: "Bottom", reverse: true}
blocks:
  - id: source
    label: "Source"
    tag: experiment
    lane: top
    paths: [E, Eprime]
    detail: "Starts with {demo.count} items."
  - id: middle
    label: "Middle"
    tag: paper
    lane: top
    paths: [E]
    detail: "Only on the long way."
  - id: shortcut
    label: "Shortcut"
    tag: assumption
    lane: bottom
    col: 1
    paths: [Eprime]
    detail: "Only on the short way."
  - id: sink
    label: "Sink"
    tag: simulation
    lane: bottom
    col: 0
    paths: [E, Eprime]
    detail: "Ends here."
edges:
  - {from: source, to: middle, paths: [E]}
  - {from: middle, to: sink, paths: [E]}
  - {from: source, to: shortcut, paths: [Eprime]}
  - {from: shortcut, to: sink, paths: [Eprime]}
  - {from: middle, to: source, paths: [E], kind: feedback, label: "back again", tag: experiment,
     detail: "Goes back."}
"""


def _write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "chain.yaml"
    p.write_text(text, encoding="utf-8")
    return p


def _line_of(text: str, needle: str) -> int:
    """1-based line of the first line containing `needle` (so tests type no line numbers)."""
    for i, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            return i
    raise AssertionError(f"{needle!r} not in the test's YAML")


def _registry(ids, units=None) -> Registry:
    """Placeholder numbers for the ids a chain shows (illustrative, not results)."""
    units = units or {}
    reg = Registry()
    for k, nid in enumerate(sorted(ids), start=1):
        reg.add(nid, k, f"{k:,}", unit=units.get(nid, ""), kind="illustrative", sources=[],
                locator="test", computation="a placeholder")
    return reg


class _Num:
    def __init__(self, reg):
        self.reg, self.calls = reg, []

    def __call__(self, nid):
        self.calls.append(nid)
        n = self.reg.get(nid)
        return number_element(n)


def _claims(cited):
    """A claim lookup for the chain's `:c[id]`: every claim holds; a marked one rests on
    one seed."""
    from cit.claims import Claim

    def claim(cid, marked, where):
        cited.append((cid, where))
        return Claim(cid, "checked", True, (), (), "how", (1, 1) if marked else (3, 3))
    return claim


def test_a_chain_text_claim_wraps_its_sentence_and_names_its_line(tmp_path):
    from cit.claims import check_reference
    text = MINI.replace('detail: "Ends here."', 'detail: "First words. The band is below AdamW :c[x.y]."')
    path = _write(tmp_path, text)
    reg = _registry(["demo.count", "demo.time"])
    cited = []
    out = render_chain(reg, path, _Num(reg), claim=_claims(cited))
    assert '<span class="claim" data-claim="x.y">The band is below AdamW.<data class="claim-mark"' in out
    assert "First words. <span" in out
    with pytest.raises(BuildError) as e:
        render_chain(reg, path, _Num(reg), claim=lambda cid, m, where: check_reference({}, cid, m, where))
    assert "chain.yaml:" in e.value.where and "unknown claim id 'x.y'" in e.value.message


def test_a_chain_text_claim_without_a_claim_lookup_is_refused(tmp_path):
    """No caller may show a chain sentence with its claim dropped or unchecked."""
    text = MINI.replace('detail: "Ends here."', 'detail: "The band is below AdamW :c[x.y]."')
    path = _write(tmp_path, text)
    reg = _registry(["demo.count", "demo.time"])
    with pytest.raises(BuildError) as e:
        render_chain(reg, path, _Num(reg))
    assert "chain.yaml:" in e.value.where
    assert e.value.message == ("claim reference ':c[x.y]' with no claims to check it "
                               "against (render_chain needs `claim`)")


def _fails(tmp_path, text) -> BuildError:
    path = _write(tmp_path, text)
    with pytest.raises(BuildError) as info:
        load_chain(path)
    assert str(path.name) in str(info.value)
    return info.value


# ---------------------------------------------------------------- the real file

def test_the_chain_file_in_content_is_valid_and_shows_registry_numbers():
    chain = load_chain(CHAIN_YAML)
    assert {p.id for p in chain.paths} == {"E", "Eprime"}
    ids = chain_number_ids(chain)
    assert ids, "the chain shows numbers from the registry"
    for nid in ids:
        assert re.match(r"^(exp|hub|sim|scenario)\.", nid), nid
    tags = {b.tag for b in chain.blocks}
    assert tags == {"paper", "experiment", "simulation", "assumption"}


def test_the_real_chain_renders_every_number_through_num_and_no_digit_in_the_svg():
    chain = load_chain(CHAIN_YAML)
    reg = _registry(chain_number_ids(chain))
    num = _Num(reg)
    cited = []
    out = render_chain(reg, CHAIN_YAML, num, claim=_claims(cited))
    assert sorted(set(num.calls)) == chain_number_ids(chain)
    assert cited and out.count('class="claim-mark') == len(cited)
    svg = re.search(r"<svg.*?</svg>", out, re.S).group(0)
    assert not re.search(r"&#", svg), "no numeric character references in the SVG source"
    svg_text = html.unescape(re.sub(r"<[^>]+>", "", svg))
    assert not re.search(r"\d", svg_text), svg_text
    # Outside <data> elements the rest of the block's text carries no digit either.
    prose = re.sub(r"<data\b.*?</data>", "", out[len(svg):] + out[:out.index("<svg")], flags=re.S)
    assert "&#" not in prose, "no numeric character references outside numbers"
    prose_text = html.unescape(re.sub(r"<[^>]+>", "", prose))
    assert not re.search(r"\d", prose_text), prose_text
    for b in chain.blocks:
        assert f'data-block="{b.id}"' in out
        assert f'id="chain-step-{b.id}"' in out


def test_rendering_is_deterministic():
    chain = load_chain(CHAIN_YAML)
    reg = _registry(chain_number_ids(chain))
    assert (render_chain(reg, CHAIN_YAML, _Num(reg), claim=_claims([]))
            == render_chain(reg, CHAIN_YAML, _Num(reg), claim=_claims([])))


# ---------------------------------------------------------------- rendering details

def test_blocks_and_edges_carry_the_paths_they_belong_to(tmp_path):
    path = _write(tmp_path, MINI)
    reg = _registry(["demo.count", "demo.time"])
    out = render_chain(reg, path, _Num(reg))
    assert re.search(r'class="chain-block tag-paper path-E" data-block="middle" data-path="E"', out)
    assert re.search(r'data-block="shortcut" data-path="Eprime"', out)
    assert re.search(r'class="chain-block tag-experiment path-both" data-block="source" '
                     r'data-path="E Eprime"', out)
    assert 'id="chain-edge-source-shortcut" class="chain-edge chain-edge-flow path-Eprime"' in out
    assert 'data-kind="feedback"' in out
    assert '<input type="radio" name="chain-path" value="E" checked>' in out
    assert '<input type="radio" name="chain-path" value="Eprime">' in out
    assert '<div class="chain-controls" hidden>' in out


def test_every_block_shows_its_tag_inside_its_drawing(tmp_path):
    path = _write(tmp_path, MINI)
    reg = _registry(["demo.count", "demo.time"])
    out = render_chain(reg, path, _Num(reg))
    for block, tag in (("source", "experiment"), ("middle", "paper"),
                       ("shortcut", "assumption"), ("sink", "simulation")):
        group = re.search(rf'<g class="chain-block[^"]*" data-block="{block}".*?</g>\n</g>',
                          out, re.S).group(0)
        assert f'<g class="chain-tag tag-{tag}">' in group
        assert f">{tag}</text>" in group


def test_a_unit_placeholder_adds_the_registry_unit_and_a_bare_one_does_not(tmp_path):
    path = _write(tmp_path, MINI)
    reg = _registry(["demo.count", "demo.time"], units={"demo.time": "s", "demo.count": "items"})
    out = render_chain(reg, path, _Num(reg))
    assert re.search(r'data-id="demo.time"[^>]*>[^<]*</data>\u00a0<span class="unit">s</span>', out)
    assert not re.search(r'data-id="demo.count"[^>]*>[^<]*</data>\u00a0<span', out)


def test_a_reversed_lane_runs_right_to_left(tmp_path):
    path = _write(tmp_path, MINI)
    reg = _registry(["demo.count", "demo.time"])
    out = render_chain(reg, path, _Num(reg))

    def x_of(block):
        g = re.search(rf'data-block="{block}"[^>]*>\n<rect class="chain-box" x="([0-9.]+)"', out)
        return float(g.group(1))

    assert x_of("sink") > x_of("shortcut"), "column zero of a reversed lane is on the right"
    assert x_of("source") < x_of("middle")


# ---------------------------------------------------------------- bad input

def test_a_block_with_an_unknown_tag_names_the_file_line_and_block(tmp_path):
    text = MINI.replace("tag: paper", "tag: rumour")
    err = _fails(tmp_path, text)
    assert err.where.endswith(f"chain.yaml:{_line_of(text, 'tag: rumour')}")
    assert "block 'middle'" in err.message and "tag" in err.message


def test_a_block_on_an_unknown_path_names_the_path_and_the_block(tmp_path):
    text = MINI.replace("    paths: [E]\n    detail: \"Only on the long way.\"",
                        "    paths: [F]\n    detail: \"Only on the long way.\"")
    err = _fails(tmp_path, text)
    assert err.where.endswith(f"chain.yaml:{_line_of(text, 'paths: [F]')}")
    assert "block 'middle'" in err.message and "unknown path name 'F'" in err.message


def test_an_edge_on_an_unknown_path_names_the_edge(tmp_path):
    text = MINI.replace("{from: source, to: middle, paths: [E]}",
                        "{from: source, to: middle, paths: [G]}")
    err = _fails(tmp_path, text)
    assert "edge 'source' -> 'middle'" in err.message and "unknown path name 'G'" in err.message
    assert err.where.endswith(f"chain.yaml:{_line_of(text, 'paths: [G]')}")


def test_an_edge_to_an_unknown_block_names_the_edge(tmp_path):
    text = MINI.replace("{from: middle, to: sink, paths: [E]}",
                        "{from: middle, to: nowhere, paths: [E]}")
    err = _fails(tmp_path, text)
    assert "unknown block 'nowhere'" in err.message and "edge 'middle' -> 'nowhere'" in err.message


def test_a_missing_field_names_the_block(tmp_path):
    text = MINI.replace('    label: "Sink"\n', "")
    err = _fails(tmp_path, text)
    assert "block 'sink'" in err.message and "label" in err.message


def test_an_unexpected_field_is_refused(tmp_path):
    text = MINI.replace('    label: "Sink"\n', '    label: "Sink"\n    colour: red\n')
    err = _fails(tmp_path, text)
    assert "block 'sink'" in err.message and "colour" in err.message
    assert err.where.endswith(f"chain.yaml:{_line_of(text, 'colour: red')}")


def test_a_digit_in_a_label_is_refused(tmp_path):
    digit = str(len("x"))
    text = MINI.replace('label: "Middle"', f'label: "Middle {digit}"')
    err = _fails(tmp_path, text)
    assert "block 'middle'" in err.message and "digit" in err.message


def test_a_number_placeholder_in_a_drawn_label_is_refused(tmp_path):
    text = MINI.replace('label: "Middle"', 'label: "Middle {demo.count}"')
    err = _fails(tmp_path, text)
    assert "block 'middle'" in err.message and "placeholder" in err.message


def test_a_digit_in_a_detail_outside_a_placeholder_is_refused(tmp_path):
    digit = str(len("xy"))
    text = MINI.replace('detail: "Ends here."', f'detail: "Ends after {digit} steps."')
    err = _fails(tmp_path, text)
    assert "block 'sink'" in err.message and "digit" in err.message


def test_a_path_that_forks_is_refused(tmp_path):
    text = MINI.replace("{from: middle, to: sink, paths: [E]}",
                        "{from: middle, to: sink, paths: [E]}\n"
                        "  - {from: source, to: sink, paths: [E]}")
    err = _fails(tmp_path, text)
    assert "path 'E'" in err.message and "twice" in err.message


def test_a_path_with_a_gap_is_refused(tmp_path):
    text = MINI.replace("  - {from: middle, to: sink, paths: [E]}\n", "")
    err = _fails(tmp_path, text)
    assert "path 'E'" in err.message


def test_two_blocks_in_one_slot_are_refused(tmp_path):
    text = MINI.replace("    col: 1\n", "    col: 0\n", 1)
    err = _fails(tmp_path, text)
    assert "already taken" in err.message


def test_malformed_yaml_names_the_line(tmp_path):
    text = MINI.replace('label: "Middle"', 'label: "Middle')
    err = _fails(tmp_path, text)
    assert "not valid YAML" in err.message
    assert re.search(r"chain\.yaml:\d+$", err.where)


def test_an_unknown_number_id_names_chain_yaml_and_the_block(tmp_path):
    path = _write(tmp_path, MINI)
    reg = _registry(["demo.time"])
    with pytest.raises(BuildError) as info:
        render_chain(reg, path, _Num(reg))
    err = info.value
    assert "chain.yaml" in err.where and "block 'source'" in err.where
    assert err.where.split(" ")[0].endswith(f":{_line_of(MINI, 'Starts with')}")
    assert "demo.count" in err.message


@pytest.mark.parametrize("old, new, owner, words", [
    ('  assumption: "assumed"\n', '  assumption: "assumed"\n  rumour: "heard"\n', "tags",
     "not 'rumour'"),
    ("    col: 1\n", "    col: -1\n", "block", "must be at least 0"),
    ("  - id: middle\n", "  - id: Middle\n", "block 'Middle'", "does not match"),
    ("{id: top, label: \"Top\"}", "{id: top, label: \"Top\", reverse: maybe}", "lane 'top'",
     "must be true or false"),
    ("paths: [E, Eprime]", "paths: []", "block 'source'", "must not be empty"),
])
def test_a_schema_error_names_the_line_and_owner(tmp_path, old, new, owner, words):
    assert old in MINI
    text = MINI.replace(old, new, 1)
    err = _fails(tmp_path, text)
    assert err.where.endswith(f"chain.yaml:{_line_of(text, new.strip().splitlines()[-1])}")
    assert err.message.startswith(owner) and words in err.message
