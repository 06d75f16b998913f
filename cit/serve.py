"""`python build.py --serve [--port N]`: build, serve the site on 127.0.0.1, rebuild on
save, and reload the open page.

The site is served from memory: the build's files as they would be written, with one
difference that exists only here: every HTML page gets a small live-reload script
(`RELOAD_TAG`, before `</body>`). site/ is never written in this mode, so the published
build can never carry the script.

The script long-polls `/__cit/wait`. Each build, good or failed, moves the server's
token on; a page whose token is stale reloads, and a failed build shows its error (with
file and line) over the page, which keeps showing the last good site until a build
succeeds. The terminal prints the same error.

Watched with watchdog: content/, templates/, data/, vendored/lock.yaml and
vendored/plotly/ (the inputs of a build), and the code (cit/, build.py). A change to the
inputs rebuilds in this process (`Rebuilder`); a change to the code restarts the process
in place (same arguments), because imported modules are not reloaded safely.
"""

from __future__ import annotations

import concurrent.futures
import errno
import http.server
import io
import json
import mimetypes
import os
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from . import siteconfig
from .errors import BuildError

RELOAD_PATH = "/__cit/reload.js"
WAIT_PATH = "/__cit/wait"
RELOAD_TAG = '<script src="/__cit/reload.js" data-token="{token}"></script>'
POLL_SECONDS = 25
DEBOUNCE_SECONDS = 0.05
INDEX_PREFIX = "pagefind/"      # the search index's files (cit/search.py: PAGEFIND_DIR)
# besides the code folders (the engine's cit/ and the study's packages, code_folders)
WATCHED_DIRS = ("content", "templates", "data", "vendored/plotly")
WATCHED_FILES = ("vendored/lock.yaml", "build.py", "site.yaml")
IGNORED_PARTS = ("__pycache__", ".git")
IGNORED_SUFFIXES = ("~", ".swp", ".swx", ".part", ".tmp", ".pyc")

# The page side: poll; reload when the token moves on; show a failed build's error.
RELOAD_JS = """(function () {
  "use strict";
  var me = document.currentScript, token = me ? me.getAttribute("data-token") : "";
  function show(message) {
    var box = document.getElementById("cit-build-error");
    if (!box) {
      box = document.createElement("pre");
      box.id = "cit-build-error";
      box.setAttribute("role", "alert");
      box.style.cssText = "position:fixed;left:0;right:0;bottom:0;z-index:99999;margin:0;" +
        "max-height:50vh;overflow:auto;padding:1em;background:#3b0a0a;color:#fff;" +
        "font:14px/1.4 monospace;white-space:pre-wrap;border-top:4px solid #e33";
      document.body.appendChild(box);
    }
    box.textContent = "Build failed; still showing the last good site.\\n\\n" + message;
  }
  function poll(since) {
    fetch("/__cit/wait?v=" + encodeURIComponent(since), { cache: "no-store" })
      .then(function (r) { return r.json(); })
      .then(function (s) {
        if (s.error) { show(s.error); poll(s.token); }
        else if (s.token !== token) { location.reload(); }
        else { poll(s.token); }
      })
      .catch(function () { setTimeout(function () { poll(""); }, 300); });
  }
  poll("");
})();
"""

FAILED_PAGE = ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
               "<title>Build failed</title></head><body><h1>The first build failed</h1>"
               "<p>Fix the error and save; this page reloads.</p></body></html>")


@dataclass
class ServeState:
    """What the server shows: the last good files, the current token, the last error."""
    files: dict[str, bytes] = field(default_factory=dict)
    token: str = ""
    error: str | None = None
    builds: int = 0
    cond: threading.Condition = field(default_factory=threading.Condition)

    def publish(self, files: dict[str, bytes] | None, error: str | None) -> None:
        """A build finished: new files (None: keep the last good ones) or an error."""
        with self.cond:
            if files is not None:
                self.files = files
            self.error = error
            self.builds += 1
            self.token = f"{os.getpid()}-{time.monotonic_ns()}-{self.builds}"
            self.cond.notify_all()

    def refresh(self, files: dict[str, bytes]) -> None:
        """Files that complete the build published last (its search index): served
        from now on, the token unchanged (the page need not reload)."""
        with self.cond:
            self.files = self.files | files

    def wait(self, since: str, timeout: float) -> tuple[str, str | None]:
        with self.cond:
            if since == self.token:
                self.cond.wait_for(lambda: self.token != since, timeout=timeout)
            return self.token, self.error


