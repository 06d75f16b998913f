"""The block table: every generated block a content paragraph `@[name]` can ask for,
registered here by name and nowhere else (docs/architecture.md, "Adding a block").

    table = block_table(registry, content_dir, templates_dir, sim_values, memo, sim_key)
    table["chart:sweep"]  # BlockSpec(function, late_order)

The modules of this package are imported plainly: a broken import in one of them is an
ImportError at build start, not an "unknown block" at some content line.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from ..errors import BuildError
from ..registry import Registry
from .charts import chart_blocks
from .generic import generic_blocks
from .spec import BlockSpec, compute_now


def block_table(registry: Registry, content_dir: Path, templates_dir: Path,
                sim_values, memo=compute_now, sim_key: str = "") -> dict[str, BlockSpec]:
    """Every block by name. Its inputs are all here: the registry (tables, series,
    numbers), content/chain.yaml for `@[chain]`, and the
    simulator's computed values for `@[explorer]` (`sim_values()` returns them). A name
    given twice fails. `memo(name, key, compute)` keeps the charts' figures and the
    explorer's payload (see chart_html, explorer_blocks), each under its own key joined
    to `sim_key`: the data stages' input key, which hashes the data and all of cit/ (a
    figure's JSON uses helpers beyond its module; the explorer's payload is a function
    of the simulator's computation)."""
    # the study's blocks import cit.blocks' modules: imported here, not at the top
    from study.blocks.chain import chain_blocks
    from study.blocks.explorer import explorer_blocks
    from study.blocks.figures import figure_blocks

    def code_memo(name: str, key: str, compute):
        return memo(name, hashlib.sha256(f"{sim_key}\0{key}".encode()).hexdigest(), compute)

    table: dict[str, BlockSpec] = {}
    for group in (generic_blocks(registry),
                  chart_blocks(registry, code_memo),
                  figure_blocks(registry),
                  chain_blocks(registry, Path(content_dir) / "chain.yaml"),
                  explorer_blocks(sim_values, code_memo)):
        for name, spec in group.items():
            if name in table:
                raise BuildError("block table", f"two blocks are named @[{name}]")
            table[name] = spec
    return table


__all__ = ["BlockSpec", "block_table", "chart_blocks", "generic_blocks"]
