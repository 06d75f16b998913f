"""The second fault-injection round's defects (issue 32, N1-N20; docs/faults.md): each
hostile or mistaken input, fed to the whole build, fails with one line naming the file
and line (or the option), exit status 1 (2 for a bad command line), and leaves the
previous site untouched (the `case` fixture checks that, tests/golden/conftest.py).
"""

import re
from pathlib import Path

import pytest

from cit import yamlio


def one_line(r, status: int = 1) -> str:
    """The build's one error line (checked to be the only line on stderr, with the exit
    status `status`)."""
    lines = r.stderr.strip().splitlines()
    assert r.returncode == status, r.stderr
    assert len(lines) == 1, r.stderr
    return lines[0]


def _site_line(root: Path, startswith: str) -> int:
    """The line of site.yaml that starts with `startswith`."""
    lines = (root / "site.yaml").read_text().splitlines()
    return next(i for i, l in enumerate(lines, 1) if l.strip().startswith(startswith))


def _append_site(root: Path, text: str) -> int:
    """Append `text` (one line) to site.yaml; returns its line."""
    p = root / "site.yaml"
    old = p.read_text()
    p.write_text(old + text + "\n")
    return old.count("\n") + 1


# ---- N1: YAML aliases ("billion laughs"), depth, size ---------------------------------

