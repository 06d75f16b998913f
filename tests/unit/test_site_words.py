"""The site's words about itself, held to the data they describe (issue 19, the read
report's items on /method, /tested, /notebook, the footer and the seeds figure): each
test reads the built site (one build per session) or the recorded files, never a typed
expected figure."""

import json
import re
import subprocess
from pathlib import Path

import pytest
import yaml
from selectolax.lexbor import LexborHTMLParser

from cit import benchfigures
from cit.buildrecord import measured_at
from cit.errors import BuildError
from cit.registry import KINDS, Registry

ROOT = Path(__file__).resolve().parents[2]


def _html(site: Path, rel: str) -> LexborHTMLParser:
    return LexborHTMLParser((site / rel).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def numbers(built_site) -> dict:
    return json.loads((built_site / "numbers.json").read_text())


def _footer_kinds(page: LexborHTMLParser) -> list[str]:
    stamp = page.css_first("footer .build-stamp").text()
    m = re.search(r"on this page: ([^)]*)\)", stamp)
    return re.split(r", | or ", m.group(1)) if m else []


def test_the_footer_names_the_kinds_of_the_numbers_its_page_shows(built_site, numbers):
    kind = {n["id"]: n["kind"] for n in numbers["numbers"]}
    pages = sorted(built_site.rglob("index.html"))
    assert pages
    for f in pages:
        if "pagefind" in f.parts:
            continue
        page = _html(built_site, str(f.relative_to(built_site)))
        ids = {el.attributes.get("data-id") for el in page.css("data.num, g.fig-mark")}
        shown = {kind[i] for i in ids if i in kind}
        got = _footer_kinds(page)
        assert got == [k for k in KINDS if k in set(got)], f"{f}: kinds out of order"
        if f.parent.name == "method":      # its index lists every number of the registry
            assert set(got) == set(kind.values()), f
        else:
            assert set(got) == shown, f"{f}: footer {got}, numbers shown {sorted(shown)}"


def test_method_lists_each_kind_the_registry_holds_with_its_count(built_site, numbers):
    counts: dict[str, int] = {}
    for n in numbers["numbers"]:
        counts[n["kind"]] = counts.get(n["kind"], 0) + 1
    page = _html(built_site, "method/index.html")
    heading = next(h for h in page.css("h2") if "kinds of number" in h.text())
    items = heading.parent.css("li")
    listed = {}
    for li in items:
        name = li.css_first("strong").text().strip().lower()
        listed[name] = li.css_first("data.num").text()
    assert set(listed) == set(counts), (sorted(listed), sorted(counts))
    for k, shown in listed.items():
        assert shown.replace(",", "") == str(counts[k]), (k, shown, counts[k])


def test_method_names_the_source_tags_the_scenario_uses(built_site):
    scenario = yaml.safe_load((ROOT / "data" / "sim" / "scenario.yaml").read_text())
    used = set()

    def walk(node):
        if isinstance(node, dict):
            if isinstance(node.get("source"), str):
                used.add(node["source"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
    walk(scenario)
    page = _html(built_site, "method/index.html")
    item = next(li for li in page.css("li") if li.text().startswith("Assumption"))
    named = {em.text() for em in item.css("em")}
    assert used and named == used, (sorted(named), sorted(used))


def test_the_seeds_figure_shows_each_configuration_once(built_site, numbers):
    seeds = sorted(n["id"] for n in numbers["numbers"] if n["id"].startswith("seeds."))
    fig = _html(built_site, "decks/04-hypothesis/index.html").css_first("#fig-seeds-figure")
    rows = [tr.css_first("th").text() for tr in fig.css("tbody tr")]
    cells = [tr.css_first("data.num").attributes["data-id"] for tr in fig.css("tbody tr")]
    assert sorted(cells) == seeds and len(set(rows)) == len(rows)
    bars = {m.attributes["data-id"] for m in fig.css("svg g.fig-mark")}
    assert bars == {i for i in seeds if not i.startswith("seeds.E.")}


def test_the_final_loss_figure_says_its_whiskers_are_one_standard_deviation(built_site):
    fig = _html(built_site, "decks/05-results/index.html").css_first("#fig-final-loss-figure")
    desc = fig.css_first("svg desc").text()
    assert "one standard deviation" in desc and "seed range" not in desc


def test_tested_names_the_commit_each_benchmark_measured(built_site, numbers):
    bench = yaml.safe_load((ROOT / "data" / "benchmarks.yaml").read_text())
    by_id = {n["id"]: n for n in numbers["numbers"]}
    for nid, stamp in (("bench.measured_at", bench["measured_at"]),
                       ("bench.scale.measured_at", bench["scaling"]["measured_at"]),
                       ("bench.serve.measured_at", bench["serve"]["measured_at"])):
        assert by_id[nid]["value"] == f"{stamp['commit']} {stamp['date']}"
        assert by_id[nid]["text"].startswith(stamp["commit"][:12])
    lh = bench["lighthouse"]["pages"]
    assert by_id["bench.lh.pages"]["value"] == len(lh)
    assert by_id["bench.lh.missing"]["value"] == (
        ", ".join(sorted(set(bench["page_weights"]) - set(lh))) or "none")
    page = _html(built_site, "tested/index.html")
    table = next(t for t in page.css("table")
                 if "Build speed" in (t.css_first("caption") or page.root).text())
    ids = [tr.css("data.num")[-1].attributes["data-id"] for tr in table.css("tbody tr")]
    assert ids and set(ids) <= {"bench.measured_at", "bench.serve.measured_at"}
    text = page.css_first("main").text()
    assert "This build's speed" not in text and "on every page" not in text


def test_a_benchmark_record_without_its_commit_fails_the_build(tmp_path):
    (tmp_path / "data").mkdir()
    bench = yaml.safe_load((ROOT / "data" / "benchmarks.yaml").read_text())
    del bench["serve"]["measured_at"]
    (tmp_path / "data" / "benchmarks.yaml").write_text(yaml.safe_dump(bench))
    (tmp_path / "data" / "budgets.yaml").write_text(
        (ROOT / "data" / "budgets.yaml").read_text())
    with pytest.raises(BuildError) as err:
        benchfigures.register(Registry(), tmp_path)
    assert "data/benchmarks.yaml" in str(err.value) and "serve.measured_at" in str(err.value)


def _bench_project(tmp_path, edit):
    """A project holding the benchmark record, `edit`ed as text, and the budgets."""
    (tmp_path / "data").mkdir()
    text = (ROOT / "data" / "benchmarks.yaml").read_text()
    (tmp_path / "data" / "benchmarks.yaml").write_text(edit(text))
    (tmp_path / "data" / "budgets.yaml").write_text((ROOT / "data" / "budgets.yaml").read_text())
    return tmp_path


def test_a_study_s_timing_is_listed_with_its_label_from_the_record(tmp_path):
    """The engine names no stage of the study: a figure beyond its own build timings is
    a row of /tested's table in the record's words (figure_labels), after the engine's."""
    from cit.registry import Ref
    bench = yaml.safe_load((ROOT / "data" / "benchmarks.yaml").read_text())
    reg = Registry()
    benchfigures.register(reg, _bench_project(tmp_path, lambda t: t))
    rows = reg.tables["bench"].rows
    extra = [k for k in bench["figures"] if k not in dict(benchfigures.TIMINGS)]
    assert extra and [r[0] for r in rows][:-1] == (
        [label for _, label in benchfigures.TIMINGS] + [bench["figure_labels"][k] for k in extra])
    assert [r[1] for r in rows][:-1] == [Ref(f"bench.{k}") for k in bench["figures"]]


@pytest.mark.parametrize("edit, key, said", [
    (lambda t: re.sub(r"\nfigure_labels:\n(  .*\n)+", "\n", t), "  sim_regen_s:",
     "figures.sim_regen_s has no label"),
    (lambda t: t.replace("figure_labels:\n", "figure_labels:\n  gone_s: Gone, median\n"),
     "  gone_s:", "figure_labels.gone_s labels no figure"),
])
def test_a_timing_without_its_label_or_a_label_without_its_timing_names_the_line(
        tmp_path, edit, key, said):
    root = _bench_project(tmp_path, edit)
    text = (root / "data" / "benchmarks.yaml").read_text()
    line = next(i for i, s in enumerate(text.splitlines(), 1) if s.startswith(key))
    with pytest.raises(BuildError) as err:
        benchfigures.register(Registry(), root)
    assert err.value.where == f"data/benchmarks.yaml:{line}"
    assert said in err.value.message


def test_measured_at_is_the_checkout_head():
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout.strip()
    got = measured_at(ROOT)
    assert got["commit"] == head and isinstance(got["uncommitted_changes"], bool)


def test_the_cpu_learning_rate_runs_feed_only_the_ledger_and_notebook(numbers):
    """/notebook: 'The ledger lists them; no other table and no figure uses them.'"""
    users = {n["id"] for n in numbers["numbers"]
             if any("/tinystories-lr/" in s["path"] for s in n["provenance"]["sources"])}
    assert users
    assert all(i.startswith(("ledger.tinystories-lr.", "exp.folder.tinystories-lr."))
               for i in users), sorted(users)


# ---- read3's items on the hub, /method and where E′ is described (words-b) ----------


def _claim_ids(node) -> set[str]:
    return {d.attributes.get("data-id") for d in node.css("data.claim-mark")}


def test_method_says_once_how_the_index_groups_are_built(built_site):
    page = _html(built_site, "method/index.html")
    groups = page.css("details.index-group")
    assert len(groups) > 1
    texts = [p.text() for p in page.css("p") if "without JavaScript" in p.text()]
    assert len(texts) == 1, texts
    assert all(not g.css_first("p.index-wait").text().strip() for g in groups)


def test_the_kinds_of_number_are_the_scenario_tags_and_quoted_is_the_original_page(
        built_site, numbers):
    """/method: an assumption may carry an outside citation (the scenario tags cited
    datasheet figures `assumption`); a quoted number is one the original page printed."""
    from study.sim.report import KIND_OF_TAG
    scenario = yaml.safe_load((ROOT / "data" / "sim" / "scenario.yaml").read_text())
    entries = {k: v for k, v in scenario["inputs"].items()}
    kind = {n["id"]: n for n in numbers["numbers"]}
    for key, e in entries.items():
        assert kind[f"scenario.{key}"]["kind"] == KIND_OF_TAG[e["source"]], key
    original_tags = {k for k, e in entries.items() if KIND_OF_TAG[e["source"]] == "quoted"}
    for n in numbers["numbers"]:
        if n["kind"] != "quoted":
            continue
        paths = {s["path"] for s in n["provenance"]["sources"]}
        assert (paths & {"data/sim/quoted.yaml", "data/study.yaml"}
                or n["id"].removeprefix("scenario.") in original_tags), n["id"]
    page = _html(built_site, "method/index.html")
    item = {li.css_first("strong").text().strip(): li.text() for li in page.css("li")
            if li.css_first("strong")}
    assert "original study's page printed" in item["Quoted"].replace("’", "'")
    assert "cited outside source" in item["Assumption"]
    assert any("assumption" == e["source"] and e.get("cite") for e in entries.values())


def test_the_hub_headline_table_lists_every_control_band(built_site, numbers):
    controls = {n["id"] for n in numbers["numbers"] if n["id"].startswith("seeds.F.")}
    table = _html(built_site, "index.html").css_first("#table-headline")
    shown = {d.attributes["data-id"] for d in table.css("data.num")
             if d.attributes["data-id"].startswith("seeds.F.")}
    assert controls and shown == controls, (sorted(shown), sorted(controls))


EPRIME_CAVEATS = {"sim.e_margin_within_seed_spread", "sim.later_lowers_eprime_breakeven",
                  "sim.charged_lowers_eprime_breakeven"}


def test_where_eprime_is_headlined_its_caveats_are_checked_claims(built_site):
    """The hub card, the transit page and the results deck state one seed's margin, E one
    evaluation later and E′ with its transfers charged, each as a checked claim; the hub
    card also says E′ lacks the feedback of the band sent and gives it on C's steps."""
    hub = _html(built_site, "index.html")
    card = next(a for a in hub.css("article.card")
                if a.css_first("h3") and "could pay" in a.css_first("h3").text())
    assert EPRIME_CAVEATS | {"exp.feedback_pair"} <= _claim_ids(card)
    # at the figure itself: its caption says E′ is assumed to train like a run whose
    # repair, the feedback of the band sent, it lacks (issue 28)
    figure, caption = card.css("p")[:2]
    assert figure.css_first("data.num").attributes["data-id"] == "sim.breakeven.Eprime_Esteps_vs_A"
    terms = {a.attributes.get("data-term") for a in caption.css("a.term")}
    assert "feedback-of-the-band-sent" in terms and "assumes" in caption.text()
    assert "lacks" in caption.text()
    nums = {d.attributes["data-id"] for d in card.css("data.num")}
    assert {"sim.breakeven.Eprime_Csteps_vs_A", "sim.target", "sim.e_run.margin",
            "sim.charged.breakeven.Eprime_Esteps_vs_A"} <= nums
    for rel in ("transit/index.html", "decks/05-results/index.html"):
        assert EPRIME_CAVEATS <= _claim_ids(_html(built_site, rel)), rel
    chain = hub.css_first(".chain") or hub
    assert EPRIME_CAVEATS <= _claim_ids(chain)

# Issue 28, items 4 and 5: where a conclusion is drawn, the claim that tests its caveat sits
# in the same paragraph or list item, so the caveat cannot drift away from it.
CAVEATS_BESIDE = (     # (page, words that draw the conclusion, its claim, the caveat's claim)
    ("index.html", "could not have replaced it here", "exp.topk_below_every_band",
     "exp.demo_lr_chosen_on_topk"),
    ("decks/05-results/index.html", "No summing at the switch is needed",
     "sim.eprime_free_never_beats_cprime", "sim.eprime_beats_cprime_on_optics_steps"),
    ("decks/05-results/index.html", "More arithmetic", "sim.band_at_port_rate_exceeds_budget",
     "sim.fft_at_port_over_budget_only_at_two_ops"),
    ("transit/index.html", "What the fit does test", "sim.unfitted_comparisons_agree",
     "sim.budget_pins_its_figures"),
    ("transit/index.html", "rule out one ring", "sim.flat_ring_misses_quoted_a",
     "sim.flat_ring_refit_misses"),
)


@pytest.mark.parametrize("rel,words,conclusion,caveat", CAVEATS_BESIDE)
def test_a_conclusion_carries_its_caveat_where_it_is_drawn(built_site, rel, words, conclusion,
                                                           caveat):
    page = _html(built_site, rel)
    blocks = [b for b in page.css("p, li") if words in b.text().replace("’", "'")
              and len(b.css("p, li")) == 1]          # the innermost block (css matches b itself)
    assert len(blocks) == 1, (rel, words, len(blocks))
    assert {conclusion, caveat} <= _claim_ids(blocks[0]), (rel, words)


# ---------------------------------------------------------------- the decks (read3 report)

def _headline_runs(vendored_files) -> dict[str, list[list[dict]]]:
    """The headline folder's run logs, read straight from the JSONL (not through study/),
    grouped by run name without the seed: group -> [records of each seed's log]."""
    rel = yaml.safe_load((ROOT / "data" / "study.yaml").read_text())["headline"]
    groups: dict[str, list[list[dict]]] = {}
    for f in sorted((ROOT / "vendored" / rel).glob("*.jsonl")):
        recs = [json.loads(line) for line in f.read_text().splitlines() if line.strip()]
        groups.setdefault(re.sub(r"-s\d+$", "", f.stem), []).append(recs)
    assert groups
    return groups


def _config(log: list[dict]) -> dict:
    return next(r for r in log if r["type"] == "config")["config"]


def _number(numbers, nid) -> dict:
    return next(n for n in numbers["numbers"] if n["id"] == nid)


def _sentence_with(page: LexborHTMLParser, claim: str) -> str:
    mark = next(m for m in page.css("data.claim-mark") if m.attributes.get("data-id") == claim)
    return mark.parent.text()


def test_the_topk_energy_range_is_over_every_demo_run_set(built_site, numbers, vendored_files):
    """decks/05: 'On the momentum of each of the N DeMo run sets, top-k's own included, the
    positions top-k picks keep X to Y of its energy': the range over every group but
    AdamW's, each the mean of its diag records after the warm-up."""
    shares = {}
    for name, logs in _headline_runs(vendored_files).items():
        if _config(logs[0])["variant"] == "adamw":
            continue
        warm = _config(logs[0])["warmup"]
        vals = [d["energy"]["momentum"]["all"]["topk"] for log in logs for d in log
                if d["type"] == "diag" and d["step"] > warm]
        assert vals, f"{name}: no diag records"
        shares[name] = sum(vals) / len(vals)
    assert _number(numbers, "energy.momentum_topk_sets")["text"] == str(len(shares))
    assert _number(numbers, "energy.momentum_topk_min")["text"] == f"{min(shares.values()):.3f}"
    assert _number(numbers, "energy.momentum_topk_max")["text"] == f"{max(shares.values()):.3f}"
    page = _html(built_site, "decks/05-results/index.html")
    said = _sentence_with(page, "exp.momentum_energy_concentrated")
    ids = {"energy.momentum_topk_sets", "energy.momentum_topk_min", "energy.momentum_topk_max"}
    shown = {d.attributes["data-id"] for d in page.css("data.num")
             if d.attributes["data-id"] in ids and d.parent.text() == said}
    assert shown == ids and "DeMo run sets" in said


def test_the_ring_allreduce_factor_is_the_configs(built_site, numbers, vendored_files):
    """decks/02: each worker sends every piece but one twice: wire = 2 (w − 1) ÷ w × payload."""
    logs = next(v for v in _headline_runs(vendored_files).values() if _config(v[0])["variant"] == "adamw")
    cfg = next(r for r in logs[0] if r["type"] == "config")
    w = cfg["config"]["workers"]
    wire, payload = cfg["wire_bytes_per_step"], cfg["payload_bytes_per_step"]
    assert wire * w == 2 * (w - 1) * payload
    assert _number(numbers, "exp.allreduce_wire_factor")["text"] == f"{wire / payload:.2f}"
    said = _sentence_with(_html(built_site, "decks/02-training-traffic/index.html"),
                          "exp.allreduce_sends_twice_share")
    assert "close to twice" not in said and f"{wire / payload:.2f} times its tensor" in said


def _optics_pairs(groups, design: str) -> set:
    """(ENOB, planes) pairs from the optics run names of one design: 'first' (neither
    feedback of the band sent nor a re-set full scale) or 'reset' (agc…-fbsent)."""
    out = set()
    for name in groups:
        m = re.search(r"-optics-.*-enob([\d.]+)-p(\d+)(-agc\d+)?(-fbsent)?-", name)
        if m and (bool(m.group(3) and m.group(4)) if design == "reset"
                  else not (m.group(3) or m.group(4))):
            out.add((float(m.group(1)), int(m.group(2))))
    return out


def test_the_sweep_sentence_names_the_combinations_that_ran(built_site, numbers, vendored_files):
    """decks/03 and 04: 'ENOB … with P planes, and … planes at ENOB E: N combinations, not
    every pairing', counted here from the run names."""
    groups = _headline_runs(vendored_files)
    first, reset = _optics_pairs(groups, "first"), _optics_pairs(groups, "reset")
    assert first and first == reset
    enobs, planes = {e for e, _ in first}, {p for _, p in first}
    assert len(first) < len(enobs) * len(planes)
    text = {k: _number(numbers, f"exp.sweep.{k}")["text"] for k in
            ("enob_at_main_planes", "main_planes", "planes_at_main_enob", "main_enob", "combinations")}
    p, e = int(text["main_planes"]), float(text["main_enob"])
    assert {(x, p) for x in map(float, text["enob_at_main_planes"].split(", "))} \
        | {(e, int(q)) for q in text["planes_at_main_enob"].split(", ")} == first
    assert text["combinations"] == str(len(first))
    for deck in ("03-what-optics-can-compute", "04-hypothesis"):
        said = _sentence_with(_html(built_site, f"decks/{deck}/index.html"), "exp.sweep_combinations")
        assert "not every pairing" in said, deck


def test_the_results_deck_judges_the_optics_claim(built_site, numbers, vendored_files):
    """decks/05 'The optics claim, judged': the first design diverged, and the repaired
    sweep's count of ENOBs that ended below the exact band's mean is the logs'."""
    groups = _headline_runs(vendored_files)
    final = lambda logs: sum([r for r in log if r["type"] == "eval"][-1]["val_loss"]
                             for log in logs) / len(logs)
    exact = final(groups[next(n for n in groups if "-band-low-k16-1d256-" in n)])
    p = int(_number(numbers, "exp.sweep.main_planes")["text"])
    sweep = [n for n in groups if re.search(rf"-optics-.*-p{p}-agc\d+-fbsent-", n)]
    below = [n for n in sweep if final(groups[n]) < exact]
    assert 1 <= len(below) < len(sweep)
    assert _number(numbers, "optics.repaired.enob_tried")["text"] == str(len(sweep))
    assert _number(numbers, "optics.repaired.enob_below_exact")["text"] == str(len(below))
    page = _html(built_site, "decks/05-results/index.html")
    slide = next(s for s in page.css("section.slide") if s.css_first("h2")
                 and s.css_first("h2").text() == "The optics claim, judged")
    cited = {m.attributes["data-id"] for m in slide.css("data.claim-mark")}
    assert {"exp.first_all_diverged", "exp.repaired_all_trained",
            "exp.repaired_below_exact_at_some_enob"} <= cited


def _decks(site: Path) -> list[Path]:
    decks = sorted((site / "decks").glob("0*/index.html"))
    assert decks
    return decks


def test_each_deck_names_itself_once(built_site):
    """One h1 a deck: the first slide titled as the deck is it (no hidden copy beside
    it), and main is labelled by it."""
    for f in _decks(built_site):
        page = LexborHTMLParser(f.read_text(encoding="utf-8"))
        h1 = page.css("h1")
        assert len(h1) == 1, f
        heads = [h.text().strip() for h in page.css("main :is(h1, h2)")]
        assert heads.count(h1[0].text().strip()) == 1, (f, heads)
        assert page.css_first("main").attributes["aria-labelledby"] == h1[0].attributes["id"], f
        first = page.css_first("section.slide :is(h1, h2)")
        assert (first.tag == "h1") == (first.text().strip() == h1[0].text().strip()), f


def test_a_decks_next_link_is_on_its_last_slide(built_site):
    for f in _decks(built_site):
        page = LexborHTMLParser(f.read_text(encoding="utf-8"))
        slides = page.css("main section.slide")
        holding = [i for i, s in enumerate(slides)
                   if any(a.text().startswith("Next:") for a in s.css("a"))]
        assert holding in ([], [len(slides) - 1]), (f, holding, len(slides))


def test_the_final_loss_figure_shows_every_fixed_shape(built_site, numbers):
    fig = _html(built_site, "decks/05-results/index.html").css_first("#fig-final-loss-figure")
    bars = {m.attributes["data-id"] for m in fig.css("svg g.fig-mark")}
    shapes = {n["id"] for n in numbers["numbers"] if n["id"].startswith("final_loss_mean.F.")}
    assert shapes and shapes <= bars


def test_the_energy_figure_has_no_one_d_zigzag_bar(built_site, numbers):
    """On 1-D chunks the zig-zag band is the low band: the same share on every row."""
    by = {n["id"]: n["value"] for n in numbers["numbers"]}
    zig = [i for i in by if re.fullmatch(r"energy\.c1d\d+\.\w+\.\w+\.zigzag", i)]
    assert zig and all(by[i] == by[i.removesuffix("zigzag") + "low"] for i in zig)
    fig = _html(built_site, "decks/04-hypothesis/index.html").css_first("#fig-energy-kept-figure")
    bars = {m.attributes["data-id"] for m in fig.css("svg g.fig-mark")}
    assert bars and not {b for b in bars if re.fullmatch(r"energy\.c1d\d+\..*\.zigzag", b)}


@pytest.mark.parametrize("runs", [1, 3])
def test_the_lighthouse_caption_says_a_median_only_when_there_were_several_runs(tmp_path, runs):
    """/tested's Lighthouse table: with one run per page it must not speak of a median."""
    (tmp_path / "data").mkdir()
    bench = yaml.safe_load((ROOT / "data" / "benchmarks.yaml").read_text())
    bench["lighthouse"]["runs"] = runs
    (tmp_path / "data" / "benchmarks.yaml").write_text(yaml.safe_dump(bench))
    (tmp_path / "data" / "budgets.yaml").write_text(
        (ROOT / "data" / "budgets.yaml").read_text())
    reg = Registry()
    benchfigures.register(reg, tmp_path)
    caption = reg.tables["bench-lighthouse"].caption
    assert ("median" in caption) == (runs > 1), caption
    assert not any(ch.isdigit() for ch in caption)
