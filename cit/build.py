"""The build, one call per stage (docs/architecture.md):

    vendor -> the data stages site.yaml declares, in order (cit/stages.py: each adds
    its numbers, checked claims and data to the registry) -> the build's own figures
    -> blocks -> render -> claim check -> naked-number check -> link check
    -> site/ written atomically (cit/output.py), with numbers.json and the search index

Everything is computed before anything is written; a failed build leaves the previous
output folder untouched, and an --out the build did not make is never replaced.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections import Counter
import sys
import threading
import time
import concurrent.futures
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from . import (benchfigures, buildrecord, cache, claims, incremental, links, naked, output, search,
               sentencerules, sentences, render, sharing, siteconfig, stages, vendor)
from .progress import Progress, counted, silent, summary_lines
from .blocks import BlockInputs, block_table, compute_now
from .errors import BuildError
from .palette import palette_from
from .reads import Reads
from .registry import Registry

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class BuildResult:
    registry: Registry
    files: dict[str, bytes]
    figures: dict[str, object] = field(default_factory=dict)
    seconds: float = 0.0
    records: dict = field(default_factory=dict)     # page records for the next build
    rendered: list = field(default_factory=list)    # pages rendered, not reused
    reused: list = field(default_factory=list)      # stages taken from .cache/
    checked: list = field(default_factory=list)     # each data stage's line: what it checked
    unpinned: list = field(default_factory=list)    # files in vendored/ the lock does not pin


def run_stages(root: Path = ROOT, vendor_from=None, use_cache: bool = True,
               progress: Progress | None = None, store: bool = True,
               base_url: str | None = None, warm: "Warm | None" = None,
               changed=None, index_later=None) -> BuildResult:
    """Run every stage in memory; nothing is written but verified vendored files and the
    caches. Cold (use_cache False): every page rendered and checked. `store` False
    (--check): nothing written. `base_url`: --base-url. `warm` (--serve, `Warm`): what
    the server keeps from its last good build; with `changed` (the paths saved since),
    its data part is taken as it is when none of them is a file it read. `index_later`
    (--serve): called with a function that makes the search index's files (and then
    stores the caches); the files returned lack them. Without it the index is part of
    the files returned."""
    t0 = time.perf_counter()
    progress = progress or silent()
    use_cache = use_cache and cache.usable(root)
    # after one failed write, no more (a full disk); --serve writes after the reload
    store_vendored, store = store, store and use_cache     # --check: neither
    writes = cache.Writes(root, store, defer=index_later is not None)
    data = warm.data if warm is not None and warm.holds(changed) else None
    if data is None:
        data = _data_part(root, vendor_from, use_cache, store_vendored, progress, writes)
    reads = data.reads.fork(data.read, warm.files if warm is not None else {})
    site_cfg, code = data.site_cfg, data.code
    reg = dataclasses.replace(data.staged.registry, **{     # the build's figures join it
        f.name: dict(getattr(data.staged.registry, f.name))
        for f in dataclasses.fields(data.staged.registry)})
    memo = cache.json_memo(root, store, writes) if use_cache else compute_now
    memo = warm.memo_of(memo) if warm is not None else memo
    found = sentences.check(root, reads, memo, reg.claims, code, site_cfg.packages(),
                            site_cfg.yaml_name_keys, data.vocabulary, defer=True)
    figures = buildrecord.build_figures(root, data.upstream_files, data.staged.figures,
                                        reg.claims, len(reg), found,
                                        Counter(n.kind for n in reg.numbers.values()), reads,
                                        bench_measured=_bench_measured(reg))
    build_info = dict(data.stamp, base_url=sharing.chosen_base_url(base_url, site_cfg),
                      verification=buildrecord.register_build_figures(
                          reg, figures, site_cfg.tested, site_cfg.where.get("tested", "site.yaml")),
                      source_url=data.source_url, figures={k: v[0] for k, v in figures.items()})
    inputs = BlockInputs(reg, root, root / "content", data.templates, data.staged.data, memo,
                         _palette(data.staged.data, site_cfg))
    blocks = block_table(inputs, site_cfg.blocks, data.staged.key)
    previous = (warm.records if warm is not None else read_page_records(root)) \
        if use_cache else {}
    with progress.stage("render", "rendering the pages"):
        site = render.render_site(reg, root / "content", data.templates, blocks,
                                  build_info, code=code if use_cache else None,
                                  previous=previous, memo=memo,
                                  bundle_root=_bundle_root(root), reads=reads, site=site_cfg,
                                  palette_css=inputs.palette.css(),
                                  compiled=warm.compiled if warm is not None else None)
        _say_rendered(progress, site)
        render.check_nav(site_cfg, set(site.pages))
    with _indexing(site, reg, memo, now=index_later is None) as index:
        with progress.stage("checks", "checking claims, naked numbers and links"):
            progress.done(check_site(reg, site, previous, root, data.allowlist,
                                     sharing.base_path(build_info["base_url"])))
            sentences.raise_problems(found)     # after the pages' own, more basic, errors
        if site.unused_terms:
            print("glossary terms no page uses: " + ", ".join(site.unused_terms),
                  file=sys.stderr)
        files = site.files | {"numbers.json": numbers_json(
            root, reg, site, figures, data.stamp, registry_reads(code, reads), use_cache,
            writes)}
    result = BuildResult(reg, files, figures, 0.0, site.records, site.rendered,
                         list(progress.reused), list(data.staged.summaries.values()),
                         data.unpinned)
    if warm is not None:
        warm.keep(data, result, reads.held)
    return _completed(result, index, writes, root if store else None, index_later, t0)


@dataclass
class DataPart:
    """What a build makes before it reads the pages, and every read that went into it
    (`read`, cit/reads.py entries; `reads`, the Reads they were made with): site.yaml,
    the verified upstream files, the data stages' results, the code's key, the build
    stamp and what the checks of the pages read (allow-list, sentence vocabulary)."""
    reads: Reads
    read: dict
    site_cfg: object
    templates: Path
    upstream_files: int
    staged: stages.StagesResult
    code: str
    stamp: dict
    source_url: str | None
    allowlist: list
    vocabulary: object
    unpinned: list


def _data_part(root: Path, vendor_from, use_cache: bool, store: bool, progress: Progress,
               writes) -> DataPart:
    """Site.yaml, the upstream files (written to vendored/ unless `store` is False) and
    the data stages (each from its cache when what it read is unchanged; the caches
    written when `writes` allows), then what the checks of the pages read."""
    reads, site_cfg, templates = _site_config(root, Reads(root))
    with progress.stage("vendor", "verifying the upstream files against the lock"):
        with reads.scope() as vendor_reads:
            vendored = vendor.materialise(vendor_from, root, reads=reads, store=store)
        progress.done(f"{counted(len(vendored), 'upstream file')} verified against "
                      "vendored/lock.yaml (git blob SHA-1)")
    code = incremental.code_key(root, site_cfg.packages())
    # each stage's key: its own reads and the upstream files (site.yaml only names it)
    staged = stages.run_stages(root, site_cfg, vendored, reads, vendor_reads, code,
                               use_cache, writes.enabled, progress, writes)
    vocabulary = sentencerules.load_vocabulary(
        root, site_cfg.sentences, lambda key: site_cfg.where.get("sentences", "site.yaml"), reads)
    source_url = vendor.file_url_base(vendor.read_lock(root / "vendored" / "lock.yaml", reads))
    allowlist = naked.load_allowlist(root / "data" / "allowlist.yaml", reads)
    return DataPart(reads, reads.shared(), site_cfg, templates, len(vendored), staged, code,
                    buildrecord.git_stamp(root), source_url, allowlist, vocabulary,
                    vendor.unpinned(root, vendored))


def _site_config(root: Path, reads: Reads):
    """site.yaml, read and checked, with the folders every build needs (the templates
    named when missing); a study sharing the engine's templates gets a Reads that admits
    that folder too: (reads, site config, templates folder)."""
    site_cfg = siteconfig.load_site(root, reads)
    templates = siteconfig.folder_of(root, site_cfg, "templates")
    siteconfig.folder_of(root, site_cfg, "static")
    _require_folders(root, templates, site_cfg)
    if not templates.is_relative_to(reads.root):      # the engine's, shared by a study
        reads = siteconfig.reads_for(root, site_cfg)
        site_cfg = siteconfig.load_site(root, reads)
    return reads, site_cfg, templates


def _completed(result: BuildResult, index, writes, records_root: Path | None,
               index_later, t0: float) -> BuildResult:
    """The build with its search index (`index()` makes or waits for it) and the caches
    stored; or,
    with `index_later` (--serve), the build at once, and `index_later` given the
    function that waits for the index and stores the caches (the page records in
    `records_root`, when given; the writes held)."""
    def finish() -> dict[str, bytes]:
        found = index()
        if records_root is not None:
            write_page_records(records_root, result.records, result.files["numbers.json"],
                               writes)
        writes.flush()
        return found
    if index_later is not None:
        index_later(finish)
    else:
        result.files = result.files | finish()
    result.seconds = time.perf_counter() - t0
    return result


@contextlib.contextmanager
def _indexing(site, reg: Registry, memo, now: bool = True):
    """The block's value: a function returning the search index's files. With `now`,
    Pagefind indexes the pages in its own process while this one checks them (a failure
    in the block waits for it to end before it is raised); else (--serve) nothing
    starts until the function is called, after the reload."""
    def make() -> dict[str, bytes]:
        return search.search_files(search.search_records(site.files, reg.numbers), memo)
    if not now:
        yield make
        return
    pool = ThreadPoolExecutor(max_workers=1)
    index = pool.submit(make)
    pool.shutdown(wait=False)
    try:
        yield index.result
    except BaseException:
        index.cancel()
        concurrent.futures.wait([index])
        raise


def _require_folders(root: Path, templates: Path, site_cfg) -> None:
    """The folders every build reads, named when missing (rather than reported by what
    their absence breaks further on: docs/faults.md, N11)."""
    if not templates.is_dir():
        why = ("the folder of the templates the pages are rendered with (page.html, "
               "hub.html, deck.html, static/)")
        if "templates" in site_cfg.where:
            raise BuildError(site_cfg.where["templates"], f"templates: "
                             f"{site_cfg.templates} is not a folder; it should hold {why}")
        raise BuildError("templates", f"missing: {why}")
    if not (Path(root) / "content").is_dir():
        raise BuildError("content", "missing: the folder of the site's pages (hub.md, "
                         "pages/, decks/) and its glossary")


def _say_rendered(progress: Progress, site) -> None:
    """The render stage's line: pages rendered and pages kept (counted by URL: --no-cache
    keeps no records)."""
    kept = len(site.pages) - len(site.rendered)
    shown = (f" ({', '.join(site.rendered)})"
             if 0 < len(site.rendered) < len(site.pages) else "")
    progress.done(f"{len(site.rendered)} of {counted(len(site.pages), 'page')} "
                  f"rendered{shown}" + (f"; {kept} unchanged since the last good build"
                                        if kept else ""))
    if kept:
        progress.reused.append(f"{counted(kept, 'page')} (kept from the last good build: "
                               "the files read for them are unchanged; checked when "
                               "they were made)")


def registry_reads(code: str, reads: Reads) -> str:
    """A key over what the registry is made of: the code and the build's reads so far
    but the pages' Markdown (the sentence check reads it for the build figures, which
    numbers.json's key holds by value), so a page edit keeps numbers.json's text."""
    return incremental.text_key(code, {k: v for k, v in reads.shared().items()
                                       if not (k.startswith("f:content/") and k.endswith(".md"))})


def _bench_measured(reg: Registry) -> int:
    """How many measured numbers come from the benchmarks' record."""
    return sum(n.kind == "measured" and any(s.path == benchfigures.BENCH for s in n.sources)
               for n in reg.numbers.values())


