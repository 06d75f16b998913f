"""What a build tells the person who ran it (docs/architecture.md, "What a build
prints"): one line per stage as it runs, and a closing summary in plain words.

On a terminal a stage's line appears when the stage starts ("… render") and is
rewritten in place when it ends, with what it did and how long it took; elsewhere (a
pipe, a CI log) each stage prints one plain line when it ends. `quiet` prints nothing
but what the caller prints itself (errors go to stderr either way). No thread: a
spinner's thread would run beside the build's forked children.
"""

from __future__ import annotations

import contextlib
import sys
import time
from typing import TextIO


class Progress:
    """Stage lines for one build. `stage(name, doing)` is a context manager; inside it,
    `done(text)` says what the stage did (shown when it ends)."""

    def __init__(self, stream: TextIO | None = None, quiet: bool = False,
                 tty: bool | None = None):
        self.stream = stream or sys.stdout
        self.quiet = quiet
        self.tty = self.stream.isatty() if tty is None else tty
        self._what = ""
        self.reused: list[str] = []    # what this build took from its caches, in words

    def done(self, text: str) -> None:
        """What the running stage did, for its closing line."""
        self._what = text

    @contextlib.contextmanager
    def stage(self, name: str, doing: str):
        self._what = ""
        if self.tty and not self.quiet:
            self.stream.write(f"\u2026 {name}: {doing}")
            self.stream.flush()
        t0 = time.perf_counter()
        try:
            yield self
        except BaseException:
            if self.tty and not self.quiet:
                self.stream.write("\r\x1b[2K")    # the failure's own line replaces it
                self.stream.flush()
            raise
        self._line(name, self._what or doing, time.perf_counter() - t0)

    def _line(self, name: str, what: str, seconds: float) -> None:
        if self.quiet:
            return
        text = f"{name}: {what} ({seconds:.2f} s)"
        self.stream.write(f"\r\x1b[2K\u2713 {text}\n" if self.tty else text + "\n")
        self.stream.flush()


def silent() -> Progress:
    """A Progress that prints nothing (library calls, --serve's rebuilds)."""
    return Progress(quiet=True, tty=False)


def counted(n: int, one: str, many: str | None = None) -> str:
    """'1 page', '12 pages', '1,725 numbers': a count and its noun."""
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


def kinds_phrase(kinds: dict[str, int]) -> str:
    """'1,340 measured, 271 simulated, ...': the registry's numbers by kind, largest first."""
    return ", ".join(f"{n:,} {k}" for k, n in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])))


def summary_lines(figures: dict, kinds: dict[str, int], out: str | None,
                  reused: list[str], checked: list[str] = ()) -> list[str]:
    """The closing summary: what the data stages recomputed and checked (`checked`,
    each stage's own line, cit/stages.py), the claims, what was reused from the cache,
    and where the site is (None: --check wrote nothing)."""
    total = sum(kinds.values())
    lines = [
        f"{counted(total, 'number')} on the site, each with its provenance "
        f"({kinds_phrase(kinds)}).",
        *(f"{line[0].upper()}{line[1:]}." for line in checked if line),
        f"{figures['claims_verified'][0]:,} of {counted(figures['claims_total'][0], 'checked claim')} "
        "verified; no naked number on any page; every internal link resolves.",
    ]
    if reused:
        lines.append("Reused, not recomputed: " + "; ".join(reused) + ".")
    if out is None:
        lines.append("Nothing written (--check).")
    else:
        lines.append(f"Site written to {out}/ \u2014 open {out}/index.html in a browser, "
                     "or serve it with cit serve (python build.py --serve).")
    return lines
