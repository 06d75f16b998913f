"""YAML read through libyaml's C parser when it is there (several times faster than the
pure-Python one, which mattered for build time); the same safe schema either way."""

import yaml

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load(text: str):
    return yaml.load(text, Loader=LOADER)


def compose(text: str):
    """The node tree, whose marks give line numbers for error messages."""
    return yaml.compose(text, Loader=LOADER)