def _palette(data: dict, site_cfg):
    """The palette a data stage returned (`data["palette"]`, cit/palette.py), checked;
    none: an empty one."""
    return palette_from(data.get("palette"),
                        site_cfg.where.get("stages", "site.yaml") + " (a stage's palette)")


def check_site(reg: Registry, site, previous: dict, root: Path, allowlist,
               root_path: str = "/") -> str:
    """The checks over the rendered site: claims, naked numbers (under the allow-list
    entries `allowlist`), links (404.html's, made every build, start with `root_path`,
    the base URL's path). Pages kept from the last good build were checked when
    they were made, under the same allow-list and data (their records hold those
    files' reads). Returns what was checked."""
    check_claims(reg)
    fresh = {k: v for k, v in site.files.items() if k not in site.kept}
    check_naked_numbers(fresh, reg, allowlist, root, site.sources)
    # links from the pages rendered; from every page when one of those lost or gained an
    # element id (a link elsewhere may point at it) or the set of pages changed
    moved = set(previous) != set(site.records) or any(
        previous[o].anchors != site.records[o].anchors for o in site.rendered if o in previous)
    linked = [k for k in site.files if k.endswith(".html") and (
        moved or k in site.rendered or k == sharing.NOT_FOUND)]
    links.require_intact(site.files, linked, site.sources, root, root_path)
    pages = sum(k.endswith(".html") for k in fresh)
    claims_true = f"{counted(len(reg.claims), 'claim')} true"
    if not pages:
        return claims_true + "; no page rendered, so no page to scan again"
    return (f"{claims_true}; {counted(pages, 'page')} free of naked numbers; the links "
            f"of {counted(len(linked), 'page')} resolve")


