"""data/sim/results.md: build it from a `Computed`, render it, parse it, check it.

The document is a list of sections of prose lines and tables. Every table cell that
shows a figure carries its registry id, raw value, unit, kind and computation, so the
registry stage enters exactly what the file shows. `check_results` recomputes the
document and compares it with the recorded file cell by cell; it never writes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from cit import atomic
from cit.errors import BuildError
from cit.fmt import (GB, GBPS, GVALUES, KJ, MS, SECONDS, TFLOPS, US, fmt, fmt_gbps, fmt_general,
                     fmt_int, fmt_kj, fmt_ms, fmt_pct, fmt_sig)
from cit.pipetable import is_separator, split_row
from cit.reads import Reads
from . import closed, interval
from .closed import VARIANTS, BreakEven, Step
from .compute import BREAKEVENS, Computed
from .quoted import against, at_precision, be_text

RESULTS = "data/sim/results.md"
TITLE = "Simulator results: training across data centres"

# ---- formatting (the explorer's JavaScript repeats these rules exactly) ---------------


def f_s(s: float | None) -> str:
    return "never" if s is None else SECONDS.text(s)


def f_kj(j: float | None) -> str:
    return "never" if j is None else fmt_kj(j)


def f_j(j: float) -> str:
    return fmt(j, 3)


def f_steps(x: float | None) -> str:
    return "never" if x is None else fmt(x, 0)


def f_bytes(x: float) -> str:
    return fmt(x, 0)


def f_be(be: BreakEven) -> str:
    return be_text(be.kind, None if be.at is None else fmt_gbps(be.at))


def be_value(be: BreakEven):
    return GBPS.of(be.at)


def f_typed(v) -> str:
    """A scenario value as typed: booleans as yes/no, numbers with the decimals typed."""
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return fmt_int(v)
    if isinstance(v, float):
        r = repr(v)
        d = len(r.split(".")[1]) if "." in r and "e" not in r else 0
        if r.endswith(".0"):
            d = 0
        return fmt(v, d)
    return str(v)


# ---- the document ----------------------------------------------------------------------


@dataclass
class Cell:
    text: str
    id: str | None = None
    value: object = None
    unit: str = ""
    kind: str = ""
    computation: str = ""
    closed: bool = False      # the closed form (and the JavaScript port) reproduces it
    logs: tuple = ()          # upstream files the figure was read from
    aliases: tuple = ()       # further registry ids for the same cell


@dataclass
class SimTable:
    name: str
    columns: tuple
    rows: list


@dataclass
class Section:
    number: int
    title: str
    blocks: list = field(default_factory=list)   # str (one prose line) | SimTable


@dataclass
class SimResultsDoc:
    title: str
    intro: list
    sections: list

    def cells(self):
        """(section, table, row key, column, Cell) for every body cell."""
        for sec in self.sections:
            for b in sec.blocks:
                if isinstance(b, SimTable):
                    for row in b.rows:
                        for col, cell in zip(b.columns, row):
                            yield sec, b, row[0].text, col, cell

    def table(self, number: int, name: str) -> SimTable:
        for sec in self.sections:
            if sec.number == number:
                for b in sec.blocks:
                    if isinstance(b, SimTable) and b.name == name:
                        return b
        raise KeyError((number, name))


def locator(section: Section | int, table: str, row: str, column: str) -> str:
    n = section if isinstance(section, int) else section.number
    return f"{RESULTS} §{n}, table {table!r}, row {row!r}, column {column!r}"


KIND_OF_TAG = {"paper": "quoted", "original": "quoted", "experiment": "measured", "assumption": "assumption",
               "fitted": "fitted"}

# scenario keys that also carry a sim.* id (docs/numbers.md)
SIM_ALIASES = {"workers": "sim.workers", "dcs": "sim.dcs", "target_loss": "sim.target",
               "wan_bandwidth": "sim.wan_default", "sweep_min": "sim.sweep_min",
               "sweep_max": "sim.sweep_max"}


def _measured_text(key: str, v) -> str:
    if key == "target_loss":
        return fmt(v, 3)
    if key == "value_bytes":
        return fmt_general(v)
    return fmt_int(v)


def _scenario_section(c: Computed) -> Section:
    sec = Section(1, "Scenario")
    v = c.values
    counts = v.transform_counts_against_budget
    sec.blocks.append(
        "Every input of the simulation, with its unit and source: *paper* (a paper we cite "
        "and whose figure we have read there), *original* (the original study's page, which "
        "gives the figure without its source), *experiment* (read from the run logs "
        "at build time), *assumption* (ours), *fitted* (not stated by the original, fitted "
        "to its quoted figures by `python -m study.sim calibrate`: see the table of fitted "
        "inputs). Citations are in data/sim/scenario.yaml.")
    sec.blocks.append(
        "Scenario switch: the optical transform "
        + ("counts" if counts else "does not count")
        + " against the module's compute budget, so the module processes values at "
        + ("the smaller of its port rate and its budget divided by the cost per value."
           if counts else "its port rate."))
    rows = []
    for key, e in c.scenario.entries.items():
        raw = c.scenario.raw(key, c.inputs.measured)
        if e.measured is not None:
            text = _measured_text(key, raw)
            comp = f"read from the run logs: {e.cite}"
            logs = c.inputs.target_files if key == "target_loss" else c.inputs.files
        else:
            shown = raw if e.same_as is None else c.scenario.raw(e.same_as)
            text = f_typed(shown)
            if key.endswith("_link_type"):
                # shown by the name of the link type's energy entry, not its key
                text = c.scenario.entries[f"{shown}_pj_per_bit"].label.split(",")[0]
            comp = f"scenario input ({e.cite})"
            if e.fit is not None:
                comp = (f"fitted to the original's quoted {', '.join(e.fit.figures)} "
                        f"({e.fit.procedure}); RMS relative residual {e.fit.residual!r}")
            if e.same_as is not None:
                comp = f"scenario input, the same as {e.same_as} ({e.cite})"
            logs = ()
        aliases = (SIM_ALIASES[key],) if key in SIM_ALIASES else ()
        rows.append([Cell(key), Cell(e.label),
                     Cell(text, f"scenario.{key}", raw, e.unit, KIND_OF_TAG[e.source],
                          comp, logs=logs, aliases=aliases),
                     Cell(e.unit), Cell(e.source)])
    sec.blocks.append(SimTable("Inputs", ("Key", "Input", "Value", "Unit", "Source"), rows))
    if c.calibration is not None:
        sec.blocks.append(_fitted_table(c))
    return sec


def _fitted_table(c: Computed) -> SimTable:
    cal = c.calibration
    rows = []
    for f in cal.fitted:
        e = c.scenario.entries[f.key]
        rows.append([
            Cell(f.key),
            Cell(f_typed(f.value), f"sim.fitted.{f.key}", f.value, e.unit, "fitted",
                 f"calibration: {e.fit.procedure}"),
            Cell(e.unit),
            Cell(", ".join(cal.figures)),
            Cell(fmt_general(cal.rms), f"sim.fitted.{f.key}.residual", cal.rms, "", "fitted",
                 "root-mean-square of (ours / quoted - 1) over the figures fitted to, at "
                 "the recorded values"),
            Cell(fmt_int(cal.iterations)),
        ])
    return SimTable("Fitted inputs", ("Key", "Value", "Unit", "Fitted to (data/sim/quoted.yaml)",
                                 "RMS relative residual", "Iterations"), rows)


def _kind(var, default="simulated"):
    return "hypothetical" if var.hypothetical else default


def _steps_section(c: Computed) -> Section:
    sec = Section(2, "Steps and bytes")
    sec.blocks.append(
        "Steps to target: mean over seeds of the first evaluated step at or below the "
        "target loss; never if any seed does not reach it. C′ and E′ borrow the steps of "
        "the run named in the last column (hypothetical: not trained). Bytes are per "
        "worker per step; WAN bytes count both directions.")
    rows = []
    payload_of = {"A": "dense", "B": "topk"}
    for var in VARIANTS:
        st = c.default[var.mech]
        pkey = payload_of.get(var.mech, "band")
        payload = c.inputs.payload[pkey]
        src = c.inputs.steps.get(var.steps_from)
        steps_from = src.group if src is not None else "none"
        steps_logs = src.files if src is not None else ()
        rows.append([
            Cell(var.label),
            Cell(closed.COLLECTIVE_LABEL[c.params.layout][var.collective]),
            Cell(f_steps(c.steps[var.key]), f"sim.steps.{var.key}", c.steps[var.key],
                 "steps", _kind(var, "derived"),
                 "mean over seeds of the first eval step with val_loss at or below the "
                 f"target, runs of {steps_from}", closed=True, logs=steps_logs),
            Cell(f_bytes(payload), f"sim.payload.{var.key}", payload, "bytes",
                 _kind(var, "measured"),
                 f"payload_bytes_per_step of the config record ({pkey} payload)",
                 logs=(c.inputs.payload_files[pkey],)),
            Cell(f_bytes(st.wire), f"sim.wire.{var.key}", st.wire, "bytes", _kind(var),
                 "bytes one worker sends onto its own link per step, simulated"),
            Cell(f_bytes(st.wan_bytes), f"sim.wan_bytes.{var.key}", st.wan_bytes, "bytes",
                 _kind(var), "bytes crossing the WAN per step, both directions, simulated"),
            Cell(steps_from),
        ])
    sec.blocks.append(SimTable("Steps and bytes per variant",
                          ("Variant", "Collective", "Steps to target",
                           "Payload / step (bytes)", "Wire / step (bytes)",
                           "WAN bytes / step", "Steps from"), rows))
    return sec


def _time_section(c: Computed) -> Section:
    sec = Section(3, "Time and energy to target at the default WAN")
    sec.blocks.append(
        "Step times and energies come from the SimPy model and agree with the closed form "
        "to 1e-9 relative. Each step ends when every worker holds the aggregate, so every "
        "simulated step took the same time and the first is already the steady state. "
        "Phases do not overlap: compute, then compression, then communication.")
    sec.blocks.append(f"Collective layout: {closed.LAYOUT_LABEL[c.params.layout]}.")
    rows, erows = [], []
    for var in VARIANTS:
        st: Step = c.default[var.mech]
        k = var.key
        steps = c.steps[k]
        t = None if steps is None else steps * st.total
        e = None if steps is None else steps * st.energy
        kind = _kind(var)
        rows.append([
            Cell(var.label),
            Cell(fmt_ms(st.compute), f"sim.compute.{k}", MS.of(st.compute), MS.label, kind,
                 "6 x parameters x tokens per worker per step / (GPU peak x utilisation)",
                 closed=True),
            Cell(fmt_ms(st.gpu), f"sim.compress_gpu.{k}", MS.of(st.gpu), MS.label, kind,
                 "FLOPs per multiply-add x multiply-adds per value x parameters / GPU rate",
                 closed=True),
            Cell(fmt_ms(st.module), f"sim.compress_module.{k}", MS.of(st.module), MS.label, kind,
                 "parameters / module rate", closed=True),
            Cell(fmt_ms(st.comm), f"sim.comm.{k}", MS.of(st.comm), MS.label, kind,
                 f"simulated {closed.COLLECTIVE_LABEL[c.params.layout][var.collective]}",
                 closed=True),
            Cell(fmt_ms(st.total), f"sim.step_time.{k}", MS.of(st.total), MS.label, kind,
                 "compute + compression + communication", closed=True),
            Cell(f_s(t), f"sim.time.{k}", t, SECONDS.label, kind,
                 "steps to target x simulated step time", closed=True),
            Cell(f_kj(e), f"sim.energy.{k}", KJ.of(e), KJ.label, kind,
                 "steps to target x simulated energy per step", closed=True),
        ])
        erows.append([
            Cell(var.label),
            Cell(f_j(st.gpu_j), f"sim.energy_gpu.{k}", st.gpu_j, "J", kind,
                 "workers x GPU power x (compute + GPU compression time)", closed=True),
            Cell(f_j(st.link_j), f"sim.energy_link.{k}", st.link_j, "J", kind,
                 "bits over each link x that link type's energy per bit", closed=True),
            Cell(f_j(st.module_j), f"sim.energy_module.{k}", st.module_j, "J", kind,
                 "modules x module power x module time", closed=True),
            Cell(f_j(st.energy), f"sim.energy_step.{k}", st.energy, "J", kind,
                 "GPU + links + module", closed=True),
        ])
    sec.blocks.append(SimTable("Step time and time to target",
                          ("Variant", "Compute (ms)", "Compression, GPU (ms)",
                           "Compression, module (ms)", "Communication (ms)",
                           "Step time (ms)", "Time to target (s)",
                           "Energy to target (kJ)"), rows))
    sec.blocks.append(SimTable("Energy per step",
                          ("Variant", "GPU (J)", "Links (J)", "Module (J)", "Total (J)"),
                          erows))
    p = c.params
    rate = closed.module_rate(p)
    derived = [
        ("GPU rate", TFLOPS.of(p.gpu_rate), TFLOPS.text(p.gpu_rate), TFLOPS.label,
         "sim.gpu_rate", "GPU peak x utilisation"),
        ("Module rate", GVALUES.of(rate), GVALUES.text(rate), GVALUES.label,
         "sim.module_rate", "min(port rate, budget / (cost per value x operations per "
         "multiply-add)) when the transform counts, else the port rate"),
        ("WAN latency, one way", US.of(p.alpha_wan), US.text(p.alpha_wan, 1), US.label,
         "sim.wan_latency", "fibre length x fibre delay per km"),
        ("Latency of a step inside a data centre", US.of(closed.intra_alpha(p)),
         US.text(closed.intra_alpha(p)), US.label, "sim.intra_alpha",
         "two worker links (up to the switch, down to the peer)"),
        ("Latency of a step across the WAN", US.of(closed.wan_alpha(p)),
         US.text(closed.wan_alpha(p)), US.label, "sim.wan_alpha",
         "two worker links plus the WAN"),
    ]
    sec.blocks.append(SimTable("Derived rates", ("Quantity", "Value", "Unit"), [
        [Cell(name), Cell(text, id_, val, unit, "derived", comp, closed=True), Cell(unit)]
        for name, val, text, unit, id_, comp in derived]))
    return sec


def _faster(c: Computed, a: str, b: str) -> str:
    ta = c.steps[a] and c.steps[a] * c.default[closed.BY_KEY[a].mech].total
    tb = c.steps[b] and c.steps[b] * c.default[closed.BY_KEY[b].mech].total
    if ta is None and tb is None:
        return "neither"
    if tb is None or (ta is not None and ta < tb):
        return closed.BY_KEY[a].label
    if ta is None or tb < ta:
        return closed.BY_KEY[b].label
    return "neither"


def _breakeven_section(c: Computed) -> Section:
    sec = Section(4, "Break-even WAN bandwidth")
    sec.blocks.append(
        "Where the first variant's time to target equals the second's, found by bisection "
        "on the closed form in log-bandwidth over the sweep range and shown to three "
        "significant figures: below it the first variant is faster (below X), or it is "
        "faster across the whole range, or nowhere in it (none in range).")
    rows = []
    for bid, label, a, b in BREAKEVENS:
        be = c.breakevens[bid]
        hyp = closed.BY_KEY[a].hypothetical or closed.BY_KEY[b].hypothetical
        rows.append([
            Cell(label),
            Cell(f_be(be), f"sim.breakeven.{bid}", be_value(be), GBPS.label,
                 "hypothetical" if hyp else "simulated",
                 f"bisection on time to target of {closed.BY_KEY[a].label} minus "
                 f"{closed.BY_KEY[b].label} against WAN bandwidth", closed=True),
            Cell(_faster(c, a, b), closed=True),
        ])
    sec.blocks.append(SimTable("Break-evens", ("Comparison", "Break-even WAN bandwidth",
                                          "Faster at the default WAN"), rows))
    return sec


def _enob_section(c: Computed) -> Section:
    sec = Section(5, "ENOB")
    sec.blocks.append(
        "Each repaired optics run (feedback of the band sent, full scale re-set): its "
        "steps to target, and the break-even of E and of E′ against A with its steps. The "
        "break-even ENOB is the lowest ENOB, among the runs with E's plane count, that "
        "reaches the target and beats A somewhere in the range.")
    rows = []
    for r in c.enob:
        run = r.run
        sid = f"sim.enob.{run.slug}"
        rows.append([
            Cell(run.slug),
            Cell(fmt_general(run.enob), f"{sid}.enob", run.enob, "bits", "measured",
                 "enob of the config record", logs=run.steps.files),
            Cell(fmt_int(run.planes), f"{sid}.planes", run.planes, "planes", "measured",
                 "planes of the config record", logs=run.steps.files),
            Cell(fmt_int(run.fs_every), f"{sid}.fs_every", run.fs_every, "steps",
                 "measured", "fs_every of the config record", logs=run.steps.files),
            Cell(f_steps(run.steps.mean), f"{sid}.steps", run.steps.mean, "steps", "derived",
                 "first eval step with val_loss at or below the target", closed=True,
                 logs=run.steps.files),
            Cell(f_be(r.e_vs_a), f"{sid}.E_vs_A", be_value(r.e_vs_a), GBPS.label, "simulated",
                 "bisection: E with this run's steps against A", closed=True),
            Cell(f_be(r.eprime_vs_a), f"{sid}.Eprime_vs_A", be_value(r.eprime_vs_a), GBPS.label,
                 "hypothetical", "bisection: E′ with this run's steps against A",
                 closed=True),
        ])
    sec.blocks.append(SimTable("Repaired optics runs",
                          ("Run", "ENOB", "Planes", "Full scale re-set every (steps)",
                           "Steps to target", "E vs A", "E′ vs A"), rows))
    be = c.enob_breakeven
    if be is None:
        cells = [[Cell("Break-even ENOB"),
                  Cell("none", "sim.enob.breakeven", None, "bits", "simulated",
                       "no repaired run with E's plane count beats A anywhere in range",
                       closed=True)],
                 [Cell("Beats A as"), Cell("neither", closed=True)]]
    else:
        run, via = be
        cells = [[Cell("Break-even ENOB"),
                  Cell(fmt_general(run.enob), "sim.enob.breakeven", run.enob, "bits",
                       "hypothetical" if via == "E′" else "simulated",
                       f"lowest ENOB whose repaired run reaches the target and whose {via} "
                       "beats A somewhere in the range", closed=True, logs=run.steps.files)],
                 [Cell("Beats A as"), Cell(via, closed=True)]]
    sec.blocks.append(SimTable("Break-even ENOB", ("Figure", "Value"), cells))
    return sec


def _sweep_section(c: Computed) -> Section:
    sec = Section(6, "Sweep")
    sec.blocks.append(
        "Time to target (s) per variant at each WAN bandwidth of the fixed logarithmic grid "
        "(sweep_min to sweep_max, sweep_points_per_decade points a decade: section 1), "
        "simulated (one training step per grid point: section 3's runs of simulated_steps "
        "steps show the first step is already the steady state); never where the variant's "
        "steps never reach the target. The last column is A under the other collective "
        "layout, for comparison.")
    rows = []
    for i, bw in enumerate(c.grid):
        row = [Cell(fmt_gbps(bw), f"sim.sweep.bw.{i}", GBPS.of(bw), GBPS.label, "assumption",
                    "point of the fixed log grid", closed=True)]
        for var in VARIANTS:
            steps = c.steps[var.key]
            t = None if steps is None else steps * c.sweep[var.mech][i]
            row.append(Cell(f_s(t), f"sim.sweep.{var.key}.{i}", t, SECONDS.label, _kind(var),
                            "steps to target x simulated step time at this WAN bandwidth",
                            closed=True))
        a_steps = c.steps["A"]
        t = None if a_steps is None else a_steps * c.sweep_flat_a[i]
        row.append(Cell(f_s(t), f"sim.sweep.A_other.{i}", t, SECONDS.label, "simulated",
                        "steps to target x simulated step time of A under the other "
                        "collective layout at this WAN bandwidth", closed=True))
        rows.append(row)
    sec.blocks.append(SimTable("Time to target against WAN bandwidth",
                          ("WAN bandwidth (GB/s)",) + tuple(v.label for v in VARIANTS)
                          + (other_a_label(c),), rows))
    return sec


def other_a_label(c: Computed) -> str:
    other = "flat-ring" if c.params.layout == "hierarchical" else "hierarchical"
    return f"A ({closed.LAYOUT_LABEL[other].split(' (')[0]})"


def ours_for(c: Computed, key: str):
    """Our figure for a quoted key: ("time", seconds or None) or (BreakEven kind, GB/s)."""
    group, _, rest = key.partition(".")
    if group == "time":
        steps = c.steps[rest]
        st = c.default[closed.BY_KEY[rest].mech]
        return "time", None if steps is None else steps * st.total
    be = c.breakevens[rest]
    return be.kind, be_value(be)


def against_rows(c: Computed) -> list:
    """(key, figure, our text, our text at the original's precision, relative difference,
    same) for every quoted figure marked `against`."""
    out = []
    for key in against(c.quoted):
        q = c.quoted.figures[key]
        kind, ours = ours_for(c, key)
        text = f_s(ours) if kind == "time" else f_be(c.breakevens[key.partition(".")[2]])
        shown = at_precision(q, kind, ours)
        rel = None if ours is None or q.value is None or kind != (q.kind or "time") \
            else ours / q.value - 1
        out.append((key, q, text, shown, rel, shown == q.text()))
    return out


def _against_section(c: Computed) -> Section:
    sec = Section(7, "Against the original")
    sec.blocks.append(
        "Each of the original page's transit figures (data/sim/quoted.yaml, quoted, not "
        "recomputed) beside ours: ours as sections 3 and 4 print it, ours at the precision "
        "the original printed (times to its decimals, break-evens as it words them), the "
        "relative difference (ours / quoted - 1), and whether the two read the same at the "
        "original's precision.")
    rows, same = [], 0
    for key, q, text, shown, rel, ok in against_rows(c):
        same += ok
        rows.append([
            Cell(key), Cell(q.what), Cell(q.text()),
            Cell(text, closed=True),
            Cell(shown, closed=True),
            Cell(fmt_pct(rel), f"sim.against.{key}.diff", rel, "", "derived",
                 f"ours / quoted - 1 for {q.what}", closed=True),
            Cell("yes" if ok else "no", closed=True),
        ])
    sec.blocks.append(SimTable("Quoted figures beside ours",
                          ("Key", "Figure", "Quoted", "Ours",
                           "Ours at the original's precision", "Relative difference",
                           "Same at the original's precision"), rows))
    sec.blocks.append(SimTable("Count", ("Figure", "Value"), [
        [Cell("Quoted figures compared"),
         Cell(fmt_int(len(rows)), "sim.against.total", len(rows), "figures", "derived",
              "quoted figures marked against in data/sim/quoted.yaml", closed=True)],
        [Cell("Same at the original's precision"),
         Cell(fmt_int(same), "sim.against.same", same, "figures", "derived",
              "rows of the table above that read the same at the original's precision",
              closed=True)]]))
    return sec


# ---- §8: the evaluation grid's interval (interval.py, docs/simulator.md) --------------


def _steps_ends_rows(c: Computed) -> list:
    rows = []
    for var in VARIANTS:
        k, ends = var.key, c.ends[var.key]
        src = c.inputs.steps.get(var.steps_from)
        logs = src.files if src is not None else ()
        above = None if ends is None else src.above
        kind = _kind(var, "derived")
        rows.append([
            Cell(var.label), Cell(f_steps(c.steps[k])),
            Cell("never" if above is None else ", ".join(fmt_int(a) for a in above),
                 f"sim.steps.{k}.above", above, "steps", kind,
                 "per seed, the evaluated step just before the first at or below the "
                 "target (the last above it; 0 if the first evaluation is at or below it)",
                 logs=logs),
            Cell(f_steps(None if ends is None else ends[0]), f"sim.steps.{k}.fewest",
                 None if ends is None else ends[0], "steps", kind,
                 "mean over seeds of (the last evaluated step above the target + 1)",
                 logs=logs),
            Cell(f_steps(None if ends is None else ends[1]), f"sim.steps.{k}.most",
                 None if ends is None else ends[1], "steps", kind,
                 "mean over seeds of the first evaluated step at or below the target "
                 "(the grid value)", logs=logs),
            Cell(src.group if src is not None else "none"),
        ])
    return rows


def _time_ends_rows(c: Computed) -> list:
    rows = []
    for var in VARIANTS:
        k, ends, st = var.key, c.ends[var.key], c.default[var.mech]
        kind = _kind(var)
        row = [Cell(var.label)]
        for what, f, per, unit in (("time", f_s, st.total, SECONDS),
                                   ("energy", f_kj, st.energy, KJ)):
            grid = None if c.steps[k] is None else c.steps[k] * per
            row.append(Cell(f(grid)))
            for i, end in enumerate(("fewest", "most")):
                x = None if ends is None else ends[i] * per
                row.append(Cell(f(x), f"sim.{what}.{k}.{end}", unit.of(x), unit.label, kind,
                                f"{end} steps to target x simulated {what} per step at the "
                                "default WAN"))
        rows.append(row)
    return rows


def _be_ends_rows(c: Computed) -> list:
    rows = []
    for bid, label, a, b in BREAKEVENS:
        ends = c.breakeven_ends[bid]
        hyp = closed.BY_KEY[a].hypothetical or closed.BY_KEY[b].hypothetical
        other = "the same steps" if interval.shared(a, b) else "the second at the other end"
        row = [Cell(label), Cell("shared" if interval.shared(a, b) else "separate"),
               Cell(f_be(c.breakevens[bid]))]
        for be, end in zip(ends, interval.ENDS):
            row.append(Cell(f_be(be), f"sim.breakeven.{bid}.{end}", be_value(be), GBPS.label,
                            "hypothetical" if hyp else "simulated",
                            f"bisection as in section 4, {closed.BY_KEY[a].label} at its "
                            f"{end} steps to target, {closed.BY_KEY[b].label} at {other}"))
        row.append(Cell("yes" if f_be(ends[0]) == f_be(ends[1]) else "no"))
        rows.append(row)
    return rows


def _enob_ends_tabs(c: Computed) -> list:
    rows = []
    for r, ends in zip(c.enob, c.enob_ends):
        sid = f"sim.enob.{r.run.slug}"
        row = [Cell(r.run.slug), Cell(f_steps(r.run.steps.mean))]
        fewest = ends["fewest"].steps
        row.append(Cell(f_steps(fewest), f"{sid}.steps.fewest", fewest, "steps", "derived",
                        "the last evaluated step above the target + 1",
                        logs=r.run.steps.files))
        for name, via, kind in (("e_vs_a", "E_vs_A", "simulated"),
                                ("eprime_vs_a", "Eprime_vs_A", "hypothetical")):
            for end in interval.ENDS:
                be = getattr(ends[end], name)
                row.append(Cell(f_be(be), f"{sid}.{via}.{end}", be_value(be), GBPS.label, kind,
                                f"bisection: {via.split('_')[0].replace('prime', '′')} at "
                                f"this run's {end} steps against A at the other end"))
        rows.append(row)
    runs = SimTable("Repaired optics runs at both ends",
               ("Run", "Steps to target (grid)", "Fewest steps", "E vs A, fewest",
                "E vs A, most", "E′ vs A, fewest", "E′ vs A, most"), rows)
    pick = [Cell("Break-even ENOB"), Cell(_enob_text(c.enob_breakeven))]
    via = [Cell("Beats A as"), Cell(c.enob_breakeven[1] if c.enob_breakeven else "neither")]
    for end in interval.ENDS:
        be = c.enob_breakeven_ends[end]
        pick.append(Cell(_enob_text(be), f"sim.enob.breakeven.{end}",
                         None if be is None else be[0].enob, "bits",
                         "hypothetical" if be and be[1] == "E′" else "simulated",
                         f"the break-even ENOB with every repaired run at its {end} steps "
                         "and A at the other end"))
        via.append(Cell(be[1] if be else "neither"))
    return [runs, SimTable("Break-even ENOB at both ends",
                      ("Figure", "Grid", "E at its fewest steps", "E at its most steps"),
                      [pick, via])]


def _enob_text(be) -> str:
    return "none" if be is None else fmt_general(be[0].enob)


def _order_tab(c: Computed, what: str) -> tuple[SimTable, int, int]:
    f = f_s if what == "time" else f_kj
    rows, kept = [], 0
    for o in interval.orderings(c, what):
        kept += o.survives
        a, b = closed.BY_KEY[o.first].label, closed.BY_KEY[o.second].label
        rows.append([Cell(f"{a}, {b}"), Cell(f"{f(o.grid[0])} against {f(o.grid[1])}"),
                     Cell(f"{f(o.worst[0])} against {f(o.worst[1])}"),
                     Cell("yes" if o.survives else "no",
                          f"sim.order.{what}.{o.first}.{o.second}", o.survives, "", "derived",
                          f"{a}'s {what} to target at its most steps below {b}'s at its "
                          "fewest (the same steps when the two share them)")])
    unit = SECONDS.label if what == "time" else KJ.label
    name = "time to target" if what == "time" else "energy to target"
    return SimTable(f"Orderings of {name} at the default WAN",
               ("Lower at the grid values, higher", f"At the grid values ({unit})",
                f"Lower at its most steps, higher at its fewest ({unit})", "Survives"),
               rows), kept, len(rows)


def _interval_section(c: Computed) -> Section:
    sec = Section(8, "The evaluation grid's interval")
    sec.blocks.append(
        "Runs were evaluated on a grid of steps, so a seed's steps to target are known only "
        "to lie after its last evaluation above the target and at or before its first "
        "evaluation at or below it. Sections 2 to 7 and the original page use the grid "
        "value, the interval's high end (most steps); its low end (fewest steps) is the "
        "mean over seeds of the step after each seed's last evaluation above the target. "
        "Every figure that depends on steps is computed here at both ends.")
    sec.blocks.append(
        "A break-even depends on its two variants' steps only through their ratio, so its "
        "extremes are two corners: the first variant at its fewest steps and the second at "
        "its most (fewest), and the reverse (most). Variants that borrow the same steps "
        "(C and C′, E and E′ on E's steps, C and E′ on C's) move together. An ordering of "
        "two variants survives the interval when it holds at the corner that favours the "
        "one that is higher at the grid values.")
    sec.blocks.append(SimTable("Steps to target within the evaluation grid",
                          ("Variant", "Steps to target (grid)",
                           "Last evaluation above the target, per seed", "Fewest steps",
                           "Most steps", "Steps from"), _steps_ends_rows(c)))
    sec.blocks.append(SimTable("Time and energy to target at both ends",
                          ("Variant", "Time to target (s), grid", "Time, fewest steps",
                           "Time, most steps", "Energy to target (kJ), grid",
                           "Energy, fewest steps", "Energy, most steps"), _time_ends_rows(c)))
    sec.blocks.append(SimTable("Break-evens at both ends",
                          ("Comparison", "Steps", "Break-even (grid)",
                           "First at its fewest steps", "First at its most steps",
                           "Same at both ends"), _be_ends_rows(c)))
    sec.blocks.extend(_enob_ends_tabs(c))
    counts = []
    for what in ("time", "energy"):
        tab, kept, total = _order_tab(c, what)
        sec.blocks.append(tab)
        counts.append([Cell(f"Orderings of {what} to target that survive"),
                       Cell(fmt_int(kept), f"sim.order.{what}.survive", kept, "pairs",
                            "derived", f"rows of the {what} orderings table that survive"),
                       Cell(fmt_int(total), f"sim.order.{what}.pairs", total, "pairs",
                            "derived", "pairs of variants that reach the target")])
    sec.blocks.append(SimTable("Orderings that survive", ("Figure", "Survive", "Pairs"), counts))
    sec.blocks.extend(_e_run_tabs(c))
    return sec


def _e_run_tabs(c: Computed) -> list:
    """The run behind E at the target, and E one evaluation later (counterfactual.Later):
    how far every E and E′-on-E's-steps figure rests on where that run crossed."""
    st, later = c.inputs.steps.get("E"), c.later
    if st is None or later is None:
        return []
    target = c.inputs.measured["target_loss"]
    at = math.fsum(st.crossed_at) / len(st.crossed_at)
    margin = min(target - x for x in st.crossed_at)
    logs = st.files
    run = SimTable("The run behind E at the target", (
        "Run", "Seeds", "Target (nats)", "Loss at its first evaluation at or below (nats)",
        "Margin, smallest over seeds (nats)", "Steps to target", "Next evaluation"), [[
            Cell(st.group),
            Cell(fmt_int(len(st.per_seed)), "sim.e_run.seeds", len(st.per_seed), "seeds",
                 "derived", "seeds of the run the simulator takes E's steps from", logs=logs),
            Cell(fmt(target, 6), "sim.e_run.target", target, "nats/token", "measured",
                 "the target loss (section 1), to six decimals", logs=c.inputs.target_files),
            Cell(fmt(at, 6), "sim.e_run.loss_at_crossing", at, "nats/token", "measured",
                 "mean over its seeds of val_loss at each seed's first eval step at or "
                 "below the target", logs=logs),
            Cell(fmt_sig(margin, 2), "sim.e_run.margin", margin, "nats/token", "derived",
                 "smallest over its seeds of the target minus val_loss at the seed's first "
                 "eval step at or below the target", logs=logs),
            Cell(f_steps(st.mean)),
            Cell(f_steps(later.steps), "sim.later.steps", later.steps, "steps", "derived",
                 "mean over its seeds of the eval step after each seed's first at or below "
                 "the target", logs=logs)]])
    grid_e = c.time("E", c.default["E"].total)
    grid_ep = c.time("Eprime_Esteps", c.default["Eprime"].total)
    rows = [
        ("E, time to target (s)", f_s(grid_e), f_s(later.time_e), "sim.later.time.E",
         later.time_e, SECONDS.label, "simulated", "E's steps one evaluation later x E's step time"),
        ("E′ on E's steps, time to target (s)", f_s(grid_ep), f_s(later.time_eprime),
         "sim.later.time.Eprime_Esteps", later.time_eprime, SECONDS.label, "hypothetical",
         "E's steps one evaluation later x E′'s step time"),
        ("E vs A", f_be(c.breakevens["E_vs_A"]), f_be(later.e_vs_a),
         "sim.later.breakeven.E_vs_A", be_value(later.e_vs_a), GBPS.label, "simulated",
         "bisection: E with its steps one evaluation later against A on the grid's steps"),
        ("E′ vs A (E's steps)", f_be(c.breakevens["Eprime_Esteps_vs_A"]),
         f_be(later.eprime_vs_a), "sim.later.breakeven.Eprime_Esteps_vs_A",
         be_value(later.eprime_vs_a), GBPS.label, "hypothetical",
         "bisection: E′ with E's steps one evaluation later against A on the grid's steps")]
    tab = SimTable("E one evaluation later", (
        "Figure", "On the grid's steps", "Had the run crossed one evaluation later"),
        [[Cell(name), Cell(grid), Cell(text, id_, val, unit, kind, comp)]
         for name, grid, text, id_, val, unit, kind, comp in rows])
    return [
        "E's steps are one seed's: the repaired optics run at the lowest ENOB with E's "
        "plane count that reaches the target. Its margin below the target, and every E "
        "figure and E′ figure on E's steps had it crossed one evaluation later (A on the "
        "grid's steps):", run, tab]


