"""The study's one chart, `@[chart:loss-curves]`: the loss curves the stage registers
(series `curve.*`), drawn by the engine's chart machinery (cit/blocks/charts.py). A
block provider, named in site.yaml's `blocks:` (docs/site-config.md, "Charts")."""

from __future__ import annotations

from cit.blocks.charts import ChartAxis, ChartSpec, series_block

PAGE_TEXT = True     # its string literals reach pages (docs/claims.md)

LOSS_CURVES = ChartSpec(
    "loss-curves", "Validation loss against training step, per variant: mean over seeds, "  # :x[caption]
    "shaded from the lowest to the highest seed",
    ChartAxis("Training step", "int"), ChartAxis("Validation loss", "dec3"),
    preview=(("wide", 720, 360), ("narrow", 420, 380)))


def loss_chart_blocks(inputs) -> dict:
    """{"chart:loss-curves": BlockSpec}, given a cit.blocks.BlockInputs."""
    return {"chart:loss-curves": series_block(
        inputs, LOSS_CURVES, lambda s: s.id.startswith("curve.") and s.extra.get("role") == "hub",
        'series "curve.*" with role "hub"')}
