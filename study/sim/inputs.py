"""The simulator's measured inputs, read from the run logs (never typed in).

From the headline folder's completed runs: the target loss (mean final validation loss
of the exact low band with 2-D 64x64 chunks), each variant's steps to target (mean over
seeds of the first evaluated step at or below the target; none if any seed never gets
there), bytes per worker per step from the config records, and the model's size and
tokens per worker per step.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from cit.errors import BuildError
from ..runs import Folder, Run


@dataclass(frozen=True)
class Steps:
    """Steps to target of one group of runs (one seed each). `per_seed` is each seed's
    first evaluated step at or below the target (the grid value); `above` the evaluated
    step just before it, the last one above the target (0 when the first evaluation is
    already at or below it). A seed's true crossing lies in above + 1 .. per_seed
    (docs/simulator.md, "The evaluation grid's interval")."""
    group: str
    files: tuple[str, ...]
    per_seed: tuple[int | None, ...]
    above: tuple[int | None, ...] = ()
    # per seed: the val_loss of the evaluation at `per_seed`, and the evaluated step
    # after it (None where there is none); results.md §8 "The run behind E"
    crossed_at: tuple[float | None, ...] = ()
    after: tuple[int | None, ...] = ()

    @property
    def mean(self) -> float | None:
        if any(s is None for s in self.per_seed):
            return None
        return math.fsum(self.per_seed) / len(self.per_seed)

    @property
    def fewest(self) -> float | None:
        """The interval's low end: mean over seeds of the step after the last
        evaluation above the target."""
        if self.mean is None:
            return None
        return math.fsum(a + 1 for a in self.above) / len(self.above)

    @property
    def reached(self) -> int:
        return sum(s is not None for s in self.per_seed)


@dataclass(frozen=True)
class OpticsRun:
    """A repaired optics group (feedback of the band sent, full scale re-set)."""
    slug: str
    enob: float
    planes: int
    fs_every: int
    steps: Steps


@dataclass(frozen=True)
class Inputs:
    measured: dict            # workers, n_params, tokens_per_step, value_bytes, target_loss
    target_group: str
    target_files: tuple[str, ...]
    payload: dict             # "dense" | "topk" | "band" -> bytes per worker per step
    payload_files: dict       # same keys -> the log whose config record gave it
    log_wire: dict            # "A" | "B" | "C" -> wire_bytes_per_step from the logs
    steps: dict               # "A" | "B" | "C" | "E" -> Steps
    repaired: tuple[OpticsRun, ...]
    e_run: OpticsRun | None
    files: tuple[str, ...]    # every log read


def optics_slug(run: Run) -> str:
    """The registry's group slug for an optics run, e.g. `E.e8p8.reset100.sent`
    (its variant's template in data/variants.yaml)."""
    return run.variant.slug(run.cfg)


def _groups(folder: Folder) -> dict[str, list[Run]]:
    out: dict[str, list[Run]] = {}
    for r in folder.runs:
        out.setdefault(r.group, []).append(r)
    return out


def _one(groups: dict[str, list[Run]], what: str, pred, where: str) -> list[Run]:
    hits = [g for g, rs in sorted(groups.items()) if pred(rs[0])]
    if len(hits) != 1:
        raise BuildError(where, f"expected exactly one group for {what}, found "
                         f"{len(hits)}: {', '.join(hits) or 'none'}")
    return groups[hits[0]]


def _last_above(run: Run, first: int | None) -> int | None:
    """The evaluated step just before `first` (0 if `first` is the first evaluation)."""
    if first is None:
        return None
    before = [e.step for e in run.evals if e.step < first]
    return before[-1] if before else 0


def _at_and_after(run: Run, first: int | None) -> tuple[float | None, int | None]:
    """The val_loss evaluated at `first`, and the next evaluated step after it."""
    if first is None:
        return None, None
    at = next(e.val_loss for e in run.evals if e.step == first)
    later = [e.step for e in run.evals if e.step > first]
    return at, (later[0] if later else None)


def _steps(runs: list[Run], target: float) -> Steps:
    first = tuple(r.first_step_at_or_below(target) for r in runs)
    at, after = zip(*(_at_and_after(r, f) for r, f in zip(runs, first)))
    return Steps(runs[0].group, tuple(r.rel for r in runs), first,
                 tuple(_last_above(r, f) for r, f in zip(runs, first)), at, after)


def _same(runs: list[Run], what: str, get) -> object:
    first = get(runs[0])
    for r in runs[1:]:
        if get(r) != first:
            raise BuildError(f"{r.rel}:1", f"{what} is {get(r)!r} here but {first!r} in "
                             f"{runs[0].rel}; the simulator needs one value")
    return first


def load_inputs(folder: Folder, target_group: str, e_planes: int) -> Inputs:
    """Everything the simulator reads from the logs of `folder` (completed runs only)."""
    where = folder.rel
    runs = sorted(folder.runs, key=lambda r: r.path.name)
    if not runs:
        raise BuildError(where, "no completed runs")
    groups = _groups(folder)
    if target_group not in groups:
        raise BuildError(where, f"target group {target_group!r} has no completed runs")
    tgt_runs = groups[target_group]
    target = math.fsum(r.final_val_loss for r in tgt_runs) / len(tgt_runs)

    workers = _same(runs, "workers", lambda r: r.cfg.workers)
    n_params = _same(runs, "n_params", lambda r: r.n_params)
    tokens = _same(runs, "batch x block", lambda r: r.cfg.batch * r.cfg.block)
    dense = _same(runs, "dense_bytes_per_step", lambda r: r.dense_bytes_per_step)
    value_bytes = dense / n_params

    A = _one(groups, "AdamW (variant adamw)", lambda r: r.cfg.variant == "adamw", where)
    B = _one(groups, "top-k (variant topk)", lambda r: r.cfg.variant == "topk", where)
    C = _one(groups, "the exact band, 1-D 256 (variant band, low, 1d, 256)",
             lambda r: (r.cfg.variant, r.cfg.band, r.cfg.chunk_mode, r.cfg.chunk)
             == ("band", "low", "1d", 256), where)
    band_bytes = _same(C, "payload_bytes_per_step", lambda r: r.payload_bytes_per_step)

    repaired = []
    for g, rs in sorted(groups.items()):
        c = rs[0].cfg
        if c.variant == "optics" and c.feedback == "sent" and c.fs_every > 0:
            repaired.append(OpticsRun(optics_slug(rs[0]), c.enob, c.planes, c.fs_every,
                                      _steps(rs, target)))
    repaired.sort(key=lambda o: (o.planes != e_planes, o.planes, o.enob))
    reaching = [o for o in repaired if o.planes == e_planes and o.steps.mean is not None]
    e_run = min(reaching, key=lambda o: o.enob) if reaching else None

    steps = {"A": _steps(A, target), "B": _steps(B, target), "C": _steps(C, target)}
    if e_run is not None:
        steps["E"] = e_run.steps
    measured = {"workers": workers, "n_params": n_params, "tokens_per_step": tokens,
                "value_bytes": value_bytes, "target_loss": target}
    return Inputs(
        measured=measured, target_group=target_group,
        target_files=tuple(r.rel for r in tgt_runs),
        payload={"dense": dense, "topk": B[0].payload_bytes_per_step, "band": band_bytes},
        payload_files={"dense": A[0].rel, "topk": B[0].rel, "band": C[0].rel},
        log_wire={"A": A[0].wire_bytes_per_step, "B": B[0].wire_bytes_per_step,
                  "C": C[0].wire_bytes_per_step},
        steps=steps, repaired=tuple(repaired), e_run=e_run,
        files=tuple(r.rel for r in runs))