# ---- §9: counterfactuals (counterfactual.py) --------------------------------------------

CF_AT = (("lowest", "sweep_min"), ("default", "wan_bandwidth"), ("highest", "sweep_max"))


def _cf_row(o) -> list:
    case = o.case
    a, b = closed.BY_KEY[case.variant], closed.BY_KEY[case.against]
    kind = "hypothetical"
    row = [Cell(f"{case.label}, against {b.label}")]
    for (where, key), (tx, to) in zip(CF_AT, o.times):
        row.append(Cell(f_s(tx), f"sim.cf.{case.key}.time.{where}", tx, SECONDS.label, kind,
                        f"{case.label}: its steps to target x its step time at the {where} "
                        f"WAN bandwidth ({key})"))
        row.append(Cell(f_s(to), f"sim.cf.{case.key}.other.{where}", to, SECONDS.label, "simulated",
                        f"{b.label}: steps to target x step time at the {where} WAN "
                        f"bandwidth ({key}), unchanged"))
    row.append(Cell(f_be(o.breakeven), f"sim.cf.{case.key}.breakeven", be_value(o.breakeven),
                    GBPS.label, kind, f"bisection: {case.label} against {b.label}"))
    for be, end in zip(o.ends, interval.ENDS):
        row.append(Cell(f_be(be), f"sim.cf.{case.key}.breakeven.{end}", be_value(be), GBPS.label,
                        kind, f"bisection: {case.label} at its {end} steps against "
                        f"{b.label} at the other end (section 8)"))
    return row


