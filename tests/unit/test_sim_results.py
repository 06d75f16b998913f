"""data/sim/results.md: recomputed from the vendored logs and the scenario, checked cell
by cell; the figures it must show (docs/simulator.md, "The recorded results" and "Checks") and the failures it must raise."""

import math
from pathlib import Path

import pytest

from cit.errors import BuildError
from cit.registry import Ref, Registry
from study.runs import load_folder
from study.sim import closed
from study.sim.compute import BREAKEVENS, compute_from_paths
from study.sim.report import (RESULTS, build_doc, check_results, parse, render,
                            write_results)
from study.sim.register import register_sim

ROOT = Path(__file__).resolve().parents[2]
HEADLINE = "results/tinystories-gpu"


@pytest.fixture(scope="module")
def computed(vendored_root):
    folder = load_folder(vendored_root / HEADLINE, HEADLINE)
    return compute_from_paths(ROOT, folder)


@pytest.fixture(scope="module")
def recorded() -> str:
    return (ROOT / RESULTS).read_text()


def cell(text: str, section: int, table: str, row: str, column: str) -> str:
    p = parse(text)
    sec = next(s for s in p.sections if s.number == section)
    tab = next(b for b in sec.blocks if not isinstance(b, tuple) and b.name == table)
    j = tab.columns.index(column)
    return next(r[j].text for r in tab.rows if r[0].text == row)


def test_the_recorded_results_match_the_recomputation_cell_for_cell(computed):
    n = check_results(computed, ROOT / RESULTS)
    body = sum(len(r) for s in parse((ROOT / RESULTS).read_text()).sections
               for b in s.blocks if not isinstance(b, tuple) for r in b.rows)
    assert n == body and n > 0


def test_the_results_have_the_spec_sections_against_the_original_interval_counterfactuals(
        recorded):
    titles = [s.title for s in parse(recorded).sections]
    assert [s.number for s in parse(recorded).sections] == [1, 2, 3, 4, 5, 6, 7, 8, 9]
    assert titles[0] == "Scenario" and titles[5] == "Sweep"
    assert titles[6] == "Against the original"
    assert titles[7] == "The evaluation grid's interval" and titles[8] == "Counterfactuals"


def test_every_quoted_transit_figure_reads_the_same_as_ours_at_its_precision(recorded):
    """The count of matches is pinned to the number of figures data/sim/quoted.yaml marks
    `against`, and each row's yes/no is re-derived here from the row's own cells."""
    from study.sim.quoted import against, load_quoted
    quoted = load_quoted(ROOT / "data" / "sim" / "quoted.yaml")
    keys = against(quoted)
    sec = next(s for s in parse(recorded).sections if s.title == "Against the original")
    tab = next(b for b in sec.blocks if not isinstance(b, tuple)
               and b.name == "Quoted figures beside ours")
    col = {c: i for i, c in enumerate(tab.columns)}
    rows = {r[0].text: r for r in tab.rows}
    assert list(rows) == keys
    same = 0
    for key in keys:
        r = rows[key]
        assert r[col["Quoted"]].text == quoted.figures[key].text()
        ok = r[col["Ours at the original's precision"]].text == r[col["Quoted"]].text
        assert r[col["Same at the original's precision"]].text == ("yes" if ok else "no")
        same += ok
    assert cell(recorded, 7, "Count", "Quoted figures compared", "Value") == str(len(keys))
    assert cell(recorded, 7, "Count", "Same at the original's precision", "Value") \
        == str(same)
    print(f"\nagainst the original: {same} of {len(keys)} quoted figures the same at the "
          "original's precision")
    assert same == len(keys), [k for k in keys if rows[k][col["Same at the original's "
                                                               "precision"]].text != "yes"]


def test_editing_one_digit_makes_the_check_fail_naming_the_cell(computed, recorded, tmp_path):
    before = cell(recorded, 3, "Step time and time to target", "A", "Time to target (s)")
    digit = next(ch for ch in before if ch.isdigit())
    after = before.replace(digit, str((int(digit) + 1) % 10), 1)
    lines = recorded.split("\n")
    i = next(k for k, l in enumerate(lines) if l.startswith("| A | ") and before in l)
    cells = lines[i].split(" | ")
    j = cells.index(before)
    cells[j] = after
    lines[i] = " | ".join(cells)
    bad = tmp_path / "results.md"
    bad.write_text("\n".join(lines))
    with pytest.raises(BuildError) as err:
        check_results(computed, bad)
    msg = str(err.value)
    assert "§3" in msg and "'Step time and time to target'" in msg
    assert "row 'A'" in msg and "column 'Time to target (s)'" in msg
    assert repr(after) in msg and repr(before) in msg
    assert err.value.where == f"{RESULTS}:{i + 1}"


