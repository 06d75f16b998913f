"""Where an error can say what to write instead, it says it: a misspelt number id, term
or block names the closest one there is (built in a copy of the example study)."""


import pytest

from cit.build import run_stages
from cit.errors import BuildError, did_you_mean
from tests.conftest import ROOT, copy_example_study

EXAMPLE = ROOT / "examples" / "toyopt"


def _copy_with(tmp_path, line: str):
    dst = copy_example_study(tmp_path)
    page = dst / "content" / "pages" / "results.md"
    page.write_text(page.read_text() + "\n" + line + "\n")
    return dst, len(page.read_text().splitlines())


@pytest.mark.parametrize("line, hint", [
    ("The target is :n[targt].", "unknown number id 'targt'; did you mean 'target'? (a stage "
                                 "registers each id with reg.add; docs/numbers.md)"),
    ("A run of :t[momentm].", "undefined glossary term 'momentm'; did you mean 'momentum'? "
                              "(terms are the keys of content/glossary.yaml: add it there)"),
    ("@[chart:loss-curve]", "unknown block @[chart:loss-curve]; did you mean "
                            "'chart:loss-curves'?")])
def test_a_misspelt_name_is_answered_with_the_closest_one(tmp_path, line, hint):
    root, n = _copy_with(tmp_path, line)
    with pytest.raises(BuildError) as e:
        run_stages(root, use_cache=False)
    assert e.value.where == f"content/pages/results.md:{n}"
    assert e.value.message.startswith(hint)


def test_no_hint_when_nothing_is_close():
    assert did_you_mean("zzz", ["target", "runs.count"]) == ""
