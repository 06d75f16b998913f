"""The training-across-data-centres simulator (simulator spec).

    python -m cit.sim            regenerate data/sim/results.md (explicit; never a side
                                 effect of a build)
    python -m cit.sim --check    recompute and compare, write nothing

For the build (cit/build.py):

    n = build_stage(registry, experiment, root)   # check results.md, register figures

which is `compute_from_paths(root, experiment.headline)`, then
`check_results(computed, root / "data/sim/results.md")` and
`register_sim(registry, computed, "data/sim/results.md", root)`.
"""

from __future__ import annotations

from pathlib import Path

from .compute import Computed, compute, compute_from_paths
from .registry import register_sim
from .report import RESULTS, check_results, write_results

_last: dict = {}


def build_stage(registry, experiment, root: Path) -> int:
    """Recompute the simulator from the vendored logs and the scenario, compare every
    cell of data/sim/results.md (BuildError on the first difference), enter its figures
    into the registry. Returns the number of cells compared."""
    root = Path(root)
    folder = getattr(experiment, "headline", None)
    computed = compute_from_paths(root, folder)
    cells = check_results(computed, root / RESULTS)
    register_sim(registry, computed, RESULTS, root)
    from . import transit_claims
    transit_claims.register(registry, computed, experiment, RESULTS)
    _last[str(root.resolve())] = computed
    return cells


def remember(root: Path, computed: Computed) -> None:
    """Hand a cached computation to the blocks that read `last_computed` (the build's
    data-stage cache restores it without re-running the simulator)."""
    _last[str(Path(root).resolve())] = computed


def last_computed(root: Path) -> Computed:
    """The computation the last build_stage made for `root` (or a fresh one)."""
    key = str(Path(root).resolve())
    if key not in _last:
        _last[key] = compute_from_paths(Path(root))
    return _last[key]


__all__ = ["Computed", "build_stage", "check_results", "compute", "compute_from_paths",
           "last_computed", "register_sim", "remember", "write_results", "RESULTS"]