def test_a_removed_row_and_an_edited_sentence_both_fail(computed, recorded, tmp_path):
    lines = recorded.split("\n")
    i = next(k for k, l in enumerate(lines) if l.startswith("| E′ (C's steps) | in-network"))
    short = tmp_path / "short.md"
    short.write_text("\n".join(lines[:i] + lines[i + 1:]))
    with pytest.raises(BuildError) as err:
        check_results(computed, short)
    assert "§2" in str(err.value)
    j = next(k for k, l in enumerate(lines) if l.startswith("Scenario switch:"))
    prose = tmp_path / "prose.md"
    prose.write_text("\n".join(lines[:j] + [lines[j].replace("counts", "weighs")]
                               + lines[j + 1:]))
    with pytest.raises(BuildError) as err:
        check_results(computed, prose)
    assert err.value.where == f"{RESULTS}:{j + 1}" and "§1 prose" in str(err.value)


def test_checking_never_rewrites_the_results(computed):
    path = ROOT / RESULTS
    before = path.read_bytes(), path.stat().st_mtime_ns
    check_results(computed, path)
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before


def test_a_missing_results_file_says_how_to_generate_it(computed, tmp_path):
    with pytest.raises(BuildError) as err:
        check_results(computed, tmp_path / "absent.md")
    assert "python -m study.sim" in str(err.value)


def test_generation_is_deterministic(computed, tmp_path):
    a = write_results(computed, tmp_path / "a.md")
    b = render(build_doc(computed))
    assert a == b == (tmp_path / "a.md").read_text()


def test_time_to_target_never_increases_as_wan_bandwidth_grows(computed):
    for var in closed.VARIANTS:
        steps = computed.steps[var.key]
        if steps is None:
            continue
        times = [steps * s for s in computed.sweep[var.mech]]
        assert all(b <= a for a, b in zip(times, times[1:])), var.key
    assert computed.grid == sorted(computed.grid)


@pytest.mark.parametrize("bid,label,a,b", BREAKEVENS)
def test_each_bisection_agrees_with_the_sign_change_in_the_simulated_sweep(computed, bid,
                                                                            label, a, b):
    be = computed.breakevens[bid]
    sa, sb = computed.steps[a], computed.steps[b]
    ma, mb = closed.BY_KEY[a].mech, closed.BY_KEY[b].mech
    wins = []
    for i, bw in enumerate(computed.grid):
        ta = None if sa is None else sa * computed.sweep[ma][i]
        tb = None if sb is None else sb * computed.sweep[mb][i]
        wins.append(ta is not None and (tb is None or ta < tb))
    if be.kind == "whole":
        assert all(wins)
    elif be.kind == "none":
        assert not any(wins)
    else:
        for bw, w in zip(computed.grid, wins):
            if math.isclose(bw, be.at, rel_tol=1e-6):
                continue
            expect = bw < be.at if be.kind == "below" else bw > be.at
            assert w == expect, (bw, be)
        # the sweep itself changes sign somewhere, and the break-even lies in that bracket
        flips = [(x, y) for (x, wx), (y, wy) in zip(zip(computed.grid, wins),
                                                    list(zip(computed.grid, wins))[1:])
                 if wx != wy]
        assert len(flips) == 1 and flips[0][0] <= be.at <= flips[0][1]


def test_the_enob_section_names_the_break_even_enob_the_logs_give(computed, vendored_root):
    """Independently of the simulator's input code: from the logs, the repaired 8-plane
    (E's plane count) runs, which reach the target, and the lowest whose row breaks even."""
    folder = load_folder(vendored_root / HEADLINE, HEADLINE)
    target = computed.values.target_loss
    planes = computed.values.e_planes
    repaired = {}
    for r in folder.runs:
        c = r.cfg
        if c.variant == "optics" and c.feedback == "sent" and c.fs_every > 0 \
                and c.planes == planes:
            repaired.setdefault(c.enob, []).append(r.first_step_at_or_below(target))
    reaching = sorted(e for e, steps in repaired.items() if None not in steps)
    recorded = (ROOT / RESULTS).read_text()
    named = cell(recorded, 5, "Break-even ENOB", "Break-even ENOB", "Value")
    rows = {r.run.enob: r for r in computed.enob if r.run.planes == planes}
    beats = [e for e in reaching
             if rows[e].e_vs_a.kind != "none" or rows[e].eprime_vs_a.kind != "none"]
    assert beats, "no repaired run breaks even: the section would name none"
    from cit.fmt import fmt_general
    assert named == fmt_general(beats[0])
    # every lower ENOB among the repaired runs either never reaches the target or never
    # breaks even, as the table's rows say
    for e in sorted(repaired):
        if e < beats[0]:
            assert None in repaired[e] or (rows[e].e_vs_a.kind == "none"
                                           and rows[e].eprime_vs_a.kind == "none")
    # and E's steps are that the lowest reaching run's
    e_steps = repaired[reaching[0]]
    assert computed.steps["E"] == sum(e_steps) / len(e_steps)


