"""Run logs in the formats researchers keep, read through one interface (docs/logs.md).

A stage calls `read_log(rel, data)` for one file (or `read_vendored(ctx, "logs/")` for
every verified file under a folder) and gets `RunLog`s: a run's name, its config (where
the format records one), and per metric the logged points (step, value, and the file
and line or record that gave it). Which reader reads a file is chosen by `FORMATS`, in
order: the first whose `claims(path, head)` is true. The readers here:

- `jsonl`: JSON lines, one run per file: a `config` record, records with a `step`
  (each other field a metric; null where it was not logged), a `done` record;
- `csv-long`: CSV with the columns run, step, metric, value (any order; wall_time
  optional), many runs and metrics per file;
- `tb-csv`: TensorBoard's scalar CSV download (Wall time, Step, Value), one run and
  one metric per file, named by TensorBoard's `run-RUN-tag-TAG.csv`;
- `tfevents`: TensorBoard event files, read with tensorboard's own record reader
  (the engine's optional extra `tensorboard`); each scalar tag is a metric, the run
  is the file's folder.

Every reader refuses a bad record with a BuildError naming the file and line (or the
file and record), and says what would fix it. A study adds a format by passing
`formats=(*FORMATS, Format(...))`: no engine file changes.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Callable, Iterable

from .errors import BuildError


@dataclass(frozen=True)
class Point:
    """One logged value: its step, value, wall time (where the format has one) and
    `where` (file:line, or "file, record N") for errors and provenance."""
    step: int
    value: float
    where: str
    wall_time: float | None = None


@dataclass
class RunLog:
    """One run as a file gives it. `done` is whether a JSON-lines log ended with a
    `done` record (None where the format cannot say); `config_where` the line of the
    config record (else the file)."""
    run: str
    file: str
    metrics: dict[str, list[Point]] = field(default_factory=dict)
    config: dict = field(default_factory=dict)
    done: bool | None = None
    config_where: str = ""
    key: str = ""       # its path in ctx.vendored, where read_vendored read it

    def points(self, metric: str) -> list[Point]:
        """The metric's points in step order; a BuildError naming the file and the
        metrics it has when it has none of this one."""
        if metric not in self.metrics:
            raise BuildError(self.file, f"run {self.run!r} logs no {metric!r} (it logs "
                             f"{', '.join(sorted(self.metrics)) or 'nothing'}); log it, "
                             "or name the metric the file uses")
        return self.metrics[metric]

    def series(self, metric: str) -> tuple[list[int], list[float]]:
        pts = self.points(metric)
        return [p.step for p in pts], [p.value for p in pts]

    def locator(self, metric: str) -> str:
        """Where the metric's points are, for provenance ("file:2 to file:21")."""
        pts = self.points(metric)
        return pts[0].where if len(pts) == 1 else f"{pts[0].where} to {pts[-1].where}"


@dataclass(frozen=True)
class Format:
    """A log format: its `name`, `claims(path, head)` (the file's path as errors name
    it, and its first 4 KiB) saying whether it reads the file, and `read(rel, data) -> list[RunLog]`."""
    name: str
    claims: Callable[[str, bytes], bool]
    read: Callable[[str, bytes], list[RunLog]]


class Metrics:
    """Points collected per (run, metric), each metric's steps strictly increasing."""

    def __init__(self):
        self.runs: dict[str, dict[str, list[Point]]] = {}

    def add(self, run: str, metric: str, point: Point) -> None:
        pts = self.runs.setdefault(run, {}).setdefault(metric, [])
        if pts and point.step <= pts[-1].step:
            raise BuildError(point.where, f"{metric} step {point.step} of run {run!r} does "
                             f"not follow step {pts[-1].step} ({pts[-1].where}); a log's "
                             "steps must increase: keep one copy of a resumed stretch")
        pts.append(point)