def _wan_rows(c: Computed) -> list:
    rows = []
    for var in VARIANTS:
        w = c.wan_to_target[var.key]
        row = [Cell(var.label)]
        for i, (suffix, what) in enumerate((("", "grid"), (".fewest", "fewest"),
                                            (".most", "most"))):
            x = None if w is None else w[i]
            row.append(Cell("never" if x is None else GB.text(x),
                            f"sim.wan_to_target.{var.key}{suffix}", GB.of(x), GB.label, _kind(var),
                            f"{what} steps to target x bytes crossing the WAN per step "
                            "(both directions) / 1e9"))
        rows.append(row)
    return rows


def _counterfactual_section(c: Computed) -> Section:
    sec = Section(9, "Counterfactuals")
    sec.blocks.append(
        "A cause is checked by changing it: each row changes one thing in the model (the "
        "module takes no time, or a variant takes another's steps), keeps everything else, "
        "and compares the changed variant with another at the sweep's lowest and highest "
        "WAN bandwidth, at the default, and by break-even, at the grid values and at both "
        "ends of the interval of section 8. A module that takes no time also draws no "
        "energy.")
    sec.blocks.append(SimTable("Counterfactual runs", (
        "Changed, against", "Changed, lowest WAN (s)", "Against, lowest WAN (s)",
        "Changed, default WAN (s)", "Against, default WAN (s)", "Changed, highest WAN (s)",
        "Against, highest WAN (s)", "Break-even (grid)", "Break-even, first at its fewest "
        "steps", "Break-even, first at its most steps"),
        [_cf_row(o) for o in c.counterfactuals]))
    sec.blocks.append(SimTable("WAN bytes to target", (
        "Variant", "WAN bytes to target (GB), grid", "Fewest steps", "Most steps"),
        _wan_rows(c)))
    sec.blocks.extend(_charged_blocks(c))
    return sec


