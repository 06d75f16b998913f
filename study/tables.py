"""The experiment's tables, recomputed from the run logs with pandas
(docs/experiment-tables.md, "Statistics"), as plain data the checker and the registry both read.

Every figure is a `Quantity`: a stable id, the raw value, the text exactly as results.md prints
it, the files it was computed from and the computation in words.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from cit.errors import BuildError
from cit.registry import code_site
# every cell here is checked against upstream's results.md, so only its formats
# (cit/fmt.py UPSTREAM_FORMATS, docs/numbers.md) are used
from cit.fmt import MB, PCT, fmt, fmt_general, fmt_int, fmt_pct, fmt_plain, fmt_ratio, fmt_sci
from .runs import Folder, Run

PAGE_TEXT = True     # its string literals reach pages (docs/claims.md, "Sentences the build finds")

SOURCES = ("momentum", "delta", "grad")
GROUPS = ("all", "attn", "mlp", "embed")


@dataclass(frozen=True)
class Quantity:
    """One recomputed quantity."""
    id: str
    value: object
    text: str
    unit: str
    files: tuple[str, ...]
    computation: str
    kind: str = "measured"
    # the line of our code that made it (cit.registry.code_site; its card links it)
    site: tuple | None = field(default=None, compare=False, repr=False)

    def __post_init__(self):
        if self.site is None:
            object.__setattr__(self, "site", code_site(1))


@dataclass(frozen=True)
class NumbersOnly:
    """A row label checked by the numbers in it only (its words are upstream prose,
    which we neither copy nor recompute)."""
    numbers: tuple[str, ...]
    file: str
    run: object = None   # the Run the row was read from


@dataclass
class ResultsTable:
    section: str
    columns: list[str]
    rows: list[list]          # first cell(s): label strings; then Quantity cells
    label_cols: int = 1


@dataclass
class ResultsDoc:
    """What one upstream results.md must say, recomputed: its prose numbers line by line
    (lines without numbers omitted) and its tables in order."""
    file: str
    prose: list[list[Quantity]]
    tables: list[ResultsTable]
    extra: dict[str, Quantity] = field(default_factory=dict)   # registered, not in results.md

    def quantities(self) -> list[Quantity]:
        out = [q for line in self.prose for q in line]
        out += [c for t in self.tables for r in t.rows for c in r if isinstance(c, Quantity)]
        return out + list(self.extra.values())


def stats(values) -> tuple[float | None, float | None]:
    """Mean and sample sd (n-1); sd 0.0 for one value; NaN dropped; (None, None) if empty.
    In numpy, by pandas' own formula (Series.mean and .std: sum / n, then the summed
    squares of the differences / (n - 1), square-rooted), so every bit is the same as
    pandas' (tests/unit/test_tables.py), at a thirtieth of the cost: a pandas Series
    per call was 3 s of a cold build's profile at load 18."""
    a = np.asarray(values, dtype="float64")
    a = a[~np.isnan(a)]
    if a.size == 0:
        return None, None
    mean = a.sum() / a.size
    if a.size == 1:
        return float(mean), 0.0
    d = a - mean
    return float(mean), float(np.sqrt((d * d).sum() / (a.size - 1)))


def label(run: Run) -> str:
    """The group's label: upstream results.md's row label, by the rule of its variant
    in the catalogue (data/variants.yaml, docs/variants.md)."""
    return run.variant.row_label(run.cfg)


def slug(run: Run) -> str:
    """The group's short registry id (see the README's id scheme), by the catalogue's
    template for its variant."""
    return run.variant.slug(run.cfg)


def sort_key(run: Run, text: str):
    c = run.cfg
    if c.variant == "optics":
        inner = (c.feedback or "exact", c.fs_every or 0, c.planes or 0,
                 99 if c.enob is None else c.enob)
    else:
        inner = ()
    return (text[0], inner, text)


@dataclass
class Group:
    slug: str
    label: str
    runs: list[Run]

    @property
    def first(self) -> Run:
        return self.runs[0]

    @property
    def files(self) -> tuple[str, ...]:
        return tuple(r.rel for r in self.runs)


def groups_of(folder: Folder) -> list[Group]:
    """Completed runs grouped by name without the seed, in results.md row order."""
    by = {}
    for r in folder.runs:
        by.setdefault(r.group, []).append(r)
    out = [Group(slug(rs[0]), label(rs[0]), rs) for rs in by.values()]
    return sorted(out, key=lambda g: sort_key(g.first, g.label))


