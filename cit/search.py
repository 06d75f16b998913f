"""The search stage: Pagefind's index of every page, every glossary term and every
number id, built from the rendered files in memory (docs/architecture.md, "Search").

`search_records(files, numbers)` lists what is indexed: each page's HTML (its <main>;
Pagefind reads the words, the title and, as sub-results, the headings with ids), the
glossary's terms as headings at their entries, and one heading per registry number
(its id, text, unit and kind) at its row of /method's number index. `search_files(records, memo)` runs Pagefind (the `pagefind` package and
its binary, pinned in pyproject.toml) on them and returns the files of the index and
of Pagefind's search script under `pagefind/`. Pagefind's own result pages (its UI
scripts and styles) are left out: static/search.js is the box.

The index is a pure function of the records and Pagefind's version: two builds of the
same pages give the same bytes (tests/unit/test_search.py), and the memo keeps it
under a hash of both, so a build whose pages did not change does not run Pagefind.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import subprocess
import tempfile
from html import escape
from importlib import metadata
from pathlib import Path
from typing import Mapping

from .errors import BuildError

PAGEFIND_DIR = "pagefind"
# the files of Pagefind's bundle a reader's browser needs; its UI files are not shipped
SHIPPED = re.compile(r"^(pagefind\.js|pagefind-worker\.js|pagefind-entry\.json"
                     r"|pagefind\.[a-z0-9_]+\.pf_meta|wasm\.en\.pagefind"
                     r"|index/[^/]+\.pf_index|fragment/[^/]+\.pf_fragment)$")
LANGUAGE = "en"
# in <main> but not words of the page: permalinks, the outline, the index's wait line
NOT_INDEXED = (".permalink", ".page-outline", ".index-wait")
INDEX_URL = "/method/index.html"
GLOSSARY_URL = "/glossary/index.html"


def search_records(files: Mapping[str, bytes], numbers: Mapping) -> dict:
    """What the index holds, as plain data: `pages`, [url, html] for every page (its
    URL as the site links it, with index.html). Pagefind makes a sub-result of every
    heading with an id, so the copies it reads differ from the pages in two ways: the
    glossary's terms (`<dt id="term-…">`) are headings, and a deck's slide titles carry
    their slides' ids (and no other heading an id). The registry's numbers
    (`numbers`) follow as pages of their own (_number_pages)."""
    pages = []
    for path in sorted(files):
        if not path.endswith(".html") or path.rsplit("/", 1)[-1] != "index.html":
            continue
        url, text = "/" + path, files[path].decode("utf-8")
        if url == GLOSSARY_URL:
            text = TERM_RE.sub(r'<h3 id="\1">\2</h3>', text)
        if url.startswith("/decks/"):
            text = _slides_as_sections(text)
        pages.append([url, text])
    return {"pages": pages + _number_pages(numbers)}


SLIDE_RE = re.compile(r'<section class="slide" id="(slide-\d+)"[^>]*aria-labelledby="([^"]+)"')
HEADING_ID_RE = re.compile(r'(<h[1-6][^>]*?) id="[^"]*"')


def _slides_as_sections(text: str) -> str:
    """A deck's copy for the index: a slide's title heading carries the slide's id (a
    deck goes to #slide-N), and no other heading has one."""
    for sid, hid in SLIDE_RE.findall(text):
        text = text.replace(f' id="{hid}"', f' data-slide="{sid}"', 1)
    text = HEADING_ID_RE.sub(r"\1", text)
    return re.sub(r'(<h[1-6][^>]*?) data-slide="(slide-\d+)"', r'\1 id="\2"', text)


TERM_RE = re.compile(r'<dt id="(term-[^"]+)"><dfn>(.*?)</dfn></dt>')


CHUNK = 60   # numbers per indexed page: Pagefind's excerpts of a page scale with its size


def _number_pages(numbers: Mapping) -> list[list[str]]:
    """The number index as Pagefind reads it: per id prefix, pages of at most CHUNK
    numbers, each a heading (id `n-<id>`, its row's) over the number's id in words, its
    text, unit and kind; at /method's group (`#index-<prefix>`, `#index-<prefix>.2`…)."""
    groups: dict[str, list[str]] = {}
    for i in sorted(numbers):
        groups.setdefault(i.split(".", 1)[0], []).append(i)
    out = []
    for g, ids in groups.items():
        for k in range(0, len(ids), CHUNK):
            part = "" if k == 0 else f".{k // CHUNK + 1}"
            body = [f"<main><h1>Number index: {escape(g)}</h1>"]
            for i in ids[k:k + CHUNK]:
                n = numbers[i]
                # the id's parts as words too, so "final loss" finds final_loss.B
                said = " ".join(x for x in (re.sub(r"[._\-′]+", " ", i), n.text, n.unit, n.kind) if x)
                body.append(f'<h2 id="n-{escape(i)}">{escape(i)}</h2><p>{escape(said)}</p>')
            out.append([f"{INDEX_URL}#index-{g}{part}", "".join(body) + "</main>"])
    return out


def pagefind_version() -> str:
    try:
        return metadata.version("pagefind")
    except metadata.PackageNotFoundError:
        raise BuildError("engine/pyproject.toml", "the pagefind package is not installed: "
                                                  "python -m pip install -e ENGINE/engine") from None