def _charged_blocks(c: Computed) -> list:
    """E′ with what its model leaves out charged (counterfactual.Charged)."""
    ch = c.charged
    if ch is None:
        return []
    rows = [[Cell("E′ step time at the default WAN (ms)"), Cell(fmt_ms(ch.modelled)),
             Cell(fmt_ms(ch.step), "sim.charged.step_time", MS.of(ch.step), MS.label,
                  "hypothetical", "E′'s step time plus closed.innet_left_out: each "
                  "worker's shard up its link to the switch, the band's bytes back down")],
            [Cell("E′ on E's steps, time to target (s)"),
             Cell(f_s(c.time("Eprime_Esteps", ch.modelled))),
             Cell(f_s(ch.time), "sim.charged.time.Eprime_Esteps", ch.time, SECONDS.label,
                  "hypothetical", "E's steps x E′'s step time with the transfers charged")]]
    labels = {bid: label for bid, label, *_ in BREAKEVENS}
    for bid, bes in ch.breakevens.items():
        modelled = (c.breakevens[bid],) + tuple(c.breakeven_ends[bid])
        for suffix, where, be, mod in zip(("", ".fewest", ".most"),
                                          ("grid", "first at its fewest steps",
                                           "first at its most steps"), bes, modelled):
            rows.append([Cell(f"{labels[bid]}, {where}"), Cell(f_be(mod)),
                         Cell(f_be(be), f"sim.charged.breakeven.{bid}{suffix}",
                              be_value(be), GBPS.label, "hypothetical",
                              f"bisection: {labels[bid]} with E′'s transfers charged, "
                              f"{where} (section 8)")])
    return [
        "E′'s model (section 3) moves nothing from the reduce-scattered shards to the module "
        "at the switch, and charges the band's way back to the workers its latency only. "
        "Here both are charged: each worker's shard (the dense delta over the workers of a "
        "data centre) crosses its own link to the switch, one link's latency plus its "
        "bytes, and the band's bytes come back down each worker's link. Time only; "
        "energies are not recomputed.",
        SimTable("E′ with its shards' way to the switch and the band's way back charged",
                 ("Figure", "As modelled", "Charged"), rows)]