def inject_reload(html: bytes, token: str) -> bytes:
    """The page with the live-reload script before its last </body> (serve mode only)."""
    tag = RELOAD_TAG.format(token=token).encode()
    at = html.rfind(b"</body>")
    return html + tag if at < 0 else html[:at] + tag + html[at:]


def site_path(url_path: str) -> str:
    """A request path -> the key of the site's files: "/" -> "index.html",
    "/results/" -> "results/index.html"."""
    p = unquote(urlsplit(url_path).path).lstrip("/")
    if p == "" or p.endswith("/"):
        p += "index.html"
    return p


CLIENT_TIMEOUT = 10         # seconds a client may take to send a request (or read one)
BACKLOG = 128               # connections waiting to be accepted
MAX_CLIENTS = 64            # connections served at once; more are answered 503 and closed


def host_allowed(hosts: list[str], port: int) -> bool:
    """Only a request addressed to this server by its own name, once: one Host header,
    `127.0.0.1:PORT` or `localhost:PORT`. Any other Host (a DNS-rebinding page's name),
    none, or several (whichever comes first) are refused."""
    return len(hosts) == 1 and hosts[0].strip().lower() in (f"127.0.0.1:{port}",
                                                            f"localhost:{port}")


class DeadlineReader(io.RawIOBase):
    """A connection's reading side under one deadline for the whole request: each read
    waits at most what is left of CLIENT_TIMEOUT since the connection was accepted, so
    a client that trickles a header line every few seconds is dropped when its time is
    up, not held for as long as it trickles (issue 32, N17)."""

    def __init__(self, sock, seconds: float) -> None:
        self.sock, self.deadline = sock, time.monotonic() + seconds

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request took longer than the preview allows")
        self.sock.settimeout(left)
        return self.sock.recv_into(buffer)


def make_handler(state: ServeState):
    class Handler(http.server.BaseHTTPRequestHandler):
        timeout = CLIENT_TIMEOUT    # a half-sent request is dropped, not held for ever

        def log_message(self, format, *args):  # noqa: A002 (the base class's name)
            pass

        def setup(self) -> None:
            super().setup()
            self.rfile.close()      # the standard reader, replaced by one with a deadline
            self.rfile = io.BufferedReader(DeadlineReader(self.connection, CLIENT_TIMEOUT))

        def parse_request(self) -> bool:
            if not super().parse_request():
                return False
            self.connection.settimeout(CLIENT_TIMEOUT)      # the answer's own timeout
            if not host_allowed(self.headers.get_all("Host", []),
                                self.server.server_address[1]):
                self._send(421, b"this preview answers only 127.0.0.1 and localhost\n",
                           "text/plain; charset=utf-8")
                return False
            return True

        def _send(self, status: int, body: bytes, ctype: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def do_GET(self):  # noqa: N802 (the base class's name)
            parts = urlsplit(self.path)
            if parts.path == RELOAD_PATH:
                return self._send(200, RELOAD_JS.encode(), "text/javascript; charset=utf-8")
            if parts.path == WAIT_PATH:
                since = parse_qs(parts.query).get("v", [""])[0]
                token, error = state.wait(since, POLL_SECONDS)
                body = json.dumps({"token": token, "error": error}).encode()
                return self._send(200, body, "application/json")
            key = site_path(self.path)
            with state.cond:
                files, token = state.files, state.token
            data = files.get(key)
            if data is None and (key + "/index.html") in files:
                self.send_response(301)
                self.send_header("Location", parts.path + "/")
                self.end_headers()
                return None
            if data is None:
                if not files:
                    return self._send(503, inject_reload(FAILED_PAGE.encode(), token),
                                      "text/html; charset=utf-8")
                return self._send(404, b"not found", "text/plain; charset=utf-8")
            ctype = mimetypes.guess_type(key)[0] or "application/octet-stream"
            if ctype == "text/html":
                data = inject_reload(data, token)
            if ctype.startswith("text/") or ctype in ("application/javascript", "application/json"):
                ctype += "; charset=utf-8"
            return self._send(200, data, ctype)

        do_HEAD = do_GET

    return Handler


def code_folders(root: Path) -> tuple[str, ...]:
    """The folders of the code a build runs: the engine's cit/ and the study's packages
    (site.yaml's stages and block providers, cit.siteconfig: packages; none while
    site.yaml cannot be read, which the build then reports)."""
    try:
        return ("cit", *siteconfig.load_site(root).packages())
    except BuildError:
        return ("cit",)


def static_folder(root: Path) -> tuple[str, ...]:
    """The study's own static folder (site.yaml `static`), which may lie in a code
    folder: its files are inputs like templates/static's, not code."""
    try:
        found = siteconfig.load_site(root).static
    except BuildError:
        return ()
    return (found.strip("/"),) if found else ()


def describe_error(exc: BaseException, folders=("cit",)) -> str:
    """A failed build in words: a BuildError names its file and line; anything else
    (a bug, say) names the innermost frame of our code (`folders`: code_folders)."""
    if isinstance(exc, BuildError):
        return str(exc)
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if any(f"/{d}/" in f.filename.replace(os.sep, "/")
                                     for d in folders)] or frames
    where = f"{ours[-1].filename}:{ours[-1].lineno}" if ours else "build"
    return f"{where}: {type(exc).__name__}: {exc}"


