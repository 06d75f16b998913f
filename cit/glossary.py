"""The glossary: `content/glossary.yaml` read into `Term`s, each with the file and
line it was defined at, so an error in a definition names both."""

from __future__ import annotations

import re
from dataclasses import dataclass

import yaml

from . import yamlio
from .errors import BuildError

TERM_KEY_RE = re.compile(r"^[a-z0-9][a-z0-9-]*$")


@dataclass(frozen=True)
class Term:
    """A glossary entry: `definition` is inline Markdown (it may use :t and :n);
    `see` names related terms (shown as "See also" links on the glossary page)."""
    key: str
    term: str
    definition: str
    path: str
    line: int
    see: tuple[str, ...] = ()


ENTRY_FIELDS = {"term": str, "definition": str, "see": list}   # see: optional
REQUIRED_FIELDS = ("term", "definition")


def _field_lines(entry_node, entry_line: int) -> dict[str, int]:
    """Line of each field of one entry's mapping node (the entry's own line if the
    entry is not a mapping)."""
    if not isinstance(entry_node, yaml.MappingNode):
        return {}
    return {k.value: k.start_mark.line + 1 for k, _ in entry_node.value
            if isinstance(k, yaml.ScalarNode)}


def _check_entry(key: str, entry, field_lines: dict[str, int], where: str) -> None:
    """An entry is a mapping with a string `term` and `definition`, and optionally a
    list of term keys `see`; nothing else. The error names the offending field's line.
    (Plain checks: pydantic's import alone cost a tenth of a content-only rebuild.)"""
    path, line = where.rsplit(":", 1)
    if not isinstance(entry, dict):
        raise BuildError(where, f"term {key!r}: must be a mapping with `term` and "
                         f"`definition`, not {type(entry).__name__}")
    for name, value in entry.items():
        at = f"{path}:{field_lines.get(str(name), line)}"
        if name not in ENTRY_FIELDS:
            raise BuildError(at, f"term {key!r}: unknown field {name!r} (allowed: "
                             + ", ".join(ENTRY_FIELDS) + ")")
        if not isinstance(value, ENTRY_FIELDS[name]) or (
                name == "see" and not all(isinstance(x, str) for x in value)):
            want = "a list of term keys" if name == "see" else "text"
            raise BuildError(at, f"term {key!r}: {name} must be {want}, not {value!r}")
    missing = [name for name in REQUIRED_FIELDS if name not in entry]
    if missing:
        raise BuildError(where, f"term {key!r}: missing field {missing[0]!r}")


def load_glossary(text: str, path: str) -> dict[str, Term]:
    """Read glossary YAML: a mapping `key: {term: ..., definition: ..., see: [keys]}`.

    Errors name `path` and the line of the offending entry."""
    try:
        node = yamlio.compose(text)
        data = yamlio.load(text, path)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = 1 + mark.line if mark is not None else 1
        raise BuildError(f"{path}:{line}", f"not valid YAML: {getattr(e, 'problem', e)}") from None
    if data is None:
        return {}
    if not isinstance(data, dict) or not isinstance(node, yaml.MappingNode):
        raise BuildError(f"{path}:1", "the glossary must be a mapping of term keys to entries")
    entries = {k.value: (k.start_mark.line + 1, v) for k, v in node.value
               if isinstance(k, yaml.ScalarNode)}
    terms: dict[str, Term] = {}
    for key in sorted(data, key=str):
        line, entry_node = entries.get(str(key), (1, None))
        if not isinstance(key, str) or not TERM_KEY_RE.match(key):
            raise BuildError(f"{path}:{line}", f"term key {key!r} must be lower-case letters, digits and hyphens")
        entry = data[key]
        _check_entry(key, entry, _field_lines(entry_node, line), f"{path}:{line}")
        terms[key] = Term(key, entry["term"].strip(), entry["definition"].strip(), path, line,
                          tuple(entry.get("see", ())))
    for t in terms.values():
        for other in t.see:
            if other not in terms:
                raise BuildError(f"{path}:{t.line}", f"term {t.key!r}: `see` names undefined term {other!r}")
    return terms
