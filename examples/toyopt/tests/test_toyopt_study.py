"""This study's own test: it builds, every claim holds, every report cell is verified,
its bad inputs fail with the file and line, and a TensorBoard event file in place of a
CSV export draws the same chart. Run from a checkout of the engine:
`python -m pytest examples/toyopt/tests` (or DIR/tests for a study `python -m cit new`
made)."""

import html
import re
import shutil
from pathlib import Path

import pytest

from cit.build import run_stages
from cit.errors import BuildError
from cit.vendor import git_blob_sha1

ROOT = Path(__file__).resolve().parents[1]


def _copy(tmp_path: Path) -> Path:
    dst = tmp_path / "study"
    shutil.copytree(ROOT, dst, ignore=shutil.ignore_patterns("__pycache__", ".cache", "expected"))
    site = dst / "site.yaml"
    templates = (ROOT / (_templates(ROOT))).resolve()
    site.write_text(site.read_text().replace(f"templates: {_templates(ROOT)}",
                                             f"templates: {templates}"))
    return dst


def _relock(root: Path) -> None:
    """Pin every file under vendored/ again, as make_logs.py does (a test edits a log)."""
    lock = root / "vendored" / "lock.yaml"
    head = [l for l in lock.read_text().splitlines() if not l.startswith(("-", " "))]
    for p in sorted((root / "vendored").rglob("*")):
        if p.is_file() and p != lock:
            data = p.read_bytes()
            head += [f"- path: {p.relative_to(root / 'vendored').as_posix()}",
                     f"  size: {len(data)}", f"  blob_sha1: {git_blob_sha1(data)}",
                     "  commit: none"]
    lock.write_text("\n".join(head) + "\n")


def _templates(root: Path) -> str:
    from cit.siteconfig import load_site
    return load_site(root).templates


def test_it_builds_with_every_claim_holding_and_every_report_cell_verified():
    result = run_stages(ROOT, use_cache=False)
    claims = result.registry.claims
    assert claims and all(c.holds for c in claims.values())
    f = result.figures
    assert f["report_numbers"][0] == f["report_total"][0] > 0
    assert {"index.html", "results/index.html", "glossary/index.html",
            "decks/01-overview/index.html"} <= set(result.files)


def test_a_run_of_an_optimiser_the_study_does_not_list_names_its_log(tmp_path):
    root = _copy(tmp_path)
    study = root / "data" / "study.yaml"
    study.write_text("".join(l for l in study.read_text().splitlines(True) if "key: adam" not in l))
    with pytest.raises(BuildError) as e:
        run_stages(root, use_cache=False)
    assert e.value.where == "vendored/logs/adam.csv:2"       # the run's first row
    assert "'adam', which data/study.yaml does not list" in e.value.message


def test_a_log_line_that_is_not_a_record_names_its_file_and_line(tmp_path):
    root = _copy(tmp_path)
    log = root / "vendored" / "logs" / "sgd-s2.jsonl"
    lines = log.read_text().splitlines(True)
    old = log.read_bytes()
    lines[2] = '{"type": "eval", "step": 20, "loss": "low"}\n'
    log.write_text("".join(lines))
    _relock(root)                               # re-pinned, so the log itself is what fails
    with pytest.raises(BuildError) as e:
        run_stages(root, use_cache=False)
    assert e.value.where == "vendored/logs/sgd-s2.jsonl:3"
    assert "loss is 'low', not a number" in e.value.message


@pytest.mark.parametrize("name, row, message", [
    ("run-momentum-s1-tag-loss.csv", 4, "not a number"),
    ("adam.csv", 6, "not a number")])
def test_a_csv_row_that_is_not_a_record_names_its_file_and_line(tmp_path, name, row, message):
    root = _copy(tmp_path)
    log = root / "vendored" / "logs" / name
    lines = log.read_text().splitlines(True)
    cells = lines[row - 1].rstrip("\n").split(",")
    lines[row - 1] = ",".join(cells[:-1] + ["n/a"]) + "\n"
    log.write_text("".join(lines))
    _relock(root)
    with pytest.raises(BuildError) as e:
        run_stages(root, use_cache=False)
    assert e.value.where == f"vendored/logs/{name}:{row}"
    assert message in e.value.message


def test_a_faint_colour_in_the_study_file_is_refused_at_its_line(tmp_path):
    root = _copy(tmp_path)
    study = root / "data" / "study.yaml"
    lines = study.read_text().splitlines(True)
    n = next(i for i, l in enumerate(lines) if "key: adam" in l)
    lines[n] = lines[n].replace('"#009e73"', '"#ffff66"')
    study.write_text("".join(lines))
    with pytest.raises(BuildError) as e:
        run_stages(root, use_cache=False)
    assert e.value.where == f"data/study.yaml:{n + 1}"
    assert e.value.message.startswith("optimiser adam: its light shade #ffff66 has ")


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
    root = _copy(tmp_path)
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


def test_a_naked_number_names_its_markdown_file_and_line(tmp_path):
    root = _copy(tmp_path)
    page = root / "content" / "pages" / "results.md"
    page.write_text(page.read_text() + "\nAdam took 17 tries in the first week.\n")
    line = len(page.read_text().splitlines())
    with pytest.raises(BuildError) as e:
        run_stages(root, use_cache=False)
    assert e.value.where == "naked-number check"
    assert (f"\n  content/pages/results.md:{line} (results/index.html): naked number '17' "
            "in “") in e.value.message
    assert "write each as a registered number, :n[id]" in e.value.message
