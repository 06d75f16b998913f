"""Experiment stage: load the vendored logs, recompute both upstream results.md files,
check them character for character, and enter every figure — plus the derived figures,
curves and tables the pages need — into the number registry.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from . import resultsmd, sweeplog, tables, variants
from cit.claims import Verdict, claim_book
from cit.errors import BuildError
from cit.fmt import MB, PCT, SECONDS, fmt, fmt_int, fmt_pct, fmt_ratio, fmt_general, fmt_sci_sig
from cit.registry import Ref, Registry, Source, code_site
from cit.reads import Reads
from .runs import Folder, Run, load_folder
from .tables import Quantity
from cit.vendor import VendoredFile

PAGE_TEXT = True     # its string literals reach pages (docs/claims.md, "Sentences the build finds")


@dataclass
class Experiment:
    """The plain data later stages read (the simulator takes its inputs from here)."""
    headline: Folder
    folders: dict[str, Folder]
    groups: list[tables.Group]
    verification: dict[str, resultsmd.Checked]
    sessions: list[sweeplog.Session]


class _Sources:
    """The pinned files' sources, and the reads (cit/reads.py) every file is opened by.
    Each file's Source is made once and shared by every number that cites it (one per
    number cost about 5 KB a log: docs/faults.md, N20)."""
    def __init__(self, vendored: dict[str, VendoredFile], reads: Reads):
        self.vendored = vendored
        self.reads = reads
        self.made: dict[str, Source] = {}

    def __call__(self, rels) -> tuple[Source, ...]:
        return tuple(self.one(rel) for rel in rels)

    def one(self, rel: str) -> Source:
        got = self.made.get(rel)
        if got is None:
            v = self.vendored.get(rel)
            if v is None:
                raise BuildError(rel, "not in vendored/lock.yaml")
            got = self.made[rel] = Source(rel, v.commit, v.blob_sha1)
        return got


def _register_q(reg: Registry, src: _Sources, q: Quantity, locator: str) -> None:
    if q.id in reg:
        return
    reg.add(q.id, q.value, q.text, unit=q.unit, kind=q.kind, sources=src(q.files),
            locator=locator, computation=q.computation, site=q.site)


def _table_rows(t: tables.ResultsTable, relabel=None):
    """results.md table rows -> registry rows (label strings, Refs for figures)."""
    rows = []
    for r in t.rows:
        labels = r[:t.label_cols] if relabel is None else relabel(r)
        rows.append(list(labels) + [Ref(c.id) for c in r[t.label_cols:]])
    return rows


def load_experiment(vendored: dict[str, VendoredFile], root: Path, study: dict, reg: Registry,
                    reads: Reads | None = None) -> Experiment:
    src = _Sources(vendored, reads or Reads(root))
    catalogue = variants.load(root, src.reads)
    vroot = root / "vendored"
    rels = [study["headline"], *study["learning_rate_runs"], study["shakespeare"]["folder"]]
    for rel in rels:
        for p in src.reads.glob(vroot / rel, "*.jsonl"):
            if f"{rel}/{p.name}" not in vendored:    # a stray an older lock left, a copy
                raise BuildError(f"vendored/{rel}/{p.name}", "a run log not in "
                                 "vendored/lock.yaml; remove it, or pin it with "
                                 "`python -m cit.vendor lock`")
    folders = {rel: load_folder(vroot / rel, rel, src.reads, catalogue) for rel in rels}
    head = folders[study["headline"]]
    shakes = folders[study["shakespeare"]["folder"]]

    docs = {
        "tinystories": tables.tinystories_doc(head, f"{head.rel}/results.md"),
        "shakespeare": tables.shakespeare_doc(shakes, f"{shakes.rel}/results.md",
                                              study["shakespeare"]["rows"]),
    }
    checked = {}
    for key, doc in docs.items():
        text = src.reads.text(vroot / doc.file)
        checked[key] = resultsmd.check(doc, text, doc.file)
        for q in doc.quantities():
            loc = checked[key].locators.get(q.id, f"{doc.file} (recomputed)")
            _register_q(reg, src, q, loc)

    groups = tables.groups_of(head)
    md1 = docs["tinystories"].file
    _register_derived(reg, src, head, groups, folders, md1, vroot, study)
    _register_series(reg, src, groups)
    _register_tables(reg, docs, groups, study, catalogue)
    log_text = src.reads.text(vroot / study["sweep_log"])
    sessions = sweeplog.parse_sweep_log(log_text, study["sweep_log"])
    _register_ledger(reg, src, folders, sessions, study["sweep_log"])
    from . import experiment_claims
    experiment_claims.register_experiment_claims(
        reg, src, groups, folders[study["learning_rate_runs"][0]].runs)
    experiment_claims.register_log_claims(reg, src, head, groups, sessions, study["sweep_log"],
                                        log_text)
    experiment_claims.register_headline_claims(reg, src, groups, catalogue)
    return Experiment(head, folders, groups, checked, sessions)


def _register_derived(reg, src, head: Folder, groups, folders, md1, vroot, study):
    """The figures the pages quote beyond the results.md tables: bytes per step, the
    optics runs' ranges, configuration values and run counts."""
    def add(id, value, text, unit, files, computation, kind="derived", locator=None):
        if locator is None:
            locator = ("config records of the listed logs" if kind == "measured"  # :x[label]
                       else "derived from the records of the listed logs")  # :x[label]
        reg.add(id, value, text, unit=unit, kind=kind, sources=src(files),
                locator=locator, computation=computation, site=code_site())

    by = {g.slug: g for g in groups}
    _register_bytes(add, by, groups)
    _register_optics(add, by, groups)
    _register_config(add, by, groups, head, folders, vroot, study, src.reads)
    _register_runs(add, reg, head, groups, study)
    for g in groups:
        if len(g.runs) == 1:
            reg.show_one_seed(f"final_loss.{g.slug}", f"final_loss_mean.{g.slug}")


