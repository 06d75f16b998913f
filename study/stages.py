"""This study's data stages, as site.yaml declares them (docs/site-config.md):

- `experiment`: the run logs, the tables and the upstream results.md check, its claims;
  the variant catalogue's palette (`data["palette"]`, which the engine writes into the
  stylesheet and draws the charts in) and what the figure blocks read of it
  (`data["variants"]`, with each group's figure label);
- `simulator`: the simulator's recomputation, the data/sim/results.md check, its claims,
  and the explorer's payload (plain JSON the `@[explorer]` block draws from).

Each adds to the registry and returns a cit.stages.StageOutput of plain data.
"""

from __future__ import annotations

from cit import yamlio
from cit.fieldcheck import FieldRule, check_fields, key_places
from cit.stages import StageContext, StageOutput


STUDY_RULES = {"headline": FieldRule(str, nonblank=True),
               "learning_rate_runs": FieldRule(list, item_kind=str),
               "sweep_log": FieldRule(str, nonblank=True),
               "sim_target_group": FieldRule(str, nonblank=True),
               "shakespeare": FieldRule(dict), "quoted": FieldRule(dict)}


def read_study(text: str, name: str = "data/study.yaml") -> dict:
    """data/study.yaml, its keys checked at their line: an unknown one (a misspelt key,
    a stray block) is refused, not ignored (docs/faults.md, N9)."""
    data, node = yamlio.load_with_nodes(text, name)
    check_fields(data, STUDY_RULES, key_places(name, node), "the study's settings")
    return data


def experiment(ctx: StageContext) -> StageOutput:
    """Load the logs, recompute and check the upstream results.md files, register."""
    from . import experiment as exp_stage
    study = read_study(ctx.reads.text(ctx.root / "data" / "study.yaml"))
    exp = exp_stage.load_experiment(ctx.vendored, ctx.root, study, ctx.registry, ctx.reads)
    figures = {}
    for key, c in exp.verification.items():
        figures[f"results_md_numbers.{key}"] = (
            c.verified, f"Runs of digits verified in {key} results.md",
            "digit runs of the upstream results.md compared with our recomputation")
        figures[f"results_md_total.{key}"] = (
            c.total, f"Runs of digits in {key} results.md",
            "digit runs in the upstream results.md (a decimal's whole and fractional parts "
            "are a run each)")
    catalogue = exp.headline.catalogue
    shown = catalogue.as_json()
    shown["groups"] = {g.slug: {"variant": g.first.variant.key,
                                "label": g.first.variant.figure_label(g.first.cfg)}
                       for g in exp.groups}
    summary = "recomputed from the run logs and matched: " + ", ".join(
        f"{c.verified:,} of {c.total:,} numbers of {name} results.md"
        for name, c in exp.verification.items())
    return StageOutput(figures=figures, summary=summary,
                       data={"palette": catalogue.palette(), "variants": shown})


def simulator(ctx: StageContext) -> StageOutput:
    """Recompute the simulator, check every cell of data/sim/results.md, register; the
    explorer's payload is computed here, so the block never sees the simulator. It
    reads the headline logs itself (not the experiment stage's objects), so that its
    cache key holds them (cit/stages.py)."""
    from . import sim, tables
    from .blocks.explorer import explorer_payload
    from .sim.compute import headline_folder
    folder = headline_folder(ctx.root, ctx.reads)
    cells, computed = sim.build_stage(ctx.registry, tables.groups_of(folder), ctx.root,
                                      sim.compute_from_paths(ctx.root, folder, ctx.reads),
                                      ctx.reads)
    return StageOutput(
        figures={"sim_cells": (cells, "Simulator cells verified",
                               "cells of data/sim/results.md recomputed and compared")},
        data={"explorer": explorer_payload(computed)},
        summary=f"{cells:,} cells of data/sim/results.md recomputed and matched")