def search_files(records: dict, memo) -> dict[str, bytes]:
    """The index's files, `pagefind/<name>` -> bytes, kept by `memo` under a key of the
    records, Pagefind's version and this module's own code (which files are shipped and
    how Pagefind is driven: an index made by older code is not reused)."""
    version = pagefind_version()
    code = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
    key = hashlib.sha256(json.dumps([version, code, records], sort_keys=True,
                                    ensure_ascii=False).encode("utf-8")).hexdigest()
    kept = memo("search-index", key, lambda: {
        name: base64.b64encode(data).decode("ascii")
        for name, data in _run_pagefind(records).items()})
    return {f"{PAGEFIND_DIR}/{name}": base64.b64decode(data) for name, data in sorted(kept.items())}


# AddFile requests sent ahead of their answers; the answers waiting are a few hundred
# bytes each, far below a pipe's buffer, so neither side can block the other
IN_FLIGHT = 8


class _PagefindPipe:
    """Pagefind's `--service` mode, spoken directly: each request is base64 JSON ended
    by a comma on its stdin, each answer the same on its stdout, in the order asked;
    pages are sent up to IN_FLIGHT ahead of their answers, so the service is never
    kept waiting while this process's other thread holds the interpreter, and each
    answer is read as soon as it is written. (The `pagefind` package's own client
    polls its pipe every 0.1 s, one answer per poll: 6.5 of a 7.3 s index of this site.
    See docs/architecture.md, "Search".)"""

    def __init__(self, binary: Path, log) -> None:
        self.proc = subprocess.Popen([str(binary), "--service"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=log)
        self.asked: list[str] = []      # each request's type, in the order sent
        self.answered = 0
        self.pending = b""

    def send(self, payload: dict) -> None:
        """A request, not waiting for its answer (`receive` reads the answers in the
        order the requests were sent)."""
        self.asked.append(payload["type"])
        request = json.dumps({"message_id": len(self.asked), "payload": payload})
        try:
            self.proc.stdin.write(base64.b64encode(request.encode("utf-8")) + b",")
            self.proc.stdin.flush()
        except BrokenPipeError:
            raise RuntimeError(f"the service ended before reading {payload['type']}") from None

    def receive(self) -> dict:
        """The answer to the oldest request not yet answered."""
        while b"," not in self.pending:
            chunk = self.proc.stdout.read1(1 << 16)
            if not chunk:
                raise RuntimeError("the service ended before answering "
                                   + self.asked[self.answered])
            self.pending += chunk
        answer, self.pending = self.pending.split(b",", 1)
        self.answered += 1
        reply = json.loads(base64.b64decode(answer))["payload"]
        if reply.get("type") == "Error":
            raise RuntimeError(reply.get("message", "an error without a message"))
        return reply

    def ask(self, payload: dict) -> dict:
        self.send(payload)
        return self.receive()

    def close(self) -> None:
        """Ends the service: every answer has been read, so nothing of it is lost. (No
        timed wait: under faketime, the reproducibility test's clock, time.sleep fails.)"""
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        self.proc.kill()
        self.proc.wait()
        self.proc.stdout.close()


def _run_pagefind(records: dict) -> dict[str, bytes]:
    try:
        from pagefind.service import get_executable
    except ImportError:
        pagefind_version()      # names the missing package
        raise
    binary = get_executable()
    if binary is None:
        raise BuildError("engine/pyproject.toml", "Pagefind's binary is missing: "
                         "python -m pip install -e ENGINE/engine")
    config = {"root_selector": "main", "force_language": LANGUAGE,
              "exclude_selectors": list(NOT_INDEXED)}
    with tempfile.TemporaryFile() as log:
        try:
            files = _index_of(records, config, _PagefindPipe(binary, log))
        except (OSError, RuntimeError, ValueError, KeyError) as e:
            log.seek(0)
            said = log.read().decode("utf-8", "replace").strip().splitlines()[-1:]
            raise BuildError("search index", f"Pagefind failed: {e}"
                             + (f" ({said[0]})" if said else "")) from None
    if "pagefind.js" not in files or not any(n.startswith("index/") for n in files):
        raise BuildError("search index", f"Pagefind wrote no index (files: {sorted(files)})")
    return files


def _index_of(records: dict, config: dict, pipe: _PagefindPipe) -> dict[str, bytes]:
    """The index of `records` as the service answers GetFiles: the shipped files, in
    memory. (Its WriteFiles answers before its last file is complete on disk: a build
    that ended the service at once read an empty pagefind-entry.json.)"""
    try:
        index = pipe.ask({"type": "NewIndex", "config": config})["index_id"]
        for url, html_text in records["pages"]:
            pipe.send({"type": "AddFile", "index_id": index, "url": url,
                       "file_contents": html_text, "file_path": None})
            if len(pipe.asked) - pipe.answered > IN_FLIGHT:
                pipe.receive()
        while pipe.answered < len(pipe.asked):
            pipe.receive()
        answer = pipe.ask({"type": "GetFiles", "index_id": index})
    finally:
        pipe.close()
    return {f["path"]: base64.b64decode(f["content"])
            for f in sorted(answer["files"], key=lambda f: f["path"]) if SHIPPED.match(f["path"])}
