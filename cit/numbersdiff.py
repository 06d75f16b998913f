"""`python build.py --diff OLD`: which published numbers and claims a change moves
(docs/architecture.md, "Comparing two builds").

This build's numbers.json is compared with another build's: OLD is a numbers.json, a
built site folder holding one, or a git revision, which is checked out in a temporary
worktree and built there cold by its own code, from the same upstream files. The report
is Markdown (a pull request's job summary shows it as tables): every number whose text
changed, every claim whose verdict or evidence changed, numbers and claims added and
removed, and the verified counts on both sides.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from .buildrecord import ENGINE_FIGURES
from .errors import BuildError
from .progress import counted

# the build's own figures that say what was verified, in the order the report lists
# them; the data stages' figures (what each study's stages verified) come between
VERIFIED_FIRST = ("upstream_files",)
VERIFIED_LAST = ("claims_verified", "claims_total", "site_numbers", "naked_numbers")
STAMP_KEYS = ("commit", "commit_date")


def main(root: Path, old: str, fail_on_change: bool, vendor_from=None, build=None) -> int:
    """Print the Markdown report; exit 1 on a build failure, or on a change when asked.
    `build`: cit.build.run_stages (handed in, so this module does not import the build)."""
    try:
        before = old_numbers(root, old, vendor_from)
        after = this_numbers(root, vendor_from, build)
    except BuildError as e:
        print(f"diff failed: {e}", file=sys.stderr)
        return 1
    changes = compare(before, after)
    print(report(changes, before, after, old))
    moved = any(changes[k] for k in ("numbers", "claims", "added", "removed",
                                     "claims_added", "claims_removed"))
    return 1 if fail_on_change and moved else 0


def this_numbers(root: Path, vendor_from=None, build=None) -> dict:
    """This project's numbers.json, built in memory by `build` (cit.build.run_stages;
    nothing is written but caches)."""
    return json.loads(build(root, vendor_from).files["numbers.json"])


def old_numbers(root: Path, old: str, vendor_from=None) -> dict:
    """The other side: a numbers.json, a site folder, or a git revision's cold build."""
    path = Path(old)
    if path.is_dir() and (path / "numbers.json").is_file():
        path = path / "numbers.json"
    if path.is_file():
        return _read_json(path)
    return _revision_numbers(root, old, vendor_from)


# the most a numbers.json given to --diff may hold: this study's is under 2 MB, and a
# 167 MB one took 98 s and 769 MB before (docs/faults.md, N20)
MAX_BYTES = 64 * 1024 * 1024


def _read_json(path: Path) -> dict:
    """A numbers.json, its size and shape checked before anything indexes it: one line
    naming the file (and the entry) for each way it can be damaged (docs/faults.md, N6)."""
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise BuildError(str(path), f"{size:,} bytes, over the {MAX_BYTES:,} a "
                             "numbers.json given to --diff may hold")
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise BuildError(str(path), f"not a readable numbers.json: {e}") from None
    except RecursionError:
        raise BuildError(str(path), "not a readable numbers.json: nested too deeply") from None
    if not isinstance(data, dict) or not isinstance(data.get("numbers"), list):
        raise BuildError(str(path), "not a numbers.json (no list under 'numbers')")
    _check_entries(path, data, "numbers", ("id", "text"))
    _check_entries(path, data, "claims", ("id",))
    if not isinstance(data.get("build", {}), dict):
        raise BuildError(str(path), "not a numbers.json: 'build' is not an object")
    return data


def _check_entries(path: Path, data: dict, key: str, texts: tuple[str, ...]) -> None:
    """Each entry of `data[key]` (absent: none) an object whose `texts` are strings."""
    entries = data.get(key, [])
    if not isinstance(entries, list):
        raise BuildError(str(path), f"not a numbers.json: {key!r} is not a list")
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise BuildError(str(path), f"{key}[{i}]: not an object")
        for t in texts:
            if not isinstance(entry.get(t), str):
                raise BuildError(str(path), f"{key}[{i}]: {t!r} missing or not a string")
        if not isinstance(entry.get("evidence", []), list) or not isinstance(
                entry.get("provenance", {}), dict):
            raise BuildError(str(path), f"{key}[{i}]: 'evidence' or 'provenance' is "
                             "not of its kind")


