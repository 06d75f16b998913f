"""The build: vendor → runs → tables and their check → simulator and its check →
registry → render → naked-number check → link check → site/ written atomically, with
numbers.json (cit/output.py).

Everything is computed before anything is written; a failed build leaves the previous
output folder untouched, and an --out the build did not make is never replaced.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import cache, output, vendor, yamlio
from .errors import BuildError
from .registry import Registry, Source

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class BuildResult:
    registry: Registry
    files: dict[str, bytes]
    figures: dict[str, object] = field(default_factory=dict)
    seconds: float = 0.0


def git_stamp(root: Path) -> dict:
    """Commit and commit date of HEAD: the build stamp never reads the clock."""
    try:
        out = subprocess.run(["git", "log", "-1", "--format=%H %cI"], cwd=root,
                             capture_output=True, text=True, check=True).stdout.split()
        return {"commit": out[0], "commit_date": out[1]}
    except (subprocess.CalledProcessError, FileNotFoundError, IndexError):
        return {"commit": "uncommitted", "commit_date": "unknown"}


def _register_build_figures(reg: Registry, figures: dict[str, tuple]) -> list[tuple[str, str]]:
    """This build's own verification figures become numbers the /tested page shows."""
    pairs = []
    for key, (value, label, computation) in figures.items():
        reg.add(f"build.{key}", value, str(value), kind="derived",
                sources=(Source("cit/build.py"),), locator="this build's checks",
                computation=computation)
        pairs.append((label, f"build.{key}"))
    return pairs


def data_stage_key(root: Path) -> str:
    """Hash of everything the data stages read: the lock (which pins every vendored
    byte, re-verified on each build), our data files, and the code itself."""
    h = hashlib.sha256()
    files = [root / "vendored" / "lock.yaml", *(root / "data").rglob("*"),
             *(root / "cit").rglob("*.py")]
    for p in sorted(f for f in files if f.is_file()):
        h.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def _cached_shape(value) -> bool:
    """What data_stages stores: (registry, {name: (verified, total)}, cells, computed)."""
    return (isinstance(value, tuple) and len(value) == 4 and isinstance(value[0], Registry)
            and isinstance(value[1], dict) and isinstance(value[2], int))


def data_stages(root: Path, vendored, use_cache: bool):
    """Experiment and simulator stages: load, recompute, check, register. Their result is
    cached under the hash of their inputs, so a content-only edit or a no-op rebuild skips
    them (and the pandas and simpy imports); a cold build always runs every check."""
    key = data_stage_key(root)
    cached = cache.read(root, key, _cached_shape) if use_cache else None
    if cached is not None:
        reg, verification, sim_cells, computed = cached
        from . import sim
        sim.remember(root, computed)
        return reg, verification, sim_cells
    from . import experiment, sim
    study = yamlio.load((root / "data" / "study.yaml").read_text(), "data/study.yaml")
    reg = Registry()
    exp = experiment.load(vendored, root, study, reg)
    sim_cells = sim.build_stage(reg, exp, root)
    # plain (verified, total) pairs: unpickling the checker's own objects would import
    # it, and with it pandas, on every cached rebuild
    verification = {k: (c.verified, c.total) for k, c in exp.verification.items()}
    if use_cache:
        cache.write(root, key, (reg, verification, sim_cells, sim.last_computed(root)))
    return reg, verification, sim_cells