def _optics_groups(groups):
    """(every optics group, the first-design ones, the repaired ones)."""
    optics = [g for g in groups if g.first.cfg.variant == "optics"]
    first = [g for g in optics if g.first.cfg.feedback != "sent" and not g.first.cfg.fs_every]
    repaired = [g for g in optics if g.first.cfg.feedback == "sent"]
    return optics, first, repaired


def _register_bytes(add, by, groups):
    """Payload and wire bytes per step, and their ratios to AdamW's."""
    A, B = by["A"].first, by["B"].first
    band = by["C.1d256"].first
    for key, run in (("A", A), ("B", B), ("band", band)):
        f = (run.rel,)
        add(f"hub.payload.{key}", run.payload_bytes_per_step, fmt_int(run.payload_bytes_per_step),
            "bytes", f, "payload_bytes_per_step of the config record", "measured",
            f"{run.rel}:1 (config record)")
        add(f"hub.wire.{key}", run.wire_bytes_per_step, fmt_int(run.wire_bytes_per_step),
            "bytes", f, "wire_bytes_per_step of the config record", "measured",
            f"{run.rel}:1 (config record)")
        for what, b in (("payload", run.payload_bytes_per_step), ("wire", run.wire_bytes_per_step)):
            add(f"hub.{what}_mb.{key}", MB.of(b), MB.text(b), MB.label, f,
                f"{what} bytes per worker per step {MB.how}")
        if key != "A":
            for what, a, b in (("payload", A.payload_bytes_per_step, run.payload_bytes_per_step),
                               ("wire", A.wire_bytes_per_step, run.wire_bytes_per_step)):
                add(f"hub.{what}_ratio.{key}", a / b, fmt_ratio(a / b), "x", (A.rel, run.rel),
                    f"AdamW's {what} bytes per step ÷ this variant's")
    add("hub.wire_ratio.B_to_band", B.wire_bytes_per_step / band.wire_bytes_per_step,
        fmt_ratio(B.wire_bytes_per_step / band.wire_bytes_per_step), "x", (B.rel, band.rel),
        "top-k's wire bytes per step ÷ the 1-D 256-point low band's")
    for g in groups:
        r = g.first
        add(f"wire_mb.{g.slug}", MB.of(r.wire_bytes_per_step), MB.text(r.wire_bytes_per_step),
            MB.label, (r.rel,),
            f"wire_bytes_per_step of the group's first run's config record {MB.how}")
        add(f"wire.{g.slug}", r.wire_bytes_per_step, fmt_int(r.wire_bytes_per_step), "bytes",
            (r.rel,), "wire_bytes_per_step of the group's first run's config record", "measured",
            f"{r.rel}:1 (config record)")
        add(f"wire_ratio.{g.slug}", A.wire_bytes_per_step / r.wire_bytes_per_step,
            fmt_ratio(A.wire_bytes_per_step / r.wire_bytes_per_step), "x", (A.rel, r.rel),
            "AdamW's wire bytes per step ÷ this group's")


