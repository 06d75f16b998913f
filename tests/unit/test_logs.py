"""The log readers (cit/logs.py, docs/logs.md): each format read, each bad record refused
at its file and line (or record), event files written by tensorboard's own writer."""

from pathlib import Path

import pytest

from cit import logs
from cit.errors import BuildError

LONG = b"run,step,metric,value\nadam-s1,10,loss,0.5\nadam-s1,20,loss,0.25\nadam-s2,10,loss,0.4\n"
TB_CSV = b"Wall time,Step,Value\n1700000000.5,10,0.5\n1700000001.5,20,0.25\n"
JSONL = (b'{"type": "config", "optimiser": "sgd", "seed": 1}\n'
         b'{"type": "eval", "step": 10, "loss": 0.5}\n'
         b'{"type": "eval", "step": 20, "loss": 0.25, "acc": 0.9}\n{"type": "done"}\n')


def _fails(rel: str, data: bytes, **kw) -> BuildError:
    with pytest.raises(BuildError) as e:
        logs.read_log(rel, data, **kw)
    return e.value


def test_json_lines_give_the_config_the_metrics_and_done():
    (run,) = logs.read_log("logs/sgd-s1.jsonl", JSONL)
    assert (run.run, run.config, run.done, run.config_where) == (
        "sgd-s1", {"optimiser": "sgd", "seed": 1}, True, "logs/sgd-s1.jsonl:1")
    assert run.series("loss") == ([10, 20], [0.5, 0.25])
    assert run.series("acc") == ([20], [0.9])
    assert run.locator("loss") == "logs/sgd-s1.jsonl:2 to logs/sgd-s1.jsonl:3"


@pytest.mark.parametrize("line, message", [
    ('{"type": "eval", "step": 20, "loss": "low"}', "loss is 'low', not a number"),
    ('{"type": "eval", "step": 20, "loss": NaN}', "NaN is not valid JSON"),
    ('{"type": "eval", "step": 20, "loss": 1, "loss": 2}', "'loss' given twice"),
    ('{"type": "eval", "step": 5, "loss": 0.1}', "step 5 of run 'sgd-s1' does not follow step 10"),
    ('{"type": "eval", "step": -1, "loss": 0.1}', "step is -1"),
    ('{"type": "note", "text": "hi"}', "a 'note' record without a step"),
    ('[1, 2]', 'a record is a JSON object with a "type"'),
    ('{"type": "config"}', "a second config record (the first is logs/sgd-s1.jsonl:1)"),
])
def test_a_bad_json_line_is_refused_at_its_line(line, message):
    lines = JSONL.decode().splitlines()
    lines[2] = line
    e = _fails("logs/sgd-s1.jsonl", ("\n".join(lines) + "\n").encode())
    assert e.where == "logs/sgd-s1.jsonl:3"
    assert message in e.message


def test_json_lines_after_done_and_a_cut_last_line_are_refused():
    e = _fails("a.jsonl", JSONL + b'{"type": "eval", "step": 30, "loss": 0.1}\n')
    assert (e.where, "after the done record" in e.message) == ("a.jsonl:5", True)
    e = _fails("a.jsonl", JSONL + b'{"type": "ev')
    assert (e.where, e.message.startswith("truncated last line")) == ("a.jsonl:5", True)
    assert _fails("a.jsonl", b"\n").where == "a.jsonl:1"


def test_long_csv_holds_many_runs_and_metrics():
    runs = logs.read_log("logs/adam.csv", LONG)
    assert [r.run for r in runs] == ["adam-s1", "adam-s2"]
    assert runs[0].series("loss") == ([10, 20], [0.5, 0.25])
    assert runs[0].locator("loss") == "logs/adam.csv:2 to logs/adam.csv:3"
    assert runs[1].done is None


@pytest.mark.parametrize("row, where, message", [
    ("adam-s1,30,loss,low", 5, "loss is 'low', not a number"),
    ("adam-s1,3.5,loss,0.1", 5, "step is 3.5"),
    ("adam-s1,10,loss,0.1", 5, "step 10 of run 'adam-s1' does not follow step 20"),
    ("adam-s1,30,loss", 5, "3 cells, the header names 4"),
    ("adam-s1,30,loss,inf", 5, "must be finite"),
    (",30,loss,0.1", 5, "a row needs a run and a metric"),
])
def test_a_bad_csv_row_is_refused_at_its_line(row, where, message):
    e = _fails("logs/adam.csv", LONG + row.encode() + b"\n")
    assert e.where == f"logs/adam.csv:{where}"
    assert message in e.message


def test_a_csv_header_of_no_format_is_refused_naming_the_formats():
    e = _fails("logs/adam.csv", b"run,iteration,loss\na,1,0.5\n")
    assert e.where == "logs/adam.csv" and "jsonl, tfevents, tb-csv, csv-long" in e.message
    e = _fails("logs/adam.csv", b"run,step,metric,value,seed\na,1,loss,0.5,1\n")
    assert e.where == "logs/adam.csv:1" and "column 'seed'" in e.message
    e = _fails("logs/adam.csv", b"run,step,metric,value,step\na,1,loss,0.5,2\n")
    assert e.where == "logs/adam.csv:1" and "named twice" in e.message