BUSY = (b"HTTP/1.0 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
        b"Retry-After: 1\r\nConnection: close\r\n\r\ntoo many connections to the preview\n")


class PreviewServer(http.server.ThreadingHTTPServer):
    """The standard threading server with at most MAX_CLIENTS connections served at
    once (a thread each): one more is answered 503 at once and closed, without a
    thread (issue 32, N17)."""
    daemon_threads = True
    request_queue_size = BACKLOG

    def __init__(self, *args, **kwargs) -> None:
        self.slots = threading.BoundedSemaphore(MAX_CLIENTS)
        super().__init__(*args, **kwargs)

    def process_request(self, request, client_address) -> None:
        if not self.slots.acquire(blocking=False):
            try:
                request.settimeout(1)
                request.sendall(BUSY)
            except OSError:
                pass
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request, client_address) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()

    def handle_error(self, request, client_address) -> None:
        """A client that went away (closed or reset the connection before its answer,
        a refused Host's 421 included, or timed out) is simply dropped: that is the
        client's choice, not an error of the preview. Anything else is printed, as the
        standard server does."""
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


def bind(port: int) -> http.server.ThreadingHTTPServer:
    """The server on 127.0.0.1:port (never another address), or SystemExit(2) with a
    message naming the port."""
    why = None
    if not 0 <= port <= 65535:
        why = "is out of range (0 to 65535)"
    else:
        try:
            return PreviewServer(("127.0.0.1", port), http.server.BaseHTTPRequestHandler)
        except OSError as e:
            why = {errno.EADDRINUSE: "is in use", errno.EACCES: "is not allowed"}.get(
                e.errno, f"cannot be used ({e.strerror})")
    print(f"serve: port {port} on 127.0.0.1 {why}; pick another with --port N",
          file=sys.stderr)
    raise SystemExit(2)


def relevant(root: Path, path: str, code=("cit",), static=()) -> str | None:
    """The changed file relative to root, or None when no build reads it (`code`: the
    code folders, code_folders; `static`: the study's static folder, static_folder)."""
    try:
        rel = Path(path).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None
    if any(part in IGNORED_PARTS for part in rel.split("/")) or rel.endswith(IGNORED_SUFFIXES):
        return None
    if Path(rel).name.startswith(".") or Path(rel).name.startswith("#"):
        return None
    if rel in WATCHED_FILES or any(rel.startswith(d + "/") for d in (*WATCHED_DIRS, *code)):
        if (rel.startswith(tuple(d + "/" for d in code)) and not rel.endswith(".py")
                and not rel.startswith(tuple(d + "/" for d in static))):
            return None
        return rel
    return None