def _bomb(words: str = "lol") -> list[str]:
    lines = [f"x0: &a0 [{words}]"]
    lines += [f"x{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    return lines


@pytest.mark.parametrize("rel", ["content/glossary.yaml", "content/chain.yaml",
                                 "data/study.yaml"])
def test_a_billion_laughs_is_refused_at_its_first_line(case, rel):
    """N1: nine lines of aliases hung the build (10^8 visits); now refused at once."""
    p = case.root / rel
    old = p.read_text()
    p.write_text(old + "\n" + "\n".join(_bomb()) + "\n")
    line = old.count("\n") + 2
    assert one_line(case.run()) == (f"build failed: {rel}:{line}: a YAML anchor (&a0): "
                                    "aliases and anchors are refused (docs/faults.md); "
                                    "write the value out")


def test_yaml_nested_too_deep_or_too_large_is_refused_at_its_line(case):
    p = case.root / "content" / "glossary.yaml"
    old = p.read_text()
    p.write_text(old + "deep: " + "[" * 100_000 + "]" * 100_000 + "\n")
    assert one_line(case.run()).startswith(
        f"build failed: content/glossary.yaml:{old.count(chr(10)) + 1}: nested more than "
        f"{yamlio.MAX_DEPTH} collections deep")
    p.write_text(old + "".join(f"filler{i}: {'w' * 90}\n" for i in range(12_000)))
    text = p.read_text()
    line = text.count("\n", 0, yamlio.MAX_BYTES) + 1
    assert one_line(case.run()) == (
        f"build failed: content/glossary.yaml:{line}: over {yamlio.MAX_BYTES:,} characters, "
        "the most a YAML file may hold (docs/faults.md); split it or shorten it")


# ---- N4 and the read boundary: site.yaml's paths stay inside the project --------------

def test_templates_outside_the_project_is_refused_at_its_line(case, tmp_path):
    """N4: `templates:` outside made its parent readable; a link in study/static then
    published a file outside the project."""
    outside = tmp_path / "outside"
    (outside / "templates").mkdir(parents=True)
    (outside / "secret.txt").write_text("SECRET-OUTSIDE-THE-PROJECT\n")
    (case.root / "study" / "static" / "secret.txt").symlink_to(outside / "secret.txt")
    rel = Path("..") / "outside" / "templates"      # case.root is tmp_path/proj
    line = _append_site(case.root, f"templates: {rel}")
    assert one_line(case.run()) == (
        f"build failed: site.yaml:{line}: templates: {rel} leads to "
        f"{(outside / 'templates').resolve()}, outside the project; the build reads only "
        "the project's own files (and the engine's templates)")


@pytest.mark.parametrize("key,value", [("templates", "/etc"), ("static", "/etc")])
def test_an_absolute_folder_in_site_yaml_is_refused_at_its_line(case, key, value):
    p = case.root / "site.yaml"
    lines = p.read_text().splitlines()
    if key == "static":
        line = _site_line(case.root, "static:")
        lines[line - 1] = f"static: {value}"
        p.write_text("\n".join(lines) + "\n")
    else:
        line = _append_site(case.root, f"templates: {value}")
    assert one_line(case.run()) == (f"build failed: site.yaml:{line}: {key}: {value} is an "
                                    "absolute path; name a folder of the project, relative "
                                    "to site.yaml")


def test_static_outside_the_project_is_refused_at_its_line(case):
    p = case.root / "site.yaml"
    line = _site_line(case.root, "static:")
    p.write_text(p.read_text().replace("static: study/static", "static: ../.."))
    assert one_line(case.run()).startswith(
        f"build failed: site.yaml:{line}: static: ../.. leads to ")


@pytest.mark.parametrize("given", ["../main/content/references.bib", "/etc/x.bib",
                                   "content/../../x.bib"])
def test_a_bibliography_outside_the_project_is_refused_at_its_line(case, given):
    p = case.root / "site.yaml"
    line = _site_line(case.root, "bibliography:")
    p.write_text(re.sub(r"(?m)^bibliography: .*$", f"bibliography: {given}", p.read_text()))
    assert one_line(case.run()) == (
        f"build failed: site.yaml:{line}: bibliography: {given} leads outside the project; "
        "name a file of the project, relative to site.yaml")


def test_a_bibliography_outside_content_is_refused_at_its_line(case):
    """Its notes are prose, read by the sentence check in content/ (docs/claims.md)."""
    p = case.root / "site.yaml"
    line = _site_line(case.root, "bibliography:")
    p.write_text(re.sub(r"(?m)^bibliography: .*$", "bibliography: data/refs.bib", p.read_text()))
    assert one_line(case.run()) == (f"build failed: site.yaml:{line}: bibliography: "
                                    "data/refs.bib is not in content/, where the sentence "
                                    "check reads its notes")


def test_a_link_in_the_engines_templates_that_leads_out_of_them_is_refused(case):
    """N4 for a study sharing the engine's templates (examples/toyopt): only that folder
    is read, not the engine checkout around it (its .git/config, its README)."""
    from cit.siteconfig import SiteConfig, engine_templates, reads_for
    from cit.errors import BuildError
    site = SiteConfig("t", None, (), {}, frozenset(),
                      templates=str(Path("..") / ".." / "templates"))
    root = engine_templates().parent / "examples" / "toyopt"
    reads = reads_for(root, site)
    assert reads.maybe_bytes(engine_templates() / "page.html")
    with pytest.raises(BuildError, match="outside the project"):
        reads.maybe_bytes(engine_templates().parent / "README.md")


# ---- N11: a missing folder is named, not what its absence breaks ----------------------

def test_a_missing_templates_folder_is_named(case):
    import shutil
    shutil.rmtree(case.root / "templates")
    assert one_line(case.run()) == (
        "build failed: templates: missing: the folder of the templates the pages are "
        "rendered with (page.html, hub.html, deck.html, static/)")


def test_a_missing_content_folder_is_named(case):
    import shutil
    shutil.rmtree(case.root / "content")
    assert one_line(case.run()) == ("build failed: content: missing: the folder of the "
                                    "site's pages (hub.md, pages/, decks/) and its glossary")


# ---- N6, N16, N20 (its --diff half): a damaged or huge numbers.json given to --diff ---

def _diff(root: Path, old: Path):
    from cit import build
    from tests.conftest import run_in_process
    return run_in_process(build.main, ["--diff", str(old)], root, None)


def _damaged(built_site: Path, shape: str) -> str:
    import json
    real = json.loads((built_site / "numbers.json").read_text())
    return {"ints": '{"numbers": [1, 2]}', "no-text": '{"numbers": [{"id": "x"}]}',
            "known-id-no-text": json.dumps({"numbers": [{"id": real["numbers"][0]["id"]}]}),
            "build": json.dumps(real | {"build": 5}),
            "claims": json.dumps(real | {"claims": 7}),
            "deep": "[" * 100_000 + "]" * 100_000}[shape]


@pytest.mark.parametrize("shape,says", [
    ("ints", "numbers[0]: not an object"),
    ("no-text", "numbers[0]: 'text' missing or not a string"),
    ("known-id-no-text", "numbers[0]: 'text' missing or not a string"),
    ("build", "not a numbers.json: 'build' is not an object"),
    ("claims", "not a numbers.json: 'claims' is not a list"),
    ("deep", "not a readable numbers.json: nested too deeply"),
])
def test_diff_of_a_damaged_numbers_json_is_one_line(project_copy, built_site, tmp_path,
                                                     shape, says):
    """N6: five shapes gave tracebacks (TypeError, KeyError, RecursionError)."""
    old = tmp_path / "old.json"
    old.write_text(_damaged(built_site, shape))
    assert one_line(_diff(project_copy, old)) == f"diff failed: {old}: {says}"


def test_diff_of_a_numbers_json_over_the_size_limit_is_refused_at_once(project_copy,
                                                                      tmp_path):
    """N20: a 167 MB numbers.json took 98 s and 769 MB; over the limit it is not read."""
    from cit import numbersdiff
    old = tmp_path / "huge.json"
    with open(old, "wb") as f:         # sparse: the size is what is checked, first
        f.truncate(numbersdiff.MAX_BYTES + 1)
    assert one_line(_diff(project_copy, old)) == (
        f"diff failed: {old}: {numbersdiff.MAX_BYTES + 1:,} bytes, over the "
        f"{numbersdiff.MAX_BYTES:,} a numbers.json given to --diff may hold")


def test_diff_report_ids_are_escaped_code_spans(built_site):
    """N16: an id with a pipe split its row; one with a backtick ended the code span."""
    import json
    from markdown_it import MarkdownIt
    from cit import numbersdiff
    before = json.loads((built_site / "numbers.json").read_text())
    odd = "a`b|c"
    after = dict(before, numbers=before["numbers"] + [{"id": odd, "text": "6", "kind": "k|x"}])
    text = numbersdiff.report(numbersdiff.compare(before, after), before, after, "o`ld")
    html = MarkdownIt("commonmark").enable("table").render(text)
    row = next(r for r in html.split("<tr>") if "a`b" in r)
    assert row.count("<td") == 4, row
    assert "<code>a`b|c</code>" in row and "k|x" in row
    assert "<code>o`ld</code>" in html


# ---- N5: unpickle prefixes ---------------------------------------------------------

@pytest.mark.parametrize("entry,says", [
    ("''", "'' is not a module name"),
    ("[builtins]", None), ("[os]", None), ("[study.]", "'study.' is not a module name"),
])
def test_an_unpickle_prefix_that_is_blank_or_the_standard_librarys_is_refused(case, entry,
                                                                              says):
    p = case.root / "site.yaml"
    line = _site_line(case.root, "unpickle:")
    value = entry if entry.startswith("[") else f"[{entry}]"
    p.write_text(p.read_text().replace("unpickle: []", f"unpickle: {value}"))
    name = value.strip("[]")
    says = says or f"{name!r} is the standard library's; the cache may rebuild only the " \
                   "study's own data classes"
    got = one_line(case.run())
    assert got.startswith(f"build failed: site.yaml:{line}: unpickle: {says}"), got


def test_the_cache_unpickler_never_imports_a_module_outside_its_prefixes(tmp_path,
                                                                        monkeypatch):
    """N5: with the prefix '' (or `side` for `sideeffect_mod`) the module was imported,
    running its code, before the refusal."""
    import pickle
    import sys
    from cit import cache
    (tmp_path / "sideeffect_mod.py").write_text(
        f"open({str(tmp_path / 'IMPORTED')!r}, 'w').close()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    data = (pickle.PROTO + bytes([4]) + pickle.SHORT_BINUNICODE + bytes([14])
            + b"sideeffect_mod" + pickle.SHORT_BINUNICODE + b"\x01X" + pickle.STACK_GLOBAL
            + pickle.STOP)
    for allowed in [(), ("",), ("side",)]:
        with pytest.raises(cache.CacheRefused):
            cache.restricted_loads(data, allowed)
    assert not (tmp_path / "IMPORTED").exists() and "sideeffect_mod" not in sys.modules


# ---- N10, N14, N15: a data: image, a page named pagefind, an odd base_url -------------

PNG = ("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhf"
       "DwAChwGA60e6kgAAAABJRU5ErkJggg==")


def test_a_data_png_image_which_the_docs_allow_builds(case, tmp_path):
    """N10: it was refused by the link check as an outside request."""
    p = case.root / "content" / "pages" / "method.md"
    p.write_text(p.read_text() + f"\n![A one-pixel image]({PNG}) :x[caption]\n")
    r = case.run(expect_failure=False)
    assert r.returncode == 0, r.stderr
    assert f'src="{PNG}"' in (tmp_path / "site" / "method" / "index.html").read_text()


def test_a_page_named_pagefind_is_refused(case):
    """N14: it was published inside the search index's folder."""
    (case.root / "content" / "pages" / "pagefind.md").write_text(
        "---\ntitle: A page\ndescription: Words here.\nlayout: page\n---\n\nWords of a page.\n")
    assert one_line(case.run()) == (
        "build failed: content/pages/pagefind.md: page file names are lower-case words with "
        "hyphens (and not decks, static, index or pagefind)")


def test_a_base_url_holding_markup_characters_is_refused_at_its_line(case):
    """N15: robots.txt carried `"><script>` as written."""
    p = case.root / "site.yaml"
    line = _site_line(case.root, "base_url:")
    bad = 'https://x.example/"><script>alert(document.domain)</script>/'
    p.write_text(p.read_text().replace("base_url: null", f"base_url: '{bad}'"))
    assert one_line(case.run()) == (f"build failed: site.yaml:{line}: base URL {bad!r} holds "
                                    "'\"', which a URL never holds as written; "
                                    "percent-encode it")


# ---- N12: SIGTERM while the code loads -------------------------------------------------

def test_sigterm_while_the_modules_import_prints_one_line(case, tmp_path):
    """N12: the SIGTERM handler came after `import cit.build` (seconds on a loaded
    machine); a SIGTERM then ended the build silently with -15."""
    import os
    import signal
    import subprocess
    import sys
    import time
    marker = tmp_path / "importing"
    pause = (f"import builtins, pathlib, runpy, sys, time\n"
             f"real = builtins.__import__\n"
             f"def slow(name, *a, **k):\n"
             f"    if name == 'cit.build':\n"
             f"        pathlib.Path({str(marker)!r}).touch(); time.sleep(60)\n"
             f"    return real(name, *a, **k)\n"
             f"builtins.__import__ = slow\n"
             f"sys.argv = ['build.py', '--out', {str(tmp_path / 'site')!r}]\n"
             f"runpy.run_path('build.py', run_name='__main__')\n")
    proc = subprocess.Popen([sys.executable, "-c", pause], cwd=case.root,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not marker.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert (proc.returncode, err) == (130, "build interrupted: nothing written\n")


# ---- N9: inputs that were dropped without a word ------------------------------------

@pytest.mark.parametrize("url,says", [
    ("/nosuch/", "'/nosuch/' is no page of the site (/NAME/ is content/pages/NAME.md)"),
    ("'javascript:alert(1)'", "'javascript:alert(1)' is not a page's address"),
    ("'http://evil.example/'", "'http://evil.example/' is not a page's address"),
])
def test_a_nav_item_naming_no_page_is_refused_at_its_line(case, url, says):
    p = case.root / "site.yaml"
    line = _site_line(case.root, "- {url: /tested/")
    p.write_text(p.read_text().replace("{url: /tested/, label: Tested}",
                                       f"{{url: {url}, label: Tested}}"))
    assert one_line(case.run()).startswith(f"build failed: site.yaml:{line}: nav: {says}")


@pytest.mark.parametrize("script,says", [
    ("nosuch.js", "layouts: page: static/nosuch.js does not exist"),
    ("../../build.py", "layouts: page: '../../build.py' is not the name of a script in "
                       "static/ (a file name ending .js)"),
])
def test_a_layout_script_missing_or_outside_is_refused_at_its_line(case, script, says):
    p = case.root / "site.yaml"
    line = _site_line(case.root, "page: {scripts")
    p.write_text(p.read_text().replace("page: {scripts: []}", f"page: {{scripts: [{script}]}}"))
    assert one_line(case.run()) == f"build failed: site.yaml:{line}: {says}"


def test_a_layout_left_out_is_refused(case):
    p = case.root / "site.yaml"
    line = _site_line(case.root, "hub: {scripts")
    p.write_text(p.read_text().replace("  deck: {scripts: [deck.js]}\n", ""))
    assert one_line(case.run()).startswith(
        f"build failed: site.yaml:{line}: layouts: no entry for deck")


def test_an_unknown_key_in_study_yaml_is_refused_at_its_line(case):
    from study.stages import STUDY_RULES
    p = case.root / "data" / "study.yaml"
    old = p.read_text()
    p.write_text(old + "b0: 1\n")
    assert one_line(case.run()) == (
        f"build failed: data/study.yaml:{old.count(chr(10)) + 1}: the study's settings: "
        "unknown key `b0` (allowed: " + ", ".join(STUDY_RULES) + ")")


# ---- N20 (its log half) and N13: a log over the size limit -------------------------

def test_a_log_over_the_size_limit_is_refused_before_it_is_read(case):
    """N20: a 100 MB log took 301 s and 2 GB before its error; over the limit it is
    refused at once, named as every log error names it (N13: without vendored/)."""
    from study.runs import MAX_LOG_BYTES
    path, rel = case.log()
    text = path.read_text()
    lines = text.splitlines(True)
    filler = lines[1] * (MAX_LOG_BYTES // len(lines[1]) + 1)
    case.repin(rel, (lines[0] + filler + "".join(lines[1:])).encode())
    size = path.stat().st_size
    assert one_line(case.run()) == (f"build failed: {rel}: {size:,} bytes, over the "
                                    f"{MAX_LOG_BYTES:,} a run log may hold (docs/faults.md)")


# ---- N8: site.yaml entries that resolve but cannot be called ------------------------

def _swap_stage(root: Path, old: str, new: str) -> int:
    p = root / "site.yaml"
    line = _site_line(root, f"run: {old}")
    p.write_text(p.read_text().replace(f"run: {old}", f"run: {new}"))
    return line


@pytest.mark.parametrize("ref,says", [
    ("os:system", "`os:system`: os is not the project's code nor the engine's"),
    ("builtins:exit", "`builtins:exit`: builtins is not the project's code nor the engine's"),
    ("cit.stages:run_stages", "`cit.stages:run_stages` does not take one argument"),
])
def test_a_stage_that_is_not_the_studys_one_argument_function_is_refused(case, ref, says):
    line = _swap_stage(case.root, "study.stages:experiment", ref)
    assert one_line(case.run()).startswith(f"build failed: site.yaml:{line}: {says}")


def test_a_block_provider_that_is_not_the_studys_is_refused(case):
    p = case.root / "site.yaml"
    line = _site_line(case.root, "- study.blocks.curves:curve_blocks")
    p.write_text(p.read_text().replace("- study.blocks.curves:curve_blocks", "- os:getcwd"))
    assert one_line(case.run()).startswith(
        f"build failed: site.yaml:{line}: `os:getcwd`: os is not the project's code")


def test_stages_in_the_wrong_order_name_the_number_not_yet_registered(case):
    p = case.root / "site.yaml"
    text = p.read_text()
    a = "  - name: experiment\n    run: study.stages:experiment\n"
    b = "  - name: simulator\n    run: study.stages:simulator\n"
    p.write_text(text.replace(a + b, b + a))
    line = _site_line(case.root, "run: study.stages:simulator")
    got = one_line(case.run())
    assert re.match(rf"build failed: site.yaml:{line}: stage simulator looked up '[\w.]+', "
                    r"which no earlier stage registered \(the stages run in site.yaml's "
                    r"order\) \(at .+/study/[\w/]+\.py:\d+\)$", got), got


@pytest.mark.parametrize("body,says", [
    ("def run(ctx):\n    raise ValueError('a bug')\n",
     r"stage experiment failed: ValueError: a bug \(at .*study/broken.py:2\)"),
    ("import nosuchpkg\n\ndef run(ctx):\n    pass\n",
     r"`study.broken:run`: study.broken imports nosuchpkg, which is not installed"),
])
def test_a_stage_that_raises_or_imports_what_is_missing_is_one_line(case, tmp_path, body,
                                                                    says):
    from tests.conftest import run_build_process, tree_digest
    (case.root / "study" / "broken.py").write_text(body)
    line = _swap_stage(case.root, "study.stages:experiment", "study.broken:run")
    out = tmp_path / "site"
    before = tree_digest(out)
    r = run_build_process(out, root=case.root, env={"CIT_VENDOR_MIRROR": ""}, cold=False)
    assert re.fullmatch(rf"build failed: site.yaml:{line}: {says}", one_line(r)), r.stderr
    assert tree_digest(out) == before


# ---- N19: a second study's site written into the first study's inputs ---------------

def test_a_second_study_may_not_write_its_site_into_another_studys_inputs(case, tmp_path):
    import subprocess
    import sys
    from cit.new import scaffold
    from tests.conftest import ROOT, tree_digest
    toy = scaffold(tmp_path / "toy")
    target = case.root / "content" / "pages" / "toyx"
    before = tree_digest(case.root / "content")
    r = subprocess.run([sys.executable, str(ROOT / "build.py"), "--root", str(toy), "--out",
                        str(target)], cwd=case.root, capture_output=True, text=True)
    assert one_line(r).startswith(f"build failed: --out {target}: is inside ")
    assert "which the build reads" in r.stderr
    assert not target.exists() and tree_digest(case.root / "content") == before
