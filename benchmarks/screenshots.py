"""Screenshots of a built site at four window sizes, for comparing a design pass by eye.

    python benchmarks/screenshots.py OUT_DIR [--site DIR] [--quality 60] [--full-page]

Serves the built `--site DIR` (default: site/) on 127.0.0.1 from a thread of this
process and shoots, in Debian's Chromium (/usr/bin/chromium, headless), the hub, /transit,
/optics and one slide of each deck (the first slide that holds a figure, else the
first) at 1920x1080, 1280x800, 1024x768 and 390x844, as JPEG files named
`<page>-<width>x<height>.jpg` in OUT_DIR. A page is shot as the reader first sees it
(the window's height) unless --full-page. Prints each file's size and the folder's total.
No test runs this script; nothing is written outside OUT_DIR.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import re
import sys
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
CHROME = "/usr/bin/chromium"
CHROME_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
SIZES = ((1920, 1080), (1280, 800), (1024, 768), (390, 844))
PAGES = (("hub", "index.html"), ("transit", "transit/index.html"),
         ("optics", "optics/index.html"))


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 (the base class's name)
        pass


def deck_shots(site: Path) -> list[tuple[str, str]]:
    """(name, path#slide-N) for each deck: its first slide holding a figure, else slide 1."""
    shots = []
    for index in sorted(site.glob("decks/*/index.html")):
        html = index.read_text(encoding="utf-8")
        slide = 1
        for number, body in re.findall(r'id="slide-(\d+)"(.*?)(?=id="slide-\d+"|\Z)', html, re.S):
            if "<svg" in body or "<figure" in body:
                slide = int(number)
                break
        rel = index.relative_to(site).as_posix()
        shots.append((f"deck-{index.parent.name}", f"{rel}#slide-{slide}"))
    return shots


def shoot(site: Path, out: Path, quality: int, full_page: bool) -> int:
    """Writes every shot into `out`; returns the bytes written."""
    handler = functools.partial(_Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    total = 0
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROME, args=CHROME_FLAGS)
            for width, height in SIZES:
                context = browser.new_context(viewport={"width": width, "height": height})
                page = context.new_page()
                for name, rel in (*PAGES, *deck_shots(site)):
                    page.goto(base + rel, wait_until="load")
                    page.wait_for_timeout(400)       # fonts, the explorer's first draw
                    path = out / f"{name}-{width}x{height}.jpg"
                    page.screenshot(path=str(path), type="jpeg", quality=quality,
                                    full_page=full_page)
                    total += path.stat().st_size
                    print(f"{path.name}: {path.stat().st_size:,} bytes")
                context.close()
            browser.close()
    finally:
        server.shutdown()
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--site", type=Path, default=ROOT / "site")
    parser.add_argument("--quality", type=int, default=60)
    parser.add_argument("--full-page", action="store_true")
    args = parser.parse_args(argv)
    if not (args.site / "index.html").is_file():
        print(f"{args.site}/index.html: no built site there (run python build.py)", file=sys.stderr)
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    total = shoot(args.site, args.out, args.quality, args.full_page)
    print(f"{args.out}: {total:,} bytes in {len(list(args.out.glob('*.jpg')))} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
