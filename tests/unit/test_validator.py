"""Every page of the built site is valid HTML to the W3C's Nu Html Checker (vnu.jar,
from the npm package `vnu-jar` pinned in package.json and installed by the README's test
command with `npm ci --ignore-scripts`; run by Debian's Java). Any error fails, named by
page, line and message. The checker is also shown to find the kinds of error it found
here before (an aria-label on a <data> without a role; a <figcaption> that is neither a
figure's first nor its last child), so the test cannot pass by checking nothing.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT

VNU = ROOT / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"


def vnu(paths: list[Path]) -> list[dict]:
    """The checker's errors (and failures to read a document) for the files `paths`."""
    if not shutil.which("java"):
        pytest.fail("java is missing: the README's test command installs "
                    "default-jre-headless", pytrace=False)
    if not VNU.is_file():
        pytest.fail(f"{VNU.relative_to(ROOT)} is missing: run `npm ci --ignore-scripts` "
                    "(the README's test command does)", pytrace=False)
    r = subprocess.run(["java", "-Xss4m", "-jar", str(VNU), "--format", "json", "--exit-zero-always",
                        *map(str, paths)], capture_output=True, text=True, check=True)
    messages = json.loads(r.stderr)["messages"]
    return [m for m in messages if m["type"] in ("error", "non-document-error")]


def where(m: dict, root: Path) -> str:
    url = m.get("url", "")
    path = url.removeprefix("file:").lstrip("/")
    rel = Path("/" + path).relative_to(root) if path else "?"
    return f"{rel}:{m.get('lastLine', '?')}: {m['message']}"


def test_every_page_of_the_site_is_valid_html(built_site, measured):
    site = Path(built_site).resolve()
    pages = sorted(site.rglob("*.html"))
    assert len(pages) >= 12, pages
    errors = vnu(pages)
    measured(f"vnu: {len(errors)} errors on {len({m.get('url') for m in errors})} of "
             f"{len(pages)} pages")
    assert not errors, "\n".join(where(m, site) for m in errors)


def test_the_checker_reports_the_errors_the_site_once_had(tmp_path):
    page = tmp_path / "bad.html"
    page.write_text('<!doctype html><html lang="en"><head><meta charset="utf-8">'
                    "<title>t</title></head><body>"
                    '<p><data value="1" aria-label="a label">one</data></p>'
                    "<figure><p>chart</p><figcaption>caption</figcaption>"
                    "<details><summary>data</summary>table</details></figure>"
                    "</body></html>", encoding="utf-8")
    found = [m["message"] for m in vnu([page])]
    assert any("aria-label" in m and "data" in m for m in found), found
    assert any("details" in m and "figure" in m for m in found), found
