"""The one module that knows the run-log format (docs/experiment-tables.md, "Reading the logs").

Each `*.jsonl` log is one run: a `config` record first, then `eval` and `diag` records,
and a `done` record when the run finished. Every line is validated with pydantic and
every defect is reported as `file:line`. Runs without `done` are kept in the ledger as
incomplete and left out of every summary.
"""

from __future__ import annotations

import json
import math
import re
import sys
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from typing import Annotated

from pydantic import (AfterValidator, BaseModel, BeforeValidator, ConfigDict, NonNegativeFloat,
                      NonNegativeInt, ValidationError, field_validator)

from cit.errors import BuildError
from cit.reads import Reads
from . import variants as variants_mod

SEED_SUFFIX = re.compile(r"-s\d+$")


def _integral(v):
    """An integer some logs write with a fractional part of zero (`12223008.0`): taken as
    that integer; a string, a bool or a fraction stays for the strict check to refuse."""
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


WholeBytes = Annotated[NonNegativeInt, BeforeValidator(_integral)]


class _Strict(BaseModel):
    """Strict as docs/experiment-tables.md says: no unknown key, and no conversion (a
    number given as a string, `true` for a number, a float for an int are refused)."""
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class RunConfig(_Strict):
    """The run's settings (the `config` key of the config record)."""
    dataset: str
    variant: str        # which one: the catalogue's (data/variants.yaml, study/variants.py)
    band: str
    keep: float
    chunk_mode: Literal["1d", "2d"]
    chunk: int
    workers: int
    batch: int
    block: int
    n_layer: int
    n_head: int
    n_embd: int
    steps: int
    lr: float
    warmup: int
    decay: float
    weight_decay: float
    calib_start: int
    calib_steps: int
    enob: float | None
    planes: int | None
    kappa: float
    native: int
    seed: int
    eval_every: int
    eval_batches: int
    diag_every: int
    ckpt_every: int
    threads: int
    extra: dict
    device: str | None = None  # absent in the earliest (CPU) logs
    fs_every: int = 0
    feedback: Literal["sent"] | None = None


class DataInfo(_Strict):
    tokeniser: str
    vocab: int


class Hardware(_Strict):
    machine: str
    processor: str
    threads: int
    torch: str
    python: str
    device: str | None = None  # absent in the earliest (CPU) logs


class ConfigRecord(_Strict):
    type: Literal["config"]
    name: str
    config: RunConfig
    n_params: int
    data: DataInfo
    payload_bytes_per_step: int
    payload_bytes_int64_per_step: int
    wire_bytes_per_step: WholeBytes
    dense_bytes_per_step: int
    hardware: Hardware


