"""A card links each upstream source to its file at the recorded commit on the upstream
host, at the record's line where the locator names one (cit/assets.py record_anchor,
prov_payload's `u` and eighth item; cards.js draws the link). Checked on the built site
against the vendored files: the anchored line holds the number."""

from __future__ import annotations

import json
import re
from pathlib import Path

from cit import vendor
from cit.assets import record_anchor
from cit.registry import Number, Source

ROOT = Path(__file__).resolve().parents[2]
PROV = re.compile(r'/\*[^*]*\*/\n\(window\.CIT_PROV=window\.CIT_PROV\|\|\{\}\)\[(".*?")\]=(.*);\n', re.S)


def _payloads(site: Path):
    for f in sorted((site / "static" / "prov").rglob("*.js")):
        m = PROV.fullmatch(f.read_text(encoding="utf-8"))
        assert m, f
        yield f.relative_to(site).as_posix(), json.loads(m.group(2))


def _line(path: str, anchor: str) -> str:
    first = int(re.match(r"L(\d+)", anchor).group(1))
    return (ROOT / "vendored" / path).read_text(encoding="utf-8").split("\n")[first - 1]


def test_every_anchored_number_s_line_in_its_upstream_file_holds_it(built_site, measured):
    site = Path(built_site)
    numbers = {n["id"]: n for n in json.loads((site / "numbers.json").read_text())["numbers"]}
    url = vendor.file_url_base(vendor.read_lock(ROOT / "vendored" / "lock.yaml"))
    assert url and url.startswith("https://") and url.endswith("/blob/")
    anchored, linked_pages = {}, 0
    for name, p in _payloads(site):
        t, sources = p["t"], p["s"]
        if any(len(s) > 1 and s[1] is not None for s in sources):
            assert p.get("u") == url, name      # a page with an upstream source links it
            linked_pages += 1
        for nid, e in p["n"].items():
            if len(e) > 7:
                path_i, commit_i, _ = sources[e[7][0]]
                assert commit_i is not None, (name, nid)   # only upstream files are anchored
                anchored[nid] = (t[path_i], e[7][1])
    assert anchored, "no number is anchored at its record's line"
    ranges = 0
    for nid, (path, anchor) in sorted(anchored.items()):
        n = numbers[nid]
        assert n["provenance"]["locator"].startswith(path), nid
        if "-" in anchor:               # a span of lines (a log's table): its first line
            ranges += 1
            continue
        line = _line(path, anchor)
        held = n["text"] in line or str(n["value"]) in line
        # a field the record lacks (shown "not recorded") is anchored at that record
        assert held or n["value"] == n["text"] == "not recorded", (nid, anchor, line[:120])
    measured(f"card source links: {linked_pages} page payloads carry the upstream address; "
             f"{len(anchored)} numbers anchored at their record's line ({ranges} at a span)")


def _num(locator: str, *sources: Source) -> Number:
    return Number("x", 1, "1", "", "measured", sources, locator, "read")


def test_an_anchor_needs_an_upstream_source_the_locator_starts_with_and_a_line():
    up = Source("results/a.jsonl", "c0ffee", "b10b")
    md = Source("results/results.md", "c0ffee", "b10b")
    ours = Source("data/sim/results.md")
    assert record_anchor(_num("results/a.jsonl:12 (config record)", up)) == ("results/a.jsonl", "L12")
    assert record_anchor(_num('results/results.md §2, row "C", column "x" (line 62)', up, md)) \
        == ("results/results.md", "L62")
    assert record_anchor(_num("results/results.md, prose line 5", md)) == ("results/results.md", "L5")
    assert record_anchor(_num("results/results.md, lines 1–168", md)) == ("results/results.md", "L1-L168")
    assert record_anchor(_num("results/results.md (recomputed)", md)) is None
    assert record_anchor(_num("data/sim/results.md §3, table 'T' (line 4)", ours)) is None
    assert record_anchor(_num("derived from the records of the listed logs (line 4)", up)) is None


# ---- links to our own source (docs/site-config.md, "Links to our own source")

MAKERS = ("add(", "Cell(", "Quantity(", "number(")


def _statement(path: str, line: int) -> str:
    """The source from `line` of `path` to the end of the call that starts there."""
    lines = (ROOT / path).read_text(encoding="utf-8").split("\n")
    out, depth = [], 0
    for text in lines[line - 1:]:
        out.append(text)
        depth += text.count("(") - text.count(")")
        if depth <= 0:
            break
    return "\n".join(out)


def test_every_number_s_card_links_the_line_of_our_code_that_made_it(built_site, measured):
    from cit.siteconfig import parse_site
    site = Path(built_site)
    repo = parse_site((ROOT / "site.yaml").read_text(encoding="utf-8")).repository
    assert repo, "site.yaml names the project's repository"
    stamp = json.loads((site / "numbers.json").read_text())["build"]
    numbers = {n["id"]: n for n in json.loads((site / "numbers.json").read_text())["numbers"]}
    code_url = f"{repo[0]}/blob/{stamp['commit']}/"
    made, files = {}, set()
    for name, p in _payloads(site):
        if not p["n"]:
            continue
        assert p.get("r") == code_url, name
        assert set(p["o"]) == set(p["n"]), (name, sorted(set(p["n"]) - set(p["o"]))[:5])
        for nid, (path_i, line) in p["o"].items():
            made[nid] = (p["t"][path_i], line)
    for nid, (path, line) in sorted(made.items()):
        assert numbers[nid]["provenance"]["code"] == f"{path}:{line}", nid
        statement = _statement(path, line)
        assert any(m in statement for m in MAKERS), (nid, path, line, statement[:200])
        files.add(path)
    kinds = {numbers[i]["kind"] for i in made}
    assert {"simulated", "derived", "assumption", "measured", "fitted"} <= kinds, kinds
    assert {"study/sim/report.py", "cit/benchfigures.py", "study/tables.py"} <= files, files
    measured(f"code links: {len(made)} numbers on pages link the line that made them, in "
             f"{len(files)} files")


def test_the_footer_links_the_commit_and_each_page_its_markdown(built_site):
    from cit.siteconfig import parse_site
    site = Path(built_site)
    repo = parse_site((ROOT / "site.yaml").read_text(encoding="utf-8")).repository
    commit = json.loads((site / "numbers.json").read_text())["build"]["commit"]
    pages = sorted(site.rglob("index.html"))
    assert pages
    for page in pages:
        html = page.read_text(encoding="utf-8")
        assert f'<a href="{repo[0]}/commit/{commit}"><code>{commit[:12]}</code></a>' in html, page
        m = re.search(rf'<a href="{re.escape(repo[0])}/edit/{repo[1]}/([^"]+)">Edit this page</a>', html)
        assert m and (ROOT / m.group(1)).is_file(), page
