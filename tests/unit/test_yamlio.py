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


def test_distinct_keys_and_merge_keys_load_as_before():
    text = "base: &b {u: 1, v: 2}\nd:\n  <<: *b\n  u: 3\nlist: [1, 2]\n"
    assert yamlio.load(text, "f.yaml") == {"base": {"u": 1, "v": 2}, "d": {"u": 3, "v": 2},
                                           "list": [1, 2]}


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


