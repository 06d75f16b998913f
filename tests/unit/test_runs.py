"""The run-log loader: every defect named by file and line; incomplete runs kept apart."""

import json
import shutil

import pytest

from cit.errors import BuildError
from study.runs import load_folder, load_run

HEADLINE = "results/tinystories-gpu"


@pytest.fixture
def log_copy(tmp_path, vendored_root):
    """A copy of one real run log to damage."""
    src = sorted((vendored_root / HEADLINE).glob("*.jsonl"))[0]
    dst = tmp_path / src.name
    shutil.copy(src, dst)
    return dst


def _lines(p):
    return p.read_text().splitlines()


def test_every_headline_log_loads_and_has_a_done_record(vendored_root):
    folder = load_folder(vendored_root / HEADLINE, HEADLINE)
    assert folder.runs and not folder.incomplete
    assert all(r.done is not None and r.evals for r in folder.runs)


def test_a_truncated_log_line_names_its_file_and_line(log_copy):
    text = log_copy.read_text()
    log_copy.write_text(text[: len(text) - 30])  # cut inside the last record, no newline
    n = len(_lines(log_copy))
    with pytest.raises(BuildError) as e:
        load_run(log_copy, f"x/{log_copy.name}")
    assert str(e.value).startswith(f"x/{log_copy.name}:{n}: truncated last line")


def test_a_non_json_line_names_its_file_and_line(log_copy):
    lines = _lines(log_copy)
    lines.insert(2, "this is not json")
    log_copy.write_text("\n".join(lines) + "\n")
    with pytest.raises(BuildError) as e:
        load_run(log_copy, "x/log.jsonl")
    assert str(e.value).startswith("x/log.jsonl:3: not valid JSON")


def test_an_unknown_record_type_names_its_file_and_line(log_copy):
    lines = _lines(log_copy)
    lines.insert(4, json.dumps({"type": "checkpoint", "step": 1}))
    log_copy.write_text("\n".join(lines) + "\n")
    with pytest.raises(BuildError) as e:
        load_run(log_copy, "x/log.jsonl")
    assert str(e.value).startswith("x/log.jsonl:5: unknown record type 'checkpoint'")


def test_a_log_without_done_is_incomplete_and_left_out_of_summaries(tmp_path, vendored_root):
    folder = tmp_path / "f"
    shutil.copytree(vendored_root / HEADLINE, folder)
    victim = sorted(folder.glob("*.jsonl"))[1]
    lines = [l for l in _lines(victim) if json.loads(l)["type"] != "done"]
    victim.write_text("\n".join(lines) + "\n")
    loaded = load_folder(folder, "f")
    assert [r.path.name for r in loaded.incomplete] == [victim.name]
    assert victim.name not in [r.path.name for r in loaded.runs]


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity"])
def test_a_non_finite_loss_names_its_file_and_line(log_copy, value):
    lines = _lines(log_copy)
    i = next(i for i, l in enumerate(lines) if json.loads(l)["type"] == "eval")
    lines[i] = lines[i].replace('"val_loss": ', f'"val_loss": {value}, "x": ', 1)
    log_copy.write_text("\n".join(lines) + "\n")
    with pytest.raises(BuildError) as e:
        load_run(log_copy, "x/log.jsonl")
    assert str(e.value).startswith(f"x/log.jsonl:{i + 1}: not valid JSON: {value}")


def test_an_infinite_value_in_valid_json_is_refused_with_its_line(log_copy):
    lines = _lines(log_copy)
    i = next(i for i, l in enumerate(lines) if json.loads(l)["type"] == "eval")
    rec = json.loads(lines[i])
    rec["val_loss"] = 1e999  # json.dumps writes Infinity; rewrite as a huge literal
    lines[i] = json.dumps(rec).replace("Infinity", "1e999")
    log_copy.write_text("\n".join(lines) + "\n")
    with pytest.raises(BuildError) as e:
        load_run(log_copy, "x/log.jsonl")
    assert str(e.value).startswith(f"x/log.jsonl:{i + 1}: bad eval record: val_loss")


@pytest.mark.parametrize("change", ["duplicate", "decrease"])
def test_duplicate_or_decreasing_steps_name_the_file_and_line(log_copy, change):
    lines = _lines(log_copy)
    idx = [i for i, l in enumerate(lines) if json.loads(l)["type"] == "eval"]
    a, b = idx[1], idx[2]
    rec = json.loads(lines[b])
    prev = json.loads(lines[a])["step"]
    rec["step"] = prev if change == "duplicate" else prev - 1
    lines[b] = json.dumps(rec)
    log_copy.write_text("\n".join(lines) + "\n")
    with pytest.raises(BuildError) as e:
        load_run(log_copy, "x/log.jsonl")
    assert str(e.value).startswith(f"x/log.jsonl:{b + 1}: eval step {rec['step']} does not increase")


@pytest.mark.parametrize("kind,field", [("eval", "val_loss"), ("diag", "energy"),
                                        ("done", "seconds")])
def test_a_value_too_large_for_the_summaries_names_its_line(tmp_path, vendored_root, kind,
                                                            field):
    """Issue 23's review (C4): `val_loss: 1e308` passed the schema; pandas then warned
    `overflow encountered in square` on stderr and a 600-digit mean with an infinite sd
    reached the error. Every logged float must lie within ±LARGEST (1e150), from which a
    sum of squares stays finite."""
    import re
    from study.runs import LARGEST
    src = next(f for f in sorted((vendored_root / HEADLINE).glob("*.jsonl"))
               if f'"type": "{kind}"' in f.read_text())
    log_copy = tmp_path / src.name
    lines = _lines(src)
    i = max(k for k, l in enumerate(lines) if json.loads(l)["type"] == kind)
    pattern = r'("low": )([0-9.e-]+)' if kind == "diag" else rf'("{field}": )([0-9.e-]+)'
    lines[i] = re.sub(pattern, r"\g<1>1e308", lines[i], count=1)
    log_copy.write_text("\n".join(lines) + "\n")
    with pytest.raises(BuildError) as e:
        load_run(log_copy, "x/log.jsonl")
    assert str(e.value).startswith(f"x/log.jsonl:{i + 1}: bad {kind} record: {field}")
    assert str(e.value).endswith(f"Value error, 1e+308 is out of range: the summaries square "
                                 f"it, so a logged value must lie within ±{LARGEST:g}")
    assert LARGEST ** 2 * 4 * 10 ** 7 < 1.7e308        # the sum of squares stays finite
