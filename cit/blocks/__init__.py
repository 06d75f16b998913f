"""The block table: every generated block a content paragraph `@[name]` can ask for,
registered by name (docs/architecture.md, "Adding a block"): the engine's own (tables,
the glossary, the number index) and those of the providers site.yaml names (a study's
charts among them, drawn by charts.py).

    table = block_table(inputs, providers)
    table["glossary"]  # BlockSpec(function, late_order)

The modules of this package are imported plainly, and each provider when the table is
made: a broken import in one of them is an ImportError at build start, not an "unknown
block" at some content line.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import Iterable

from ..errors import BuildError
from .generic import generic_blocks
from .spec import BlockInputs, BlockSpec, compute_now


def block_table(inputs: BlockInputs, providers: Iterable = (), stage_key: str = ""
                ) -> dict[str, BlockSpec]:
    """Every block by name: the engine's, then each provider's (a cit.siteconfig.Entry,
    called with `inputs`). A name given twice fails, naming the provider. The memo each
    one is given keys its values by `stage_key` too, the data stages' key, which hashes
    their inputs and the code (a chart's figure uses helpers beyond its module)."""
    memo = inputs.memo

    def code_memo(name: str, key: str, compute):
        return memo(name, hashlib.sha256(f"{stage_key}\0{key}".encode()).hexdigest(), compute)

    inputs = replace(inputs, memo=code_memo)
    table: dict[str, BlockSpec] = {}
    groups = [("the engine", generic_blocks(inputs.registry))]
    groups += [(p.where, p.call(inputs, inputs.root, f"block provider {p.ref}"))
               for p in providers]
    for where, group in groups:
        for name, spec in group.items():
            if name in table:
                raise BuildError(where, f"two blocks are named @[{name}]")
            table[name] = spec
    return table


__all__ = ["BlockInputs", "BlockSpec", "block_table", "compute_now", "generic_blocks"]
