"""One checked claim per page, broken on purpose: each test edits the data a claim rests
on, in a throwaway copy of the project (the vendored log re-pinned in the copy's lock,
so the hash check passes), and expects the whole build to fail naming the file and
line of the sentence, the claim and its evidence, leaving the previous site in place.

The edits avoid every figure the upstream results.md prints (intermediate evaluations,
config fields, diagnostics of runs it does not pool), so the claim is what fails, not
the N-of-N check of the tables. Deck 01 states no comparison of the data, so it has no
claim to break.
"""

import json
import re

import pytest

from tests.golden.conftest import HEADLINE


def _records(case, name: str):
    rel = f"{HEADLINE}/{name}.jsonl"
    lines = (case.root / "vendored" / rel).read_text().splitlines()
    return rel, [json.loads(line) for line in lines]


def _write(case, rel: str, records) -> None:
    case.repin(rel, ("\n".join(json.dumps(r) for r in records) + "\n").encode())


def _line_of(case, path: str, claim: str) -> int:
    """The line the error must name: the sentence's line (in a glossary definition
    too: errors there name the definition's line)."""
    lines = (case.root / path).read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if f":c[{claim}" in line)


def _expect(case, path: str, claim: str, evidence: str) -> None:
    err = case.run().stderr
    line = _line_of(case, path, claim)
    assert f"build failed: {path}:{line}: claim {claim!r} is false:" in err, err
    assert "Evidence: " in err and evidence in err, err


def test_hub_bands_above_every_eval(case):
    """The random band's second evaluation lowered below top-k's and AdamW's (but above
    AdamW's final loss, so no steps-to-target cell of the experiment's tables changes,
    and by more than ten seed sds, so exp.no_band_reaches_adamw still holds)."""
    rel, recs = _records(case, "tinystories-band-random-k16-2d64-lr0.001-s0")
    evals = [r for r in recs if r["type"] == "eval"]
    _, arecs = _records(case, "tinystories-adamw-lr0.003-s0")
    target = [r for r in arecs if r["type"] == "eval"][-1]["val_loss"]
    evals[1]["val_loss"] = target + 0.5
    _write(case, rel, recs)
    _expect(case, "content/hub.md", "exp.bands_above_dense_and_topk_every_eval", "smallest gap = -")


def test_glossary_same_keep_fraction(case):
    rel, recs = _records(case, "tinystories-band-zigzag-k16-2d64-lr0.001-s0")
    recs[0]["config"]["keep"] = 0.125
    _write(case, rel, recs)
    _expect(case, "content/glossary.yaml", "exp.same_keep_fraction",
            "distinct keep fractions = 2")


def test_method_evals_regular(case):
    rel, recs = _records(case, "tinystories-band-zigzag-k16-2d64-lr0.001-s0")
    evals = [r for r in recs if r["type"] == "eval"]
    evals[2]["step"] += 1
    _write(case, rel, recs)
    _expect(case, "content/pages/method.md", "exp.evals_regular", "runs off the grid = 1")


def test_optics_clip_jump(case):
    rel, recs = _records(case, "tinystories-optics-low-k16-1d256-enob8.0-p8-lr0.001-s0")
    interval = [r for r in recs if r["type"] == "eval" and r.get("clip_rate_interval") is not None]
    interval[1]["clip_rate_interval"] = 0.0
    _write(case, rel, recs)
    _expect(case, "content/pages/optics.md", "exp.first_clip_jump", "least in the next = 0.0%")


def test_transit_target_not_reached_by_all_its_seeds(case):
    """Every seed of the target's own group brought to the target at one intermediate
    evaluation (still far above AdamW's loss, so no results.md cell changes)."""
    for seed in (0, 1, 2):
        rel, recs = _records(case, f"tinystories-band-low-k16-2d64-lr0.001-s{seed}")
        evals = [r for r in recs if r["type"] == "eval"]
        evals[-2]["val_loss"] = 3.0
        _write(case, rel, recs)
    # the hub renders first, and its summary table's note cites the claim too
    _expect(case, "content/hub.md", "sim.target_not_reached_by_all_its_seeds",
            "seeds never reaching it = 0 of 3")


def test_deck02_wan_slower_than_worker_links(case):
    """The scenario's default WAN raised above the worker links, then the simulator's
    fitted inputs and results regenerated in the copy by their own commands."""
    from study.sim.__main__ import main as sim_main
    from tests.conftest import run_in_process

    p = case.root / "data" / "sim" / "scenario.yaml"
    text = p.read_text()
    nic = float(re.search(r"nic_bandwidth:\n(?:.*\n)*?\s+value: ([\d.]+)", text).group(1))
    text = re.sub(r"(wan_bandwidth:\n(?:.*\n)*?\s+value: )[\d.]+",
                  lambda m: m.group(1) + f"{nic + 10:g}", text, count=1)
    p.write_text(text)
    for args in (["calibrate"], []):
        r = run_in_process(sim_main, args, case.root, None)
        assert r.returncode == 0, r.stderr
    # the glossary's definitions are rendered before any page (its WAN entry cites it)
    _expect(case, "content/glossary.yaml", "sim.wan_slower_than_worker_links",
            f"WAN, default = {nic + 10:.1f} GB/s")