def build_doc(c: Computed) -> SimResultsDoc:
    intro = [
        "Written by `python -m study.sim` from data/sim/scenario.yaml and the run logs in "
        "results/tinystories-gpu. Do not edit by hand: every build recomputes each cell "
        "and fails on any difference."]
    return SimResultsDoc(TITLE, intro, [_scenario_section(c), _steps_section(c),
                                        _time_section(c), _breakeven_section(c),
                                        _enob_section(c), _sweep_section(c),
                                        _against_section(c), _interval_section(c),
                                        _counterfactual_section(c)])


# ---- Markdown ---------------------------------------------------------------------------


def render(doc: SimResultsDoc) -> str:
    out = [f"# {doc.title}", ""]
    for line in doc.intro:
        out += [line, ""]
    for sec in doc.sections:
        out += [f"## {sec.number}. {sec.title}", ""]
        for b in sec.blocks:
            if isinstance(b, str):
                out += [b, ""]
                continue
            out += [f"### {b.name}", ""]
            out.append("| " + " | ".join(b.columns) + " |")
            out.append("|" + "---|" * len(b.columns))
            for row in b.rows:
                for cell in row:
                    if "|" in cell.text or "\n" in cell.text:
                        raise BuildError(RESULTS, f"cell text {cell.text!r} cannot go in a "
                                         "Markdown table")
                out.append("| " + " | ".join(cell.text for cell in row) + " |")
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


