"""Enter the simulator's figures into the number registry.

Every figure of data/sim/results.md becomes a number whose text is exactly its cell and
whose locator is the cell (section, table, row, column); the sweep also becomes one
series per variant for the chart; the transit page's tables are registered from the
same cells. The original page's quoted figures (data/sim/quoted.yaml) are entered as
kind `quoted`; results.md shows only the eleven transit figures, in its section "Against
the original", beside ours.
"""

from __future__ import annotations

from pathlib import Path

from cit.errors import BuildError
from cit.fmt import GBPS, SECONDS
from cit.registry import Ref, Registry, Source
from . import closed
from .closed import VARIANTS
from .compute import BREAKEVENS, Computed
from .report import RESULTS, SimResultsDoc, SimTable, against_rows, build_doc, locator
from .quoted import QUOTED, QuotedFile, load_quoted

PAGE_TEXT = True     # its string literals reach pages (docs/claims.md, "Sentences the build finds")

SCENARIO = "data/sim/scenario.yaml"


def _upstream(lock_path: Path | None) -> dict:
    """rel path -> Source with commit and blob SHA-1, from vendored/lock.yaml."""
    if lock_path is None or not Path(lock_path).exists():
        return {}
    from cit.vendor import read_lock
    return {f.path: Source(f.path, f.commit, f.blob_sha1) for f in read_lock(lock_path).files}


def register_cells(reg: Registry, doc: SimResultsDoc, results_path: str = RESULTS,
                   lock_path: Path | None = None) -> int:
    """Every cell of `doc` that carries an id (and its aliases) -> a registry number."""
    up = _upstream(lock_path)
    n = 0
    for sec, tab, row, col, cell in doc.cells():
        if cell.id is None:
            continue
        sources = [Source(results_path)]
        if sec.number == 1:
            sources.append(Source(SCENARIO))
        for rel in cell.logs:
            sources.append(up.get(rel, Source(rel)))
        loc = locator(sec, tab.name, row, col).replace(RESULTS, results_path, 1)
        for nid in (cell.id,) + tuple(cell.aliases):
            reg.add(nid, cell.value, cell.text, unit=cell.unit, kind=cell.kind,
                    sources=tuple(sources), locator=loc, computation=cell.computation,
                    site=cell.site)
            n += 1
    return n


# ---- quoted figures ---------------------------------------------------------------------


def register_quoted(reg: Registry, path: Path, display: str = QUOTED) -> QuotedFile:
    q = load_quoted(path, display)
    for key, f in sorted(q.figures.items()):
        reg.add(f"quoted.{key}", f.value, f.text(), unit=f.unit, kind="quoted",
                sources=(Source(display),), locator=f"{display}: figures.{key}",
                computation=f"quoted, not recomputed: {f.what}; {q.citation}")
    return q


# ---- series and tables ------------------------------------------------------------------


def _sweep_ends(c: Computed, key: str, step_times) -> tuple[tuple, tuple]:
    """Time to target at each sweep point at the fewest and at the most steps of the
    evaluation grid's interval (docs/simulator.md, "The evaluation grid's interval")."""
    fewest, most = c.ends[key]
    return (tuple(fewest * t for t in step_times), tuple(most * t for t in step_times))


def register_series(reg: Registry, c: Computed, results_path: str = RESULTS) -> None:
    doc_tab = build_doc(c).table(6, "Time to target against WAN bandwidth")
    xs = tuple(GBPS.of(bw) for bw in c.grid)
    x_ids = tuple(row[0].id for row in doc_tab.rows)
    for j, var in enumerate(VARIANTS, start=1):
        if c.steps[var.key] is None:
            continue            # never reaches the target: nothing to draw
        ys = tuple(row[j].value for row in doc_tab.rows)
        y_ids = tuple(row[j].id for row in doc_tab.rows)
        lo, hi = _sweep_ends(c, var.key, c.sweep[var.mech])
        reg.add_series(
            f"sim.sweep.{var.key}", xs, ys,
            kind="hypothetical" if var.hypothetical else "simulated",
            sources=(Source(results_path),),
            locator=f"{results_path} §6, table {doc_tab.name!r}, column {var.label!r}",
            computation="steps to target x simulated step time at each WAN bandwidth; the "
            "band: the fewest and most steps of the evaluation grid's interval (§8) x the "
            "same step times",
            label=var.label, variant=var.key[0], shade=var.mech, x_ids=x_ids, y_ids=y_ids,
            x_unit=GBPS.label, y_unit=SECONDS.label, lo=lo, hi=hi)
    # A under the other collective layout: the same letter, so the chart draws it dashed
    j = len(doc_tab.columns) - 1
    if c.steps["A"] is not None:
        label = doc_tab.columns[j]
        reg.add_series(
            "sim.sweep.A_other", xs, tuple(row[j].value for row in doc_tab.rows),
            kind="simulated", sources=(Source(results_path),),
            locator=f"{results_path} §6, table {doc_tab.name!r}, column {label!r}",
            computation="A's steps to target x simulated step time under the other "
            "collective layout at each WAN bandwidth; the band: the fewest and most steps of "
            "the evaluation grid's interval (§8) x the same step times",
            label=label, variant="A", x_ids=x_ids,
            y_ids=tuple(row[j].id for row in doc_tab.rows), x_unit=GBPS.label, y_unit=SECONDS.label,
            **dict(zip(("lo", "hi"), _sweep_ends(c, "A", c.sweep_flat_a))))


