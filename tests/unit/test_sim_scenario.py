"""data/sim/scenario.yaml: the schema accepts the real file and rejects bad edits,
naming the file, the line and the key."""

from pathlib import Path

import pytest
import yaml

from cit.errors import BuildError
from study.sim.scenario import MEASURED, load_scenario

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "data" / "sim" / "scenario.yaml"
CASES = yaml.safe_load((ROOT / "tests" / "golden" / "sim_scenario_failures.yaml").read_text())
DISPLAY = "data/sim/scenario.yaml"


def edited(case: dict) -> str:
    data = yaml.safe_load(SCENARIO.read_text())
    inputs = data["inputs"]
    key = case["key"]
    if case.get("delete"):
        del inputs[key]
    if "add" in case:
        inputs[key] = case["add"]
    if "set" in case:
        inputs[key].update(case["set"])
    if "drop" in case:
        del inputs[key][case["drop"]]
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def line_of(text: str, key: str) -> int:
    for i, line in enumerate(text.split("\n"), 1):
        if line.startswith(f"  {key}:"):
            return i
    raise AssertionError(f"{key} not in the edited file")


def test_the_recorded_scenario_is_valid_and_tags_every_input():
    s = load_scenario(SCENARIO)
    assert s.entries, "no inputs"
    for key, e in s.entries.items():
        assert e.source in ("paper", "original", "experiment", "assumption", "fitted")
        assert e.unit and e.cite and e.label
        assert (e.source == "fitted") == (e.fit is not None)
    measured = {e.measured for e in s.entries.values() if e.measured}
    assert measured == set(MEASURED)


def test_the_module_figures_are_tagged_as_the_original_pages_not_the_papers():
    """Issue 19 item 9: the port rate, the budget's range and the cost per value come
    from the original study's page; none of them is a figure read in the module's paper,
    and each cite says whose figure it is."""
    s = load_scenario(SCENARIO)
    keys = ("module_port_rate", "module_budget_min", "module_budget_max",
            "band_direct_flops_per_value", "fft_flops_per_value")
    for key in keys:
        assert s.entries[key].source == "original", key
        assert s.entries[key].cite.startswith("the original study page"), key
    assert not [k for k, e in s.entries.items() if e.source == "paper"]


def test_the_scenario_states_the_switch_for_the_optical_transform():
    s = load_scenario(SCENARIO)
    assert isinstance(s.static.transform_counts_against_budget, bool)
    assert s.entries["transform_counts_against_budget"].source == "assumption"


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_a_malformed_scenario_names_the_file_the_line_and_the_key(case, tmp_path):
    text = edited(case)
    path = tmp_path / "scenario.yaml"
    path.write_text(text)
    with pytest.raises(BuildError) as err:
        s = load_scenario(path, DISPLAY)
        # inputs measured in the logs are checked once the logs supply them
        s.resolve({k: 1 for k in MEASURED})
    key = case["key"]
    if case.get("delete"):
        lines = [next(i for i, l in enumerate(text.split("\n"), 1) if l.startswith("inputs:"))]
    else:
        # the key's own line, or the line of the offending field inside its entry
        first = line_of(text, key)
        rest = text.split("\n")[first:]
        end = first + next((i for i, l in enumerate(rest) if l.startswith("  ") and
                            not l.startswith("    ")), len(rest))
        lines = list(range(first, end + 1))
    assert err.value.where in [f"{DISPLAY}:{n}" for n in lines], str(err.value)
    assert f"inputs.{key}" in err.value.message, str(err.value)


def test_a_scenario_that_is_not_yaml_names_the_line(tmp_path):
    text = SCENARIO.read_text().replace("  dcs:\n", "  dcs: [\n", 1)
    path = tmp_path / "scenario.yaml"
    path.write_text(text)
    with pytest.raises(BuildError) as err:
        load_scenario(path, DISPLAY)
    assert err.value.where.startswith(f"{DISPLAY}:")
    assert "YAML" in err.value.message


def test_a_missing_scenario_file_is_named():
    with pytest.raises(BuildError) as err:
        load_scenario(ROOT / "data" / "sim" / "no-such-file.yaml", DISPLAY)
    assert err.value.where == DISPLAY
