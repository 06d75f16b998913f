"""What the block table holds for each `@[name]`: see docs/architecture.md,
"Adding a block"."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class BlockSpec:
    """A generated block: `function(ctx) -> HTML`, called with the page's PageContext.

    `late_order` is None for a block rendered with its page. A number puts the block in
    the late pass, after every page's body, when the site-wide usage of numbers and
    terms is known; late blocks render in ascending `late_order`, and each sees the
    usage left by the ones before it (the glossary, 0, before the number index, 1)."""
    function: Callable[[object], str]
    late_order: int | None = None


def compute_now(name: str, key: str, compute):
    """The memo that keeps nothing: `compute()` every time (a cold build's). The build's
    memo (cit/cache.py: json_memo) has the same call: the value stored as `name` for
    `key`, else `compute()`, stored."""
    return compute()
