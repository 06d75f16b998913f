"""The build's own record: its stamp (commit and commit date, never the clock), the
figures it verified (shown on /tested as registered numbers) and numbers.json, every
registered number with the pages it appears on (docs/numbers.md, "The number index
and numbers.json").
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Mapping

from .errors import BuildError
from .fmt import fmt_int
from .glossary import load_glossary
from .naked import load_allowlist
from .reads import Reads
from .registry import Registry, Source

PAGE_TEXT = True     # its string literals reach pages (docs/claims.md, "Sentences the build finds")


def git_stamp(root: Path) -> dict:
    """Commit and commit date of HEAD: the build stamp never reads the clock."""
    try:
        out = subprocess.run(["git", "log", "-1", "--format=%H %cI"], cwd=root,
                             capture_output=True, text=True, check=True).stdout.split()
        return {"commit": out[0], "commit_date": out[1]}
    except (subprocess.CalledProcessError, FileNotFoundError, IndexError):
        return {"commit": "uncommitted", "commit_date": "unknown"}


def measured_at(root: Path) -> dict:
    """What a benchmark script records beside its figures (docs/testing.md): the commit
    whose code it measured, that commit's date, and whether the working tree differed
    from it (data/benchmarks.yaml, which the scripts write, aside)."""
    stamp = git_stamp(root)
    try:
        status = subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True,
                                text=True, check=True).stdout.splitlines()
    except (subprocess.CalledProcessError, FileNotFoundError):
        status = ["unknown"]
    changed = [s for s in status if s[3:].strip() != "data/benchmarks.yaml"]
    return {"commit": stamp["commit"], "date": stamp["commit_date"],
            "uncommitted_changes": bool(changed)}


# the figures every build records; the data stages add theirs (cit/stages.py)
ENGINE_FIGURES = ("upstream_files", "claims_verified", "claims_total", "glossary_terms",
                  "allowlist_size", "sentences_found", "sentences_checked",
                  "sentences_exempt", "sentence_probes", "sentence_probes_flagged",
                  "sentence_probes_plain", "sentence_probes_plain_flagged", "naked_numbers",
                  "measured_benchmarks", "measured_study", "site_numbers")


def build_figures(root: Path, upstream_files: int, stage_figures: Mapping[str, tuple],
                  claims: Mapping, registry_size: int, sentences, kinds=None,
                  reads: Reads | None = None, bench_measured: int = 0) -> dict[str, tuple]:
    """key -> (value, label on /tested, computation) for what this build verified.

    `stage_figures`: what the data stages verified, in the same shape, placed after
    the upstream files; `claims`: the registry's checked claims; `registry_size`: the
    registry's entries before these figures are added; `sentences`: the
    comparing-sentence check's report (cit/sentences.py); `kinds`: kind -> count of the
    registry's entries before these figures are added; `bench_measured`: how many
    measured ones are this site's own benchmark figures (data/benchmarks.yaml), not the
    study's."""
    reads = reads or Reads(root)
    glossary = load_glossary(reads.text(root / "content" / "glossary.yaml"),
                             "content/glossary.yaml")
    figures = {
        "upstream_files": (upstream_files, "Upstream files verified against the lock (git blob SHA-1)",
                           "files in vendored/lock.yaml whose bytes matched"),  # :x[label]
    }
    for key, fig in stage_figures.items():
        if key in ENGINE_FIGURES or key.startswith(("kind_count.", "sentence_reason.")):
            raise BuildError("site.yaml stages", f"a stage's figure is named {key!r}, "
                             "which is one of the build's own")
        figures[key] = fig
    # A false claim fails the build, so a published "N of N" is true.
    figures["claims_verified"] = (
        sum(c.holds for c in claims.values()), "Checked claims verified",
        "claims (kind claim) whose predicate held on this build's data")
    figures["claims_total"] = (len(claims), "Checked claims",
                               "claims (kind claim) in the registry")
    figures["glossary_terms"] = (len(glossary), "Glossary terms",
                                 "terms defined in content/glossary.yaml")
    figures["allowlist_size"] = (
        len(load_allowlist(root / "data" / "allowlist.yaml", reads)),
        "Entries in the allow-list of structural numerals", "entries of data/allowlist.yaml")
    # every sentence read carries a claim or a reason, so adding one changes this count
    # and the pages that show it (docs/claims.md)
    figures["sentences_found"] = (sentences.found, "Sentences read, each carrying a claim or a reason",
                                  "every prose sentence of the pages, slides, glossary, chain "  # :x[label]
                                  "and templates, and each comparison candidate among the "
                                  "page text written in code")
    figures["sentences_checked"] = (sentences.checked, "Sentences carrying a checked claim",
                                    "sentences ending in a claim reference")
    figures["sentences_exempt"] = (sentences.exempt, "Sentences carrying a reason",
                                   "sentences ending in a reason mark")
    probe_words = (("sentence_probes", "Probe sentences that compare, in words the site does not use"),
                   ("sentence_probes_flagged", "Comparing probe sentences the detector flags"),
                   ("sentence_probes_plain", "Probe sentences that name nothing of the study"),
                   ("sentence_probes_plain_flagged", "Plain probe sentences the detector flags"))
    for (key, label), value in zip(probe_words, sentences.probes):
        figures[key] = (value, label, "the sentence check's detector run on the probe file "  # :x[label]
                                      "site.yaml names (sentences: probes)")
    for key, line, count in sentences.by_reason:
        figures[f"sentence_reason.{key}"] = (count, f"Exempt as “{key}”: {line}",  # :x[label]
                                             f"candidates whose reason mark names {key}")  # :x[label]
    # The build fails unless the check finds nothing, so a published 0 is true.
    figures["naked_numbers"] = (0, "Naked numbers found on the site",
                                "digits outside number elements found by this build's check")
    measured = (kinds or {}).get("measured", 0)
    figures["measured_benchmarks"] = (bench_measured, "Measured numbers from this site's benchmarks",
                                      "numbers of kind measured whose source is data/benchmarks.yaml")
    figures["measured_study"] = (measured - bench_measured,
                                 "Measured numbers from the study's own records",  # :x[label]
                                 "numbers of kind measured whose source is not "
                                 "data/benchmarks.yaml")
    # Every registry entry is listed on /method, so the site's number count is the
    # registry's size once these build figures (this one and the counts by kind
    # included) are added; every build figure is of kind derived.
    kinds = dict(kinds or {})
    names = sorted(set(kinds) | {"derived"})
    added = len(figures) + 1 + len(names)
    figures["site_numbers"] = (registry_size + added, "Numbers on the site with provenance",
                               "entries of the number registry, every one shown on the site")  # :x[method]
    kinds["derived"] = kinds.get("derived", 0) + added
    for kind in names:
        figures[f"kind_count.{kind}"] = (kinds[kind], f"Numbers of kind {kind}",  # :x[label]
                                         f"entries of the number registry of kind {kind}, "  # :x[label]
                                         "this build's figures counted as derived")
    return figures