def target_loss(folder: Folder, group_name: str | None = None) -> tuple[float, tuple[str, ...]]:
    """Mean final val loss of the AdamW runs (or of one named group): value and files."""
    runs = [r for r in folder.runs
            if (r.group == group_name if group_name else r.cfg.variant == "adamw")]
    mean, _ = stats([r.final_val_loss for r in runs])
    return mean, tuple(r.rel for r in runs)


def steps_to_target(runs: list[Run], target: float):
    """(mean steps or None, k reached, n)."""
    steps = [r.first_step_at_or_below(target) for r in runs]
    reached = [s for s in steps if s is not None]
    if len(reached) == len(runs):
        return stats(reached)[0], len(reached), len(runs)
    return None, len(reached), len(runs)


def loss_extras(groups: list[Group]) -> dict[str, Quantity]:
    """Mean and sd of the final loss on their own, for prose (the table prints them joined)."""
    out = {}
    for g in groups:
        mean, sd = stats([r.final_val_loss for r in g.runs])
        for key, v, words in (("mean", mean, "mean"), ("sd", sd, "sample sd")):
            out[f"final_loss_{key}.{g.slug}"] = Quantity(
                f"final_loss_{key}.{g.slug}", v, fmt(v, 3), "nats/token", g.files,
                f"{words} over seeds of the last eval's val_loss")  # :x[label]
    return out


def loss_table(folder: Folder, groups: list[Group], target: float) -> ResultsTable:
    cols = ["Configuration", "Seeds", "Final val loss (mean ± sd)", "Payload / step (bytes)",  # :x[label]
            "vs dense", "Steps to target", "Payload to target (MB)"]
    rows = []
    for g in groups:
        f, s = g.files, g.slug
        mean, sd = stats([r.final_val_loss for r in g.runs])
        payload, dense = g.first.payload_bytes_per_step, g.first.dense_bytes_per_step
        steps, k, n = steps_to_target(g.runs, target)
        steps_text = fmt(steps, 0) if steps is not None else f"not reached ({k}/{n})"  # :x[label]
        to_target = None if steps is None else MB.of(steps * payload)
        rows.append([
            g.label,
            Quantity(f"seeds.{s}", len(g.runs), str(len(g.runs)), "runs", f,
              "number of completed runs in the group"),  # :x[label]
            Quantity(f"final_loss.{s}", mean, f"{fmt(mean, 3)} ± {fmt(sd, 3)}", "nats/token", f,
              "mean ± sample sd over seeds of the last eval's val_loss"),  # :x[label]
            Quantity(f"payload.{s}", payload, fmt_int(payload), "bytes", f[:1],
              "payload_bytes_per_step of the group's first run's config record"),  # :x[label]
            Quantity(f"vs_dense.{s}", dense / payload, fmt_ratio(dense / payload), "x", f[:1],
              "dense_bytes_per_step ÷ payload_bytes_per_step"),
            Quantity(f"steps_to_target.{s}", steps, steps_text, "steps", f,
              "mean over seeds of the first eval step with val_loss ≤ the target, "  # :x[method]
              "if every seed reaches it; else how many did"),
            Quantity(f"payload_to_target.{s}", to_target, MB.text(to_target, scaled=True),
              MB.label, f, f"steps to target × payload per step {MB.how}"),  # :x[label]
        ])
    return ResultsTable("§1", cols, rows)


