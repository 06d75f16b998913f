"""The benchmarks' recorded figures (data/benchmarks.yaml, written by
benchmarks/bench_build.py and, under `scaling:`, benchmarks/bench_scale.py) and our budgets (data/budgets.yaml) as registry entries and
tables for /tested. Kind `measured` for the timings and weights, `assumption` for the
budgets; both files are ours, so the source is our own path."""

from __future__ import annotations

import re
from pathlib import Path

from . import yamlio
from .errors import BuildError
from .fieldcheck import key_places
from .fmt import SECONDS, fmt, fmt_int
from .reads import Reads
from .registry import Ref, Registry, Source

PAGE_TEXT = True     # its string literals reach pages (docs/claims.md, "Sentences the build finds")

BENCH = "data/benchmarks.yaml"
BUDGETS = "data/budgets.yaml"
# The build's own timings, every study's (each required); a study's further figures
# (a stage of its own timed, as this one's simulator) carry their rows' labels in the
# record, under `figure_labels` (_timings; docs/testing.md, "No timed tests").
TIMINGS = (("cold_build_s", "Cold build (no cache, every stage and check), median"),  # :x[caption]
           ("noop_rebuild_s", "No-op rebuild (caches verified and reused), median"),
           ("content_rebuild_s", "Rebuild after editing one page's Markdown, median"),  # :x[label]
           ("mkdocs_build_s", "mkdocs build of the same Markdown after the same edit, median"),
           ("ratio_to_mkdocs", "Our rebuild after the edit ÷ mkdocs build"))


def _read(reads: Reads, rel: str) -> tuple[dict, str]:
    """The file's data (a mapping) and its text (for the line of a bad entry)."""
    text = reads.maybe_text(rel)
    if text is None:
        raise BuildError(rel, "missing; run python benchmarks/bench_build.py")
    data = yamlio.load(text, rel)
    if not isinstance(data, dict):
        raise BuildError(rel, "expected a mapping")
    return data, text


def _line(text: str, section: str, key: str) -> str:
    """"data/benchmarks.yaml:LINE" of `key` in the top-level mapping `section`."""
    node = next(v for k, v in yamlio.compose(text, BENCH).value if k.value == section)
    return key_places(BENCH, node)(key)


def _timings(bench: dict, text: str) -> list[tuple[str, str]]:
    """(figure key, row label) of each timing /tested lists: the engine's TIMINGS, then
    each other key of `figures` in the record's order, labelled by `figure_labels`."""
    figs, labels = bench.get("figures") or {}, bench.get("figure_labels") or {}
    for key, _ in TIMINGS:
        if key not in figs:
            raise BuildError(BENCH, f"figures.{key} missing")
    own = dict(TIMINGS)
    out = list(TIMINGS)
    for key in figs:
        if key in own:
            continue
        label = labels.get(key)
        if not isinstance(label, str) or not label.strip():
            raise BuildError(_line(text, "figures", key), f"figures.{key} has no label: give "
                             "its row's words under figure_labels (what it measured)")
        out.append((key, label))
    for key in labels:
        if key not in figs or key in own:
            raise BuildError(_line(text, "figure_labels", key), f"figure_labels.{key} labels "
                             "no figure of the study's (figures, beside the engine's own)")
    return out


def _page_name(slug: str) -> str:
    """A page's name without the deck ordinal (digits there would be naked numbers)."""
    if slug.startswith("decks."):
        return "Deck: " + re.sub(r"^\d+-", "", slug.split(".", 1)[1]).replace("-", " ")
    return "Hub" if slug == "hub" else slug.capitalize()


def stage(ctx) -> None:
    """The data stage site.yaml declares (cit/stages.py): this build's speed and
    budgets, from data/benchmarks.yaml and data/budgets.yaml."""
    register(ctx.registry, ctx.root, ctx.reads)


