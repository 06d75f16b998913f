"""Shared fixtures. Sections are marked by owner stage so edits don't collide."""

# ---- foundation fixtures (vendor, runs, tables) ------------------------------------
import contextlib
import hashlib
import json
import re
from html.parser import HTMLParser
import shutil
from pathlib import Path

import pytest
import yaml
from cit.siteconfig import load_site

ROOT = Path(__file__).resolve().parent.parent

GROUPS_ENV = "CIT_TEST_LOADGROUP"


# ---- the test run: two workers, measured lines ------------------------
# How a run is spread over the machine's two cores is described in docs/testing.md.

@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """A run that names no single test file runs on two pytest-xdist workers (the
    machine's two cores), browser tests grouped so that each module's fixtures are made
    once; `-n` says otherwise. Runs before pytest-xdist reads -n."""
    import os
    if "PYTEST_XDIST_WORKER" in os.environ:
        # a worker parses the command line again, without the choice made below
        config.option.loadgroup = config.option.loadgroup or GROUPS_ENV in os.environ
        return
    if getattr(config.option, "numprocesses", "absent") is not None or _names_test_files(config):
        return
    config.option.numprocesses = min(2, os.cpu_count() or 1)
    if config.option.dist == "no":
        config.option.dist = "loadgroup"
        os.environ[GROUPS_ENV] = "1"


def _names_test_files(config) -> bool:
    """Whether the command line names test files or tests (not only folders)."""
    return any("::" in a or a.endswith(".py") for a in config.invocation_params.args
               if not a.startswith("-"))


@pytest.fixture
def measured(request):
    """`measured(line)` records a figure a test measured; the run prints every such line
    at its end, in test order, also when the tests ran on workers (it travels in the
    test's report)."""
    def record(line: str) -> None:
        request.node.user_properties.append(("measured", line))
    return record


def pytest_terminal_summary(terminalreporter):
    reports = [r for key in ("passed", "failed") for r in terminalreporter.stats.get(key, [])
               if r.when == "call"]
    lines = [(r.nodeid, v) for r in reports for k, v in r.user_properties if k == "measured"]
    if lines:
        terminalreporter.section("measured")
        for nodeid, line in sorted(lines, key=lambda x: x[0]):
            terminalreporter.write_line(f"{nodeid.split('::')[-1]}:\n  " + line.replace("\n", "\n  "))


def tree_digest(d: Path) -> dict[str, str]:
    """Every file under `d` (relative path) -> SHA-256 of its bytes."""
    return {p.relative_to(d).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(d.rglob("*")) if p.is_file()}


def reword(page: Path, words: str = "as the test words it") -> None:
    """Edit one sentence of a content page: `words` go before the first reason mark
    after the front matter. The page's text changes and the count of sentences, which
    /tested and /method show, does not (every sentence carries a mark:
    docs/claims.md)."""
    text = page.read_text()
    at = text.index(" :x[", text.index("\n---\n", 4) + 5)
    page.write_text(text[:at] + " " + words + text[at:])


def edit_first_definition(glossary: Path) -> None:
    """Add a sentence, with its reason mark, to the first definition of a glossary
    file: an edit to a term every page's record reads."""
    text = glossary.read_text()
    eol = text.index("\n", text.index("definition:"))
    line = text[:eol].rstrip()
    edited = (line[:-1] + ' Edited :x[definition]."' if line.endswith('"')
              else line + " Edited :x[definition].")
    glossary.write_text(edited + text[eol:])


@pytest.fixture(scope="session")
def vendored_files():
    """The upstream files, materialised and verified (the build's own vendor step)."""
    from cit.vendor import materialise
    return materialise()


@pytest.fixture(scope="session")
def upstream_mirror() -> Path:
    """The upstream mirror, found as the build finds it (cit.vendor.mirror_dir: the
    CIT_VENDOR_MIRROR variable, then shared/upstream/ in the folder that holds the clone)."""
    from cit.vendor import mirror_dir
    found = mirror_dir(None)
    if found is None:
        pytest.fail("no upstream mirror: set CIT_VENDOR_MIRROR to a copy of the upstream "
                    "repository, or put it in shared/upstream/ in the folder that holds the clone")
    return found