def _rows(tab: SimTable, keep: list[int]):
    """Registry rows from a results.md table: cells with ids become Refs, others labels."""
    out = []
    for row in tab.rows:
        out.append([Ref(row[i].id) if row[i].id else row[i].text for i in keep])
    return out


def register_tables(reg: Registry, c: Computed, quoted: QuotedFile | None,
                    results_path: str = RESULTS) -> None:
    doc = build_doc(c)
    sc = doc.table(1, "Inputs")
    reg.add_table("scenario", "Every input of the simulation, with its unit and source",  # :x[caption]
                  ("Input", "Value", "Unit", "Source"), _rows(sc, [1, 2, 3, 4]),
                  source=f"{results_path} §1 and {SCENARIO}")
    st = doc.table(2, "Steps and bytes per variant")  # :x[caption]
    rows = [r[:3] + [Ref(f"sim.steps.{v.key}.fewest")] + r[3:]
            for r, v in zip(_rows(st, [0, 1, 2, 3, 4, 5]), VARIANTS)]
    reg.add_table("sim-steps", "Steps to target (the evaluation grid's value, the top of "  # :x[caption]
                  "its interval, and the interval's bottom) and bytes per worker per step, "
                  "per variant", st.columns[:3] + ("Bottom of the interval",)
                  + st.columns[3:6], rows, source=f"{results_path} §2 and §8")
    tt = doc.table(3, "Step time and time to target")
    layout = closed.LAYOUT_LABEL[c.params.layout]
    reg.add_table("sim-time", "Step time by phase, time and energy to target at the default "  # :x[caption]
                  f"WAN; collective layout: {layout}", tt.columns,
                  _rows(tt, list(range(len(tt.columns)))),
                  source=f"{results_path} §3")
    be = doc.table(4, "Break-evens")
    rows = [r[:2] + [Ref(f"sim.breakeven.{bid}.most"), Ref(f"sim.breakeven.{bid}.fewest")]
            + r[2:] for r, (bid, *_) in zip(_rows(be, [0, 1, 2]), BREAKEVENS)]
    reg.add_table("breakeven", "Break-even WAN bandwidths: below it, the first variant is "  # :x[caption]
                  "faster; on the evaluation grid's steps, and at the two ends of their "
                  "interval", (be.columns[0], "Break-even (grid)",
                               "First at the top of its interval, second at the bottom",
                               "First at the bottom of its interval, second at the top",
                               be.columns[2]),
                  rows, source=f"{results_path} §4 and §8")
    en = doc.table(5, "Repaired optics runs")  # :x[label]
    reg.add_table("enob", "Repaired optics runs: steps to target and break-evens on the "  # :x[caption]
                  "evaluation grid's steps (results.md §8 gives both corners of "
                  "the interval)", en.columns[1:], _rows(en, list(range(1, len(en.columns)))),
                  source=f"{results_path} §5")
    summary = []
    for var in VARIANTS:
        k = var.key
        summary.append([var.label, Ref(f"sim.steps.{k}"), Ref(f"sim.steps.{k}.fewest"),
                        Ref(f"sim.time.{k}"), Ref(f"sim.time.{k}.fewest"),
                        Ref(f"sim.energy.{k}"), Ref(f"sim.energy.{k}.fewest"),
                        "hypothetical" if var.hypothetical else "trained"])
    reg.add_table("sim-summary", "Time and energy to the target loss per variant at the "  # :x[caption]
                  "default WAN, on the evaluation grid's steps (the top of their interval) "
                  "and at the interval's bottom (the original page gave no energy figures "
                  "to compare with)",
                  ("Variant", "Steps to target", "Bottom of the interval", "Time to target (s)",
                   "At the bottom", "Energy to target (kJ)", "At the bottom", "Steps"),
                  summary, source=f"{results_path} §2, §3 and §8")
    if quoted is not None:
        same_at = {key: ok for key, *_, ok in against_rows(c)}
        rows = []
        for key, f in quoted.figures.items():
            if f.ours is None:
                continue
            ours, theirs = reg.get(f.ours, QUOTED), reg.get(f"quoted.{key}", QUOTED)
            same = same_at.get(key, ours.text == theirs.text)
            if not f.why:
                raise BuildError(quoted.where(key), f"figures.{key}: give a `why` (what "
                                 f"sets our figure, {ours.text}, beside {theirs.text})")
            # a scenario input of ours agrees because we set it so: not an agreement
            agrees = ("set to match" if ours.kind == "assumption" else "yes") if same else "no"  # :x[label]
            rows.append([f.what, Ref(f.ours), Ref(f"quoted.{key}"), agrees, f.why])
        reg.add_table("quoted-vs-ours", "Our simulator's figures beside the original page's "
                      "quoted ones", ("Figure", "Ours", "Original (quoted)",
                                      "Same at the original's precision",
                                      "What sets our figure"), rows,
                      source=f"{results_path} §7 and {QUOTED}")


def register_sim(registry: Registry, computed: Computed, results_path: str = RESULTS,
                 root: Path | None = None) -> int:
    """Enter every figure of results.md, the sweep series, the quoted figures and the
    transit tables. Returns the number of numbers entered from results.md."""
    root = Path(root) if root is not None else Path(__file__).resolve().parents[2]
    doc = build_doc(computed)
    n = register_cells(registry, doc, results_path, root / "vendored" / "lock.yaml")
    register_series(registry, computed, results_path)
    quoted = register_quoted(registry, root / QUOTED)
    register_tables(registry, computed, quoted, results_path)
    return n
