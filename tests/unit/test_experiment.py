"""study/experiment.py: the experiment stage registers the recomputed figures with the
upstream file, commit and blob SHA-1 they were read from. Expected values are read from
the vendored logs here, independently of the stage's own code."""

import json

import pytest

from study.experiment import load_experiment
from cit.registry import Registry
from tests.conftest import ROOT


@pytest.fixture(scope="module")
def experiment(vendored_files, study):
    reg = Registry()
    return load_experiment(vendored_files, ROOT, study, reg), reg


def _logs(vendored_root, folder):
    """(file name, records) of every run log directly in `folder`, in name order."""
    out = []
    for p in sorted((vendored_root / folder).glob("*.jsonl")):
        recs = [json.loads(line) for line in p.read_text().splitlines() if line.strip()]
        out.append((p.name, recs))
    return out


def test_every_results_md_is_verified_n_of_n(experiment):
    exp, _ = experiment
    assert exp.verification
    for name, checked in exp.verification.items():
        assert checked.total > 0 and checked.verified == checked.total, name


def test_run_counts_are_the_logs_that_end_with_done(experiment, vendored_root, study):
    _, reg = experiment
    logs = _logs(vendored_root, study["headline"])
    done = [n for n, recs in logs if recs and recs[-1]["type"] == "done"]
    assert reg.numbers["runs.logs"].value == len(logs)
    assert reg.numbers["runs.completed"].value == len(done)
    assert reg.numbers["runs.incomplete"].value == len(logs) - len(done)


def test_bytes_per_step_come_from_the_first_adamw_config_record(experiment, vendored_root,
                                                                 study):
    _, reg = experiment
    configs = [recs[0] for _, recs in _logs(vendored_root, study["headline"])
               if recs and recs[-1]["type"] == "done"]
    adamw = next(c for c in configs if c["config"]["variant"] == "adamw")
    n = reg.numbers["hub.payload.A"]
    assert n.value == adamw["payload_bytes_per_step"]
    assert n.kind == "measured" and n.locator.endswith(":1 (config record)")


def test_every_upstream_source_carries_the_locked_commit_and_blob(experiment, vendored_files):
    _, reg = experiment
    seen = 0
    for n in reg.numbers.values():
        for src in n.sources:
            if src.path in vendored_files:
                v = vendored_files[src.path]
                assert (src.commit, src.blob_sha1) == (v.commit, v.blob_sha1), n.id
                seen += 1
    assert seen > 0


def test_registered_tables_only_reference_registered_numbers(experiment):
    _, reg = experiment
    assert reg.tables
    from cit.registry import Ref
    for t in reg.tables.values():
        for row in t.rows:
            for cell in row:
                if isinstance(cell, Ref):
                    assert cell.id in reg.numbers, (t.id, cell.id)


def test_a_curve_ends_exactly_at_its_groups_mean_final_loss_with_a_dozen_seeds():
    """The chart's last point must equal final_loss_mean (the build checks it). These
    twelve losses are ones whose grouped mean (pandas groupby) and plain mean differ in
    the last bit, as the scaling benchmark's synthetic seeds at four times the study did."""
    from types import SimpleNamespace

    import pandas as pd

    from study.experiment import _curve
    from study.tables import stats
    losses = [1.866007, 1.834061, 1.760674, 1.817516, 1.876496, 1.869239, 1.801057,
              1.8178, 1.706905, 1.748548, 1.859481, 1.782863]
    runs = [SimpleNamespace(evals=[SimpleNamespace(step=10, val_loss=2.5),
                                   SimpleNamespace(step=20, val_loss=v)]) for v in losses]
    frame = pd.DataFrame([(e.step, e.val_loss) for r in runs for e in r.evals],
                         columns=["step", "loss"])
    grouped = frame.groupby("step")["loss"].mean().iloc[-1]
    assert grouped != stats(losses)[0], "these losses no longer tell the two means apart"
    steps, means, lows, highs = _curve(runs)
    assert steps == [10, 20]
    assert means[-1] == stats(losses)[0]
    assert (lows[-1], highs[-1]) == (min(losses), max(losses))