@dataclass
class ParsedCell:
    text: str
    line: int


@dataclass
class ParsedTable:
    name: str
    line: int
    columns: list
    rows: list          # list of list[ParsedCell]


@dataclass
class PSection:
    number: int
    title: str
    line: int
    blocks: list = field(default_factory=list)   # (line, str) | ParsedTable


@dataclass
class ParsedSimResults:
    head: list          # (line, text) before the first section
    sections: list


def parse(text: str, name: str = RESULTS) -> ParsedSimResults:
    """The results file's structure: sections, prose lines, tables with line numbers."""
    head, sections = [], []
    lines = text.split("\n")
    i = 0
    cur_tab = None
    while i < len(lines):
        ln, line = i + 1, lines[i]
        i += 1
        if line.startswith("## "):
            title = line[3:]
            num, _, rest = title.partition(". ")
            if not num.isdigit():
                raise BuildError(f"{name}:{ln}", f"section heading {line!r} needs a number")
            sections.append(PSection(int(num), rest, ln))
            cur_tab = None
            continue
        if line.startswith("### "):
            if not sections:
                raise BuildError(f"{name}:{ln}", "table heading before the first section")
            cur_tab = ParsedTable(line[4:], ln, [], [])
            sections[-1].blocks.append(cur_tab)
            continue
        if line.startswith("|"):
            if cur_tab is None:
                raise BuildError(f"{name}:{ln}", "table row outside a table")
            cells = split_row(line)
            if not cur_tab.columns:
                cur_tab.columns = cells
            elif is_separator(cells):
                pass
            else:
                cur_tab.rows.append([ParsedCell(c, ln) for c in cells])
            continue
        if not line.strip():
            continue
        cur_tab = None
        (sections[-1].blocks if sections else head).append((ln, line))
    return ParsedSimResults(head, sections)


