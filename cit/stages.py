"""The data stages site.yaml declares, run in order (docs/site-config.md, "Stages").

Each stage is a function `run(ctx: StageContext) -> StageOutput | None`. It reads its
files through `ctx.reads` (cit/reads.py), adds its numbers, series, tables and checked
claims to `ctx.registry` and returns plain data only: `figures` (key -> (value, label
on /tested, how it was computed): what the stage verified) and `data` (name -> a JSON
value a block draws from, such as an interactive figure's payload).

Each stage is cached on its own, in `.cache/`, under a key of what it read and nothing
else: the code (incremental.code_key), the verified upstream files, the files it
opened (it runs inside `reads.scope()`, so they are recorded, not listed by hand) and,
for each earlier stage whose numbers, claims or data it looked at (the registry's
tables and `ctx.data` note each look while a stage runs), that stage's key.
`.cache/data-stage-reads.json` keeps those reads. A build runs a stage again when one
of its reads gives something else or an earlier stage it looked at ran again; the
others give their cached part of the registry, figures and data (docs/output.md,
"Caches"). Nothing the cache holds is a class of the study's: the unpickler admits the
registry's classes and the module prefixes site.yaml's `unpickle` names.
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

STAGE_READS = "data-stage-reads"      # .cache/<this>.json: what each stage read last
TABLES = ("numbers", "series", "tables", "claims", "one_seed")   # a Registry's dicts
# what a stage adding an id an earlier stage added is told (as Registry and ClaimBook say)
TWICE = {"numbers": "number id {!r} registered twice", "series": "series id {!r} registered "
         "twice", "tables": "table id {!r} registered twice",
         "claims": "claim id {!r} registered twice",
         "one_seed": "number {!r} already shown as one seed"}


@dataclass
class StageContext:
    """What a stage may use: the project `root`, the verified upstream files
    (`vendored`, path -> cit.vendor.VendoredFile), `reads` (every file it opens goes
    through it), the registry it adds to and the `data` the stages before it returned
    (a look at an earlier stage's entries puts that stage's key in this one's)."""
    root: Path
    vendored: Mapping
    registry: Registry
    reads: Reads
    data: dict = field(default_factory=dict)


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
    key: str                # over every stage's key (blocks key their memos by it too)
    summaries: dict = field(default_factory=dict)   # stage name -> its summary line
    ran: list = field(default_factory=list)         # the stages run, not taken from .cache/


class _Watched(dict):
    """One of the registry's tables (or `ctx.data`) while a stage runs: a look at an
    entry an earlier stage made notes that stage in `seen`; changing one is refused."""

    def __init__(self, items: dict, owner: dict, seen: set, running: str):
        super().__init__(items)
        self.owner, self.seen, self.running = owner, seen, running

    def _saw(self, key) -> None:
        if key in self.owner:
            self.seen.add(self.owner[key])

    def _all(self) -> None:
        self.seen.update(self.owner.values())

    def __getitem__(self, key):
        self._saw(key)
        return super().__getitem__(key)

    def get(self, key, default=None):
        self._saw(key)
        return super().get(key, default)

    def __contains__(self, key) -> bool:
        self._saw(key)
        return super().__contains__(key)

    def __setitem__(self, key, value) -> None:
        if key in self.owner:
            raise BuildError(self.running, f"changes {key!r}, made by stage "
                             f"{self.owner[key]}: a stage only adds")
        super().__setitem__(key, value)

    def __delitem__(self, key) -> None:
        self.__setitem__(key, None)     # refused for an earlier stage's entry
        super().__delitem__(key)

    def __iter__(self):
        self._all()
        return super().__iter__()

    def __len__(self) -> int:
        self._all()
        return super().__len__()

    def keys(self):
        self._all()
        return super().keys()

    def values(self):
        self._all()
        return super().values()

    def items(self):
        self._all()
        return super().items()


def stage_key(code: str, record: Mapping, after: Mapping[str, str]) -> str:
    """A stage's cache key: the code, its declaration and every read it made
    (`record`: name, run, reads, after; cit/reads.py entries, recorded on its cold run)
    and the keys (`after`, name -> key) of the earlier stages it looked at."""
    return incremental.text_key(code, record["name"], record["run"], record["reads"],
                                [[n, after[n]] for n in record["after"]])


def run_stages(root: Path, site: SiteConfig, vendored: Mapping, reads: Reads,
               before: Mapping[str, str], code: str, use_cache: bool, store: bool = True,
               progress: Progress | None = None,
               writes: cache.Writes | None = None) -> StagesResult:
    """Every declared stage, in order: its cached part when every read recorded with it
    is unchanged (and so are the earlier stages it looked at), else run. `before`: the
    reads made before the stages that every stage depends on (the lock and the
    vendored files); `code`: incremental.code_key. `store` False: read the caches,
    write none (--check). `progress` (cit/progress.py) prints a line per stage;
    `writes`: the build's cache writer (cit/cache.py: after one failed write, no more)."""
    progress = progress or silent()
    old = _records(root, code) if use_cache else {}
    run = _Run(Registry(), {}, {}, {}, {}, {})
    for stage in site.stages:
        kept = _kept(root, site, reads, code, old.get(stage.name), stage, run)
        if kept is None:
            record, part = _run_fresh(stage, StageContext(root, vendored, run.reg, reads),
                                      before, run, progress)
            run.ran.append(stage.name)
        else:
            record, part = kept
            with progress.stage(stage.name, "reading the verified cache"):
                progress.done("from the verified cache (the files it read are unchanged)")
        run.add(stage, record, stage_key(code, record, run.keys), part, kept is None)
    cached = [s.name for s in site.stages if s.name not in run.ran]
    if cached:
        progress.reused.append(f"{', '.join(cached)} (from the verified cache: the files "
                               f"{'it' if len(cached) == 1 else 'they'} read are unchanged)")
    if use_cache and store:
        _store(root, code, run, writes or cache.Writes(root))
    return StagesResult(run.reg, run.figures, run.data, incremental.text_key(run.keys),
                        run.summaries, run.ran)


@dataclass
class _Run:
    """The stages so far: the registry and outputs they made, who made each entry, and
    each stage's key, record (what it read) and cached part (what it made)."""
    reg: Registry
    figures: dict
    data: dict
    summaries: dict
    keys: dict                   # stage name -> its key
    records: dict                # stage name -> what it read (the JSON record)
    parts: dict = field(default_factory=dict)     # stage name -> its part, to store
    ran: list = field(default_factory=list)
    owners: dict = field(default_factory=lambda: {t: {} for t in (*TABLES, "data")})

    def add(self, stage: Stage, record: dict, key: str, part: tuple, fresh: bool) -> None:
        """Take in a stage's part (a fresh one's entries are in the registry already)."""
        made, figures, data, summary = part
        for t in TABLES:
            mine, table = getattr(made, t), getattr(self.reg, t)
            if not fresh:
                # numbers and claims share one space of ids
                theirs = ((self.reg.numbers, self.reg.claims) if t in ("numbers", "claims")
                          else (table,))
                taken = next((k for k in mine if any(k in d for d in theirs)), None)
                if taken is not None:
                    raise BuildError("registry", TWICE[t].format(taken))
                table.update(mine)
            self.owners[t].update(dict.fromkeys(mine, stage.name))
        self.owners["data"].update(dict.fromkeys(data, stage.name))
        self.figures.update(figures)
        self.data.update(data)
        self.summaries[stage.name] = summary
        self.keys[stage.name], self.records[stage.name] = key, record
        self.parts[stage.name] = part


def _records(root: Path, code: str) -> dict:
    """What each stage read on its last run (stage name -> record), or {}."""
    got = cache.read_json(root, STAGE_READS, code)
    if not isinstance(got, list) or not all(
            isinstance(r, dict) and isinstance(r.get("reads"), dict) and isinstance(
                r.get("after"), list) and {"name", "run"} <= set(r) for r in got):
        return {}
    return {r["name"]: r for r in got}


def _kept(root: Path, site: SiteConfig, reads: Reads, code: str, record, stage: Stage,
          run: _Run):
    """(record, part) of the stage's cached run when it still holds, else None."""
    if (record is None or record["run"] != stage.run.ref
            or any(n not in run.keys for n in record["after"])
            or not reads.unchanged(record["reads"])):
        return None
    part = cache.read(root, stage_key(code, record, run.keys), _valid, allowed=site.unpickle)
    return None if part is None else (record, part)


def _valid(value) -> bool:
    return (isinstance(value, tuple) and len(value) == 4 and isinstance(value[0], Registry)
            and isinstance(value[1], dict) and isinstance(value[2], dict)
            and isinstance(value[3], str))


def _run_fresh(stage: Stage, ctx: StageContext, before: Mapping[str, str], run: _Run,
               progress: Progress) -> tuple[dict, tuple]:
    """Run the stage, its looks at earlier stages' entries noted: (record, part)."""
    reg, seen = ctx.registry, set()
    for t in TABLES:
        setattr(reg, t, _Watched(getattr(reg, t), run.owners[t], seen, stage.run.where))
    ctx.data = _Watched(run.data, run.owners["data"], seen, stage.run.where)
    try:
        with progress.stage(stage.name, "running"):
            with ctx.reads.scope() as got:
                out = _run_one(stage, ctx)
            made = Registry(**{t: {k: v for k, v in dict.items(getattr(reg, t))
                                   if k not in run.owners[t]} for t in TABLES})
            progress.done(out.summary or f"{len(made.numbers):,} numbers registered")
    finally:
        after = sorted(seen)
        for t in TABLES:
            getattr(reg, t).owner = {}       # the engine's own looks are not the stage's
            setattr(reg, t, dict.copy(getattr(reg, t)))
    _check_output(stage, out, run.data)
    record = {"name": stage.name, "run": stage.run.ref,
              "reads": dict(sorted((dict(before) | got).items())), "after": after}
    return record, (made, out.figures, out.data, out.summary)


def _run_one(stage: Stage, ctx: StageContext) -> StageOutput:
    out = stage.run.call(ctx, ctx.root, f"stage {stage.name}")
    if out is None:
        return StageOutput()
    if not isinstance(out, StageOutput):
        raise BuildError(stage.run.where, f"stage {stage.name} returned "
                         f"{type(out).__name__}, not a cit.stages.StageOutput")
    return out


def _check_output(stage: Stage, out: StageOutput, data: dict) -> None:
    """Figures of the right shape, data that is plain JSON and named by no earlier stage."""
    for k, v in out.figures.items():
        if not (isinstance(v, tuple) and len(v) == 3 and isinstance(v[1], str)):
            raise BuildError(stage.run.where, f"stage {stage.name}: figure {k!r} must be "
                             "(value, label, computation)")
    clash = set(out.data) & set(dict.keys(data))
    if clash:
        raise BuildError(stage.run.where, f"stage {stage.name}: data {sorted(clash)[0]!r} "
                         "was returned by an earlier stage too")
    try:
        # plain data only: what a JSON round trip keeps
        out.data = json.loads(json.dumps(out.data))
    except (TypeError, ValueError) as e:
        raise BuildError(stage.run.where, f"stage {stage.name}: its data is not plain "
                         f"JSON ({e})") from None


def _store(root: Path, code: str, run: _Run, writes: cache.Writes) -> None:
    """Each stage run gets its cache file; the reads of every stage are recorded; cache
    files of no current stage are deleted."""
    for name in run.ran:
        cache.write(root, run.keys[name], run.parts[name], writes, keep=run.keys.values())
    cache.write_json(root, STAGE_READS, code, list(run.records.values()), writes)