def _bundle_root(root: Path) -> Path:
    """The project whose vendored/plotly/ bundle is shipped: the one built, when it
    has one, else the engine's (a study need not carry the engine's dependency)."""
    return root if (root / "vendored" / "plotly").is_dir() else ROOT


PAGE_RECORDS, PAGE_RECORDS_FORMAT = "pages", "page-records-2"   # each record has its own key


def read_page_records(root: Path) -> dict:
    """The page records of the last good build from .cache/ (verified), or {}."""
    return incremental.records_from_json(
        cache.read_json(root, PAGE_RECORDS, PAGE_RECORDS_FORMAT),
        lambda name: cache.read_blob(root, name))


def write_page_records(root: Path, records: dict, numbers_blob: bytes,
                       writes: cache.Writes | None = None) -> None:
    """Store the page records (their texts as blobs) and drop the blobs nothing names
    any more (numbers.json's text is kept as one too; see numbers_json)."""
    names: set[str] = set()
    writes = writes or cache.Writes(root)

    def store(data: bytes) -> str:
        name = cache.write_blob(root, data, writes)
        names.add(name)
        return name
    cache.write_json(root, PAGE_RECORDS, PAGE_RECORDS_FORMAT,
                     incremental.records_to_json(records, store), writes)
    names.add(cache.write_blob(root, numbers_blob, writes))
    cache.prune_blobs(root, names)


