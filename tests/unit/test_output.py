"""cit/output.py: the build's mark on an output folder (docs/output.md)."""

import json

import pytest

from cit import output


def _folder_with(tmp_path, text: str):
    (tmp_path / "numbers.json").write_text(text)
    return tmp_path


def test_the_mark_of_a_real_build_is_recognised(built_site):
    assert output.made_by_build(built_site)


@pytest.mark.parametrize("text", [
    "",
    "not json",
    json.dumps({"build": {"commit": "abc"}, "numbers": []}),                 # no date
    json.dumps({"a": 1, "build": {"commit": "c", "commit_date": "d"}}),     # not first
    json.dumps({"build": ["commit", "commit_date"]}),
    '{"build": {"commit": "c", "commit_date": ',                           # cut short
])
def test_a_numbers_json_without_the_build_block_first_is_no_mark(tmp_path, text):
    assert not output.made_by_build(_folder_with(tmp_path, text))


def test_a_build_block_first_is_the_mark_whatever_follows_it(tmp_path):
    text = json.dumps({"build": {"commit": "c", "commit_date": "d"}, "numbers": []},
                      indent=1, sort_keys=True)
    assert output.made_by_build(_folder_with(tmp_path, text))
    assert not output.made_by_build(tmp_path / "missing")


def test_the_deploy_workflow_always_builds_cold():
    """docs/output.md's threat model: what is published passed a cold build's every
    check, whatever a cache holds (no cache step, --no-cache on the build)."""
    import yaml
    from tests.conftest import ROOT
    wf = yaml.safe_load((ROOT / ".github" / "workflows" / "pages.yml").read_text())
    steps = [s for job in wf["jobs"].values() for s in job.get("steps", [])]
    builds = [s["run"] for s in steps if "build.py" in s.get("run", "")]
    assert builds and all("--no-cache" in b.split() for b in builds)
    assert not [s for s in steps if "cache" in s.get("uses", "")]