def _measured_at(reg: Registry, nid: str, stamps, where: str) -> Ref:
    """The commit (and its date) whose code a benchmark measured, as the scripts record it
    under `measured_at` (cit.buildrecord.measured_at); several stamps, one per page, are
    shown as their distinct values."""
    distinct = {}                     # (commit, date, flag) -> its text, in first-seen order
    for s in stamps:
        if not isinstance(s, dict) or not {"commit", "date"} <= set(s):
            raise BuildError(BENCH, f"{where}: measured_at (commit, date) missing; run the "
                             "benchmark script again")
        flag = s.get("uncommitted_changes")
        distinct.setdefault((str(s["commit"]), s["date"], flag),
                            f"{str(s['commit'])[:12]} of {s['date']}" + (
                                ", with uncommitted changes" if flag is True else
                                ", working tree not recorded" if flag is not False else ""))
    shown = list(distinct.values())
    # the raw value holds a space, so the page may break the line between its words; it
    # lists the stamps in the order the text shows them
    commits = "; ".join(f"{c} {d}" for c, d, _ in distinct)
    reg.add(nid, commits, "; ".join(shown),
            kind="measured", sources=(Source(BENCH),), locator=f"{BENCH}, {where}",
            computation="the commit whose code the benchmark script measured, and its date "
                        "(not this build's commit)")
    return Ref(nid)


def register(reg: Registry, root: Path, reads: Reads | None = None) -> None:
    reads = reads or Reads(root)
    (bench, bench_text), (budgets, _) = _read(reads, BENCH), _read(reads, BUDGETS)
    src_b, src_g = (Source(BENCH),), (Source(BUDGETS),)
    figs = bench.get("figures") or {}
    runs = bench.get("runs")
    reg.add("bench.runs", runs, str(runs), unit="runs", kind="measured", sources=src_b,
            locator=f"{BENCH}, runs", computation="runs of each measurement (median taken)")
    reg.add("bench.machine", bench.get("machine", ""), bench.get("machine", ""), kind="measured",
            sources=src_b, locator=f"{BENCH}, machine", computation="the machine measured on")
    at = _measured_at(reg, "bench.measured_at", [bench.get("measured_at")], "measured_at")
    rows = []
    for key, label in _timings(bench, bench_text):
        v = figs[key]
        unit = "" if key.startswith("ratio") else SECONDS.label
        reg.add(f"bench.{key}", v, fmt(v, 2), unit=unit, kind="measured", sources=src_b,
                locator=f"{BENCH}, figures.{key}", computation=label)
        rows.append([label, Ref(f"bench.{key}"), at])
    for key, b in sorted(budgets.items()):
        v = b["value"]
        text = fmt_int(v) if b["unit"] == "bytes" else fmt(v, 0)
        reg.add(f"budget.{key}", v, text, unit=b["unit"], kind="assumption", sources=src_g,
                locator=f"{BUDGETS}, {key}", computation=f"our budget: {b['what']}")
    serve = bench.get("serve") or {}
    if "save_to_reload_s" not in serve:
        raise BuildError(BENCH, "serve.save_to_reload_s missing; run python "
                         "benchmarks/bench_serve.py")
    label = "Save to reloaded page under --serve, in Chromium, median (bench_serve.py)"  # :x[label]
    reg.add("bench.save_to_reload_s", serve["save_to_reload_s"],
            SECONDS.text(serve["save_to_reload_s"], 3), unit=SECONDS.label, kind="measured",
            sources=src_b, locator=f"{BENCH}, serve.save_to_reload_s",
            computation=label)
    rows.append([label, Ref("bench.save_to_reload_s"),
                 _measured_at(reg, "bench.serve.measured_at", [serve.get("measured_at")],
                              "serve.measured_at")])
    reg.add_table("bench", "Build speed as the benchmark scripts measured it, at the commit "  # :x[caption]
                  "each row names (medians on the machine named above)",
                  ["Measurement", "Seconds or ratio", "Measured at commit"], rows,
                  source=BENCH)
    wrows = []
    for url, w in sorted((bench.get("page_weights") or {}).items()):
        slug = url.strip("/").replace("/", ".") or "hub"
        budget = ("hub_bytes" if slug == "hub" else
                  "deck_bytes" if slug.startswith("decks.") else None)
        cells = []
        for k in ("own_bytes", "plotly_bytes"):
            reg.add(f"bench.weight.{slug}.{k}", w[k], fmt_int(w[k]), unit="bytes",
                    kind="measured", sources=src_b, locator=f"{BENCH}, page_weights {url} {k}",
                    computation="bytes of the page's HTML, CSS and own scripts" if k == "own_bytes"
                    else "bytes of the plotly.js basic bundle, on chart pages only, fetched when the "
                    "reader reaches for a chart (pointer, focus or tap), never at load")
            cells.append(Ref(f"bench.weight.{slug}.{k}"))
        if budget:
            met = w["own_bytes"] <= budgets[budget]["value"]
            cells += [Ref(f"budget.{budget}"), "met" if met else "not met"]
        else:
            cells += ["no budget", ""]
        wrows.append([_page_name(slug)] + cells)
    reg.add_table("bench-weights", "Page weights, measured with the build speed: HTML + CSS + own scripts at load, and plotly apart (fetched on interaction)",
                  ["Page", "Own bytes at load", "Plotly bytes on interaction", "Budget (bytes)", "Budget met"], wrows,
                  source=BENCH)
    _register_scaling(reg, bench.get("scaling"))
    _register_rebuild_by_page(reg, bench.get("content_rebuild_by_page_s"), figs)
    _register_lighthouse(reg, bench.get("lighthouse"), bench.get("page_weights") or {})


