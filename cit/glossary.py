"""The glossary: `content/glossary.yaml` read into `Term`s, each with the file and
line it was defined at, so an error in a definition names both."""

from __future__ import annotations

import re
from dataclasses import dataclass

import yaml

from . import yamlio
from .fieldcheck import FieldRule, check_fields, key_places
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
    line: int                  # the entry's key
    see: tuple[str, ...] = ()
    definition_line: int = 0   # the definition text's first line (errors in it name it)


ENTRY_RULES = {"term": FieldRule(str, nonblank=True),
               "definition": FieldRule(str, nonblank=True),
               "see": FieldRule(list, required=False, item_kind=str)}


def _text_line(entry_node, field: str) -> int:
    """The file line where a field's text starts: its value's line, or the next one for
    a block scalar (`|` or `>`)."""
    for k, v in entry_node.value:
        if getattr(k, "value", None) == field:
            return v.start_mark.line + 1 + (1 if getattr(v, "style", None) in ("|", ">") else 0)
    return 0


def load_glossary(text: str, path: str) -> dict[str, Term]:
    """Read glossary YAML: a mapping `key: {term: ..., definition: ..., see: [keys]}`.

    Errors name `path` and the line of the offending entry."""
    try:
        node = yamlio.compose(text, path)
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
        check_fields(entry, ENTRY_RULES, key_places(path, entry_node, default=line),
                     f"term {key!r}")
        terms[key] = Term(key, entry["term"].strip(), entry["definition"].strip(), path, line,
                          tuple(entry.get("see") or ()), _text_line(entry_node, "definition"))
    for t in terms.values():
        for other in t.see:
            if other not in terms:
                raise BuildError(f"{path}:{t.line}", f"term {t.key!r}: `see` names undefined term {other!r}")
    return terms