@pytest.fixture(scope="session")
def vendored_root(vendored_files) -> Path:
    return ROOT / "vendored"


@pytest.fixture(scope="session")
def study() -> dict:
    return yaml.safe_load((ROOT / "data" / "study.yaml").read_text())


@pytest.fixture
def project_copy(tmp_path, vendored_files) -> Path:
    """A throwaway copy of the project (code, content, data, templates, verified vendored
    files) for tests that break inputs on purpose."""
    return _copy_project(tmp_path / "proj")


def _site(root: Path):
    """The project's site.yaml, checked (parsed only: load_site would put `root` on the
    import path)."""
    from cit.siteconfig import NAME, parse_site
    return parse_site((root / NAME).read_text(encoding="utf-8"))


def _study_folders(root: Path = ROOT) -> tuple[str, ...]:
    """The folders of a project's own code and templates, as site.yaml names them
    (cit.siteconfig: the packages of its stages and block providers, its templates)."""
    site = _site(root)
    return tuple(dict.fromkeys((*site.packages(), site.templates)))


def _copy_project(dst: Path) -> Path:
    """A copy of the project: the engine, the study's folders (site.yaml names them, as
    cit.build.build_inputs reads them), content, data and the verified vendored files."""
    for name in dict.fromkeys(("cit", *_study_folders(), "content", "data", "templates",
                               "vendored")):
        if (ROOT / name).exists():
            shutil.copytree(ROOT / name, dst / name,
                            ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("build.py", "site.yaml"):
        shutil.copy(ROOT / name, dst / name) if (ROOT / name).exists() else None
    return dst


@pytest.fixture(scope="session")
def warm_copy(tmp_path_factory, vendored_files) -> tuple[Path, Path]:
    """One build of an untouched project copy with its caches written: (its .cache
    folder, its site). A copy given this .cache rebuilds from the caches as long as its
    inputs are the untouched ones (the caches are keyed by them and verified); an edited
    input misses them, so that build runs every stage its edit touches."""
    root = _copy_project(tmp_path_factory.mktemp("warm") / "proj")
    out = root.parent / "site"
    r = run_build(out, root=root, cold=False)
    assert r.returncode == 0, r.stderr
    return root / ".cache", out


def give_caches(warm_copy, project: Path) -> None:
    """Put the untouched project's caches into `project` (see warm_copy)."""
    shutil.copytree(warm_copy[0], project / ".cache")


# What the build reads from the environment, each with os.environ.get at call time
# (cit/vendor.py mirror_dir, cit/build.py main): setting them around an in-process call
# is what a fresh process started with them sees.
IN_PROCESS_ENV = ("CIT_VENDOR_MIRROR", "CIT_NO_CACHE")


def run_build(out: Path, root: Path = ROOT, env: dict | None = None, cold: bool = True):
    """`python build.py --out OUT` on the project at `root`, run in this process
    (`cit.build.main` with --root), as a user's build would run it: stdout and stderr
    captured, the exit status returned (a subprocess.CompletedProcess); cold (no
    data-stage cache) unless asked otherwise, so every check runs. Equivalent to a fresh
    process only while the copy's code is this repository's (checked) and `env` sets only
    IN_PROCESS_ENV; anything else (another clock, time zone or umask, edited code, the
    CLI's own contract) goes through run_build_process."""
    from cit import build
    args = ["--out", str(out)] + (["--no-cache"] if cold else [])
    return run_in_process(build.main, args, root, env)


def run_build_process(out: Path, root: Path = ROOT, env: dict | None = None,
                      cold: bool = True):
    """`python build.py --out OUT` in a fresh process, as a user runs it (the copy's
    own build.py and cit/); cold unless asked otherwise."""
    import os
    import subprocess
    import sys
    e = dict(os.environ)
    e.update(env or {})
    args = [sys.executable, str(root / "build.py"), "--out", str(out)]
    return subprocess.run(args + (["--no-cache"] if cold else []),
                          cwd=root, capture_output=True, text=True, env=e)


def code_digest(root: Path) -> dict[str, str]:
    """The code a project at `root` runs: build.py and the modules of cit/ and of the
    packages its site.yaml names (not their other files: study/static is an input)."""
    from cit.errors import BuildError
    try:
        packages = _site(root).packages()
    except BuildError:          # a test's broken site.yaml: the code is the project's
        packages = _site(ROOT).packages()
    d = {f"{pkg}/{k}": v for pkg in ("cit", *packages)
         for k, v in tree_digest(root / pkg).items() if k.endswith(".py")}
    return d | {"build.py": hashlib.sha256((root / "build.py").read_bytes()).hexdigest()}


def run_in_process(main, args: list[str], root: Path, env: dict | None):
    """`main(args + ["--root", root])` in this process, from `root` as the working
    folder, with `env` set for the call only; returns its exit status and what it wrote
    to stdout and stderr as a subprocess.CompletedProcess."""
    import io
    import os
    import subprocess
    root = Path(root)
    unknown = sorted(set(env or {}) - set(IN_PROCESS_ENV))
    if unknown:
        raise ValueError(f"{unknown} cannot be set for an in-process run; use a process")
    if root.resolve() != ROOT and code_digest(root) != code_digest(ROOT):
        raise ValueError(f"{root} runs other code than this repository's; use a process")
    saved = {k: os.environ.get(k) for k in env or {}}
    out, err = io.StringIO(), io.StringIO()
    try:
        os.environ.update(env or {})
        with contextlib.chdir(root), contextlib.redirect_stdout(out), \
                contextlib.redirect_stderr(err):
            try:
                code = main(args + ["--root", str(root)])
            except SystemExit as e:        # argparse refusing the arguments
                code = e.code if isinstance(e.code, int) else int(e.code is not None)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return subprocess.CompletedProcess([main.__module__, *args], code, out.getvalue(),
                                       err.getvalue())


@pytest.fixture(scope="session")
def built_site(tmp_path_factory, vendored_files) -> Path:
    """The real site, built once per test session (CIT_SITE_DIR points at a ready one)."""
    import os
    if os.environ.get("CIT_SITE_DIR"):
        return Path(os.environ["CIT_SITE_DIR"])
    out = tmp_path_factory.mktemp("built") / "site"
    r = run_build(out)
    assert r.returncode == 0, r.stderr
    return out


def edit_cell(text: str, table_index: int, row_index: int, col_index: int):
    """Bump the last digit of one cell of a results.md table. Returns the new text, the
    row's cells, the column header, the old cell and the new cell."""
    from study import resultsmd
    _, _, header, body = resultsmd.parse_results_md(text).tables[table_index]
    line, cells = body[row_index]
    old = cells[col_index]
    pos = max(i for i, ch in enumerate(old) if ch.isdigit())
    new = old[:pos] + str((int(old[pos]) + 1) % 10) + old[pos + 1:]
    lines = text.split("\n")
    parts = lines[line - 1].split("|")
    parts[col_index + 1] = parts[col_index + 1].replace(old, new)
    lines[line - 1] = "|".join(parts)
    return "\n".join(lines), cells, header[col_index], old, new
# ---- end foundation fixtures --------------------------------------------------------


# ---- render fixtures (render stage: markdown, render, blocks, charts, naked, links) ---
# A small made-up registry and content tree: the render tests check the output against
# these entries (never against typed values), so the numbers here are only inputs.

def _render_registry():
    from cit.fmt import fmt, fmt_int
    from cit.registry import Ref, Registry, Source

    reg = Registry()
    up = (Source("vendored/results/fake/run.jsonl", "0" * 40, "f" * 40),)
    own = (Source("data/sim/results.md"),)
    steps = tuple(range(0, 500, 100))
    for k, (group, variant) in enumerate((("A", "A"), ("B", "B"), ("C.2d64", "C"))):
        mean = tuple(4.0 - 0.5 * i + 0.1 * k for i in range(len(steps)))
        reg.add(f"final_loss.{group}", mean[-1], fmt(mean[-1], 3), kind="measured", sources=up,
                locator=f"group {group}, last eval", computation="mean over seeds")
        reg.add_series(f"curve.{group}", steps, mean, kind="measured", sources=up,
                       locator=f"group {group}", computation="mean over seeds",
                       label=f"{variant} test curve", variant=variant, role="hub",
                       lo=tuple(v - 0.05 for v in mean), hi=tuple(v + 0.05 for v in mean))
    reg.add("runs.completed", 3 * len(steps), fmt_int(3 * len(steps)), kind="derived", sources=up,
            locator="every run", computation="count")
    grid = (0.1, 1.0, 10.0, 100.0)
    for k, v in enumerate(("A", "E")):
        reg.add_series(f"sim.sweep.{v}", grid, tuple((k + 1) * 10.0 / g for g in grid),
                       kind="simulated", sources=own, locator=f"§6 {v}", computation="time to target",
                       label=f"{v} sweep", variant=v)
    be = grid[1] * 3
    reg.add("sim.breakeven.E_vs_A", be, f"below {fmt(be, 2)} GB/s", unit="GB/s", kind="simulated",
            sources=own, locator="§4 E vs A", computation="bisection")
    reg.add("sim.breakeven.B_vs_A", "none in range", "none in range", kind="simulated",
            sources=own, locator="§4 B vs A", computation="bisection")
    reg.add("build.checked", len(steps), fmt_int(len(steps)), kind="derived",
            sources=(Source("cit/build.py"),), locator="this build", computation="count")
    reg.add_table("final-loss", "Final validation loss per configuration",
                  ["Configuration", "Final loss"],
                  [["A AdamW", Ref("final_loss.A")], ["B top-k, 2-D 64x64 chunks", Ref("final_loss.B")],
                   ["C fixed band", Ref("final_loss.C.2d64")]], source="results.md §1")
    return reg


RENDER_CONTENT = {
    "hub.md": """---
title: Can an optical link compress gradients?
description: A test hub page.
layout: hub
---
@[chart:loss-curves]

## The question

AdamW reached :n[final_loss.A] with :t[demo|decoupled momentum] beside it.

## Findings

### The band loses

:n[final_loss.C.2d64] for the fixed band.

## Series

@[decks]
""",
    "pages/optics.md": """---
title: Optics
description: The failure and the repair.
layout: page
---
## Final loss

@[table:final-loss]

Read about :t[adamw] and the [hub](../index.html#the-question).
""",
    "pages/method.md": """---
title: Method
description: How every number is made.
layout: page
---
## Every number

@[table:number-index]
""",
    "pages/tested.md": """---
title: Tested
description: How the site is tested.
layout: page
---
## This build

@[table:tested]
""",
    "pages/glossary.md": """---
title: Glossary
description: Every term, with where it is used.
layout: page
---
@[glossary]
""",
    "decks/01-sources.md": """---
title: Sources
description: The paper and DeMo, claim by claim.
layout: deck
order: 1
---
# Sources

We count :n[runs.completed] runs.

---

## The sweep

@[chart:sweep]
""",
    "decks/02-traffic.md": """---
title: Training traffic
description: What each step sends.
layout: deck
order: 2
---
## What a step sends

Every worker sends its :t[adamw] gradient.
""",
    "glossary.yaml": """adamw:
  term: AdamW
  definition: The dense baseline optimiser; compare :t[demo].
  see: [demo]
demo:
  term: DeMo
  definition: Decoupled momentum; its best run reached :n[final_loss.B].
unused-term:
  term: unused term
  definition: Linked from no page.
""",
}


@pytest.fixture
def render_registry():
    """A made-up registry with numbers, hub curves, a sweep, break-evens and a table."""
    return _render_registry()


@pytest.fixture
def render_content(tmp_path):
    """Write a content tree (the tiny default, plus/over `files`) and return its folder."""
    def make(files: dict | None = None, drop=()) -> Path:
        root = tmp_path / "content"
        if root.exists():
            shutil.rmtree(root)
        merged = {k: v for k, v in RENDER_CONTENT.items() if k not in drop}
        merged.update(files or {})
        for rel, text in merged.items():
            p = root / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text, encoding="utf-8")
        return root
    return make