def numbers_json(root: Path, reg: Registry, site, figures, stamp, data_reads: str,
                 use_cache: bool, writes: cache.Writes | None = None) -> bytes:
    """site/numbers.json (buildrecord.numbers_json), its text kept in .cache/ (a blob
    named in `numbers-json`) under the hash of everything it holds (the registry, by
    the code and the reads it was made from; the usage, the figures, the stamp) and
    reused when that matches (writing it out is a third of a content rebuild)."""
    key = incremental.text_key(data_reads, [
        site.appears, site.claim_pages, {k: v[0] for k, v in figures.items()},
        stamp["commit"], stamp["commit_date"]])
    if use_cache:
        name = cache.read_json(root, "numbers-json", key)
        data = cache.read_blob(root, name) if isinstance(name, str) else None
        if data is not None:
            return data
    data = buildrecord.numbers_json(reg, site.appears, site.claim_pages, figures, stamp)
    if use_cache:
        writes = writes or cache.Writes(root)
        cache.write_json(root, "numbers-json", key, cache.write_blob(root, data, writes),
                         writes)
    return data


def check_claims(reg: Registry) -> None:
    """No checked claim may be false, cited or not (cit/claims.py)."""
    wrong = claims.false_claims(reg.claims)
    if wrong:
        raise BuildError("claim check", "false claims (no page cites them, but none may "
                         "stand):\n  " + "\n  ".join(wrong))