def _register_fixed_sent(add, repaired):
    """Clipping of the repaired runs that kept the first design's fixed full scale (only
    their feedback differs): the most they clipped in any eval interval."""
    fixed = [g for g in repaired if not g.first.cfg.fs_every]
    if not fixed:
        return                      # none ran: a page citing the figure fails the build
    rates = [rate for g in fixed for r in g.runs for rate in r.clip_intervals]
    add("optics.fixed_sent.clip_interval_max", max(rates), fmt_pct(max(rates), 1), PCT.label,
        tuple(f for g in fixed for f in g.files),
        "largest clip_rate_interval over every eval of the repaired runs with the full scale "
        "fixed (fs_every 0)")


def _register_optics(add, by, groups):
    """The optics runs: counts, loss and clip-rate ranges, the calibration step."""
    optics, first, repaired = _optics_groups(groups)
    for name, gs, what in (("first", first, "first-design optics runs (full scale fixed, "  # :x[label]
                                            "feedback of the exact band)"),
                           ("repaired", repaired, "repaired optics runs (feedback of the band sent)")):  # :x[label]
        files = tuple(f for g in gs for f in g.files)
        add(f"optics.{name}.count", len(gs), str(len(gs)), "runs", files, f"number of {what}")
        for key, pick, fm, unit, words in (
                ("loss", lambda r: r.final_val_loss, lambda x: fmt(x, 3), "nats/token",
                 "final val loss"),  # :x[label]
                ("clip", lambda r: r.evals[-1].clip_rate, fmt_pct, PCT.label,
                 "whole-run clip rate"),
                ("clip_last", lambda r: r.evals[-1].clip_rate_interval, fmt_pct, PCT.label,
                 "clip rate of the last interval")):
            vals = [pick(r) for g in gs for r in g.runs]
            for end, v in (("min", min(vals)), ("max", max(vals))):
                add(f"optics.{name}.{key}_{end}", v, fm(v), unit, files,
                    f"{'smallest' if end == 'min' else 'largest'} {words} over the {what}")
    # Clipping around the end of calibration: the first eval interval that spans it,
    # and the interval after.
    early = [r.clip_intervals[0] for g in first for r in g.runs]
    jump = [r.clip_intervals[1] for g in first for r in g.runs]
    files = tuple(f for g in first for f in g.files)
    pct1 = lambda x: fmt_pct(x, 1)
    add("optics.first.clip_early_max", max(early), pct1(max(early)), PCT.label, files,
        "largest clip_rate_interval, over the first-design runs, of the first eval interval "
        "with clipping logged (the one in which calibration ends)")
    add("optics.first.clip_jump_min", min(jump), pct1(min(jump)), PCT.label, files,
        "smallest clip_rate_interval of the next eval interval over the first-design runs")
    add("optics.first.clip_jump_max", max(jump), pct1(max(jump)), PCT.label, files,
        "largest clip_rate_interval of the next eval interval over the first-design runs")
    _register_fixed_sent(add, repaired)
    best = min(repaired, key=lambda g: g.first.final_val_loss)
    add("optics.best_repaired.loss", best.first.final_val_loss, fmt(best.first.final_val_loss, 3),
        "nats/token", best.files, f"lowest final val loss of the {len(repaired)} repaired runs")
    exact = by["C.1d256"]
    last = [r.diags[-1].share("delta", "all", "low") for r in exact.runs]
    share = sum(last) / len(last)
    add("optics.band_share_end", share, fmt_sci_sig(share), "share", exact.files,
        "mean over seeds of the low band's share of the delta's energy (diag delta/all/low) "
        "at the last diag record of the exact 1-D 256-point band runs")
    oc = first[0].first.cfg
    add("optics.calib_end_step", oc.calib_start + oc.calib_steps,
        str(oc.calib_start + oc.calib_steps), "step", first[0].files,
        "config calib_start + calib_steps: the step the full scale is fixed", "measured")