def compute(root: Path = ROOT, vendor_from=None, use_cache: bool = True) -> BuildResult:
    """Run every stage in memory; nothing is written except verified vendored files
    (and the data-stage cache)."""
    t0 = time.perf_counter()
    vendored = vendor.materialise(vendor_from, root)
    reg, verification, sim_cells = data_stages(root, vendored, use_cache)
    from . import benchfigures
    benchfigures.register(reg, root)

    from . import render
    from .blocks import generic_blocks
    figures = {
        "upstream_files": (len(vendored), "Upstream files verified against the lock (git blob SHA-1)",
                           "files in vendored/lock.yaml whose bytes matched"),
    }
    for key, (verified, total) in verification.items():
        figures[f"results_md_numbers.{key}"] = (
            verified, f"Numbers verified in {key} results.md",
            "digit runs of the upstream results.md compared with our recomputation")
        figures[f"results_md_total.{key}"] = (
            total, f"Numbers in {key} results.md",
            "digit runs in the upstream results.md")
    figures["sim_cells"] = (sim_cells, "Simulator cells verified",
                            "cells of data/sim/results.md recomputed and compared")
    # A false claim fails the build below, so a published "N of N" is true.
    figures["claims_verified"] = (
        sum(c.holds for c in reg.claims.values()), "Checked claims verified",
        "claims (kind claim) whose predicate held on this build's data")
    figures["claims_total"] = (len(reg.claims), "Checked claims",
                               "claims (kind claim) in the registry")
    from .markdown import load_glossary
    from .naked import load_allowlist
    glossary_path = root / "content" / "glossary.yaml"
    figures["glossary_terms"] = (
        len(load_glossary(glossary_path.read_text(), "content/glossary.yaml")),
        "Glossary terms", "terms defined in content/glossary.yaml")
    figures["allowlist_size"] = (
        len(load_allowlist(root / "data" / "allowlist.yaml")),
        "Entries in the allow-list of structural numerals", "entries of data/allowlist.yaml")
    # The build fails below unless the check finds nothing, so a published 0 is true.
    figures["naked_numbers"] = (0, "Naked numbers found on the site",
                                "digits outside number elements found by this build's check")
    build_info = dict(git_stamp(root))
    blocks = generic_blocks(reg)
    for mod_name in ("charts", "chain", "explorer"):
        try:
            mod = __import__(f"cit.{mod_name}", fromlist=["blocks"])
        except ImportError:
            continue
        if hasattr(mod, "blocks"):
            blocks.update(mod.blocks(reg, root))
    # Every registry entry is listed on /method, so the site's number count is the
    # registry's size once these build figures (this one included) are added.
    figures["site_numbers"] = (None, "Numbers on the site with provenance",
                               "entries of the number registry, every one shown on the site")
    figures["site_numbers"] = (len(reg) + len(figures), *figures["site_numbers"][1:])
    build_info["verification"] = _register_build_figures(reg, figures)
    site = render.render_site(reg, root / "content", root / "templates", blocks, build_info,
                              allowlist_path=root / "data" / "allowlist.yaml")
    from .claims import false_claims
    wrong = false_claims(reg.claims)
    if wrong:
        raise BuildError("claim check", "false claims (no page cites them, but none may "
                         "stand):\n  " + "\n  ".join(wrong))
    if site.naked_report.failures:
        raise BuildError("naked-number check", "digits outside number elements:\n  "
                         + "\n  ".join(site.naked_report.failures[:20]))
    from . import links
    links.require_intact(site.files, [k for k in site.files if k.endswith(".html")],
                         site.sources, root)
    if site.unused_terms:
        print("glossary terms no page uses: " + ", ".join(site.unused_terms), file=sys.stderr)
    files = dict(site.files)
    numbers = {"numbers": [reg.numbers[i].as_json(sorted(site.appears.get(i, [])))
                           for i in sorted(reg.numbers)],
               "claims": [reg.claims[c].as_json(site.claim_pages.get(c, []))
                          for c in sorted(reg.claims)],
               "build": {k: v[0] for k, v in figures.items()} | {
                   "commit": build_info["commit"], "commit_date": build_info["commit_date"]}}
    files["numbers.json"] = (json.dumps(numbers, indent=1, sort_keys=True, ensure_ascii=False)
                             + "\n").encode()
    return BuildResult(reg, files, figures, time.perf_counter() - t0)


def serve_rebuilder(root: Path, vendor_from):
    """The rebuild function `--serve` calls with the changed paths: a build in this
    process with the data-stage cache, its files kept in memory."""
    def rebuild(changed):
        return compute(root, vendor_from, use_cache=True).files
    return rebuild


def main(argv=None) -> int:
    import argparse
    ap = argparse.ArgumentParser(prog="python build.py",
                                 description="Build the results site into site/.")
    ap.add_argument("--out", default=str(ROOT / "site"), help="output folder (default site/)")
    ap.add_argument("--check", action="store_true",
                    help="run every stage and check, write nothing")
    ap.add_argument("--vendor-from", help="folder holding the upstream files (a mirror)")
    ap.add_argument("--no-cache", action="store_true",
                    help="cold build: ignore and write no .cache/ (CI's clean clone has none)")
    ap.add_argument("--serve", action="store_true",
                    help="build, serve on 127.0.0.1 from memory, rebuild and reload on save")
    ap.add_argument("--port", type=int, default=8000, help="port for --serve (default 8000)")
    ap.add_argument("--root", default=str(ROOT), help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.serve:
        from . import serve
        return serve.serve(Path(a.root), a.port, serve_rebuilder(Path(a.root), a.vendor_from))
    try:
        use_cache = not (a.no_cache or os.environ.get("CIT_NO_CACHE"))
        if not a.check:
            output.check_target(Path(a.out))     # refuse a bad --out before the work
        result = compute(Path(a.root), a.vendor_from, use_cache)
        if not a.check:
            output.write_site(result.files, Path(a.out))
    except BuildError as e:
        print(f"build failed: {e}", file=sys.stderr)
        return 1
    f = result.figures
    for key in sorted(k for k in f if k.startswith("results_md_numbers.")):
        name = key.split(".", 1)[1]
        print(f"{name} results.md: {f[key][0]} of {f[f'results_md_total.{name}'][0]} "
              "numbers verified")
    print(f"data/sim/results.md: {f['sim_cells'][0]} cells verified")
    print(f"{f['claims_verified'][0]} of {f['claims_total'][0]} claims verified")
    if a.check:
        from . import links
        unpinned = links.unpinned_links(result.files, [k for k in result.files
                                                       if k.endswith(".html")])
        print(f"external links to pages that can change (allowed): {len(unpinned)}"
              + "".join(f"\n  {line}" for line in unpinned))
    print(f"{len(result.registry)} numbers in the registry; "
          f"{len(result.files)} files; {result.seconds:.2f} s"
          + ("" if a.check else f" -> {a.out}"))
    return 0