def _content_texts(root: Path, sources: dict[str, str], pages) -> dict[str, tuple[str, str]]:
    """page -> (its content file, that file's text) for `pages`, read only when the
    naked-number check failed, to name each finding's Markdown line (a file that cannot
    be read now is left out: its findings name their page)."""
    reads, out = Reads(root), {}
    for page in pages:
        if page in sources:
            text = reads.maybe_text(root / sources[page])
            if text is not None:
                out[page] = (sources[page], text)
    return out


def check_naked_numbers(files: dict[str, bytes], reg: Registry, entries,
                        root: Path | None = None, sources: dict[str, str] | None = None) -> None:
    """The no-naked-numbers check over every page (cit/naked.py) under the allow-list
    `entries`; BuildError listing the first twenty findings, in page order, each at its
    content file's line where `sources` (page -> content file under `root`) finds it."""
    failures = naked.check_pages(files, numbers=reg.numbers, series=reg.series,
                                 allowlist=entries)
    if failures and root is not None and sources:
        failing = {f.split(":", 1)[0] for f in failures}
        failures = naked.check_pages(
            {p: b for p, b in files.items() if p in failing}, numbers=reg.numbers,
            series=reg.series, allowlist=entries,
            sources=_content_texts(root, sources, failing))
    if failures:
        raise BuildError("naked-number check", "digits outside number elements (write "
                         "each as a registered number, :n[id], or allow it with a reason "
                         "in data/allowlist.yaml; docs/numbers.md):\n  "
                         + "\n  ".join(failures[:20]))


@dataclass
class Warm:
    """What `--serve` keeps in memory from its last good build (docs/architecture.md,
    "Serving"): the data part, used again while no file it read is saved; the page
    records, so that only the pages whose reads changed are rendered; the templates'
    compiled code; the memo's values this build used and the files it read (given again
    while each is as it was: cit/reads.py, `fork`), so that nothing is read back from
    disk on the way from a save to the reload but what was saved."""
    data: DataPart | None = None
    records: dict = field(default_factory=dict)
    compiled: render.TemplateMemory = field(default_factory=render.TemplateMemory)
    values: dict = field(default_factory=dict)      # (memo name, key) -> value
    used: dict = field(default_factory=dict)
    files: dict = field(default_factory=dict)       # Reads.held of the last good build

    def holds(self, changed) -> bool:
        """Whether the data part stands after the saves `changed` (paths relative to the
        root; None: the first build): none of them is a file it read, or lies in (or
        holds) a folder it listed."""
        if self.data is None or changed is None:
            return False
        listed = [e[2:].partition("|")[0] for e in self.data.read if e.startswith("g:")]
        return not any("f:" + c in self.data.read or any(
            f in (".", c) or f.startswith(c + "/") or c.startswith(f + "/") for f in listed)
            for c in changed)

    def memo_of(self, memo):
        """`memo` with the values of the last build in front of it."""
        self.used = {}

        def kept(name: str, key: str, compute):
            if (name, key) not in self.values:
                self.values[(name, key)] = memo(name, key, compute)
            self.used[(name, key)] = self.values[(name, key)]
            return self.used[(name, key)]
        return kept

    def keep(self, data: DataPart, result: BuildResult, files: dict) -> None:
        """A good build's parts, for the next one (the memo's values it used only)."""
        self.data, self.records, self.files = data, result.records, files
        self.values = self.used


def serve_rebuilder(root: Path, vendor_from, use_cache: bool = True):
    """The rebuild function `--serve` calls with the changed paths: a build in this
    process that keeps what it made in memory (`Warm`), so that a content edit renders
    only the pages whose inputs changed, from the data part in memory (with
    `use_cache` False, --no-cache: every save rebuilds cold). With `later`
    (serve._build's), the pages are returned before the search index and the cache
    writes: `later(finish)` gets a function making them, run after the reload; the next
    rebuild waits for it first (its cache writes end before the next build reads the
    cache)."""
    warm, pending = (Warm() if use_cache else None), []

    def rebuild(changed, later=None):
        concurrent.futures.wait([f for f in pending if f is not None])
        pending.clear()
        hand_on = None if later is None else (lambda finish: pending.append(later(finish)))
        return run_stages(root, vendor_from, use_cache=use_cache, warm=warm, changed=changed,
                          index_later=hand_on).files
    return rebuild