def _git(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)


def _revision_numbers(root: Path, rev: str, vendor_from=None) -> dict:
    """Build revision `rev` cold in a temporary worktree, with its own code, from the
    upstream files this build uses (its vendored/ folder, verified against the old lock
    by the old build itself). The project built there is the one at `root`'s place in
    its repository (a study in a subfolder, or one in a repository of its own)."""
    from . import vendor
    commit = _git(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}").stdout.strip()
    top = _git(root, "rev-parse", "--show-toplevel").stdout.strip()
    if not commit or not top:
        raise BuildError(rev, "neither a numbers.json, a built site folder, nor a git "
                         "revision of this repository")
    vendor.materialise(vendor_from, root)     # this side's files, verified, as the mirror
    mirror = (vendor.mirror_dir(vendor_from, root) or root / "vendored").absolute()
    place = Path(root).resolve().relative_to(Path(top).resolve())
    with tempfile.TemporaryDirectory(prefix="cit-diff-") as tmp:
        tree = Path(tmp) / "tree"
        made = _git(root, "worktree", "add", "--detach", str(tree), commit)
        if made.returncode:
            raise BuildError(rev, f"cannot check it out: {made.stderr.strip()}")
        try:
            out = Path(tmp) / "site"
            built = subprocess.run(_old_build(tree, tree / place) + [
                "--no-cache", "--out", str(out), "--vendor-from", str(mirror)],
                cwd=tree, capture_output=True, text=True)
            if built.returncode:
                last = (built.stderr.strip().splitlines() or ["no message"])[-1]
                raise BuildError(rev, f"its build failed: {last}")
            return _read_json(out / "numbers.json")
        finally:
            _git(root, "worktree", "remove", "--force", str(tree))


def _old_build(tree: Path, project: Path) -> list[str]:
    """The command that builds `project` of the old revision checked out at `tree`: that
    revision's own build.py when it has one (the engine's repository: its code is the
    old one too), else the engine installed here (a study in a repository of its own)."""
    if (tree / "build.py").is_file():
        return [sys.executable, "build.py"] + (
            ["--root", str(project)] if project != tree else [])
    return [sys.executable, "-m", "cit.cli", "build", "--root", str(project)]


def compare(before: dict, after: dict) -> dict:
    """What moved between two numbers.json: lists of rows for the report."""
    old_n = {n["id"]: n for n in before.get("numbers", [])}
    new_n = {n["id"]: n for n in after.get("numbers", [])}
    old_c = {c["id"]: c for c in before.get("claims", [])}
    new_c = {c["id"]: c for c in after.get("claims", [])}
    return {
        "numbers": [(old_n[i], new_n[i]) for i in sorted(old_n.keys() & new_n.keys())
                    if old_n[i]["text"] != new_n[i]["text"]],
        "added": [new_n[i] for i in sorted(new_n.keys() - old_n.keys())],
        "removed": [old_n[i] for i in sorted(old_n.keys() - new_n.keys())],
        "claims": [(old_c[i], new_c[i]) for i in sorted(old_c.keys() & new_c.keys())
                   if _claim_state(old_c[i]) != _claim_state(new_c[i])],
        "claims_added": [new_c[i] for i in sorted(new_c.keys() - old_c.keys())],
        "claims_removed": [old_c[i] for i in sorted(old_c.keys() - new_c.keys())],
    }


def _claim_state(claim: dict):
    return claim.get("verdict"), _evidence(claim)


def _evidence(claim: dict) -> str:
    return "; ".join(f"{e.get('label')} {e.get('text')}" for e in claim.get("evidence", []))