def test_deck03_clip_rate_only_optics(case):
    rel, recs = _records(case, "tinystories-topk-k16-2d64-lr0.001-s0")
    next(r for r in recs if r["type"] == "eval")["clip_rate"] = 0.0
    _write(case, rel, recs)
    _expect(case, "content/decks/03-what-optics-can-compute.md", "exp.clip_rate_only_optics",
            "runs logging a clip rate = 14")


def _band_at_another_rate(case):
    rel, recs = _records(case, "tinystories-band-zigzag-k16-2d64-lr0.001-s0")
    recs[0]["config"]["lr"] = 0.002
    _write(case, rel, recs)


def test_hub_demo_lr_chosen_on_topk(case):
    """The hub's learning-rate caveat, where it draws its conclusion about hardware: one
    band at a rate of its own."""
    _band_at_another_rate(case)
    _expect(case, "content/hub.md", "exp.demo_lr_chosen_on_topk", "DeMo runs at another rate = 1")


def test_deck04_same_demo_lr(case):
    """The same edit breaks deck 04's claim; the hub, which renders first, and deck 04's
    list of the setup cite the stronger caveat above, so those sentences' mark is taken
    out of this copy (the list item keeps a reason)."""
    _band_at_another_rate(case)
    hub = case.root / "content" / "hub.md"
    text = hub.read_text()
    cut = re.sub(r" That is at one learning rate, .*?:c\[exp\.demo_lr_chosen_on_topk\]\.",
                 "", text, count=1)
    assert cut != text
    # the lead and the heading over the bands' result cite it beside their own claims
    paired = re.compile(r"(:c\[[^\]]+\]) :c\[exp\.demo_lr_chosen_on_topk\]")
    assert len(paired.findall(cut)) >= 2
    hub.write_text(paired.sub(r"\1", cut))
    deck = case.root / "content" / "decks" / "04-hypothesis.md"
    text = deck.read_text()
    cut = text.replace(":c[exp.demo_lr_chosen_on_topk]", ":x[method]")
    assert cut != text
    deck.write_text(cut)
    _expect(case, "content/decks/04-hypothesis.md", "exp.same_demo_lr",
            "distinct learning rates = 2")


def test_deck05_energy_does_not_order_bands(case):
    rel, recs = _records(case, "tinystories-band-random-k16-2d64-lr0.001-s0")
    for r in recs:
        if r["type"] == "diag":
            r["energy"]["momentum"]["all"]["random"] = 0.5
    _write(case, rel, recs)
    _expect(case, "content/hub.md", "exp.energy_does_not_order_bands",
            "ended best: F.random.2d64 = energy 0.500")


@pytest.mark.parametrize("marker", ["", "|hypothesis"])
def test_the_hypothesis_mark_is_enforced_in_the_real_content(case, marker):
    """Deck 05's one-seed claim without its mark, and a several-seed claim with one."""
    p = case.root / "content" / "decks" / "05-results.md"
    text = p.read_text()
    if marker:
        text = text.replace(":c[exp.topk_below_every_band]", ":c[exp.topk_below_every_band|hypothesis]", 1)
        want = "drop the hypothesis marker"
    else:
        text = text.replace(":c[exp.random_below_every_low_seed|hypothesis]",
                            ":c[exp.random_below_every_low_seed]", 1)
        want = "must carry the hypothesis marker"
    p.write_text(text)
    err = case.run().stderr
    assert re.search(r"build failed: content/decks/05-results\.md:\d+: claim ", err), err
    assert want in err


def test_notebook_retries_follow_crashes(case):
    """One traceback of the sweep log taken out: its resume line then follows the
    previous resume, not a crash, and the notebook's "The only retries it records follow
    crashes" is false (the crash loop's other facts still hold: same error, same run)."""
    rel = "results/colab_sweep.log"
    lines = (case.root / "vendored" / rel).read_text().split("\n")
    resumes = [i for i, ln in enumerate(lines) if "; resuming (attempt" in ln]
    start = next(i for i in range(resumes[0] + 1, resumes[1]) if lines[i].startswith("Traceback"))
    del lines[start:resumes[1]]
    case.repin(rel, "\n".join(lines).encode())
    _expect(case, "content/pages/notebook.md", "exp.sweep_log_retries_follow_crashes",
            "right after a traceback = 6")