def test_a_null_in_json_lines_is_a_metric_not_logged_at_that_step():
    (run,) = logs.read_log("a.jsonl", b'{"type": "eval", "step": 1, "loss": 0.5, "acc": null}\n'
                           b'{"type": "eval", "step": 2, "loss": 0.4, "acc": 0.7}\n')
    assert run.series("acc") == ([2], [0.7]) and run.series("loss") == ([1, 2], [0.5, 0.4])


def test_tensorboard_scalar_csv_takes_its_run_and_tag_from_the_file_name():
    (run,) = logs.read_log("logs/run-momentum-s1-tag-loss.csv", TB_CSV)
    assert run.run == "momentum-s1"
    assert run.series("loss") == ([10, 20], [0.5, 0.25])
    assert [p.wall_time for p in run.points("loss")] == [1700000000.5, 1700000001.5]
    e = _fails("logs/momentum.csv", TB_CSV)
    assert e.where == "logs/momentum.csv" and "run-RUN-tag-METRIC.csv" in e.message
    e = _fails("logs/run-a-tag-loss.csv", TB_CSV + b"oops,30,0.1\n")
    assert e.where == "logs/run-a-tag-loss.csv:4" and "wall time is 'oops'" in e.message


def _event_file(folder: Path, points, tensor: bool = False) -> Path:
    """A real event file, written by tensorboard's own writer: scalars as TF1 writes
    them (simple_value) or as TF2 does (a rank-0 tensor, the scalars plugin's metadata
    on the tag's first value only)."""
    from tensorboard.compat.proto import event_pb2, summary_pb2
    from tensorboard.plugins.scalar import metadata
    from tensorboard.summary.writer.event_file_writer import EventFileWriter
    from tensorboard.util import tensor_util
    writer = EventFileWriter(str(folder))
    for i, (step, value) in enumerate(points):
        if tensor:
            v = summary_pb2.Summary.Value(tag="loss", tensor=tensor_util.make_tensor_proto(value))
            if i == 0:
                v.metadata.CopyFrom(metadata.create_summary_metadata("", ""))
        else:
            v = summary_pb2.Summary.Value(tag="loss", simple_value=value)
        writer.add_event(event_pb2.Event(wall_time=1.7e9 + step, step=step,
                                         summary=summary_pb2.Summary(value=[v])))
    writer.close()
    (path,) = folder.iterdir()
    return path


@pytest.mark.parametrize("tensor", [False, True])
def test_a_tensorboard_event_file_gives_its_scalars(tmp_path, tensor):
    path = _event_file(tmp_path / "adam-s1", [(10, 0.5), (20, 0.25)], tensor)
    rel = f"logs/adam-s1/{path.name}"
    (run,) = logs.read_log(rel, path.read_bytes())
    assert run.run == "adam-s1"
    assert run.series("loss") == ([10, 20], [0.5, 0.25])
    assert run.locator("loss") == f"{rel}, record 2 to {rel}, record 3"   # record 1: file_version


def test_a_damaged_event_record_is_refused_at_its_record(tmp_path):
    path = _event_file(tmp_path / "adam-s1", [(10, 0.5), (20, 0.25), (30, 0.125)])
    data = path.read_bytes()
    e = _fails("ev/x.tfevents.1", data[:-2])
    assert e.where == "ev/x.tfevents.1, record 4" and "truncated" in e.message
    flipped = bytearray(data)
    flipped[-6] ^= 0xFF
    assert _fails("ev/x.tfevents.1", bytes(flipped)).where == "ev/x.tfevents.1, record 4"
    back = _event_file(tmp_path / "b", [(20, 0.5), (10, 0.25)])
    e = _fails("ev/b.tfevents.1", back.read_bytes())
    assert e.where == "ev/b.tfevents.1, record 3" and "does not follow step 20" in e.message


def test_a_study_adds_a_format_without_touching_the_engine():
    """The worked example of docs/logs.md, "A new format": MLflow's metric files."""
    def read_mlflow(rel, data):
        metrics = logs.Metrics()
        for n, line in enumerate(data.decode().splitlines(), 1):
            where = f"{rel}:{n}"
            try:
                _ms, value, step = line.split()
                metrics.add("r1", "loss", logs.Point(int(step), float(value), where))
            except ValueError:
                raise BuildError(where, "an MLflow metric line is: timestamp value step")
        return logs.runs_of(rel, metrics)
    mine = (*logs.FORMATS, logs.Format("mlflow", lambda name, head: "/metrics/" in name,
                                       read_mlflow))
    (run,) = logs.read_log("mlruns/0/r1/metrics/loss", b"1 0.5 10\n2 0.25 20\n", mine)
    assert run.series("loss") == ([10, 20], [0.5, 0.25])
    assert _fails("mlruns/0/r1/metrics/loss", b"1 0.5\n", formats=mine).where == \
        "mlruns/0/r1/metrics/loss:1"
    assert _fails("mlruns/0/r1/metrics/loss", b"1 0.5 10\n").where == "mlruns/0/r1/metrics/loss"
