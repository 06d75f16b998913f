"""Run Lighthouse on every page of the site, desktop and mobile, and record the scores.

    python benchmarks/bench_lighthouse.py [--runs 3] [--site DIR] [--no-write]

Builds the site into a temporary folder (or takes the built `--site DIR`), serves it on
127.0.0.1 from a thread of this process, and runs Lighthouse (npm `lighthouse`, the
version pinned below, fetched by `npx`; Debian's Chromium at /usr/bin/chromium, headless)
on every page, once with the desktop preset and once with Lighthouse's default mobile
emulation (simulated throttling), --runs times each. Of each page and form factor it
keeps the run with the median performance score: the four category scores (0 to 100),
Largest Contentful Paint and Total Blocking Time in milliseconds, and Cumulative Layout
Shift. Writes them under `lighthouse:` in data/benchmarks.yaml (committed; /tested shows
them), keeping every other record there. Needs node and npm (the README's test command
installs them where missing); no test runs this script.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from cit.buildrecord import measured_at  # noqa: E402  (the checkout's cit)
LIGHTHOUSE = "lighthouse@12.2.3"
CHROME = "/usr/bin/chromium"
CHROME_FLAGS = "--headless --no-sandbox --disable-gpu --disable-background-networking"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
FORM_FACTORS = ("desktop", "mobile")
RECORD = ROOT / "data" / "benchmarks.yaml"


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):   # one line per request would drown the progress lines
        pass


def serve(site: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    """A static server for `site` on a free port of 127.0.0.1, in a daemon thread."""
    handler = functools.partial(QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def page_urls(site: Path) -> list[str]:
    """Every page's URL path ("/", "/decks/01-sources/", ...), sorted."""
    urls = []
    for f in site.rglob("index.html"):
        rel = f.parent.relative_to(site).as_posix()
        urls.append("/" if rel == "." else f"/{rel}/")
    return sorted(urls)


def lighthouse_once(url: str, form_factor: str, out: Path, tries: int = 3) -> dict:
    """One Lighthouse run; its category scores and three metrics. A run that Lighthouse
    itself gives up on (on a loaded machine the protocol can time out on a long page) is
    tried again, up to `tries` times in all."""
    for attempt in range(1, tries + 1):
        try:
            return _lighthouse_run(url, form_factor, out)
        except (subprocess.CalledProcessError, RuntimeError) as err:
            if attempt == tries:
                raise
            print(f"{url} ({form_factor}): run failed ({err}); again", file=sys.stderr)
    raise AssertionError("unreachable")


def _lighthouse_run(url: str, form_factor: str, out: Path) -> dict:
    cmd = ["npx", "--yes", LIGHTHOUSE, url, "--quiet", "--output=json",
           f"--output-path={out}", f"--chrome-flags={CHROME_FLAGS}",
           "--only-categories=" + ",".join(CATEGORIES)]
    if form_factor == "desktop":
        cmd.append("--preset=desktop")
    env = dict(os.environ, CHROME_PATH=CHROME)
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
    lhr = json.loads(out.read_text())
    if lhr.get("runtimeError"):
        raise RuntimeError(f"{url} ({form_factor}): {lhr['runtimeError']}")
    scores = {c.replace("-", "_"): round(lhr["categories"][c]["score"] * 100)
              for c in CATEGORIES}
    audits = lhr["audits"]
    return {**scores,
            "lcp_ms": round(audits["largest-contentful-paint"]["numericValue"]),
            "tbt_ms": round(audits["total-blocking-time"]["numericValue"]),
            "cls": round(audits["cumulative-layout-shift"]["numericValue"], 3)}


def median_run(results: list[dict]) -> dict:
    """The run whose performance score is the median (the lower middle one of an even
    count), so that the scores and metrics recorded come from one and the same run."""
    ordered = sorted(results, key=lambda r: r["performance"])
    return ordered[(len(ordered) - 1) // 2]


def chromium_version() -> str:
    out = subprocess.run([CHROME, "--version"], capture_output=True, text=True, check=True)
    return out.stdout.strip()


def measure(site: Path, runs: int, tmp: Path, only: list[str]) -> dict:
    server, base = serve(site)
    pages = {}
    try:
        for url in page_urls(site):
            if only and url not in only:
                continue
            pages[url] = {}
            for ff in FORM_FACTORS:
                results = [lighthouse_once(base + url, ff, tmp / "lhr.json")
                           for _ in range(runs)]
                pages[url][ff] = median_run(results)
                print(f"{url} {ff}: {pages[url][ff]}", file=sys.stderr, flush=True)
    finally:
        server.shutdown()
    return pages


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--site", type=Path, help="a built site (default: build one)")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--pages", nargs="*", default=[],
                    help="measure only these URL paths (e.g. /method/); the other pages "
                    "keep what data/benchmarks.yaml recorded for them")
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="cit-lighthouse-"))
    try:
        site = a.site
        if site is None:
            site = tmp / "site"
            subprocess.run([sys.executable, "build.py", "--out", str(site)], cwd=ROOT,
                           check=True, stdout=subprocess.DEVNULL)
        load = round(os.getloadavg()[0], 2)
        stamp = site_measured_at(site, built=a.site is None)
        pages = measure(site.resolve(), a.runs, tmp, a.pages)
        for entry in pages.values():
            entry["measured_at"] = dict(stamp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if a.pages:
        old = (yaml.safe_load(RECORD.read_text()) or {}).get("lighthouse") or {}
        pages = {**old.get("pages", {}), **pages}
        pages = {k: pages[k] for k in sorted(pages)}
    record = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "lighthouse": LIGHTHOUSE.split("@", 1)[1],
        "chromium": chromium_version(),
        "load_average_at_start": load,
        "runs": a.runs,
        "pages": pages,
    }
    print(yaml.safe_dump(record, sort_keys=False))
    if not a.no_write:
        write_record(record)
    return 0


def site_measured_at(site: Path, built: bool) -> dict:
    """The commit of the site measured: this checkout's (with whether its working tree
    differed) when the script built the site, else the stamp in the given site's
    numbers.json, whose working tree is not known."""
    if built:
        return measured_at(ROOT)
    stamp = json.loads((site / "numbers.json").read_text())["build"]
    return {"commit": stamp["commit"], "date": stamp["commit_date"],
            "uncommitted_changes": "unknown"}


def write_record(record: dict) -> None:
    """Put `record` under `lighthouse:` in data/benchmarks.yaml, the rest kept as it was
    (its header comment too)."""
    text = RECORD.read_text()
    header = "".join(line for line in text.splitlines(keepends=True) if line.startswith("#"))
    data = yaml.safe_load(text) or {}
    data["lighthouse"] = record
    RECORD.write_text(header + yaml.safe_dump(data, sort_keys=False))


if __name__ == "__main__":
    sys.exit(main())