def _register_rebuild_by_page(reg: Registry, by_page, figs: dict) -> None:
    """The content-only rebuild after editing each page, and its ratio to mkdocs build."""
    if not by_page:
        raise BuildError(BENCH, "content_rebuild_by_page_s missing; run python "
                         "benchmarks/bench_build.py")
    src, mkdocs = (Source(BENCH),), figs["mkdocs_build_s"]
    rows = []
    for path, v in sorted(by_page.items()):
        slug = path.removesuffix(".md").removeprefix("pages/").replace("/", ".")
        base = f"bench.rebuild_by_page.{slug}"
        reg.add(f"{base}.s", v, SECONDS.text(v), unit=SECONDS.label, kind="measured", sources=src,
                locator=f"{BENCH}, content_rebuild_by_page_s {path}",
                computation=f"rebuild after editing content/{path}, median")
        ratio = v / mkdocs
        reg.add(f"{base}.ratio", ratio, fmt(ratio, 2), kind="derived", sources=src,
                locator=f"{BENCH}, content_rebuild_by_page_s {path} and figures.mkdocs_build_s",
                computation="this rebuild ÷ mkdocs build of the same Markdown, median")
        rows.append([_page_name(slug), Ref(f"{base}.s"), Ref(f"{base}.ratio")])
    reg.add_table("bench-by-page", "Rebuild after editing each page's Markdown (medians), "
                  "and its ratio to mkdocs build", ["Page edited", "Seconds", "÷ mkdocs"],
                  rows, source=BENCH)


SCALE_COLUMNS = (("run_logs", "Run logs", "run logs in the synthetic mirror", "logs"),  # :x[label] :x[label]
                 ("data_stages_s", "Data stages (s)",
                  "vendor verification and the data stages with their checks, median",
                  SECONDS.label),
                 ("time_ratio_to_1x", "Time ÷ time at the study's size",
                  "data-stage time at this size ÷ at the study's own size", "x"),
                 ("peak_rss_mib", "Peak memory (MiB)",
                  "peak resident memory of the measuring process (Python, pandas and the "  # :x[label]
                  "stages), the highest of the runs", "MiB"))


def _register_scaling(reg: Registry, scaling) -> None:
    """benchmarks/bench_scale.py's figures: per size, the data stages' time and peak memory."""
    if not scaling:
        raise BuildError(BENCH, "scaling missing; run python benchmarks/bench_scale.py")
    src = (Source(BENCH),)
    sizes = scaling.get("sizes") or {}
    _measured_at(reg, "bench.scale.measured_at", [scaling.get("measured_at")],
                 "scaling.measured_at")
    reg.add("bench.scale.runs", scaling["runs"], str(scaling["runs"]), unit="runs",
            kind="measured", sources=src, locator=f"{BENCH}, scaling.runs",
            computation="measurements at each size (median taken)")
    rows = []
    for key in sorted(sizes, key=lambda k: int(k.lstrip("x"))):
        row, k = sizes[key], int(key.lstrip("x"))
        base = f"bench.scale.{key}"
        reg.add(f"{base}.size", k, str(k), unit="x", kind="measured", sources=src,
                locator=f"{BENCH}, scaling.sizes.{key}",
                computation="multiple of the study's run logs in the synthetic mirror")
        cells = [Ref(f"{base}.size")]
        for field, _, what, unit in SCALE_COLUMNS:
            v = row[field]
            text = fmt_int(v) if isinstance(v, int) else fmt(v, 2 if unit == "x" else
                                                                 1 if unit == "MiB" else 2)
            reg.add(f"{base}.{field}", v, text, unit=unit, kind="measured", sources=src,
                    locator=f"{BENCH}, scaling.sizes.{key}.{field}", computation=what)
            cells.append(Ref(f"{base}.{field}"))
        rows.append(cells)
    reg.add_table("bench-scale", "The data stages at multiples of the study's size "  # :x[caption]
                  "(synthetic run logs, medians on the machine named above)",
                  ["Size (× the study)"] + [c[1] for c in SCALE_COLUMNS], rows,  # :x[label]
                  source=f"{BENCH}, scaling")


