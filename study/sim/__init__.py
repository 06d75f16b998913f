"""The training-across-data-centres simulator (docs/simulator.md).

    python -m study.sim            regenerate data/sim/results.md (explicit; never a side
                                 effect of a build)
    python -m study.sim --check    recompute and compare, write nothing

For the build (cit/build.py):

    cells, computed = build_stage(registry, groups, root)

which is `compute_from_paths(root)`, then
`check_results(computed, root / "data/sim/results.md")`,
`register_sim(registry, computed, "data/sim/results.md", root)` and the transit
claims (`groups`: the headline folder's run groups, study.tables.groups_of). The
simulator stage (study/stages.py) turns `computed` into the explorer's payload;
nothing is kept here.
"""

from __future__ import annotations

from pathlib import Path

from cit.reads import Reads
from .compute import Computed, compute, compute_from_paths
from .register import register_sim
from .report import RESULTS, check_results, write_results


def build_stage(registry, groups, root: Path, computed: Computed | None = None,
                reads: Reads | None = None) -> tuple[int, Computed]:
    """Recompute the simulator from the vendored logs and the scenario (or take
    `computed`, computed already from the same files), compare every cell of
    data/sim/results.md (BuildError on the first difference), enter its figures and
    claims into the registry (`groups`: the headline folder's run groups). Returns the
    number of cells compared and the computation."""
    root = Path(root)
    reads = reads or Reads(root)
    if computed is None:
        computed = compute_from_paths(root, reads=reads)
    cells = check_results(computed, root / RESULTS, reads=reads)
    register_sim(registry, computed, RESULTS, root)
    from . import transit_claims
    transit_claims.register_transit_claims(registry, computed, groups, RESULTS)
    return cells, computed


__all__ = ["Computed", "build_stage", "check_results", "compute", "compute_from_paths",
           "register_sim", "write_results", "RESULTS"]