def _pooled_means(folder: Folder, warmup: int) -> tuple[dict, dict, dict]:
    """The §2 pools, (variant, chunk_mode, chunk) of the runs whose variant data/variants.yaml
    pools: {pool: {(source, group, selector): mean of every diag value with step >
    `warmup`}}, {pool: its files, sorted}, {variant: letter}. Each pool's mean is pandas'
    grouped mean over its values in run and record order, as one frame of every value
    gave it, built a pool at a time from the runs' value arrays (never one Python
    object per value: docs/faults.md, N20)."""
    pools: dict[tuple, list] = {}
    letters = {}
    for r in folder.runs:
        c = r.cfg
        if not r.variant.energy:        # data/variants.yaml: the variants §2 pools
            continue
        letters[c.variant] = r.variant.letter
        diags = [d for d in r.diags if d.step > warmup]
        if diags:
            pools.setdefault((c.variant, c.chunk_mode, c.chunk), []).append((r.rel, diags))
    means, files = {}, {}
    for pool, runs in pools.items():
        triples: dict[tuple, int] = {}
        coded: dict = {}        # each records' shape (runs.EnergyKeys) -> its triples' codes
        codes, values = [], []
        for _, diags in runs:
            for d in diags:
                if d.keys not in coded:
                    coded[d.keys] = np.array([triples.setdefault(t, len(triples))
                                              for t in d.keys.triples], dtype=np.int64)
                codes.append(coded[d.keys])
                values.append(np.frombuffer(d.values, dtype=np.float64))
        frame = pd.DataFrame({"key": np.concatenate(codes), "value": np.concatenate(values)})
        by_code = frame.groupby("key")["value"].mean()
        means[pool] = {t: float(by_code[i]) for t, i in triples.items()}
        files[pool] = tuple(sorted({rel for rel, _ in runs}))
    return means, files, letters


def energy_table(folder: Folder) -> tuple[ResultsTable, int, str]:
    """Captured energy (§2), pooled by (variant, chunk_mode, chunk) after the warm-up."""
    first = folder.runs[0]
    warmup = first.cfg.warmup
    selectors = [(sel["key"], sel["column"]) for sel in folder.catalogue.selectors]
    means, files, letters = _pooled_means(folder, warmup)
    cols = ["Run", "Tensor", "Group"] + [name for _, name in selectors]
    rows = []
    for (variant, mode, chunk) in sorted(files, key=lambda k: (k[0], k[1], int(k[2]))):
        run_label = f"{letters[variant]}, {mode} {chunk}"
        key = f"{letters[variant].lower()}{mode}{chunk}"
        pool = means[(variant, mode, chunk)]
        for src in SOURCES:
            for grp in GROUPS:
                if (src, grp, "topk") not in pool:
                    continue
                row = [run_label, src, grp]
                for sel, _ in selectors:
                    v = pool.get((src, grp, sel))
                    row.append(Quantity(f"energy.{key}.{src}.{grp}.{sel}", v, fmt(v, 3), "share",
                                 files[(variant, mode, chunk)],
                                 f"mean of every diag energy[{src}][{grp}][{sel}] with step > "  # :x[method]
                                 f"{warmup} over the pooled runs"))
                rows.append(row)
    return ResultsTable("§2", cols, rows, label_cols=3), warmup, first.rel


def optics_table(groups: list[Group]) -> ResultsTable:
    cols = ["Configuration", "Final val loss", "Clip rate (whole run)",  # :x[label] :x[label]
            "Clip rate (last interval)"]
    rows = []
    for g in groups:
        if g.first.cfg.variant != "optics":
            continue
        mean, _ = stats([r.final_val_loss for r in g.runs])
        clip, _ = stats([r.evals[-1].clip_rate for r in g.runs])
        last, _ = stats([r.evals[-1].clip_rate_interval for r in g.runs])
        rows.append([
            g.label,
            Quantity(f"final_loss_mean.{g.slug}", mean, fmt(mean, 3), "nats/token", g.files,
              "mean over seeds of the last eval's val_loss"),  # :x[label]
            Quantity(f"clip.{g.slug}", clip, fmt_pct(clip), PCT.label, g.files,
              f"mean over seeds of the last eval's clip_rate (whole run) {PCT.how}"),  # :x[label]
            Quantity(f"clip_last.{g.slug}", last, fmt_pct(last), PCT.label, g.files,
              f"mean over seeds of the last eval's clip_rate_interval {PCT.how}"),  # :x[label]
        ])
    return ResultsTable("§3", cols, rows)