class Changes:
    """Changed paths collected from watchdog's thread, handed out after a quiet spell.

    A save can reach us as several events (an editor's truncate, write and close, or
    `cp`'s), some after the spell: a path is handed out only when its bytes on disk
    (size, modification time, inode) differ from when it was last handed out, so one
    save makes one rebuild (docs/architecture.md, "Serving")."""

    def __init__(self, root: Path):
        self.root = root
        self.code, self.static = code_folders(root), static_folder(root)
        self.paths: set[str] = set()
        self.seen: dict[str, tuple | None] = {}
        self.cond = threading.Condition()

    def add(self, path: str) -> None:
        rel = relevant(self.root, path, self.code, self.static)
        if rel is None:
            return
        with self.cond:
            self.paths.add(rel)
            self.cond.notify_all()

    def add_folder(self, rel: str) -> None:
        """A watched folder appeared, went or moved: one rebuild (its signature is
        the folder's own, so each change of it is handed out once)."""
        with self.cond:
            self.paths.add(rel)
            self.cond.notify_all()

    def _signature(self, rel: str) -> tuple | None:
        try:
            st = os.stat(self.root / rel)
        except OSError:
            return None
        return st.st_size, st.st_mtime_ns, st.st_ino

    def take(self, timeout: float | None = None) -> set[str]:
        """Block until something changed on disk, then until DEBOUNCE_SECONDS pass
        without more; the paths whose bytes differ from when last handed out. With a
        timeout, an empty set when nothing did by then."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            with self.cond:
                left = None if deadline is None else max(0.0, deadline - time.monotonic())
                if not self.cond.wait_for(lambda: self.paths, left):
                    return set()
                while True:
                    n = len(self.paths)
                    self.cond.wait(DEBOUNCE_SECONDS)
                    if len(self.paths) == n:
                        break
                taken, self.paths = self.paths, set()
            moved = {p for p in taken if self._signature(p) != self.seen.get(p, ())}
            self.seen.update((p, self._signature(p)) for p in moved)
            if moved:
                return moved


def watch_targets(code=("cit",)) -> dict[str, bool]:
    """The folders watched, relative to the root, each with whether its sub-folders
    are: the input and code folders (recursive), and the folders of the watched files
    and the root itself (their own entries only)."""
    targets = {".": False}
    targets |= {str(Path(f).parent.as_posix()): False for f in WATCHED_FILES}
    return targets | {d: True for d in (*WATCHED_DIRS, *code)}


class Watches:
    """The watchdog watches of the targets (watch_targets), armed again whenever a
    target folder appears, disappears or is moved: a folder missing when the server
    started (or restarted) is watched from the moment it is back, and a folder moved
    away stops being watched where it went (docs/architecture.md, "Serving")."""

    def __init__(self, root: Path, observer, feed, code=("cit",)) -> None:
        self.root, self.observer, self.feed = root, observer, feed
        self.targets = watch_targets(code)
        self.armed: dict[str, object] = {}

    def arm(self, rel: str = ".") -> None:
        """(Re)schedule `rel` and every target inside it that is a folder now."""
        for t, recursive in self.targets.items():
            if not (rel == "." or t == rel or t.startswith(rel + "/")):
                continue
            if t in self.armed and t != ".":
                self.observer.unschedule(self.armed.pop(t))
            if t not in self.armed and (self.root / t).is_dir():
                self.armed[t] = self.observer.schedule(self.feed, str(self.root / t),
                                                       recursive=recursive)

    def folder_event(self, path: str) -> str | None:
        """A target folder that an event names (relative to the root), re-armed; None
        when the path is no target's."""
        try:
            rel = Path(os.path.abspath(path)).relative_to(self.root.absolute()).as_posix()
        except ValueError:
            return None
        if rel == "." or rel not in self.targets:
            return None
        self.arm(rel)
        return rel


def watch(root: Path, changes: Changes):
    """A started watchdog observer feeding `changes`; a target folder that appears or
    goes is a change too (a build then says what is missing, or builds what is back)."""
    from watchdog.events import FileSystemEventHandler
    from watchdog.observers import Observer

    class Feed(FileSystemEventHandler):
        def on_any_event(self, event):
            if event.event_type in ("opened", "closed_no_write"):
                return
            for path in (event.src_path, getattr(event, "dest_path", "")):
                if not path:
                    continue
                target = watches.folder_event(path)
                if target is not None:
                    changes.add_folder(target)
                elif not event.is_directory:
                    changes.add(path)

    observer = Observer()
    watches = Watches(root, observer, Feed(), changes.code)
    watches.arm()
    observer.daemon = True
    observer.start()
    return observer


