"""The study's one data stage (site.yaml `stages`): read the run logs, recompute the
report's every cell and fail on a difference, register the numbers, the loss curves,
a table and two checked claims.

The logs are in three formats (make_logs.py), read through the engine's one log-reader
interface (cit/logs.py, docs/logs.md): JSON lines, TensorBoard's scalar CSV download
and long-form CSV; a TensorBoard event file under logs/ would be read the same way. A
run is named `<optimiser>-s<seed>` (the JSON lines' config record says both). A bad
record, a run without the metric `loss`, or a run of an optimiser data/study.yaml does
not list, fails the build naming the file and line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cit import logs, yamlio
from cit.claims import Verdict, claim_book
from cit.errors import BuildError
from cit.fmt import fmt, fmt_int
from cit.palette import check_contrast
from cit.registry import Ref, Source
from cit.stages import StageContext, StageOutput

REPORT = "report/results.md"
ROW_RE = re.compile(r"^\| (\w+) \| ([^|]+) \| ([^|]+) \| ([^|]+) \|$")
RUN_NAME = re.compile(r"(?P<optimiser>[a-z]+)-s(?P<seed>\d+)")
METRIC = "loss"


@dataclass
class Run:
    optimiser: str
    seed: int
    steps: list[int]
    losses: list[float]
    file: str           # its path under vendored/
    locator: str        # where its losses are (file:line to file:line, or records)
    last: str           # where its last loss is

    def first_at_or_below(self, target: float) -> int | None:
        return next((s for s, v in zip(self.steps, self.losses) if v <= target), None)


def to_run(log: logs.RunLog, known: dict) -> Run:
    """A run the engine's reader gave, as this study's: its optimiser and seed from the
    config record (JSON lines) or the run's name, its loss curve."""
    if log.done is False:
        raise BuildError(log.file, "a run needs a config record, eval records and a done "
                         "record (this log has no done record: did the run finish?)")
    m = RUN_NAME.fullmatch(log.run)
    optimiser = log.config.get("optimiser", m and m["optimiser"])
    seed = log.config.get("seed", m and int(m["seed"]))
    steps, losses = log.series(METRIC)
    where = log.config_where if log.config else log.points(METRIC)[0].where
    if optimiser is None or seed is None:
        raise BuildError(where, f"run {log.run!r}: name a run <optimiser>-s<seed> "
                         "(adam-s1), or give both in a JSON-lines config record")
    if optimiser not in known:
        raise BuildError(where, f"run of optimiser {optimiser!r}, which data/study.yaml "
                         "does not list (it lists " + ", ".join(known) + "); add it there, "
                         "or leave its log out of vendored/logs/")
    return Run(optimiser, int(seed), steps, losses, log.key, log.locator(METRIC),
               log.points(METRIC)[-1].where)


def _study(ctx: StageContext) -> tuple[dict, dict]:
    """data/study.yaml and its optimisers by key, each mark shade checked for contrast
    against the page it is drawn on, naming the optimiser's line."""
    name = "data/study.yaml"
    study, node = yamlio.load_with_nodes(ctx.reads.text(ctx.root / name), name)
    items = dict((k.value, v) for k, v in node.value)
    for spec, item in zip(study["optimisers"], items["optimisers"].value):
        check_contrast(spec["colours"], f"{name}:{item.start_mark.line + 1}",
                       f"optimiser {spec['key']}")
    return study, {o["key"]: o for o in study["optimisers"]}


def run(ctx: StageContext) -> StageOutput:
    study, known = _study(ctx)
    runs = [to_run(log, known) for log in logs.read_vendored(ctx, "logs/")]
    by = {k: sorted((r for r in runs if r.optimiser == k), key=lambda r: r.seed) for k in known}
    src = {r.file: Source(r.file, ctx.vendored[r.file].commit, ctx.vendored[r.file].blob_sha1)
           for r in runs}
    reg = ctx.registry
    target = study["target_loss"]
    reg.add("target", target, fmt(target, 2), unit="loss", kind="assumption",
            sources=(Source("data/study.yaml"),), locator="data/study.yaml, target_loss",
            computation="the loss a run must reach")
    reg.add("optimisers.count", len(known), fmt_int(len(known)), unit="optimisers",
            kind="assumption", sources=(Source("data/study.yaml"),),
            locator="data/study.yaml, optimisers", computation="optimisers the study lists")
    fewest = min(len(g) for g in by.values())
    reg.add("seeds.fewest", fewest, fmt_int(fewest), unit="seeds", kind="measured",
            sources=tuple(src.values()), locator="the runs in vendored/logs/",
            computation="seeds of the optimiser with the fewest runs")
    reg.add("runs.count", len(runs), fmt_int(len(runs)), unit="runs", kind="measured",
            sources=tuple(src.values()), locator="the runs in vendored/logs/",
            computation="run logs read")
    for key, group in by.items():
        _register_optimiser(reg, known[key], group, src, target)
    checked, total = _check_report(ctx, reg, by)
    _claims(reg, by, src, target)
    reg.add_table("final-loss", "Final loss and steps to the target, per optimiser",
                  ["Optimiser", "Final loss (mean of seeds)", "Steps to target (mean)"],
                  [[known[k]["label"], Ref(f"final_loss_mean.{k}"), Ref(f"steps_mean.{k}")]
                   for k in by])
    palette = {o["letter"]: o["colours"] for o in study["optimisers"]}
    return StageOutput(data={"palette": palette}, summary=f"{checked:,} of {total:,} cells of report/results.md "
                       "recomputed from the logs and matched", figures={
        "report_numbers": (checked, "Numbers verified in the report", "cells of "
                           "report/results.md compared with our recomputation"),
        "report_total": (total, "Numbers in the report", "number cells of report/results.md")})