def _register_config(add, by, groups, head: Folder, folders, vroot, study, reads: Reads):
    """Configuration values the pages quote (keep fraction, chunk, ENOB, planes, ...)."""
    optics, first, repaired = _optics_groups(groups)
    band = by["C.1d256"].first
    oc = first[0].first.cfg
    ocfgs = [r.cfg for g in optics for r in g.runs]
    allf = tuple(r.rel for r in head.runs)
    add("exp.keep_fraction", band.cfg.keep, f"1/{round(1 / band.cfg.keep)}", "", (band.rel,),
        "config.keep as a unit fraction", "measured")
    add("exp.kept_per_chunk", band.cfg.chunk * band.cfg.keep, fmt_general(band.cfg.chunk * band.cfg.keep),
        "values", (band.rel,), "config.chunk × config.keep (1-D chunks)")
    add("exp.chunk_1d", band.cfg.chunk, str(band.cfg.chunk), "values", (band.rel,),
        "config.chunk of the 1-D 256-point band runs", "measured")
    add("exp.enob_values", sorted({c.enob for c in ocfgs if c.enob}),
        ", ".join(fmt_general(e) for e in sorted({c.enob for c in ocfgs if c.enob})), "bits",
        tuple(f for g in optics for f in g.files), "distinct config.enob of the optics runs")
    add("exp.plane_values", sorted({c.planes for c in ocfgs}),
        ", ".join(str(p) for p in sorted({c.planes for c in ocfgs})), "planes",
        tuple(f for g in optics for f in g.files), "distinct config.planes of the optics runs")
    add("exp.kappa", oc.kappa, fmt_general(oc.kappa), "× RMS", first[0].files,
        "config.kappa of the optics runs", "measured")
    add("exp.calib_steps", oc.calib_steps, str(oc.calib_steps), "steps", first[0].files,
        "config.calib_steps of the optics runs", "measured")
    fs = repaired[-1].first.cfg.fs_every or max(g.first.cfg.fs_every for g in repaired)
    add("exp.fs_every", fs, str(fs), "steps", tuple(f for g in repaired for f in g.files),
        "config.fs_every of the repaired runs that re-set the full scale", "measured")
    add("exp.seeds_max", max(len(g.runs) for g in groups), str(max(len(g.runs) for g in groups)),
        "seeds", allf, "largest number of seeds in a group")
    devices = sorted({r.hardware.device for r in head.runs if r.hardware.device})
    add("exp.devices", devices, ", ".join(devices), "", allf,
        "distinct hardware.device of the headline runs' config records", "measured")
    lr_folder = folders[study["learning_rate_runs"][0]]
    add("exp.lr_runs", len(lr_folder.runs), str(len(lr_folder.runs)), "runs",
        tuple(r.rel for r in lr_folder.runs), f"completed run logs in {lr_folder.rel}/")
    for rel in study["learning_rate_runs"][1:]:
        _register_other_folder(add, folders[rel])
    choice_rel = f"{study['headline']}/lr_choice.json"
    choice = json.loads(reads.text(vroot / choice_rel))
    for key, name in (("demo", "exp.lr_demo"), ("adamw", "exp.lr_adamw")):
        add(name, choice[key], fmt_general(choice[key]), "", (choice_rel,),
            f"learning rate chosen for {key} (key {key!r} of lr_choice.json)", "measured",
            f"{choice_rel}, key {key!r}")


def _register_other_folder(add, folder: Folder) -> None:
    """What a learning-rate folder beyond the first holds (/notebook says what these runs
    are): its run count, and the PyTorch build and model size its config records name,
    as `exp.folder.<folder name>.*`."""
    runs, files = folder.runs, tuple(r.rel for r in folder.runs)
    base = f"exp.folder.{folder.rel.split('/')[-1]}"
    add(f"{base}.runs", len(runs), str(len(runs)), "runs", files,
        f"completed run logs in {folder.rel}/")
    fields = (("torch", lambda r: r.config.hardware.torch, str, "", "hardware.torch"),
              ("n_params", lambda r: r.config.n_params, fmt_int, "parameters", "n_params"),
              ("n_layer", lambda r: r.cfg.n_layer, str, "layers", "config.n_layer"),
              ("n_embd", lambda r: r.cfg.n_embd, str, "", "config.n_embd"),
              ("steps", lambda r: r.cfg.steps, str, "steps", "config.steps"))
    for key, get, show, unit, field in fields:
        values = sorted({get(r) for r in runs})
        add(f"{base}.{key}", values[0] if len(values) == 1 else values,
            ", ".join(show(v) for v in values), unit, files,
            f"distinct {field} of the config records in {folder.rel}/", "measured")