def compare(recorded: str, recomputed: str, name: str = RESULTS) -> int:
    """Compare the recorded file with the recomputed one; return the number of table
    cells compared; raise BuildError at the first difference (section, row, column and
    both strings)."""
    a, b = parse(recorded, name), parse(recomputed, name)

    def differ(where, what, got, want):
        raise BuildError(where, f"{what}: recorded {got!r}, recomputed {want!r}")

    for (la, ta), (_, tb) in zip(a.head, b.head):
        if ta != tb:
            differ(f"{name}:{la}", "text before the first section", ta, tb)
    if len(a.head) != len(b.head):
        differ(f"{name}:1", "lines before the first section", len(a.head), len(b.head))
    if [(s.number, s.title) for s in a.sections] != [(s.number, s.title) for s in b.sections]:
        differ(f"{name}:1", "sections", [f"{s.number}. {s.title}" for s in a.sections],
               [f"{s.number}. {s.title}" for s in b.sections])
    cells = 0
    for sa, sb in zip(a.sections, b.sections):
        sec = f"§{sa.number}"
        if len(sa.blocks) != len(sb.blocks):
            differ(f"{name}:{sa.line}", f"{sec}: number of paragraphs and tables",
                   len(sa.blocks), len(sb.blocks))
        for ba, bb in zip(sa.blocks, sb.blocks):
            if isinstance(ba, tuple) or isinstance(bb, tuple):
                if not (isinstance(ba, tuple) and isinstance(bb, tuple)):
                    line = ba[0] if isinstance(ba, tuple) else ba.line
                    differ(f"{name}:{line}", f"{sec}: block", "prose" if isinstance(ba, tuple)
                           else f"table {ba.name!r}",
                           "prose" if isinstance(bb, tuple) else f"table {bb.name!r}")
                if ba[1] != bb[1]:
                    differ(f"{name}:{ba[0]}", f"{sec} prose", ba[1], bb[1])
                continue
            tab = f"{sec}, table {ba.name!r}"
            if ba.name != bb.name:
                differ(f"{name}:{ba.line}", f"{sec} table name", ba.name, bb.name)
            if ba.columns != bb.columns:
                differ(f"{name}:{ba.line + 2}", f"{tab}: header", ba.columns, bb.columns)
            keys_a = [r[0].text if r else "" for r in ba.rows]
            keys_b = [r[0].text if r else "" for r in bb.rows]
            for ra, rb in zip(ba.rows, bb.rows):
                key = rb[0].text if rb else ""
                if len(ra) != len(rb):
                    differ(f"{name}:{ra[0].line if ra else ba.line}",
                           f"{tab}, row {key!r}: number of cells", len(ra), len(rb))
                for col, ca, cb in zip(bb.columns, ra, rb):
                    cells += 1
                    if ca.text != cb.text:
                        differ(f"{name}:{ca.line}",
                               f"{tab}, row {key!r}, column {col!r}", ca.text, cb.text)
            if len(ba.rows) != len(bb.rows):
                differ(f"{name}:{ba.line}", f"{tab}: rows", keys_a, keys_b)
    return cells


def check_results(computed: Computed, path: Path, name: str = RESULTS,
                  reads: Reads | None = None) -> int:
    """Recompute data/sim/results.md from `computed` and compare it, cell by cell, with
    the recorded file at `path` (read through `reads`). Returns the number of cells
    compared. Never writes."""
    recorded = (reads or Reads.beside(path)).maybe_text(path)
    if recorded is None:
        raise BuildError(name, "recorded simulator results missing; generate them with "
                         "`python -m study.sim`") from None
    return compare(recorded, render(build_doc(computed)), name)


def write_results(computed: Computed, path: Path) -> str:
    """Write data/sim/results.md (the explicit regeneration command calls this)."""
    text = render(build_doc(computed))
    atomic.write_file(Path(path), text)     # never a truncated record (cit/atomic.py)
    return text
