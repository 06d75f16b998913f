"""A TensorBoard event file read into a chart: a copy of the example study whose
momentum runs are real event files, written by tensorboard's own writer from the values
of its CSV exports, builds with the same curve, chart table and claims (cit/logs.py,
docs/logs.md). Here, not in the example's own tests, because a study made by `cit new`
tests with the engine's test extra alone, which has no tensorboard (it brings numpy)."""

import html
import re
from pathlib import Path

from cit.build import run_stages
from cit.siteconfig import load_site
from cit.vendor import write_lock
from tests.conftest import ROOT, copy_example_study

EXAMPLE = ROOT / "examples" / "toyopt"


def _relock(root: Path) -> None:
    """Pin the study's logs again with the engine's own lock writer, as `cit vendor lock
    --from vendored` does (a test edits a log)."""
    write_lock(root / "vendored", root / "vendored" / "lock.yaml",
               patterns=load_site(root).pinned)


def _write_event_files(root: Path) -> dict[str, tuple[list[int], list[float]]]:
    """Momentum's two TensorBoard CSV exports replaced by real event files, written by
    tensorboard's own writer from the same values (as float64 tensors, TF2's scalars);
    returns each run's (steps, losses) as tensorboard's own EventAccumulator reads them."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    from tensorboard.compat.proto import event_pb2, summary_pb2
    from tensorboard.plugins.scalar import metadata
    from tensorboard.summary.writer.event_file_writer import EventFileWriter
    from tensorboard.util import tensor_util
    import numpy as np
    logs = root / "vendored" / "logs"
    out = {}
    for csv in sorted(logs.glob("run-momentum-*-tag-loss.csv")):
        run = csv.name[len("run-"):-len("-tag-loss.csv")]
        writer = EventFileWriter(str(logs / run))
        for i, line in enumerate(csv.read_text().splitlines()[1:]):
            wall, step, value = line.split(",")
            v = summary_pb2.Summary.Value(
                tag="loss", tensor=tensor_util.make_tensor_proto(np.float64(value)))
            if i == 0:
                v.metadata.CopyFrom(metadata.create_summary_metadata("", ""))
            writer.add_event(event_pb2.Event(wall_time=float(wall), step=int(step),
                                             summary=summary_pb2.Summary(value=[v])))
        writer.close()
        csv.unlink()
        acc = EventAccumulator(str(logs / run), size_guidance={"tensors": 0})   # 0: all
        acc.Reload()
        events = acc.Tensors("loss")
        out[run] = ([e.step for e in events],
                    [tensor_util.make_ndarray(e.tensor_proto).item() for e in events])
    return out


def test_a_tensorboard_event_file_is_read_into_the_chart(tmp_path):
    root = copy_example_study(tmp_path)
    before = run_stages(root, use_cache=False)
    runs = _write_event_files(root)
    _relock(root)
    assert sorted(runs) == ["momentum-s1", "momentum-s2"]
    assert {p.parent.name for p in (root / "vendored" / "logs").rglob("*.tfevents.*")} == set(runs)
    result = run_stages(root, use_cache=False)
    curve = result.registry.series["curve.momentum"]
    steps = runs["momentum-s1"][0]
    mean = [sum(v) / len(v) for v in zip(*(runs[r][1] for r in sorted(runs)))]
    assert curve.x == tuple(steps) and curve.y == tuple(mean)
    was = before.registry.series["curve.momentum"]     # from the CSV exports
    assert (curve.x, curve.y, curve.extra["lo"], curve.extra["hi"]) == (
        was.x, was.y, was.extra["lo"], was.extra["hi"])
    assert {s.path for s in curve.sources} == {
        f"logs/{r}/{p.name}" for r in runs for p in (root / "vendored" / "logs" / r).iterdir()}
    assert all(c.holds for c in result.registry.claims.values())
    page = result.files["index.html"].decode()
    table = re.search(r'<table(?:(?!</table>).)*?data-series="curve.momentum".*?</table>',
                      page, re.S)             # the chart's own table, not one before it
    first = re.search(r"<tr><th scope=\"row\">(\d+)</th>((?:<td>[^<]*</td>)+)</tr>",
                      table.group(0))
    assert int(first.group(1)) == steps[0]
    cells = re.findall(r"<td>([^<]*)</td>", first.group(2))
    momentum_col = re.findall(r'data-series="([^"]+)"', table.group(0)).index("curve.momentum")
    assert html.unescape(cells[momentum_col]).startswith(f"{mean[0]:.3f} ")