def main(argv=None, prog: str = "python build.py", default_root: Path = ROOT) -> int:
    """The command line (build.py's, and `cit build|serve|check|diff`'s through
    cit/cli.py, whose project is the working folder by default)."""
    a = _arguments(argv, prog, default_root)
    _printable_anywhere()
    root = Path(a.root).resolve()
    if a.diff:
        from . import numbersdiff
        return numbersdiff.main(root, a.diff, a.fail_on_change, a.vendor_from, run_stages)
    use_cache = not (a.no_cache or os.environ.get("CIT_NO_CACHE"))
    if a.serve:
        from . import serve
        return serve.serve(root, a.port, serve_rebuilder(root, a.vendor_from, use_cache))
    out = Path(a.out).absolute() if a.out else root / "site"
    progress = Progress(quiet=a.quiet)
    state = {"committed": False}
    try:
        with _sigterm_as_interrupt():
            result = _build_and_write(a, root, out, use_cache, progress, state)
    except BuildError as e:
        print(f"build failed: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("build interrupted: " + ("nothing written" if a.check else f"{out} " + (
            "holds the new site (it was in place)" if state["committed"] else
            "is as it was (nothing written)")), file=sys.stderr)
        return 130
    if result.unpinned:
        print(f"vendored/ holds {counted(len(result.unpinned), 'file')} the lock does not "
              "pin, which the build did not read: " + ", ".join(result.unpinned),
              file=sys.stderr)
    if a.check:
        unpinned = links.unpinned_links(result.files, [k for k in result.files
                                                       if k.endswith(".html")])
        print(f"external links to pages that can change (allowed): {len(unpinned)}"
              + "".join(f"\n  {line}" for line in unpinned))
    if not a.quiet:
        print("\n".join(summary_lines(result.figures, _kinds(result.registry),
                                       None if a.check else _shown_path(out),
                                       result.reused, result.checked)))
        print(f"Done in {result.seconds:.2f} s.")
    return 0


def _printable_anywhere() -> None:
    """In a locale whose terminal cannot show a character the build prints (an em dash
    under LC_ALL=C), print a stand-in rather than fail (the files are UTF-8 anyway)."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")


def _build_and_write(a, root: Path, out: Path, use_cache: bool, progress,
                     state: dict) -> BuildResult:
    """The stages, then the site put in place in one swap (cit/output.py), with Ctrl-C
    and SIGTERM held during the swap; `state["committed"]` says it happened."""
    inputs = build_inputs(root, a.vendor_from) + other_project_inputs(out, root)
    if not a.check:
        target = output.check_target(out, root, inputs)   # refuse a bad --out before the work
        restored = output.recover(target)        # a previous site a killed swap left aside
        if restored:
            print(f"{_shown_path(out)}: the previous site put back from {restored}, where a "
                  "build killed between the two renames of its swap left it", file=sys.stderr)
    result = run_stages(root, a.vendor_from, use_cache, progress=progress,
                        store=not a.check,     # --check reads the caches, writes none
                        base_url=a.base_url)
    if not a.check:
        with progress.stage("write", f"writing {_shown_path(out)}"):
            staged = output.stage_site(result.files, out, root, inputs)
            with output.signals_held():
                output.commit(staged)
                state["committed"] = True
            progress.done(f"{counted(len(result.files), 'file')} written to "
                          f"{_shown_path(out)}/ in one swap")
    return result


def build_inputs(root: Path, vendor_from) -> list[Path]:
    """What a build reads, which no --out may hold or lie inside (docs/output.md): the
    project's inputs and code (site.yaml names the study's packages and templates), its
    caches and git folder, and the upstream mirror."""
    site_cfg = siteconfig.load_site(root)
    names = ("build.py", "site.yaml", "cit", *site_cfg.packages(), "content", "data",
             "templates", site_cfg.templates, "vendored", ".cache", ".git")
    found = [root / n for n in dict.fromkeys(names) if os.path.lexists(root / n)]
    mirror = vendor.mirror_dir(vendor_from, root)
    return found + ([mirror] if mirror else []) + [Path(__file__).resolve().parent]


def other_project_inputs(out: Path, root: Path) -> list[Path]:
    """The input folders of any other project (a folder with a site.yaml) that holds
    `out`: a study's site may not be written into another's inputs (docs/faults.md,
    N19). Its site.yaml is parsed, not loaded (nothing of it is imported)."""
    here, found = Path(root).resolve(), []
    for folder in Path(os.path.realpath(os.path.abspath(out))).parents:   # never raises
        if folder == here or not (folder / siteconfig.NAME).is_file():
            continue
        names = ["build.py", "site.yaml", "cit", "content", "data", "templates", "vendored",
                 ".cache"]
        try:
            site = siteconfig.parse_site((folder / siteconfig.NAME).read_text("utf-8"))
            names += [*site.packages(), site.templates] + ([site.static] if site.static else [])
        except (BuildError, OSError, UnicodeDecodeError):
            pass          # its own build reports its site.yaml; its usual folders stand
        found += [folder / n for n in dict.fromkeys(names) if os.path.lexists(folder / n)]
    return found


def _kinds(reg: Registry) -> dict[str, int]:
    """How many of the registry's numbers are of each kind (docs/numbers.md)."""
    counts: dict[str, int] = {}
    for n in reg.numbers.values():
        counts[n.kind] = counts.get(n.kind, 0) + 1
    return counts