def _register_runs(add, reg, head: Folder, groups, study):
    """How many logs, completed runs and groups; the original study's quoted count."""
    allf = tuple(r.rel for r in head.runs)
    every = head.all_runs
    add("runs.logs", len(every), str(len(every)), "logs", tuple(r.rel for r in every),
        f"run logs (*.jsonl) in {head.rel}/")
    add("runs.completed", len(head.runs), str(len(head.runs)), "runs", allf,
        "logs whose last record is done")
    add("runs.incomplete", len(head.incomplete), str(len(head.incomplete)), "runs",
        tuple(r.rel for r in every), "logs without a done record")
    add("runs.groups", len(groups), str(len(groups)), "groups", allf,
        "configurations (runs that differ only in seed form one)")
    q = study["quoted"]["original_run_count"]
    reg.add("runs.original_page_count", q["value"], str(q["value"]), unit="runs", kind="quoted",
            sources=(Source("data/study.yaml"),), locator="data/study.yaml, quoted.original_run_count",
            computation=f"quoted: {q['citation']}")


def _curve(runs: list[Run]):
    """(steps, mean, lowest, highest) of val_loss over the runs at each eval step. The
    mean is the tables' own (tables.stats, the values in run order), so the last point
    is exactly the group's final_loss_mean: a mean taken another way (a grouped mean)
    differs from it in the last bit once a group has a dozen seeds."""
    by_step: dict = {}
    for r in runs:
        for e in r.evals:
            by_step.setdefault(e.step, []).append(e.val_loss)
    steps = sorted(by_step)
    seen = [[float(x) for x in by_step[s] if x == x] for s in steps]      # NaN dropped
    means = [tables.stats(v)[0] for v in seen]
    nan = float("nan")      # a step where every run logged NaN, as pandas gave it
    return steps, means, [min(v, default=nan) for v in seen], [max(v, default=nan) for v in seen]


def chart_label(run: Run, *, detail: bool = False) -> str:
    """A line's short name at its end in a chart: the variant letter and what sets it
    apart; `detail` adds what tells many runs of one variant apart (the optics runs'
    planes). The words are the catalogue's (data/variants.yaml)."""
    return run.variant.chart_label(run.cfg, detail)


def _design_dash(g) -> dict:
    """The first optics design's runs share one dotted line, so they stand apart from
    the repaired runs drawn in the same colour (the engine's `dash` extra)."""
    first = g.first.cfg.variant == "optics" and g.first.cfg.feedback != "sent"
    return {"dash": "dot"} if first else {}


def _register_series(reg, src, groups):
    optics_roles = {g.slug for g in groups if g.first.cfg.variant == "optics"} | {"C.1d256"}
    best_e = "E.e8p8.reset100.sent"
    for g in groups:
        x, y, lo, hi = _curve(g.runs)
        letter = g.first.variant.key
        end = f"final_loss_mean.{g.slug}"
        if reg.get(end).value != y[-1]:
            raise BuildError(f"series of {g.slug}", f"the curve's last point {y[-1]!r} is not "
                                                    f"{end} ({reg.get(end).value!r})")
        common = dict(kind="measured", sources=src(g.files),
                      locator=f"eval records (step, val_loss) of {len(g.runs)} run(s)",
                      computation="mean over seeds of val_loss at each eval step; band = min and max",
                      label=g.label, variant=letter, lo=tuple(lo), hi=tuple(hi), end=end)
        if letter != "E" or g.slug == best_e:
            reg.add_series(f"curve.{g.slug}", x, y, role="hub", short=chart_label(g.first), **common)
        if g.slug in optics_roles:
            reg.add_series(f"optics_curve.{g.slug}", x, y, role="optics",
                           short=chart_label(g.first, detail=True), **_design_dash(g), **common)
    for slug in ("C.1d256", "E.e8p8.fixed.exact", "E.e8p8.reset100.sent"):
        g = next(g for g in groups if g.slug == slug)
        df = pd.DataFrame([(d.step, d.share("delta", "all", "low")) for r in g.runs for d in r.diags],
                          columns=["step", "share"]).groupby("step")["share"].mean()
        reg.add_series(f"band_energy.{slug}", list(df.index), list(df), label=g.label,
                       short=chart_label(g.first, detail=True), variant=g.first.variant.key,
                       **_design_dash(g),
                       role="optics", kind="measured", sources=src(g.files),
                       locator="diag records: energy.delta.all.low",
                       computation="the low band's share of the delta's energy at each diag "
                                   "step, mean over seeds")