def _build(rebuild, changed, state: ServeState, code=("cit",)) -> None:
    """One build: publish its files, or keep the last good ones and publish the error
    (`code`: the code folders, code_folders, for naming where a bug is). A rebuild
    after a save publishes the pages first, with the last search index, and the new
    index after the reload (`_index_after`); the first build publishes them together."""
    t0 = time.perf_counter()
    later = None if changed is None else (lambda finish: _index_after(finish, state, code))
    try:
        files = rebuild(changed, later=later) if later else rebuild(changed)
    except Exception as e:  # noqa: BLE001 (any failure is shown, and the server lives on)
        message = describe_error(e, code)
        print(f"build failed: {message}", file=sys.stderr, flush=True)
        state.publish(None, message)
        return
    with state.cond:
        index = {k: v for k, v in state.files.items() if k.startswith(INDEX_PREFIX)}
    state.publish(index | files if later else files, None)
    what = "built" if changed is None else f"rebuilt after {', '.join(sorted(changed))}"
    print(f"{what}: {len(files)} files in {time.perf_counter() - t0:.2f} s", flush=True)


def _index_after(finish, state: ServeState, code=("cit",)):
    """Run `finish` (the search index of the build just published) in a thread and put
    its files in place without moving the token (no reload: the page's words are
    already there); a future the next rebuild waits for. A failure is shown as a
    failed build's error."""
    def run() -> None:
        try:
            found = finish()
        except Exception as e:  # noqa: BLE001 (shown, and the server lives on)
            message = describe_error(e, code)
            print(f"build failed: {message}", file=sys.stderr, flush=True)
            state.publish(None, message)
            return
        state.refresh(found)
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
    future = pool.submit(run)
    pool.shutdown(wait=False)
    return future


def code_error(root: Path) -> str | None:
    """Why the edited code cannot run, or None: a syntax error in any of our files
    (file and line), else the failure of importing the build in a fresh process. Checked
    before a restart, so that a half-typed edit shows in the page instead of ending the
    server."""
    folders = code_folders(root)
    code = [root / c for c in (*folders, "build.py")]
    for path in sorted(p for c in code for p in ([c] if c.suffix else c.rglob("*.py"))):
        try:
            compile(path.read_bytes(), str(path), "exec")
        except SyntaxError as e:
            rel = path.relative_to(root).as_posix()
            return f"{rel}:{e.lineno}: SyntaxError: {e.msg}"
        except (OSError, ValueError):
            continue        # gone or unreadable meanwhile: the import below tells
    import subprocess
    imports = ", ".join(("cit.build", "cit.serve", *folders[1:]))
    r = subprocess.run([sys.executable, "-c", f"import {imports}"], cwd=root,
                       capture_output=True, text=True)
    if r.returncode != 0:
        return "the code does not import: " + (r.stderr.strip().splitlines() or ["?"])[-1]
    return None


def _stop_on_signals() -> None:
    """SIGTERM and SIGHUP stop the server as Ctrl-C does (it prints `stopped`)."""
    import signal

    def interrupt(signum, frame):
        raise KeyboardInterrupt
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, interrupt)


def serve(root: Path, port: int, rebuild) -> int:
    """Serve until interrupted. `rebuild(changed)` returns the site's files (`changed`:
    None for the first build, else the set of changed paths relative to root) or raises."""
    server = bind(port)
    port = server.server_address[1]     # --port 0: the port the system chose
    _stop_on_signals()
    state = ServeState()
    server.RequestHandlerClass = make_handler(state)
    changes = Changes(root)
    observer = watch(root, changes)
    serving = threading.Thread(target=server.serve_forever, daemon=True)
    restart = False
    try:
        _build(rebuild, None, state, changes.code)
        serving.start()
        print(f"serving http://127.0.0.1:{port}/ from memory (site/ is not written); "
              f"watching {', '.join(WATCHED_DIRS + changes.code + WATCHED_FILES)}; Ctrl-C "
              "stops", flush=True)
        while True:
            changed = changes.take()
            # a code edit restarts the server once the code on disk can run; until then
            # its error is shown and every save checks again
            restart = restart or any(c == "build.py" or c in changes.code or c.startswith(
                tuple(d + "/" for d in changes.code)) for c in changed)
            if restart:
                broken = code_error(root)
                if broken:
                    print(f"build failed: {broken}", file=sys.stderr, flush=True)
                    state.publish(None, broken)
                    continue
                print(f"code changed ({', '.join(sorted(changed))}): restarting", flush=True)
                observer.stop()
                server.shutdown()
                server.server_close()
                os.execv(sys.executable, sys.orig_argv)
            _build(rebuild, changed, state, changes.code)
    except KeyboardInterrupt:
        print("stopped", flush=True)
    finally:
        observer.stop()
        if serving.is_alive():
            server.shutdown()
        server.server_close()
    return 0