RENDER_BUILD_INFO = {"commit": "0123456789abcdef0123456789abcdef01234567",
                     "commit_date": "2026-01-02T03:04:05+00:00",
                     "verification": [("Things checked", "build.checked")]}


def study_palette():
    """The palette this study's catalogue gives the engine (data/variants.yaml)."""
    from cit.palette import palette_from
    from study import variants
    return palette_from(variants.load(ROOT).palette(), variants.FILE)


@pytest.fixture
def render_tiny():
    """Render a content folder with the real templates: returns the Site."""
    def run(content_dir: Path, registry=None, *, templates_dir: Path = ROOT / "templates",
            build_info=None):
        from cit.blocks import BlockInputs, generic_blocks
        from cit.render import render_site
        from cit.siteconfig import load_site
        from study.blocks.curves import curve_blocks
        reg = registry if registry is not None else _render_registry()
        palette = study_palette()
        charts = curve_blocks(BlockInputs(reg, ROOT, content_dir, templates_dir, palette=palette))
        blocks = {**generic_blocks(reg), **charts}
        return render_site(reg, content_dir, templates_dir, blocks,
                           build_info or RENDER_BUILD_INFO, repo_root=content_dir.parent,
                           site=load_site(ROOT), static_root=ROOT, palette_css=palette.css())
    return run