def _number(value, where: str, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise BuildError(where, f"{what} is {value!r}, not a number")
    if not math.isfinite(value):
        raise BuildError(where, f"{what} is {value!r}; a log's values must be finite "
                         "(leave a diverged run out, or stop its log before it diverged)")
    return float(value)


def _step(value, where: str) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise BuildError(where, f"step is {value!r}, not a whole number of 0 or more")
    return value


def _text(data: bytes, rel: str) -> str:
    from .reads import utf8
    return utf8(data, rel)


def _stem(rel: str) -> str:
    return PurePosixPath(rel).name.split(".")[0]


# --- JSON lines ---------------------------------------------------------------------

def _unique(pairs):
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set = set()
        raise ValueError(f"key {next(k for k, _ in pairs if k in seen or seen.add(k))!r} "
                         "given twice in one record")
    return obj


def _json_record(line: str, where: str, last: bool, ends_nl: bool) -> dict:
    def constant(name):
        raise ValueError(f"{name} is not valid JSON (write null, or leave the record out)")
    try:
        rec = json.loads(line, object_pairs_hook=_unique, parse_constant=constant)
    except RecursionError:
        raise BuildError(where, "not a log record: nested too deeply") from None
    except ValueError as e:
        what = "truncated last line" if last and not ends_nl else "not valid JSON"
        raise BuildError(where, f"{what}: {e}") from None
    if not isinstance(rec, dict) or not isinstance(rec.get("type"), str):
        raise BuildError(where, "a record is a JSON object with a \"type\" (config, a "
                         "record with a step such as eval, or done)")
    return rec


def read_jsonl(rel: str, data: bytes) -> list[RunLog]:
    """One run per file (named by the file): a `config` record first, records with a
    `step` (every other field but `type` a metric), an optional `done` record last."""
    text = _text(data, rel)
    lines = text.split("\n")
    ends_nl = text.endswith("\n")
    if ends_nl:
        lines.pop()
    run, metrics = RunLog(_stem(rel), rel, done=False), Metrics()
    last = max((i for i, l in enumerate(lines) if l.strip()), default=-1)
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        where = f"{rel}:{i + 1}"
        rec = _json_record(line, where, i == last, ends_nl)
        kind = rec.pop("type")
        if run.done:
            raise BuildError(where, f"a {kind} record after the done record; a run's log "
                             "ends at done")
        if kind == "config":
            if run.config_where:
                raise BuildError(where, f"a second config record (the first is "
                                 f"{run.config_where})")
            run.config, run.config_where = rec, where
        elif kind == "done":
            run.done = True
        elif "step" in rec:
            step = _step(rec.pop("step"), where)
            for name, value in rec.items():
                if value is not None:           # null: not logged at this step
                    metrics.add(run.run, name, Point(step, _number(value, where, name), where))
        else:
            raise BuildError(where, f"a {kind!r} record without a step (the records are "
                             "config, done, and records with a step such as eval)")
    if last < 0:
        raise BuildError(f"{rel}:1", "empty log: no records")
    run.metrics = metrics.runs.get(run.run, {})
    run.config_where = run.config_where or rel
    return [run]


# --- CSV ------------------------------------------------------------------------------

def _csv_rows(rel: str, data: bytes, want: tuple[str, ...], optional: tuple[str, ...]):
    """(where, {column: cell}) per row, the header checked against `want`."""
    reader = csv.reader(io.StringIO(_text(data, rel), newline=""))
    header = next(reader, None)
    if not header:
        raise BuildError(f"{rel}:1", f"empty CSV: the first line names the columns "
                         f"({', '.join(want)})")
    cols = [h.strip() for h in header]
    keys = {c.lower().replace(" ", "_"): i for i, c in enumerate(cols)}
    if len(keys) != len(cols):
        raise BuildError(f"{rel}:1", f"a column named twice in the header {','.join(cols)}")
    missing = [w for w in want if w not in keys]
    if missing:
        raise BuildError(f"{rel}:1", f"no column {missing[0]!r}: the header is "
                         f"{','.join(cols)}, this format's is {','.join(want)}")
    unknown = [c for c in keys if c not in want + optional]
    if unknown:
        raise BuildError(f"{rel}:1", f"column {unknown[0]!r} is not one of "
                         f"{', '.join(want + optional)}; drop it from the export")
    for row in reader:
        where = f"{rel}:{reader.line_num}"
        if not row:
            continue
        if len(row) != len(cols):
            raise BuildError(where, f"{len(row)} cells, the header names {len(cols)}")
        yield where, {k: row[i].strip() for k, i in keys.items()}


def _csv_number(cell: str, where: str, what: str) -> float:
    try:
        value = float(cell)
    except ValueError:
        raise BuildError(where, f"{what} is {cell!r}, not a number") from None
    return _number(value, where, what)


def _csv_step(cell: str, where: str) -> int:
    try:
        return _step(int(cell), where)
    except ValueError:
        try:
            return _step(float(cell), where)
        except ValueError:
            raise BuildError(where, f"step is {cell!r}, not a whole number") from None


def runs_of(rel: str, metrics: Metrics) -> list[RunLog]:
    if not metrics.runs:
        raise BuildError(f"{rel}:2", "no rows under the header")
    return [RunLog(name, rel, m, config_where=rel) for name, m in metrics.runs.items()]


def read_csv_long(rel: str, data: bytes) -> list[RunLog]:
    """Long-form CSV: one row per (run, step, metric, value); wall_time optional."""
    metrics = Metrics()
    for where, row in _csv_rows(rel, data, ("run", "step", "metric", "value"), ("wall_time",)):
        if not row["run"] or not row["metric"]:
            raise BuildError(where, "a row needs a run and a metric")
        wall = _csv_number(row["wall_time"], where, "wall_time") if row.get("wall_time") else None
        metrics.add(row["run"], row["metric"], Point(
            _csv_step(row["step"], where), _csv_number(row["value"], where, row["metric"]),
            where, wall))
    return runs_of(rel, metrics)


TB_CSV_NAME = re.compile(r"run-(?P<run>.+)-tag-(?P<tag>.+)\.csv")


def read_tb_csv(rel: str, data: bytes) -> list[RunLog]:
    """TensorBoard's scalar CSV download: Wall time, Step, Value; the run and the metric
    are in the file's name, run-RUN-tag-TAG.csv, as TensorBoard names it."""
    m = TB_CSV_NAME.fullmatch(PurePosixPath(rel).name)
    if not m:
        raise BuildError(rel, "a TensorBoard scalar export names its run and tag: name "
                         "the file run-RUN-tag-METRIC.csv (TensorBoard's own download name)")
    metrics = Metrics()
    for where, row in _csv_rows(rel, data, ("wall_time", "step", "value"), ()):
        metrics.add(m["run"], m["tag"], Point(
            _csv_step(row["step"], where), _csv_number(row["value"], where, m["tag"]),
            where, _csv_number(row["wall_time"], where, "wall time")))
    return runs_of(rel, metrics)


def _csv_header(head: bytes) -> set[str]:
    first = head.decode("utf-8", "replace").lstrip("\ufeff").splitlines()[:1]
    return {c.strip().lower().replace(" ", "_") for c in (first[0].split(",") if first else [])}


# --- TensorBoard event files ----------------------------------------------------------

def _tb_records(rel: str, data: bytes) -> Iterable[tuple[int, bytes]]:
    """(record number, bytes) of an event file, through tensorboard's record reader,
    which checks each record's length and CRCs; a bad one is a BuildError."""
    try:
        from tensorboard.compat.tensorflow_stub import errors, pywrap_tensorflow
    except ImportError:
        raise BuildError(rel, "reading TensorBoard event files needs the tensorboard "
                         "package, the engine's `tensorboard` extra: pip install "
                         "'cit-engine[tensorboard]' (docs/logs.md)") from None
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "events"
        path.write_bytes(data)
        reader = pywrap_tensorflow.PyRecordReader_New(str(path))
        try:
            yield from _tb_next(reader, rel, str(path), errors)
        finally:
            reader.file_handle.close()


def _tb_next(reader, rel: str, path: str, errors) -> Iterable[tuple[int, bytes]]:
    n = 0
    while True:
        n += 1
        try:
            reader.GetNext()
        except errors.OutOfRangeError:
            return
        except errors.DataLossError as e:
            raise BuildError(f"{rel}, record {n}", f"a damaged record "
                             f"({str(e).replace(path, 'the file')}); the file is cut "
                             "short or corrupt: copy it again from the run") from None
        yield n, reader.record()


def _tb_scalar(value, scalar_tags: set[str], where: str) -> float | None:
    """The scalar in a summary value (TF1's simple_value, or a rank-0 tensor of the
    scalars plugin, whose metadata only the tag's first value carries), else None."""
    if value.HasField("simple_value"):
        return _number(value.simple_value, where, value.tag)
    if value.metadata.plugin_data.plugin_name == "scalars":
        scalar_tags.add(value.tag)
    if value.HasField("tensor") and value.tag in scalar_tags:
        from tensorboard.util import tensor_util
        array = tensor_util.make_ndarray(value.tensor)
        if array.shape != ():
            raise BuildError(where, f"tag {value.tag!r} holds a tensor of shape "
                             f"{array.shape}, not a scalar")
        return _number(array.item(), where, value.tag)
    return None


def read_tfevents(rel: str, data: bytes) -> list[RunLog]:
    """A TensorBoard event file: every scalar tag a metric of the run named by the
    file's folder (TensorBoard's logdir/RUN/events.out.tfevents.*); other summaries
    (histograms, images, text) are not scalars and are passed over."""
    from tensorboard.compat.proto import event_pb2
    from google.protobuf.message import DecodeError
    run = PurePosixPath(rel).parent.name or _stem(rel)
    metrics, scalar_tags = Metrics(), set()
    for n, raw in _tb_records(rel, data):
        where = f"{rel}, record {n}"
        try:
            event = event_pb2.Event.FromString(raw)
        except DecodeError as e:
            raise BuildError(where, f"not an event ({e}); is this a TensorBoard event "
                             "file?") from None
        for value in event.summary.value:
            v = _tb_scalar(value, scalar_tags, where)
            if v is not None:
                metrics.add(run, value.tag, Point(_step(event.step, where), v, where,
                                                  event.wall_time))
    if not metrics.runs:
        raise BuildError(rel, "no scalar values in this event file (TensorBoard logs "
                         "scalars with add_scalar or tf.summary.scalar)")
    return runs_of(rel, metrics)


FORMATS: tuple[Format, ...] = (
    Format("jsonl", lambda name, head: name.endswith(".jsonl"), read_jsonl),
    Format("tfevents", lambda name, head: ".tfevents." in PurePosixPath(name).name,
           read_tfevents),
    Format("tb-csv", lambda name, head: name.endswith(".csv")
           and _csv_header(head) == {"wall_time", "step", "value"}, read_tb_csv),
    Format("csv-long", lambda name, head: name.endswith(".csv")
           and {"run", "step", "metric", "value"} <= _csv_header(head), read_csv_long),
)


def read_log(rel: str, data: bytes, formats: tuple[Format, ...] = FORMATS,
             fmt: str | None = None) -> list[RunLog]:
    """The runs in one log file, read by the format named `fmt`, else by the first of
    `formats` that claims it; `rel` is how errors name the file."""
    chosen = [f for f in formats if (f.name == fmt if fmt else f.claims(rel, data[:4096]))]
    if not chosen:
        why = f"no format {fmt!r}" if fmt else "no format claims it"
        raise BuildError(rel, f"no log reader for this file ({why}; formats: "
                         f"{', '.join(f.name for f in formats)}); name it as docs/logs.md "
                         "says, or pass a Format for it (docs/logs.md, \"A new format\")")
    return chosen[0].read(rel, data)


def read_vendored(ctx, folder: str, formats: tuple[Format, ...] = FORMATS,
                  prefix: str = "vendored/") -> list[RunLog]:
    """Every verified file under `folder` in `ctx.vendored` (a StageContext), read
    through `ctx.reads` (so the stage's cache knows), in path order; errors name each
    file as `prefix` + its path. Each RunLog's `key` is its path in ctx.vendored."""
    out = []
    for rel in sorted(r for r in ctx.vendored if r.startswith(folder)):
        for run in read_log(prefix + rel, ctx.reads.bytes(ctx.vendored[rel].local), formats):
            run.key = rel
            out.append(run)
    return out