def register_build_figures(reg: Registry, figures: Mapping[str, tuple], tested=(),
                           where: str = "site.yaml") -> list[tuple[str, str]]:
    """This build's figures become numbers `build.<key>`; returns (label, number id)
    pairs for the /tested table: those `tested` names (site.yaml), in its order, or
    every figure when it names none. A key it names that no figure has is an error at
    `where`."""
    pairs = {}
    for key, (value, label, computation) in figures.items():
        text = fmt_int(value) if isinstance(value, int) and not isinstance(value, bool) else str(value)
        reg.add(f"build.{key}", value, text, kind="derived",
                sources=(Source("cit/build.py"),), locator="this build's checks",
                computation=computation)
        pairs[key] = (label, f"build.{key}")
    unknown = [k for k in tested if k not in pairs]
    if unknown:
        raise BuildError(where, f"tested: no figure {unknown[0]!r} (this build has "
                         + ", ".join(pairs) + ")")
    return [pairs[k] for k in (tested or pairs)]


def numbers_json(reg: Registry, appears: Mapping[str, list[str]],
                 claim_pages: Mapping[str, list[str]], figures: Mapping[str, tuple],
                 stamp: Mapping[str, str]) -> bytes:
    """numbers.json: every registered number with the pages it appears on, every
    checked claim with the pages that cite it, and the build's figures and stamp."""
    numbers = {"numbers": [reg.numbers[i].as_json(sorted(appears.get(i, [])))
                           for i in sorted(reg.numbers)],
               "claims": [reg.claims[c].as_json(claim_pages.get(c, []))
                          for c in sorted(reg.claims)],
               "build": {k: v[0] for k, v in figures.items()} | {
                   "commit": stamp["commit"], "commit_date": stamp["commit_date"]}}
    return _one_entry_a_line(numbers).encode()


def _one_entry_a_line(doc: dict) -> str:
    """`doc` as JSON with each top-level value's entries on a line of their own: a
    `--diff` or a git diff shows one line per number that changed, and each line is
    written by the json module's C encoder (an indented dump takes its pure-Python path,
    about three times slower: docs/output.md)."""
    line = json.JSONEncoder(sort_keys=True, ensure_ascii=False).encode
    parts = []
    for key in sorted(doc):
        value = doc[key]
        if isinstance(value, list) and value:
            body = "[\n" + ",\n".join(map(line, value)) + "\n]"
        else:
            body = line(value)
        parts.append(f"{line(key)}: {body}")
    return "{\n" + ",\n".join(parts) + "\n}\n"