# shared by the render-stage test files (render, assets, blocks, charts)

TINY_PAGES = ("index.html", "optics/index.html", "method/index.html", "tested/index.html",
         "glossary/index.html", "decks/01-sources/index.html", "decks/02-traffic/index.html")


def page_text(site, path):
    """A rendered page's HTML as text."""
    return site.files[path].decode("utf-8")


def script_json(html, script_id):
    """The JSON inside `<script type="application/json" id=script_id>`."""
    m = re.search(rf'<script type="application/json" id="{script_id}">(.*?)</script>', html, re.S)
    assert m, script_id
    return json.loads(m.group(1))


class _Elements(HTMLParser):
    def __init__(self):
        super().__init__()
        self.found = []

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, dict(attrs)))


def html_elements(html):
    """Every start tag of `html` as (tag, attributes)."""
    p = _Elements()
    p.feed(html)
    return p.found


@pytest.fixture
def site(render_content, render_tiny):
    """The tiny content tree rendered with the real templates."""
    return render_tiny(render_content())


# ---- end render fixtures ---------------------------------------------------------------


def copy_example_study(tmp_path: Path) -> Path:
    """A throwaway copy of examples/toyopt (no caches, no expected tree) with its own copy
    of the engine's templates: site.yaml may name no folder outside its project but the
    engine's own (docs/faults.md), and a copy in tmp_path is outside the checkout."""
    example = ROOT / "examples" / "toyopt"
    dst = tmp_path / "study"
    shutil.copytree(example, dst, ignore=shutil.ignore_patterns("__pycache__", ".cache", "expected"))
    rel = load_site(example).templates
    shutil.copytree((example / rel).resolve(), dst / "templates",
                    ignore=shutil.ignore_patterns("__pycache__"))
    site = dst / "site.yaml"
    site.write_text(site.read_text().replace(f"templates: {rel}", "templates: templates"))
    return dst