# Lighthouse's figures per page and form factor: (field, column, what, unit, decimals)
LIGHTHOUSE_COLUMNS = (
    ("performance", "Performance", "Lighthouse's performance score", "score", None),
    ("accessibility", "Accessibility", "Lighthouse's accessibility score", "score", None),
    ("best_practices", "Best practices", "Lighthouse's best-practices score", "score", None),  # :x[label]
    ("seo", "SEO", "Lighthouse's search-engine score", "score", None),
    ("lcp_ms", "LCP (ms)", "Largest Contentful Paint, milliseconds", "ms", None),
    ("tbt_ms", "TBT (ms)", "Total Blocking Time, milliseconds", "ms", None),
    ("cls", "CLS", "Cumulative Layout Shift", "", 3))


def _register_lighthouse(reg: Registry, lh, weighed) -> None:
    """benchmarks/bench_lighthouse.py's figures: per page, desktop and mobile, the four
    scores, LCP, TBT and CLS of the run with the median performance score; the pages it
    measured, and those of the benchmark build (`weighed`, page_weights) it did not."""
    if not lh:
        raise BuildError(BENCH, "lighthouse missing; run python benchmarks/bench_lighthouse.py")
    src = (Source(BENCH),)
    for key, what in (("lighthouse", "the Lighthouse version run"),  # :x[label]
                      ("chromium", "the browser Lighthouse drove"),
                      ("machine", "the machine measured on")):
        reg.add(f"bench.lh.{key}", lh[key], str(lh[key]), kind="measured", sources=src,
                locator=f"{BENCH}, lighthouse.{key}", computation=what)
    reg.add("bench.lh.runs", lh["runs"], str(lh["runs"]), unit="runs", kind="measured",
            sources=src, locator=f"{BENCH}, lighthouse.runs",
            computation="Lighthouse runs of each page and form factor (the median kept)")
    pages = lh.get("pages") or {}
    _measured_at(reg, "bench.lh.measured_at", [p.get("measured_at") for p in pages.values()],
                 "lighthouse.pages measured_at")
    reg.add("bench.lh.pages", len(pages), str(len(pages)), unit="pages", kind="measured",
            sources=src, locator=f"{BENCH}, lighthouse.pages",
            computation="pages Lighthouse measured")
    missing = sorted(set(weighed) - set(pages))
    names = [_page_name(u.strip("/").replace("/", ".") or "hub") for u in missing]
    reg.add("bench.lh.missing", ", ".join(missing) or "none", ", ".join(names) or "none",
            kind="measured",
            sources=src, locator=f"{BENCH}, page_weights and lighthouse.pages",
            computation="pages the benchmark build weighed (page_weights) that Lighthouse has "
                        "no figures for")
    rows = []
    kept = ("one run per page and form factor" if lh["runs"] == 1 else  # :x[label]
            "of several runs per page and form factor (the count is in the text), the one with the "  # :x[label]
            "median performance score")
    for url, by_ff in sorted(pages.items()):
        slug = url.strip("/").replace("/", ".") or "hub"
        for ff in ("desktop", "mobile"):
            if ff not in by_ff:
                raise BuildError(BENCH, f"lighthouse.pages {url}: {ff} missing")
            cells = [_page_name(slug), ff]
            for field, _, what, unit, d in LIGHTHOUSE_COLUMNS:
                v = by_ff[ff][field]
                nid = f"bench.lh.{slug}.{ff}.{field}"
                reg.add(nid, v, fmt(v, d) if d is not None else fmt_int(v), unit=unit,
                        kind="measured", sources=src,
                        locator=f"{BENCH}, lighthouse.pages {url} {ff} {field}",
                        computation=f"{what}, {ff} ({kept})")
                cells.append(Ref(nid))
            rows.append(cells)
    reg.add_table("bench-lighthouse", f"Lighthouse per page measured, desktop and mobile ({kept})",  # :x[caption]
                  ["Page", "Form factor"] + [c[1] for c in LIGHTHOUSE_COLUMNS], rows,
                  source=f"{BENCH}, lighthouse")
