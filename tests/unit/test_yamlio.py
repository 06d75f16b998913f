"""yamlio: the one YAML reader, which refuses a key given twice at any depth."""

import re

import pytest

from cit import yamlio
from cit.errors import BuildError


@pytest.mark.parametrize("text,where,key,first,again", [
    ("a: 1\nb: 2\na: 3\n", "f.yaml:3", "a", 1, 3),
    ("x:\n  y: 1\n  z:\n    - {k: 1, k: 2}\n", "f.yaml:4", "k", 4, 4),
    ("- n: 1\n- n: 2\n  n: 3\n", "f.yaml:3", "n", 2, 3),
    ("1: one\n0x1: hex one\n", "f.yaml:2", 1, 1, 2),     # equal as values, not as text
])
def test_a_key_given_twice_names_the_file_the_key_and_both_lines(text, where, key, first,
                                                                 again):
    with pytest.raises(BuildError) as e:
        yamlio.load(text, "f.yaml")
    assert (e.value.where, e.value.message) == (
        where, f"duplicate key {key!r}: first given at line {first}, again at line {again}")


def test_front_matter_lines_count_from_the_file():
    with pytest.raises(BuildError) as e:
        yamlio.load("title: a\ntitle: b\n", "content/x.md", first_line=2)
    assert e.value.where == "content/x.md:3" and "first given at line 2" in e.value.message


def test_distinct_keys_load_as_before():
    text = "base: {u: 1, v: 2}\nd:\n  u: 3\nlist: [1, 2]\n"
    assert yamlio.load(text, "f.yaml") == {"base": {"u": 1, "v": 2}, "d": {"u": 3},
                                           "list": [1, 2]}


@pytest.mark.parametrize("text,where,what", [
    ("base: &b {u: 1, v: 2}\n", "f.yaml:1", "a YAML anchor (&b)"),
    ("base: {u: 1}\nd:\n  <<: *b\n", "f.yaml:3", "a YAML alias (*b)"),   # bad YAML too
    ("a: [1, [2, [3]]]\n" + "b: " + "[" * 40 + "]" * 40 + "\n", "f.yaml:2", "nested more than"),
])
def test_anchors_aliases_and_deep_nesting_are_refused_at_their_line(text, where, what):
    for read in (lambda: yamlio.load(text, "f.yaml"), lambda: yamlio.compose(text, "f.yaml")):
        with pytest.raises(BuildError) as e:
            read()
        assert e.value.where == where and e.value.message.startswith(what)


def test_a_billion_laughs_is_refused_at_once():
    """N1 (docs/faults.md): nine lines that alias a hundred million nodes."""
    lines = ["x0: [lol]"] + [f"x{i}: [" + ",".join(["lol"] * 10) + "]" for i in range(1, 9)]
    lines[0] = "x0: &a0 [lol]"
    with pytest.raises(BuildError) as e:
        yamlio.compose("\n".join(lines) + "\n", "content/glossary.yaml", 319)
    assert str(e.value).startswith("content/glossary.yaml:319: a YAML anchor (&a0)")


def test_a_document_nested_a_hundred_thousand_deep_is_refused_not_a_crash():
    # composing it overflows libyaml's C stack (a segmentation fault) without the bound
    with pytest.raises(BuildError, match="nested more than"):
        yamlio.compose("[" * 100_000 + "]" * 100_000, "f.yaml")


def test_a_file_over_the_size_limit_is_refused_at_the_line_it_crosses_it():
    line = "k: " + "w" * 99 + "\n"           # 103 characters a line
    text = "".join(line.replace("k:", f"k{i}:") for i in range(12_000))
    with pytest.raises(BuildError) as e:
        yamlio.load(text, "f.yaml")
    assert e.value.where == f"f.yaml:{text.count(chr(10), 0, yamlio.MAX_BYTES) + 1}"
    assert "over 1,000,000 characters" in e.value.message


def test_the_safe_schema_still_refuses_python_objects():
    import yaml
    with pytest.raises(yaml.YAMLError):
        yamlio.load("!!python/object/apply:os.system ['true']\n", "f.yaml")


def test_every_yaml_read_in_the_package_goes_through_yamlio():
    """yamlio is where duplicate keys are refused: no module parses YAML on its own."""
    from tests.conftest import ROOT
    offenders = [f"{p.relative_to(ROOT)}:{n}" for p in sorted([*(ROOT / "cit").rglob("*.py"),
                                                                      *(ROOT / "study").rglob("*.py")])
                 if p.name != "yamlio.py"
                 for n, line in enumerate(p.read_text().splitlines(), 1)
                 if re.search(r"\byaml\.(safe_load|load|full_load|unsafe_load|compose)\(", line)]
    assert offenders == []