# The largest size a logged value may have: the summaries square differences of up to
# twice a value and add up to ten million of them in floating point (a standard deviation),
# which must stay finite. 1e150 (the float maximum is about 1.8e308). A larger value made
# pandas warn on stderr and printed a 600-digit mean and an infinite sd (docs/faults.md, C4g).
LARGEST = 10.0 ** (int(math.log10(sys.float_info.max)) // 2 - 4)


def _finite(v):
    if v is not None and not math.isfinite(v):
        raise ValueError("must be a finite number")
    if v is not None and abs(v) > LARGEST:
        raise ValueError(f"{v:g} is out of range: the summaries square it, so a logged "
                         f"value must lie within ±{LARGEST:g}")
    return v


Measured = Annotated[float, AfterValidator(_finite)]


class EvalRecord(_Strict):
    type: Literal["eval"]
    step: NonNegativeInt
    val_loss: NonNegativeFloat      # a cross-entropy: never below zero
    train_loss: NonNegativeFloat
    lr: NonNegativeFloat
    payload_bytes: NonNegativeInt
    wire_bytes: WholeBytes
    seconds: NonNegativeFloat
    clip_rate: float | None = None
    clip_rate_interval: float | None = None

    _check = field_validator("val_loss", "train_loss", "lr", "seconds", "clip_rate",
                             "clip_rate_interval")(_finite)


class DiagRecord(_Strict):
    type: Literal["diag"]
    step: NonNegativeInt
    energy: dict[str, dict[str, dict[str, Measured]]]


class DoneRecord(_Strict):
    type: Literal["done"]
    step: NonNegativeInt
    seconds: NonNegativeFloat

    _check = field_validator("seconds")(_finite)


# the most a run log may hold: the study's largest is under 40 KB; a 100 MB one took
# 301 s and 2 GB before its error (docs/faults.md, N20). Refused before it is read.
MAX_LOG_BYTES = 32 * 1024 * 1024

@dataclass(frozen=True, slots=True)
class Eval:
    """An eval record as a run keeps it: EvalRecord's values, validated, in a slotted
    object (a pydantic model held six times its line's bytes; a long log is mostly
    evals: docs/faults.md, N20)."""
    step: int
    val_loss: float
    train_loss: float
    lr: float
    payload_bytes: int
    wire_bytes: int
    seconds: float
    clip_rate: float | None = None
    clip_rate_interval: float | None = None
    type: str = "eval"

    @classmethod
    def of(cls, rec: EvalRecord) -> "Eval":
        return cls(rec.step, rec.val_loss, rec.train_loss, rec.lr, rec.payload_bytes,
                   rec.wire_bytes, rec.seconds, rec.clip_rate, rec.clip_rate_interval)


class EnergyKeys:
    """The (source, group, selector) triples of a diag record's `energy`, in the order
    the record gives them, with each one's place: one object per shape of record,
    shared by every diag of that shape in a folder (load_folder's `shapes`)."""
    __slots__ = ("triples", "index")

    def __init__(self, triples: tuple[tuple[str, str, str], ...]):
        self.triples = triples
        self.index = {t: i for i, t in enumerate(triples)}


@dataclass(frozen=True, slots=True)
class Diag:
    """A diag record as a run keeps it: its step, and its energy shares as one array of
    floats in the order of `keys` (a pydantic record with its nested dicts held about
    six times its line's bytes, and a log is mostly diags: docs/faults.md, N20)."""
    step: int
    keys: EnergyKeys
    values: array
    type: str = "diag"

    @classmethod
    def of(cls, rec: DiagRecord, shapes: dict) -> "Diag":
        triples = tuple((src, grp, sel) for src, groups in rec.energy.items()
                        for grp, sels in groups.items() for sel in sels)
        keys = shapes.setdefault(triples, EnergyKeys(triples))
        return cls(rec.step, keys, array("d", (rec.energy[s][g][k] for s, g, k in triples)))

    def share(self, src: str, grp: str, sel: str, default=KeyError) -> float:
        """energy[src][grp][sel]; `default` where the record has none (KeyError if
        no default is given, as the record's dict raised)."""
        i = self.keys.index.get((src, grp, sel))
        if i is None:
            if default is KeyError:
                raise KeyError((src, grp, sel))
            return default
        return self.values[i]


RECORD_TYPES = {"config": ConfigRecord, "eval": EvalRecord, "diag": DiagRecord,
                "done": DoneRecord}


@dataclass
class Run:
    """One run log, validated. `rel` is the upstream-relative path (for provenance);
    `variant` the catalogue's entry that takes it (study/variants.py)."""
    path: Path
    rel: str
    config: ConfigRecord
    variant: variants_mod.Variant
    evals: list[Eval] = field(default_factory=list)
    diags: list[Diag] = field(default_factory=list)
    done: DoneRecord | None = None

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def group(self) -> str:
        return SEED_SUFFIX.sub("", self.config.name)

    @property
    def cfg(self) -> RunConfig:
        return self.config.config

    @property
    def seed(self) -> int:
        return self.cfg.seed

    @property
    def hardware(self) -> Hardware:
        return self.config.hardware

    @property
    def complete(self) -> bool:
        return self.done is not None

    def __getattr__(self, key):
        # bytes per step and n_params read straight from the config record
        if key in ("n_params", "payload_bytes_per_step", "payload_bytes_int64_per_step",
                   "wire_bytes_per_step", "dense_bytes_per_step"):
            return getattr(self.config, key)
        raise AttributeError(key)

    @property
    def final_val_loss(self) -> float | None:
        return self.evals[-1].val_loss if self.evals else None

    @property
    def clip_intervals(self) -> list[float]:
        """The clip rate of each eval interval that logs one, in step order (optics runs;
        empty for the others)."""
        return [e.clip_rate_interval for e in self.evals if e.clip_rate_interval is not None]

    def first_step_at_or_below(self, target: float) -> int | None:
        for e in self.evals:
            if e.val_loss <= target:
                return e.step
        return None


@dataclass
class Folder:
    """A folder of run logs: completed runs and incomplete ones, each in file-name order,
    and the variant catalogue they were read against."""
    rel: str
    runs: list[Run]
    incomplete: list[Run]
    catalogue: variants_mod.Catalogue

    @property
    def all_runs(self) -> list[Run]:
        return sorted(self.runs + self.incomplete, key=lambda r: r.path.name)


def _reject_constant(name: str):
    raise ValueError(f"{name} is not valid JSON")


class _DuplicateKey(ValueError):
    """A JSON object gives a key twice (json.loads would keep the last one silently)."""


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    # keys interned: every record repeats the same few dozen, and a long log held them
    # once per record (docs/faults.md, N20)
    obj = {sys.intern(k): v for k, v in pairs}
    if len(obj) != len(pairs):
        seen: set[str] = set()
        twice = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise _DuplicateKey(twice)
    return obj


def parse_line(text: str, where: str, is_last: bool, ends_with_newline: bool):
    """One log line → a validated record, or BuildError naming `where` (file:line)."""
    try:
        obj = json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_unique_keys)
    except _DuplicateKey as e:
        raise BuildError(where, f"key {e.args[0]!r} given twice in one record") from None
    except RecursionError:
        raise BuildError(where, "not valid JSON here: nested too deeply") from None
    except ValueError as e:
        if is_last and not ends_with_newline:
            raise BuildError(where, f"truncated last line (not valid JSON: {e})") from None
        raise BuildError(where, f"not valid JSON: {e}") from None
    if not isinstance(obj, dict):
        raise BuildError(where, "a record must be a JSON object")
    kind = obj.get("type")
    model = RECORD_TYPES.get(kind)
    if model is None:
        raise BuildError(where, f"unknown record type {kind!r} (known: "
                         f"{', '.join(RECORD_TYPES)})")
    try:
        return model.model_validate(obj)
    except ValidationError as e:
        problems = "; ".join(f"{'.'.join(map(str, err['loc']))}: {err['msg']}"
                             for err in e.errors())
        raise BuildError(where, f"bad {kind} record: {problems}") from None