def test_the_target_is_the_mean_final_loss_of_the_exact_2d_band(computed, vendored_root):
    folder = load_folder(vendored_root / HEADLINE, HEADLINE)
    runs = [r for r in folder.runs if r.group == computed.inputs.target_group]
    assert runs and all(r.cfg.chunk_mode == "2d" and r.cfg.band == "low" for r in runs)
    assert computed.values.target_loss == pytest.approx(
        sum(r.final_val_loss for r in runs) / len(runs), rel=1e-15)


def test_the_model_sends_the_wire_bytes_the_logs_count(computed):
    for mech in ("A", "B", "C"):
        assert computed.default[mech].wire == computed.inputs.log_wire[mech]


def test_results_state_which_way_the_transform_switch_is_set(recorded, computed):
    counts = computed.values.transform_counts_against_budget
    line = next(l for l in recorded.split("\n") if l.startswith("Scenario switch:"))
    assert ("does not count" in line) == (not counts)


def test_every_figure_enters_the_registry_with_its_cell_text_and_kind(computed, recorded):
    reg = Registry()
    register_sim(reg, computed, RESULTS, ROOT)
    doc = build_doc(computed)
    seen = 0
    for sec, tab, row, col, c in doc.cells():
        if c.id is None:
            continue
        n = reg.get(c.id)
        assert n.text == c.text == cell(recorded, sec.number, tab.name, row, col)
        assert n.locator.startswith(f"{RESULTS} §{sec.number}")
        assert n.sources[0].path == RESULTS
        seen += 1
    assert seen > 0
    for var in closed.VARIANTS:
        kinds = {reg.get(f"sim.{what}.{var.key}").kind
                 for what in ("time", "energy", "step_time", "wire", "wan_bytes")}
        assert kinds == ({"hypothetical"} if var.hypothetical else {"simulated"})
    for key in ("sim.workers", "sim.dcs", "sim.target", "sim.wan_default", "sim.sweep_min",
                "sim.sweep_max", "sim.enob.breakeven"):
        assert key in reg
    for bid, *_ in BREAKEVENS:
        assert f"sim.breakeven.{bid}" in reg


def test_quoted_figures_are_registered_as_quoted_and_results_give_them_no_ids(computed):
    reg = Registry()
    register_sim(reg, computed, RESULTS, ROOT)
    quoted = [n for i, n in reg.numbers.items() if i.startswith("quoted.")]
    assert quoted and all(n.kind == "quoted" for n in quoted)
    ids = {c.id for *_, c in build_doc(computed).cells() if c.id}
    assert not any(i.startswith("quoted.") for i in ids)
    assert all(n.sources[0].path == "data/sim/quoted.yaml" for n in quoted)


def test_the_transit_tables_show_labels_without_digits_and_registered_numbers(computed):
    reg = Registry()
    register_sim(reg, computed, RESULTS, ROOT)
    for name in ("scenario", "sim-steps", "sim-time", "breakeven", "enob", "sim-summary",
                 "quoted-vs-ours"):
        t = reg.tables[name]
        for label in t.columns:
            assert isinstance(label, Ref) or not any(ch.isdigit() for ch in label), label
        for row in t.rows:
            for c in row:
                if isinstance(c, Ref):
                    assert c.id in reg
                else:
                    assert not any(ch.isdigit() for ch in c), (name, c)


def test_the_sweep_series_carry_the_cells_they_draw(computed):
    reg = Registry()
    register_sim(reg, computed, RESULTS, ROOT)
    for var in closed.VARIANTS:
        s = reg.series[f"sim.sweep.{var.key}"]
        assert len(s.x) == len(s.y) == len(computed.grid)
        for y, nid in zip(s.y, s.extra["y_ids"]):
            assert reg.get(nid).value == y


def test_a_malformed_quoted_file_names_its_line(tmp_path):
    from study.sim.register import load_quoted
    text = (ROOT / "data" / "sim" / "quoted.yaml").read_text()
    bad = text.replace("    kind: below\n", "    kind: beneath\n", 1)
    p = tmp_path / "quoted.yaml"
    p.write_text(bad)
    with pytest.raises(BuildError) as err:
        load_quoted(p, "data/sim/quoted.yaml")
    line = int(err.value.where.rsplit(":", 1)[1])
    assert bad.split("\n")[line - 1].strip().startswith("breakeven.")


def test_an_input_we_set_is_not_counted_as_agreeing_with_the_original(computed):
    """A scenario input chosen to match the original (the sweep's ends) reads "set to
    match", never "yes": only a figure our model or the logs produce can agree."""
    reg = Registry()
    register_sim(reg, computed, RESULTS, ROOT)
    kinds = {row[3]: set() for row in reg.tables["quoted-vs-ours"].rows}
    for row in reg.tables["quoted-vs-ours"].rows:
        kinds[row[3]].add(reg.get(row[1].id).kind)
    assert "assumption" in kinds.get("set to match", set())
    assert "assumption" not in kinds.get("yes", set())