def _register_optimiser(reg, spec: dict, group: list[Run], src: dict, target: float) -> None:
    key, sources = spec["key"], tuple(src[r.file] for r in group)
    for r in group:
        reg.add(f"final_loss.{key}.s{r.seed}", r.losses[-1], fmt(r.losses[-1], 4), unit="loss",
                kind="measured", sources=(src[r.file],), locator=f"{r.last} (the last {METRIC})",
                computation="loss at the last step")
        at = r.first_at_or_below(target)
        reg.add(f"steps.{key}.s{r.seed}", at, fmt_int(at), unit="steps", kind="measured",
                sources=(src[r.file],), locator=r.locator,
                computation="first logged step with loss at or below the target")
    mean = sum(r.losses[-1] for r in group) / len(group)
    reg.add(f"final_loss_mean.{key}", mean, fmt(mean, 4), unit="loss", kind="derived",
            sources=sources, locator=f"last {METRIC} of each seed's log",
            computation=f"mean over {len(group)} seeds of the loss at the last step")
    steps = [r.first_at_or_below(target) for r in group]
    smean = sum(steps) / len(steps) if None not in steps else None
    reg.add(f"steps_mean.{key}", smean, fmt(smean, 0), unit="steps", kind="derived",
            sources=sources, locator=f"the {METRIC} logged by each seed",
            computation="mean over seeds of the first step at or below the target")
    xs = group[0].steps
    ys = [[r.losses[i] for r in group] for i in range(len(xs))]
    reg.add_series(f"curve.{key}", xs, [sum(y) / len(y) for y in ys], kind="measured",
                   sources=sources, locator=f"the {METRIC} logged by each seed",
                   computation="mean over seeds",
                   lo=[min(y) for y in ys], hi=[max(y) for y in ys], variant=spec["letter"],
                   label=spec["label"], role="hub")


def _check_report(ctx, reg, by: dict) -> tuple[int, int]:
    """Every number cell of the report against our recomputation, as the report prints
    it (four decimals); the first difference fails, naming its line and column."""
    text = ctx.reads.text(ctx.vendored[REPORT].local)
    rows = {}
    for n, line in enumerate(text.splitlines(), 1):
        m = ROW_RE.match(line)
        if m and m.group(1) in by:
            rows[m.group(1)] = (n, [c.strip() for c in m.groups()[1:]])
    total = 0
    for key, group in by.items():
        if key not in rows:
            raise BuildError(f"vendored/{REPORT}", f"no row for optimiser {key!r}")
        n, cells = rows[key]
        ours = [reg.numbers[f"final_loss.{key}.s{r.seed}"].text for r in group]
        ours.append(reg.numbers[f"final_loss_mean.{key}"].text)
        for col, (theirs, mine) in enumerate(zip(cells, ours), 2):
            total += 1
            if theirs != mine:
                raise BuildError(f"vendored/{REPORT}:{n}", f"column {col} of {key} says "
                                 f"{theirs}, the logs give {mine}")
    return total, total


def _claims(reg, by: dict, src: dict, target: float) -> None:
    book, all_src = claim_book(reg, "toy."), tuple(src.values())
    sgd = [r.first_at_or_below(target) for r in by["sgd"]]
    others = [r.first_at_or_below(target) for k, g in by.items() if k != "sgd" for r in g]
    ok = None not in sgd + others and max(sgd) < min(others)
    book.add("sgd_first_to_target",
             "every seed of plain gradient descent reaches the target at an earlier logged "
             "step than every seed of every other optimiser",
             Verdict(ok, (("slowest seed of gradient descent", fmt_int(max(sgd))),
                          ("fastest seed of the others", fmt_int(min(others)))),
                     tuple(len(g) for g in by.values())),
             sources=all_src, computation="first logged step at or below the target, per seed")
    means = {k: reg.numbers[f"final_loss_mean.{k}"].value for k in by}
    top = max(means, key=means.get)
    book.add("momentum_highest_final", "momentum's mean final loss is the highest of any optimiser's",
             Verdict(top == "momentum", tuple((k, fmt(v, 4)) for k, v in means.items()),
                     tuple(len(g) for g in by.values())),
             sources=all_src, computation="mean final loss per optimiser, compared")
