"""What the block table holds for each `@[name]`: see docs/architecture.md,
"Adding a block"."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

from ..palette import Palette


@dataclass(frozen=True)
class BlockSpec:
    """A generated block: `function(ctx) -> HTML`, called with the page's PageContext.

    `late_order` is None for a block rendered with its page. A number puts the block in
    the late pass, after every page's body, when the site-wide usage of numbers and
    terms is known; late blocks render in ascending `late_order`, and each sees the
    usage left by the ones before it (the glossary, 0, before the number index, 1).

    `options` names the options a block line may give (`@[name key=a,b]`,
    docs/syntax.md); a block with options is called `function(ctx, key=(a, b), ...)`
    with those the line gives (cit/markdown.py, block_options)."""
    function: Callable[..., str]
    late_order: int | None = None
    options: tuple[str, ...] = ()


def compute_now(name: str, key: str, compute):
    """The memo that keeps nothing: `compute()` every time (a cold build's). The build's
    memo (cit/cache.py: json_memo) has the same call: the value stored as `name` for
    `key`, else `compute()`, stored."""
    return compute()


@dataclass(frozen=True)
class BlockInputs:
    """What a block provider (site.yaml `blocks:`, `provider(inputs) -> {name:
    BlockSpec}`) is given: the `registry`; the project `root` and its `content_dir` and
    `templates_dir`; `data`, the plain JSON the data stages returned (cit/stages.py);
    `memo(name, key, compute)`, which keeps a value under `key` joined to the data
    stages' key (code and inputs), for a payload too slow to remake on every build;
    and `palette`, the colours the stages returned (a cit.palette.Palette: its `keys`
    are the colours svgplot accepts)."""
    registry: object
    root: object
    content_dir: object
    templates_dir: object
    data: Mapping = field(default_factory=dict)
    memo: Callable = compute_now
    palette: Palette = field(default_factory=Palette)