def _cell(text) -> str:
    """A Markdown table cell: pipes escaped, newlines folded, code-quoted when empty."""
    s = str(text).replace("|", "\\|").replace("\n", " ")
    return s if s.strip() else "(empty)"


def _code(text) -> str:
    """An id as a Markdown code span in a table cell: a fence longer than any run of
    backticks in it, pipes escaped (docs/faults.md, N16)."""
    s = str(text).replace("|", "\\|").replace("\n", " ")
    fence = "`" * (max((len(r) for r in re.findall(r"`+", s)), default=0) + 1)
    pad = " " if s.startswith("`") or s.endswith("`") else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def _source(number: dict) -> str:
    paths = [s.get("path", "") for s in number.get("provenance", {}).get("sources", [])]
    return ", ".join(paths[:2]) + (f" and {len(paths) - 2} more" if len(paths) > 2 else "")


def _verified(build: dict) -> list[tuple[str, object]]:
    """(key, value) of the build figures the report lists: the upstream files, each
    stage's figures (every key that is not the engine's own, a kind count or the stamp,
    by name), then the claims and the site's numbers."""
    staged = sorted(k for k in build if k not in ENGINE_FIGURES and k not in STAMP_KEYS
                    and not k.startswith("kind_count."))
    return [(k, build[k]) for k in (*VERIFIED_FIRST, *staged, *VERIFIED_LAST) if k in build]


def report(changes: dict, before: dict, after: dict, old: str) -> str:
    """The Markdown report."""
    b_old, b_new = before.get("build", {}), after.get("build", {})
    out = [f"## Numbers and claims: {_code(old)} → this build", "",
           f"{counted(len(changes['numbers']), 'number')} changed, {len(changes['added'])} "
           f"added, {len(changes['removed'])} removed; "
           f"{counted(len(changes['claims']), 'claim')} changed, "
           f"{len(changes['claims_added'])} added, {len(changes['claims_removed'])} removed.",
           "", "| verified | before | after |", "|---|---:|---:|"]
    keys = dict.fromkeys([k for k, _ in _verified(b_old)] + [k for k, _ in _verified(b_new)])
    out += [f"| {k} | {_cell(b_old.get(k, '—'))} | {_cell(b_new.get(k, '—'))} |" for k in keys]
    if changes["numbers"]:
        out += ["", "### Numbers whose text changed", "",
                "| id | before | after | kind | source |", "|---|---:|---:|---|---|"]
        out += [f"| {_code(o['id'])} | {_cell(o['text'])} | {_cell(n['text'])} | "
                f"{_cell(n.get('kind'))} | "
                f"{_cell(_source(n))} |" for o, n in changes["numbers"]]
    for title, rows in (("Numbers added", changes["added"]), ("Numbers removed", changes["removed"])):
        if rows:
            out += ["", f"### {title}", "", "| id | text | kind | source |", "|---|---:|---|---|"]
            out += [f"| {_code(n['id'])} | {_cell(n['text'])} | {_cell(n.get('kind'))} | "
                    f"{_cell(_source(n))} |"
                    for n in rows]
    if changes["claims"]:
        out += ["", "### Claims whose verdict or evidence changed", "",
                "| claim | before | after |", "|---|---|---|"]
        out += [f"| {_code(o['id'])} | {_cell(o.get('verdict'))}: {_cell(_evidence(o))} | "
                f"{_cell(n.get('verdict'))}: {_cell(_evidence(n))} |" for o, n in changes["claims"]]
    for title, rows in (("Claims added", changes["claims_added"]),
                        ("Claims removed", changes["claims_removed"])):
        if rows:
            out += ["", f"### {title}", "", "| claim | verdict | what it checks |", "|---|---|---|"]
            out += [f"| {_code(c['id'])} | {_cell(c.get('verdict'))} | "
                    f"{_cell(c.get('checked', ''))} |"
                    for c in rows]
    return "\n".join(out) + "\n"
