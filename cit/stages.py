"""The data stages site.yaml declares, run in order (docs/site-config.md, "Stages").

Each stage is a function `run(ctx: StageContext) -> StageOutput | None`. It reads its
files through `ctx.reads` (cit/reads.py), adds its numbers, series, tables and checked
claims to `ctx.registry` and returns plain data only: `figures` (key -> (value, label
on /tested, how it was computed): what the stage verified) and `data` (name -> a JSON
value a block draws from, such as the explorer's payload).

Each stage runs inside `reads.scope()`, so what it read is recorded, not listed by
hand. The engine caches the registry and the stages' outputs in `.cache/` under one
key: the code (incremental.code_key) and every read the stages made on their cold run
(with the lock, the vendored files and site.yaml); `.cache/data-stage-reads.json`
keeps those reads. A build whose every recorded read gives what it gave then (a
content-only edit, a no-op rebuild) runs no stage. Nothing the cache holds is a class
of the study's: the unpickler admits the registry's classes and the module prefixes
site.yaml's `unpickle` names.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from . import cache, incremental
from .errors import BuildError
from .progress import Progress, silent
from .reads import Reads
from .registry import Registry
from .siteconfig import SiteConfig, Stage

STAGE_READS = "data-stage-reads"      # .cache/<this>.json: what the stages read last


@dataclass
class StageContext:
    """What a stage may use: the project `root`, the verified upstream files
    (`vendored`, path -> cit.vendor.VendoredFile), `reads` (every file it opens goes
    through it), the registry it adds to, the `data` the stages before it returned, and
    `shared`: objects a stage hands to the later ones of the same run (never cached:
    the stages are cached, and run, as one chain)."""
    root: Path
    vendored: Mapping
    registry: Registry
    reads: Reads
    data: dict = field(default_factory=dict)
    shared: dict = field(default_factory=dict)


@dataclass
class StageOutput:
    """A stage's plain result (see the module's docstring); `summary`: one line saying
    what it recomputed and checked, printed by the build."""
    figures: dict = field(default_factory=dict)
    data: dict = field(default_factory=dict)
    summary: str = ""


@dataclass
class StagesResult:
    registry: Registry
    figures: dict           # figure key -> (value, label, computation), in stage order
    data: dict              # name -> JSON value
    key: str                # the cache key (blocks key their memos by it too)
    summaries: dict = field(default_factory=dict)   # stage name -> its summary line


def stage_key(code: str, recorded) -> str:
    """The data stages' cache key: the code and every read the stages made (cit/reads.py
    entries, recorded on their cold run), so nothing they open is left out."""
    return incremental.text_key(code, recorded)


def _valid(value) -> bool:
    return (isinstance(value, tuple) and len(value) == 4 and isinstance(value[0], Registry)
            and all(isinstance(v, dict) for v in value[1:]))


def run_stages(root: Path, site: SiteConfig, vendored: Mapping, reads: Reads,
               before: Mapping[str, str], code: str, use_cache: bool, store: bool = True,
               progress: Progress | None = None,
               writes: cache.Writes | None = None) -> StagesResult:
    """Every declared stage, in order, or their cached result when every read recorded
    with it is unchanged. `before`: the reads made before the stages that their result
    depends on too (the lock and the vendored files, site.yaml); `code`:
    incremental.code_key. `store` False: read the cache, write none (--check).
    `progress` (cit/progress.py) prints a line per stage; `writes`: the build's cache
    writer (cit/cache.py: after one failed write, no more)."""
    progress = progress or silent()
    if use_cache and site.stages:
        cached = _cached(root, site, reads, code)
        if cached is not None:
            names = ", ".join(s.name for s in site.stages)
            with progress.stage(names, "reading the verified cache"):
                progress.reuse(names, "from the verified cache (the files they read are "
                               "unchanged)")
            return cached
    ctx = StageContext(root, vendored, Registry(), reads)
    figures, summaries, got_all = {}, {}, dict(before)
    for stage in site.stages:
        with progress.stage(stage.name, f"running {stage.run.ref}"):
            size = len(ctx.registry)
            with reads.scope() as got:
                out = _run_one(stage, ctx)
            progress.done(out.summary or f"{len(ctx.registry) - size:,} numbers registered "
                          f"by {stage.run.ref}")
        got_all.update(got)
        figures.update(out.figures)
        ctx.data.update(out.data)
        summaries[stage.name] = out.summary
    recorded = dict(sorted(got_all.items()))
    key = stage_key(code, recorded)
    if use_cache and store:
        writes = writes or cache.Writes(root)
        cache.write(root, key, (ctx.registry, figures, ctx.data, summaries), writes)
        cache.write_json(root, STAGE_READS, code, recorded, writes)
    return StagesResult(ctx.registry, figures, ctx.data, key, summaries)


def _cached(root: Path, site: SiteConfig, reads: Reads, code: str) -> StagesResult | None:
    """The stages' cached result, when the reads recorded with it give what they gave."""
    recorded = cache.read_json(root, STAGE_READS, code)
    if not (isinstance(recorded, dict) and reads.unchanged(recorded)):
        return None
    key = stage_key(code, recorded)
    cached = cache.read(root, key, _valid, allowed=site.unpickle)
    if cached is None:
        return None
    reg, figures, data, summaries = cached
    return StagesResult(reg, figures, data, key, summaries)


def _run_one(stage: Stage, ctx: StageContext) -> StageOutput:
    out = stage.run.resolve()(ctx)
    if out is None:
        return StageOutput()
    if not isinstance(out, StageOutput):
        raise BuildError(stage.run.where, f"stage {stage.name} returned "
                         f"{type(out).__name__}, not a cit.stages.StageOutput")
    for k, v in out.figures.items():
        if not (isinstance(v, tuple) and len(v) == 3 and isinstance(v[1], str)):
            raise BuildError(stage.run.where, f"stage {stage.name}: figure {k!r} must be "
                             "(value, label, computation)")
    clash = (set(out.data) & set(ctx.data))
    if clash:
        raise BuildError(stage.run.where, f"stage {stage.name}: data {sorted(clash)[0]!r} "
                         "was returned by an earlier stage too")
    try:
        # plain data only: what a JSON round trip keeps
        out.data = json.loads(json.dumps(out.data))
    except (TypeError, ValueError) as e:
        raise BuildError(stage.run.where, f"stage {stage.name}: its data is not plain "
                         f"JSON ({e})") from None
    return out