def _shown_path(out: Path) -> str:
    """The output folder as a newcomer would type it: relative to the working folder
    when it is inside it."""
    try:
        return out.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(out)


def _arguments(argv, prog: str = "python build.py", default_root: Path = ROOT):
    import argparse
    ap = argparse.ArgumentParser(prog=prog,
                                 description="Build the results site into site/.")
    ap.add_argument("--out", help="output folder (default: site/ in the project built)")
    ap.add_argument("--check", action="store_true",
                    help="run every stage and check, write no site and no cache")
    ap.add_argument("--vendor-from", help="folder holding the upstream files (a mirror)")
    ap.add_argument("--no-cache", action="store_true",
                    help="cold build: ignore and write no .cache/ (CI's clean clone has none)")
    ap.add_argument("--quiet", action="store_true",
                    help="print nothing but errors (for scripts)")
    ap.add_argument("--base-url", metavar="URL",
                    help="the address the site is published at (default: site.yaml's "
                    "base_url): canonical links, sitemap.xml, robots.txt, the share image")
    ap.add_argument("--serve", action="store_true",
                    help="build, serve on 127.0.0.1 from memory, rebuild and reload on save")
    ap.add_argument("--port", type=int, default=8000, help="port for --serve (default 8000)")
    ap.add_argument("--diff", metavar="OLD",
                    help="compare this build's numbers and claims with OLD (a numbers.json, "
                    "a built site folder or a git revision) and print the changes as Markdown")
    ap.add_argument("--fail-on-change", action="store_true",
                    help="with --diff: exit 1 when a number or claim changed")
    ap.add_argument("--root", default=str(default_root), metavar="DIR",
                    help="the project to build: a folder with its site.yaml, content/ and "
                    f"data/ (default: {'this checkout' if default_root == ROOT else 'the working folder'})")
    a = ap.parse_args(argv)
    # a relative --root, --out or --vendor-from is of the folder the command runs in,
    # the same for every command (--diff's old build is handed absolute paths)
    a.vendor_from = str(Path(a.vendor_from).absolute()) if a.vendor_from else None
    if a.serve and (a.check or a.out):
        print(f"{prog}: --serve writes nothing and checks as it builds: it takes "
              "--port, --no-cache and --vendor-from, not "
              + ("--check" if a.check else "--out"), file=sys.stderr)
        raise SystemExit(2)
    return a


@contextlib.contextmanager
def _sigterm_as_interrupt():
    """SIGTERM ends a build as Ctrl-C does (one line, the previous site kept); in the
    main thread only (a test may call main from another)."""
    import signal
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum, frame):
        raise KeyboardInterrupt
    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