def load_run(path: Path, rel: str, reads: Reads | None = None,
             catalogue: variants_mod.Catalogue | None = None, shapes: dict | None = None) -> Run:
    """Read (through `reads`, cit/reads.py) and validate one log, its variant one the
    `catalogue` lists (default: the project's, variants.for_reads). A missing `done`
    makes the run incomplete, not an error. `shapes` holds the diag records' key
    layouts (Diag.of), shared by the runs of a folder. Each record is validated and
    reduced as its line is read; the log itself is never held (docs/faults.md, N20)."""
    reads = reads or Reads.beside(path)
    catalogue = catalogue or variants_mod.for_reads(reads)
    run = None
    last_step = {"eval": None, "diag": None}
    shapes = {} if shapes is None else shapes
    try:
        for i, text, ended in reads.lines(path, MAX_LOG_BYTES, "run log"):
            if text.strip():
                run = _take(run, parse_line(text, f"{rel}:{i}", not ended, ended),
                            i, path, rel, catalogue, last_step, shapes)
    except BuildError as e:      # named as the logs are: upstream-relative (N13)
        raise BuildError(_upstream_name(e.where, rel), e.message) from None
    if run is None:
        raise BuildError(f"{rel}:1", "empty log: no config record")
    return run


def _upstream_name(where: str, rel: str) -> str:
    """An error's place in a log, named by `rel` (not by its vendored/ path)."""
    _, sep, line = where.rpartition(":")
    return f"{rel}:{line}" if sep and line.isdigit() else (where if ":" in where else rel)


def _take(run, rec, i: int, path: Path, rel: str, catalogue, last_step: dict, shapes: dict):
    """The run with line `i`'s record `rec` added (a new Run for the first record);
    BuildError at the line for a record out of place."""
    where = f"{rel}:{i}"
    if run is None:
        if not isinstance(rec, ConfigRecord):
            raise BuildError(where, f"the first record must be 'config', not {rec.type!r}")
        return Run(path, rel, rec, catalogue.of(rec.config, where))
    if run.done is not None:
        raise BuildError(where, "record after 'done'")
    if isinstance(rec, ConfigRecord):
        raise BuildError(where, "a second 'config' record")
    if isinstance(rec, DoneRecord):
        run.done = rec
        return run
    prev = last_step[rec.type]
    if prev is not None and rec.step <= prev:
        raise BuildError(where, f"{rec.type} step {rec.step} does not increase "
                         f"(previous {rec.type} step {prev})")
    last_step[rec.type] = rec.step
    if isinstance(rec, EvalRecord):
        run.evals.append(Eval.of(rec))
    else:
        run.diags.append(Diag.of(rec, shapes))
    return run


def load_folder(folder: Path, rel_prefix: str, reads: Reads | None = None,
                catalogue: variants_mod.Catalogue | None = None) -> Folder:
    """Every `*.jsonl` directly in `folder`, in sorted file-name order (the listing and
    each file recorded by `reads`), read against the variant `catalogue` (load_run)."""
    reads = reads or Reads(folder)
    catalogue = catalogue or variants_mod.for_reads(reads)
    files = sorted(reads.glob(folder, "*.jsonl"), key=lambda p: p.name)
    if not files:
        raise BuildError(str(folder), "no run logs (*.jsonl) found")
    runs, incomplete, shapes = [], [], {}
    for p in files:
        run = load_run(p, f"{rel_prefix}/{p.name}", reads, catalogue, shapes)
        (runs if run.complete else incomplete).append(run)
    return Folder(rel_prefix, runs, incomplete, catalogue)
