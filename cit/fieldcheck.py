"""Checks for the small YAML mappings every build reads (front matter, the glossary, the
allow-list, the vendoring lock): which keys a mapping may have, which it must have,
and what each holds, with an error naming the file and the line of the offending key.

These were pydantic models. Importing pydantic cost a page rebuild about 0.1 s, a
fifth of it, for a few flat mappings (docs/architecture.md, "Rebuilding fast"); a
study's own larger files may use pydantic, imported only when they are read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping

import re

import yaml

from .errors import BuildError

TYPE_WORDS = {str: "text", int: "a whole number", bool: "true or false", list: "a list",
              dict: "a mapping"}


@dataclass(frozen=True)
class FieldRule:
    """What one key of a mapping holds: a value of `kind` (bool is not taken for an
    int), given or not (`required`), null allowed or not (`nullable`), not blank (text)
    or not empty (list) when `nonblank`, one of `choices` when there are any, items of
    `item_kind` (a list), text matching `pattern`, a number at least `minimum`."""
    kind: type
    required: bool = True
    nullable: bool = False
    nonblank: bool = False
    choices: tuple = ()
    item_kind: type | None = None
    pattern: str | None = None
    minimum: int | None = None


def key_lines(node, first_line: int = 1) -> dict[str, int]:
    """File line of each key of a composed YAML mapping node ({} for anything else);
    `first_line` is the file line of the node text's first line."""
    if not isinstance(node, yaml.MappingNode):
        return {}
    return {k.value: first_line + k.start_mark.line for k, _ in node.value
            if isinstance(k, yaml.ScalarNode)}


def key_places(path: str, node, first_line: int = 1, default: int | None = None):
    """`where` for check_fields: "path:line" of a key of the mapping `node` (composed
    YAML, its text starting at file line `first_line`); for the mapping itself, or a key
    it lacks, `default`, else the mapping's own line."""
    lines = key_lines(node, first_line)
    if default is None:
        default = first_line + node.start_mark.line if node is not None else first_line
    return lambda key: f"{path}:{lines.get(key, default) if key is not None else default}"


def _is_kind(value, kind: type) -> bool:
    return isinstance(value, kind) and not (kind is int and isinstance(value, bool))


def _value_problem(value, rule: FieldRule) -> str | None:
    """Why `value` does not satisfy `rule`, in words; None when it does."""
    if value is None and rule.nullable:
        return None
    if not _is_kind(value, rule.kind):
        return f"must be {TYPE_WORDS.get(rule.kind, rule.kind.__name__)}, not {value!r}"
    if rule.item_kind is not None and not all(_is_kind(x, rule.item_kind) for x in value):
        return (f"must be a list of {TYPE_WORDS.get(rule.item_kind, rule.item_kind.__name__)}"
                f", not {value!r}")
    if rule.nonblank and not (value.strip() if isinstance(value, str) else value):
        return "must not be empty"
    if rule.choices and value not in rule.choices:
        return f"must be one of {', '.join(map(str, rule.choices))}, not {value!r}"
    if rule.pattern is not None and not re.fullmatch(rule.pattern, value):
        return f"{value!r} does not match {rule.pattern}"
    if rule.minimum is not None and value < rule.minimum:
        return f"must be at least {rule.minimum}, not {value!r}"
    return None


def check_fields(data, rules: Mapping[str, FieldRule], where: Callable[[str | None], str],
                 what: str) -> None:
    """BuildError unless `data` is a mapping with only the keys of `rules`, each valid,
    and every required one given. `where(key)` is the "file:line" of a key (of the
    mapping itself for None); `what` starts each message ("front matter",
    "term 'dct'")."""
    if not isinstance(data, dict):
        raise BuildError(where(None), f"{what} must be a mapping, not {type(data).__name__}")
    for key, value in data.items():
        if key not in rules:
            raise BuildError(where(str(key)), f"{what}: unknown key `{key}` (allowed: "
                             + ", ".join(rules) + ")")
        problem = _value_problem(value, rules[key])
        if problem:
            raise BuildError(where(key), f"{what} `{key}`: {problem}")
    missing = [key for key, rule in rules.items() if rule.required and key not in data]
    if missing:
        raise BuildError(where(None), f"{what}: `{missing[0]}` is missing")