def tinystories_doc(folder: Folder, rel_md: str) -> ResultsDoc:
    """Everything results/tinystories-gpu/results.md says, recomputed from the logs."""
    groups = groups_of(folder)
    target, tfiles = target_loss(folder)
    first = folder.runs[0]
    c, hw, f1 = first.cfg, first.hardware, (first.rel,)
    every = tuple(r.rel for r in folder.runs)
    topk = next(g for g in groups if g.first.cfg.variant == "topk").first
    value_bytes = first.dense_bytes_per_step / first.n_params
    kept = topk.n_params * topk.cfg.keep
    index_bytes = topk.payload_bytes_int64_per_step / kept - value_bytes
    energy, warmup, warm_file = energy_table(folder)

    def cfgq(id, v, text, unit, what):
        return Quantity(id, v, text, unit, f1, f"{what}, from the first run's config record")  # :x[label]

    prose = [
        [Quantity("exp.completed_runs", len(folder.runs), str(len(folder.runs)), "runs", every,
           "number of logs in the folder whose last record is done")],  # :x[label]
        [cfgq("exp.machine", hw.machine, hw.machine, "", "hardware.machine"),
         cfgq("exp.threads", hw.threads, str(hw.threads), "threads", "hardware.threads"),
         cfgq("exp.torch", hw.torch, hw.torch, "", "hardware.torch (PyTorch version)"),
         cfgq("exp.python", hw.python, hw.python, "", "hardware.python"),
         Quantity("exp.n_params", first.n_params, fmt_int(first.n_params), "parameters", f1,
           "n_params of the first run's config record"),  # :x[label]
         cfgq("exp.n_layer", c.n_layer, str(c.n_layer), "layers", "config.n_layer"),
         cfgq("exp.n_embd", c.n_embd, str(c.n_embd), "", "config.n_embd (width)"),
         cfgq("exp.block", c.block, str(c.block), "tokens", "config.block (context)"),
         cfgq("exp.workers", c.workers, str(c.workers), "workers", "config.workers"),
         cfgq("exp.batch", c.batch, str(c.batch), "sequences", "config.batch (per worker per step)"),
         cfgq("exp.steps", c.steps, fmt_plain(c.steps), "steps", "config.steps"),
         cfgq("exp.vocab", first.config.data.vocab, fmt_plain(first.config.data.vocab),
              "tokens", "data.vocab (tokeniser size)")],
        [Quantity("exp.value_bits", value_bytes * 8, f"BF{fmt_plain(value_bytes * 8)}", "bits", f1,
           "8 × bytes per value (dense_bytes_per_step ÷ n_params)"),  # :x[label]
         Quantity("exp.value_bytes", value_bytes, fmt_plain(value_bytes), "bytes", f1,
           "dense_bytes_per_step ÷ n_params"),
         Quantity("exp.index_type", index_bytes * 8, f"int{fmt_plain(index_bytes * 8)}", "bits",
           (topk.rel,), "8 × (int64 payload ÷ kept values − bytes per value), top-k run")],  # :x[method]
        [Quantity("exp.target", target, fmt(target, 3), "nats/token", tfiles,
           "mean final val loss of the completed AdamW runs")],  # :x[label]
        [Quantity("exp.index_type_note", index_bytes * 8, f"int{fmt_plain(index_bytes * 8)}", "bits",
           (topk.rel,), "as exp.index_type"),
         Quantity("exp.topk_int64_bytes", topk.payload_bytes_int64_per_step,
           fmt_int(topk.payload_bytes_int64_per_step), "bytes", (topk.rel,),
           "payload_bytes_int64_per_step of the top-k group's first run"),  # :x[label]
         Quantity("exp.topk_int64_ratio", topk.payload_bytes_int64_per_step / topk.payload_bytes_per_step,
           fmt_ratio(topk.payload_bytes_int64_per_step / topk.payload_bytes_per_step), "x",
           (topk.rel,), "int64 payload ÷ compact payload, top-k")],  # :x[label]
        [Quantity("exp.diag_worker", 0, "0", "", (warm_file,),
           "index of the worker the diag records describe: one diag per logged step, "  # :x[method]
           "so a single worker, the first (index 0 of range(workers))"),
         Quantity("exp.energy_after_step", warmup, str(warmup), "step", (warm_file,),
           "warmup of the first completed run: diag records after it are averaged")],  # :x[label]
    ]
    extra = {k: q for k, q in loss_extras(groups).items()
             if not k.startswith("final_loss_mean.E")}   # those are §3 cells
    return ResultsDoc(rel_md, prose, [loss_table(folder, groups, target), energy,
                               optics_table(groups)], extra)