def _register_tables(reg: Registry, docs, groups, study, catalogue: variants.Catalogue):
    md1 = docs["tinystories"]
    loss, energy, optics = md1.tables
    reg.add_table("final-loss", "Final validation loss per configuration, with bytes per "  # :x[caption]
                  "worker per step on the wire and the ratio to AdamW's",
                  ["Configuration", "Seeds", "Final val loss (mean ± sd)", "Payload / step (bytes)",  # :x[label]
                   "Wire / step (bytes)", "Wire bytes vs AdamW"],  # :x[label]
                  [[g.label, Ref(f"seeds.{g.slug}"), Ref(f"final_loss.{g.slug}"),
                    Ref(f"payload.{g.slug}"), Ref(f"wire.{g.slug}"), Ref(f"wire_ratio.{g.slug}")]
                   for g in groups], source=f"{md1.file} §1 and the config records")
    _register_headline_table(reg, groups, catalogue, md1.file)
    reg.add_table("loss", "Loss against communication: every cell checked against the upstream results.md",  # :x[caption]
                  loss.columns, _table_rows(loss), source=f"{md1.file} §1")
    reg.add_table("energy", "Share of energy kept by each selector at the same number of "
                  "kept coefficients", energy.columns, _table_rows(energy),
                  source=f"{md1.file} §2")
    rows = _table_rows(optics)
    first = [r for r in rows if "feedback of the exact band" in r[0]]  # :x[label]
    repaired = [r for r in rows if "feedback of the band sent" in r[0]]  # :x[label]
    reg.add_table("optics-first", "First-design optics runs: final loss and clip rates",  # :x[caption]
                  optics.columns, first, source=f"{md1.file} §3")
    reg.add_table("optics-repaired", "Repaired optics runs (feedback of the band sent)",  # :x[label]
                  optics.columns, repaired, source=f"{md1.file} §3")
    sh = docs["shakespeare"]
    t = sh.tables[0]
    steps = [c.split()[-1] for c in t.columns[1:]]
    for s in steps:
        reg.add(f"shakes.step.s{s}", int(s), s, unit="step", kind="measured",
                sources=reg.get(t.rows[0][1].id).sources, locator=f"{sh.file} header",
                computation="eval step (every hundredth step of the run)")
    srows = [[_shakes_label(r[0].run)] + [Ref(c.id) for c in r[1:]] for r in t.rows]
    reg.add_table("shakespeare", "CPU diagnosis (TinyShakespeare): validation loss at each "  # :x[caption]
                  "hundredth step, with the clip rate of the preceding interval in brackets",
                  ["Run"] + [Ref(f"shakes.step.s{s}") for s in steps], srows, source=sh.file)


def headline_label(run: Run) -> str:
    """A short row label of our own for the hub's headline table (the catalogue's)."""
    return run.variant.headline_label(run.cfg)


