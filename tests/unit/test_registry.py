"""cit/registry.py: ids, kinds, duplicates and tables of references."""

import math

import pytest

from cit.errors import BuildError
from cit.registry import KINDS, Ref, Registry, Source


def _reg():
    reg = Registry()
    reg.add("loss.A", 3.25, "3.250", unit="nats/token", kind="measured",
            sources=(Source("up/a.jsonl", "c0ffee", "b10b"),), locator="a.jsonl:9",
            computation="val_loss of the last eval")
    return reg


def test_an_entry_keeps_its_raw_value_text_and_provenance():
    n = _reg().get("loss.A")
    assert n.raw() == "3.25" and n.text == "3.250"
    j = n.as_json(["/"])
    assert j["provenance"]["sources"] == [{"path": "up/a.jsonl", "commit": "c0ffee",
                                           "blob_sha1": "b10b"}]
    assert j["appears"] == ["/"] and j["kind"] == "measured"


def test_a_non_finite_value_has_no_raw_text_and_is_null_in_json():
    reg = Registry()
    n = reg.add("x", math.nan, "n/a", kind="derived", sources=(), locator="", computation="")
    assert n.raw() == "" and n.as_json([])["value"] is None


@pytest.mark.parametrize("bad", [
    dict(id="bad id", kind="measured"),
    dict(id="ok", kind="guessed"),
    dict(id="loss.A", kind="measured"),
])
def test_a_bad_id_an_unknown_kind_or_a_second_entry_fails(bad):
    reg = _reg()
    with pytest.raises(BuildError):
        reg.add(bad["id"], 1, "1", kind=bad["kind"], sources=(), locator="", computation="")


def test_fitted_and_quoted_are_kinds():
    assert {"fitted", "quoted", "hypothetical", "simulated"} <= set(KINDS)


def test_a_table_may_only_reference_registered_numbers():
    reg = _reg()
    t = reg.add_table("t", "caption", ("Variant", "Loss"), [("A", Ref("loss.A"))])
    assert t.rows == (("A", Ref("loss.A")),)
    with pytest.raises(BuildError) as e:
        reg.add_table("u", "caption", ("Variant", "Loss"), [("B", Ref("loss.B"))])
    assert "loss.B" in e.value.message and e.value.where == "table u"


def test_an_unknown_id_names_where_it_was_asked_for():
    with pytest.raises(BuildError) as e:
        _reg().get("nope", "content/pages/x.md:4")
    assert e.value.where == "content/pages/x.md:4"