def shakespeare_doc(folder: Folder, rel_md: str, rows_spec: list[dict]) -> ResultsDoc:
    """results/shakespeare-optics-check/results.md, recomputed (docs/experiment-tables.md)."""
    by_file = {r.path.name: r for r in folder.runs}
    missing = [row["file"] for row in rows_spec if row["file"] not in by_file]
    if missing:
        raise ValueError(f"data/study.yaml: shakespeare rows name logs not found: {missing}")
    runs = [by_file[row["file"]] for row in rows_spec]
    ref, optic = runs[0], next(r for r in runs if r.cfg.variant == "optics")
    c, f1, fo = ref.cfg, (ref.rel,), (optic.rel,)
    steps = sorted({e.step for e in ref.evals if e.step % 100 == 0})
    cols = ["Run"] + [f"step {s}" for s in steps]
    rows, extra = [], {}
    for spec, r in zip(rows_spec, runs):
        by_step = {e.step: e for e in r.evals}
        row = [NumbersOnly(tuple(fmt_general(getattr(r.cfg, k)) for k in spec["label_numbers"]),
                           r.rel, r)]
        for s in steps:
            e = by_step.get(s)
            if e is None:
                raise BuildError(r.rel, f"no eval record at step {s}, which results.md's table "
                                 f"shows for every run (as {ref.rel} has)")
            text = fmt(e.val_loss, 3)
            calibrated = s > r.cfg.calib_start + r.cfg.calib_steps
            loc = (r.rel,)
            if r.cfg.variant == "optics" and calibrated:
                clip = e.clip_rate_interval
                text += f" ({fmt_pct(clip, 1)})"
                extra[f"shakes.{spec['id']}.s{s}.clip"] = Quantity(
                    f"shakes.{spec['id']}.s{s}.clip", clip, fmt_pct(clip, 1), PCT.label, loc,
                    f"clip_rate_interval {PCT.how} of the eval at step {s}")  # :x[label]
                row.append(Quantity(f"shakes.{spec['id']}.s{s}", e.val_loss, text, "nats/token", loc,
                             f"val_loss of the eval at step {s}, then its clip_rate_interval "  # :x[label]
                             f"{PCT.how} in brackets"))
            else:
                row.append(Quantity(f"shakes.{spec['id']}.s{s}", e.val_loss, text, "nats/token", loc,
                             f"val_loss of the eval at step {s}"))  # :x[label]
        rows.append(row)
    co = optic.cfg

    def q(id, v, text, unit, files, what):
        return Quantity(f"shakes.{id}", v, text, unit, files, what)

    prose = [[
        q("n_layer", c.n_layer, str(c.n_layer), "layers", f1, "config.n_layer"),
        q("n_embd", c.n_embd, str(c.n_embd), "", f1, "config.n_embd (width)"),
        q("workers", c.workers, str(c.workers), "workers", f1, "config.workers"),
        q("steps", c.steps, fmt_plain(c.steps), "steps", f1, "config.steps"),
        q("chunk_dims", c.chunk_mode, c.chunk_mode[0], "", f1, "config.chunk_mode (1d → 1-D)"),
        q("chunk", c.chunk, str(c.chunk), "values", f1, "config.chunk"),
        q("keep_num", 1, "1", "", f1, "numerator of config.keep as a unit fraction"),
        q("keep_den", 1 / c.keep, fmt_plain(1 / c.keep), "", f1, "1 ÷ config.keep"),
        q("lr", c.lr, fmt_sci(c.lr), "", f1, "config.lr"),
        q("calib_start", c.calib_start, str(c.calib_start), "step", f1, "config.calib_start"),
        q("calib_last", c.calib_start + c.calib_steps - 1,
          str(c.calib_start + c.calib_steps - 1), "step", f1,
          "config.calib_start + calib_steps − 1"),
        q("planes", co.planes, str(co.planes), "planes", fo, "config.planes of the optics runs"),  # :x[label]
        q("enob", co.enob, fmt_general(co.enob), "bits", fo, "config.enob of the optics runs"),  # :x[label]
        q("kappa", co.kappa, fmt_general(co.kappa), "", fo, "config.kappa"),
    ]]
    fs = next(r for r in runs if r.cfg.fs_every)
    extra["shakes.fs_every"] = Quantity("shakes.fs_every", fs.cfg.fs_every, str(fs.cfg.fs_every),
                                 "steps", (fs.rel,), "config.fs_every of the re-set runs")  # :x[label]
    return ResultsDoc(rel_md, prose, [ResultsTable("top", cols, rows)], extra)