def _register_headline_table(reg: Registry, groups, catalogue: variants.Catalogue,
                             md_file: str) -> None:
    """The hub's headline rows, the catalogue's `tables.headline` (docs/variants.md):
    final loss (one seed said as such), MB on the wire a step and AdamW's wire bytes
    over the row's. A slug no group with completed runs has fails at its line."""
    by_slug = {g.slug: g for g in groups}
    for slug, line in catalogue.headline_rows:
        if slug not in by_slug:
            raise BuildError(f"{catalogue.file}:{line}", f"tables.headline: no group with "
                             f"completed runs has the slug {slug!r} (they are "
                             f"{', '.join(sorted(by_slug))})")
    rows = [[headline_label(g.first), Ref(f"seeds.{g.slug}"), Ref(f"final_loss.{g.slug}"),
             Ref(f"wire_mb.{g.slug}"), Ref(f"wire_ratio.{g.slug}")]
            for g in (by_slug[slug] for slug, _ in catalogue.headline_rows)]
    reg.add_table("headline", "Final validation loss of the headline variants, with the "  # :x[caption]
                  "megabytes each worker puts on the wire a step and how many times fewer "
                  "that is than AdamW's",
                  ["Variant", "Seeds", "Final validation loss (mean ± sd)",  # :x[label]
                   "Wire / step (MB)", "A's wire bytes ÷ this row's"],  # :x[label]
                  rows, source=f"{md_file} §1 and the config records")


def _shakes_label(run: Run) -> str:
    """Our own description of a CPU-check run, built from its config."""
    c = run.cfg
    if c.variant != "optics":
        return "Exact band, no optics (reference)"  # :x[label]
    return ", ".join([
        "Optics",
        f"full scale re-set every {c.fs_every} steps" if c.fs_every else "full scale fixed",  # :x[label]
        "feedback of the band sent" if c.feedback == "sent" else "feedback of the exact band",  # :x[label] :x[label]
        "no readout noise" if c.enob is None else f"ENOB {fmt_general(c.enob)}",
    ])


def _register_ledger(reg, src, folders, sessions, log_rel):
    rows = []
    for rel, folder in folders.items():
        for r in folder.all_runs:
            base = f"ledger.{rel.split('/')[-1]}.{r.name}"
            f = src((r.rel,))
            reg.add(f"{base}.name", r.name, r.name, kind="measured", sources=f,
                    locator=f"{r.rel}:1 (config record, name)", computation="the run's name")
            reg.add(f"{base}.seed", r.seed, str(r.seed), kind="measured", sources=f,
                    locator=f"{r.rel}:1 (config.seed)", computation="the run's seed")
            dev = r.hardware.device or "not recorded"
            reg.add(f"{base}.device", dev, dev, kind="measured", sources=f,
                    locator=f"{r.rel}:1 (hardware.device)", computation="device named by the log")
            secs = r.done.seconds if r.done else None
            reg.add(f"{base}.seconds", secs, SECONDS.text(secs, 0), unit=SECONDS.label,
                    kind="measured", sources=f,
                    locator=f"{r.rel} (done record)" if r.done else f"{r.rel} (no done record)",
                    computation="wall time from the done record")
            rows.append([rel.split("/")[-1], Ref(f"{base}.name"), Ref(f"{base}.seed"),
                         "completed" if r.complete else "incomplete",
                         Ref(f"{base}.device"), Ref(f"{base}.seconds")])
    reg.add_table("ledger", "The run logs: status, device and wall time",  # :x[caption]
                  ["Folder", "Run", "Seed", "Status", "Device", "Wall time (s)"], rows)
    f = src((log_rel,))
    srows = []
    for s in sessions:
        b = f"sweep.s{s.index}"
        vals = {
            "index": (s.index, "start of the sweep script, in log order"),  # :x[label]
            "lines": (f"{s.first_line}–{s.last_line}", "log lines of this start"),  # :x[label]
            "todo": (sum(t for _, _, t in s.stages), "runs the stages said were still to do"),  # :x[label]
            "finished": (len(s.finished), "'done' lines"),
            "crashes": (len(s.crashes), "'exited with …; resuming' lines"),
            "gave_up": (len(s.gave_up), "'giving up on' lines"),
        }
        for k, (v, words) in vals.items():
            reg.add(f"{b}.{k}", v, str(v), kind="measured", sources=f,
                    locator=f"{log_rel}, lines {s.first_line}–{s.last_line}",
                    computation=words)
        srows.append([Ref(f"{b}.{k}") for k in vals])
    reg.add_table("sessions", "What the sweep log shows: each start of the sweep script",  # :x[caption]
                  ["Start", "Log lines", "Runs still to do", "Runs finished", "Crashes and resumes",  # :x[label] :x[label] :x[label] :x[label]
                   "Runs given up"], srows, source=log_rel)  # :x[label]
    _sweep_claim(reg, f, sessions)
    _register_sweep_times(reg, src, folders, sessions, log_rel)


