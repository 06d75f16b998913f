"""The calibration (study/sim/calibrate.py): the recorded fitted inputs are what the
recorded procedure gives, they lie inside the original page's range, and every way of breaking
that fails naming the input (or the figure) and the values."""

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from cit.errors import BuildError
from study.runs import load_folder
from study.sim import calibrate
from study.sim.compute import build_params, variant_steps
from study.sim.inputs import load_inputs
from study.sim.quoted import load_quoted
from study.sim.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[2]
HEADLINE = "results/tinystories-gpu"
SCENARIO = ROOT / "data" / "sim" / "scenario.yaml"
QUOTED = ROOT / "data" / "sim" / "quoted.yaml"


@pytest.fixture(scope="module")
def setup(vendored_root, study):
    folder = load_folder(vendored_root / HEADLINE, HEADLINE)
    scenario = load_scenario(SCENARIO)
    inputs = load_inputs(folder, study["sim_target_group"], scenario.static.e_planes)
    return scenario, inputs


def fit(scenario, inputs, quoted=None, **value_changes):
    values = scenario.resolve(inputs.measured)
    if value_changes:
        values = values.model_copy(update=value_changes)
    p, _ = build_params(values, inputs)
    return calibrate.calibrate(scenario, values, p, variant_steps(inputs),
                               quoted or load_quoted(QUOTED))


def test_the_recorded_fitted_inputs_are_the_calibrations_and_inside_the_papers_range(setup):
    scenario, inputs = setup
    cal = fit(scenario, inputs)
    calibrate.check_calibration(scenario, cal)          # raises on any difference
    fitted = {k for k, e in scenario.entries.items() if e.source == "fitted"}
    assert fitted == {f.key for f in cal.fitted} and fitted
    v = scenario.static
    for key, (lo, hi) in calibrate.RANGES.items():
        if key in fitted:
            assert getattr(v, lo) <= cal.value(key) <= getattr(v, hi)
    assert cal.rms == scenario.entries[cal.fitted[0].key].fit.residual
    print("\n" + "; ".join(f"{f.key} = {f.value!r}" for f in cal.fitted)
          + f"; fitted to {len(cal.figures)} figures, RMS relative residual {cal.rms!r}")


def test_a_hand_edited_fitted_value_fails_naming_the_input_and_both_values(setup):
    scenario, inputs = setup
    cal = fit(scenario, inputs)
    e = scenario.entries["module_budget"]
    tuned = replace_entry(scenario, "module_budget", e.value * 1.1)
    with pytest.raises(BuildError) as err:
        calibrate.check_calibration(tuned, cal)
    msg = str(err.value)
    assert err.value.where == scenario.line_of("module_budget")
    assert "inputs.module_budget" in msg
    assert repr(e.value * 1.1) in msg and repr(cal.value("module_budget")) in msg


def replace_entry(scenario, key, value):
    entries = dict(scenario.entries)
    entries[key] = entries[key].model_copy(update={"value": value})
    return replace(scenario, entries=entries)


def test_the_calibrate_command_rewrites_the_scenario_unchanged(setup, tmp_path):
    scenario, inputs = setup
    path = tmp_path / "scenario.yaml"
    shutil.copy(SCENARIO, path)
    calibrate.write_calibration(path, scenario, fit(scenario, inputs))
    assert path.read_text() == SCENARIO.read_text()


def test_a_quoted_figure_out_of_the_papers_reach_fails_with_the_figure_and_range(setup,
                                                                                 tmp_path):
    scenario, inputs = setup
    text = QUOTED.read_text()
    q = load_quoted(QUOTED)
    i = text.index("  time.E:\n")
    j = text.index("    value:", i)
    k = text.index("\n", j)
    bad = tmp_path / "quoted.yaml"
    bad.write_text(text[:j] + f"    value: {q.figures['time.E'].value * 10!r}" + text[k:])
    with pytest.raises(BuildError) as err:
        fit(scenario, inputs, load_quoted(bad))
    msg = str(err.value)
    assert "figures.time.E" in msg and "inputs.module_budget" in msg
    assert err.value.where == f"data/sim/quoted.yaml:{text[:i].count(chr(10)) + 1}"
    assert "the original page's range" in msg


def test_the_direct_band_would_need_a_budget_above_the_original_pages_range(setup):
    """Why the scenario's module uses a fast transform: with the direct band the same
    time per step needs more than the original page's highest budget."""
    scenario, inputs = setup
    with pytest.raises(BuildError) as err:
        fit(scenario, inputs, module_uses_fft=False)
    assert "inputs.module_budget inside the original page's range" in str(err.value)
