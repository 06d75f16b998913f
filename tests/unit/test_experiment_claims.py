"""The experiment's predicates test what their sentences say (docs/claims.md, "A claim is
tested as worded"): "diverged" is a stated rise, "trained" a stated fall, "not in order"
refuses a steady sequence either way; and the site's claims, with their words, hold."""

import json
from types import SimpleNamespace

from study.experiment_claims import _diverged, _trained, _worse_and_out_of_order


def _run(*losses):
    return SimpleNamespace(evals=[SimpleNamespace(val_loss=v) for v in losses])


def test_diverged_is_a_stated_rise_not_any_rise():
    assert not _diverged(_run(4.76, 4.50, 4.80))    # above its first, yet no divergence
    assert not _diverged(_run(4.76, 3.00, 4.70))    # more than doubled? no: below its first
    assert _diverged(_run(4.76, 4.56, 11.15))
    assert not _diverged(_run(4.76, 3.10, 3.02))


def test_trained_is_a_stated_fall_ending_at_the_lowest():
    assert _trained(_run(4.76, 3.40, 3.02))
    assert not _trained(_run(4.76, 4.50))           # a fall of 5 %: not "well below"
    assert not _trained(_run(4.76, 3.00, 3.10))     # last is not the lowest


def test_not_in_order_refuses_a_rising_or_a_falling_sequence():
    assert not _worse_and_out_of_order([11.2, 42.2, 214.6, 337.0])    # rises throughout
    assert not _worse_and_out_of_order([337.0, 214.6, 42.2, 11.2])    # falls throughout
    assert not _worse_and_out_of_order([11.2, 214.6, 42.2, 5.0])      # highest below lowest
    assert _worse_and_out_of_order([11.2, 214.6, 42.2, 337.0])


def test_the_sites_claims_hold_and_say_how_their_loose_words_were_tested(built_site):
    claims = {c["id"]: c for c in json.loads((built_site / "numbers.json").read_text())["claims"]}
    assert all(c["verdict"] == "verified" for c in claims.values())
    words = {cid: {w["word"] for w in c["words"]} for cid, c in claims.items()}
    assert "diverged" in words["exp.first_all_diverged"]
    assert "trained" in words["exp.repaired_all_trained"]
    assert "far below" in words["exp.low1d_above_uniform_below_topk"]
    assert {"far better", "came close"} <= words["exp.topk_below_every_band"]
    # the causal sentences' counterfactual: a pair that differs only in the feedback
    pair = claims["exp.feedback_pair"]
    assert pair["hypothesis"] and pair["seeds"] == [1, 1]
    # the like-for-like confound: the optics start behind before any optics acts
    assert claims["exp.optics_behind_before_calibration"]["appears"]


def _lr_claim(vendored_root, lr_demo=None, lr_runs=None):
    """exp.demo_lr_chosen_on_topk on the real logs; `lr_demo` overrides the rate
    lr_choice.json records, `lr_runs` the short runs that chose it."""
    from cit.registry import Registry, Source
    from study import experiment_claims, tables
    from study.runs import load_folder
    head = load_folder(vendored_root / "results/tinystories-gpu", "results/tinystories-gpu")
    short = load_folder(vendored_root / "results/tinystories-gpu-lr", "results/tinystories-gpu-lr")
    choice = json.loads((vendored_root / "results/tinystories-gpu/lr_choice.json").read_text())
    reg = Registry()
    rate = choice["demo"] if lr_demo is None else lr_demo
    reg.add("exp.lr_demo", rate, str(rate), kind="measured",
            sources=(Source("results/tinystories-gpu/lr_choice.json"),), locator="demo",
            computation="lr_choice.json demo")
    ctx = experiment_claims._Ctx(reg, lambda fs: tuple(Source(f) for f in fs),
                                 tables.groups_of(head))
    experiment_claims._demo_lr_from_topk(ctx, tuple(short.runs if lr_runs is None
                                                    else lr_runs(head, short)))
    return reg.claims["exp.demo_lr_chosen_on_topk"]


def test_every_demo_variant_ran_at_the_rate_chosen_on_topk(vendored_root):
    """The hub's caveat: the DeMo rate was chosen on top-k's short runs and every band ran
    at it. It fails if the recorded choice were another rate, or if a band had short runs
    of its own among those that chose it."""
    c = _lr_claim(vendored_root)
    assert c.holds, c.evidence
    assert dict(c.evidence)["DeMo variants among the short runs"] == "topk"
    assert not _lr_claim(vendored_root, lr_demo=0.003).holds
    with_band = lambda head, short: list(short.runs) + [
        r for r in head.runs if r.cfg.variant == "band"][:1]
    assert not _lr_claim(vendored_root, lr_runs=with_band).holds