def _register_sweep_times(reg, src, folders, sessions, log_rel) -> None:
    """The sweep log's own time for each run it finished, beside the wall time of the
    run's done record (the ledger's): how many runs both time, and by how much the log's
    is longer."""
    done = {r.name: r for folder in folders.values() for r in folder.all_runs if r.done}
    matched = [(secs, done[name]) for s in sessions for name, secs, _ in s.finished
               if name in done]
    if not matched:
        return                      # nothing to compare: a page citing the figures fails
    longer = [secs - r.done.seconds for secs, r in matched]
    f = src((log_rel,) + tuple(sorted({r.rel for _, r in matched})))
    where = f"{log_rel} ('done … in N s' lines) and the runs' done records"  # :x[label]
    for key, v, unit, words in (
            ("runs", len(matched), "runs",
             "runs that both a 'done' line of the sweep log and their own done record time"),  # :x[label]
            ("longer_min", min(longer), SECONDS.label,
             "smallest (sweep log's seconds − done record's seconds) over those runs"),  # :x[label]
            ("longer_max", max(longer), SECONDS.label,
             "largest (sweep log's seconds − done record's seconds) over those runs")):  # :x[label]
        reg.add(f"sweep.times.{key}", v, fmt_int(v) if unit == "runs" else SECONDS.text(v, 1),
                unit=unit,
                kind="derived", sources=f, locator=where, computation=words)
    claim_book(reg).add(
        "exp.sweep_log_times_longer",
        "for every run that both the sweep log and its own done record time, the log's "
        "seconds are more than the done record's",
        Verdict(min(longer) > 0, (("runs", fmt_int(len(matched))),
                                  ("log longer by", f"{SECONDS.text(min(longer), 1)} to "
                                                    f"{SECONDS.labelled(max(longer), 1)}"))),
        sources=f, computation="min over matched runs of (seconds of the log's 'done NAME in "
                               "N s' line − done.seconds) > 0")


def _sweep_claim(reg, sources, sessions) -> None:
    """What the notebook's reading of the sweep log says, tested on the parsed starts."""
    lr = [t for s in sessions for folder, _, t in s.stages if folder.endswith("-lr")]
    first, last = sessions[0], sessions[-1]
    middle = sessions[1:-1]
    last_todo = sum(t for _, _, t in last.stages)
    _, main_runs, main_todo = first.stages[1] if len(first.stages) > 1 else ("", -1, -1)
    main_done = [r for r, _, _ in first.finished][:max(main_todo, 0)]
    final_todo = last.stages[-1][2] if last.stages else -1
    holds = (len(lr) == len(sessions) and not any(lr) and bool(first.gave_up)
             and main_todo == len(main_done) > 0 and main_todo < main_runs
             and final_todo == 0
             and all(sum(t for _, _, t in s.stages) == len(s.finished) and not s.crashes
                     for s in middle + [last])
             and all("fbsent" in r for r, _, _ in last.finished))
    claim_book(reg).add(
        "exp.sweep_log_sessions",
        "in every start (session) of the sweep script the learning-rate batch has nothing left to do; "
        "the first start's main batch had some of its runs done and some left, and the first "
        "start finished those left, then gave up on a run after crashes; every later start "
        "finished each run it said was still to do, with no crash, the last one's runs all "
        "feed back the band sent, and the last one's final batch had none left to do",
        Verdict(holds, (("starts", str(len(sessions))),
                        ("learning-rate runs still to do, per start", ", ".join(map(str, lr))),
                        ("first start: main batch runs, to do, finished",
                         f"{main_runs}, {main_todo}, {len(main_done)}"),
                        ("runs given up in the first start", str(len(first.gave_up))),
                        ("last start: to do, finished", f"{last_todo}, {len(last.finished)}"),
                        ("last start: final batch to do", str(final_todo)))),
        sources=sources, computation="parsed starts of the sweep log (study/sweeplog.py): "
                                     "stage lines, done lines, resume and giving-up lines")
