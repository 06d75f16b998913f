"""`python build.py --serve`: the live-reload script exists only in serve mode, a port in
use is a clear error, what is watched, and a failed rebuild keeps the last good site."""

import hashlib
import json
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from cit import serve
from cit.errors import BuildError
from tests.conftest import ROOT, edit_first_definition


def test_the_published_build_never_carries_the_live_reload_script(built_site):
    marker = serve.RELOAD_PATH.encode()
    found = [p.relative_to(built_site).as_posix() for p in sorted(built_site.rglob("*"))
             if p.is_file() and marker in p.read_bytes()]
    assert found == []
    # and what serve mode adds is exactly that marker, so the check above can fail
    page = (built_site / "index.html").read_bytes()
    assert marker in serve.inject_reload(page, "t")


def test_the_script_goes_before_the_last_body_end():
    html = b"<html><body><p>x</p></body></html>"
    out = serve.inject_reload(html, "abc")
    assert out.endswith(b'data-token="abc"></script></body></html>')
    assert out.count(b"<script") == 1


@pytest.mark.parametrize("path,key", [("/", "index.html"), ("/optics/", "optics/index.html"),
                                      ("/optics/index.html?x=1", "optics/index.html"),
                                      ("/static/site.js", "static/site.js"),
                                      ("/decks/01-sources/#slide-2", "decks/01-sources/index.html")])
def test_request_paths_map_to_the_site_files(path, key):
    assert serve.site_path(path) == key


@pytest.mark.parametrize("rel,watched", [
    ("content/pages/optics.md", True), ("templates/page.html", True),
    ("templates/static/site.css", True), ("data/study.yaml", True),
    ("vendored/lock.yaml", True), ("vendored/plotly/lock.yaml", True),
    ("cit/render.py", True), ("build.py", True),
    ("site/index.html", False), ("vendored/results/x/run.jsonl", False),
    ("cit/__pycache__/render.cpython-311.pyc", False), ("content/pages/.optics.md.swp", False),
    ("content/pages/optics.md~", False), (".cache/data-stages-x.pickle", False),
    ("README.md", False), ("study/stages.py", True), ("study/static/explorer.js", True),
    ("study/notes.txt", False)])
def test_what_a_change_rebuilds(rel, watched, tmp_path):
    """The study's code (its .py files) and its static folder (site.yaml `static`)
    rebuild; another file in a code folder does not (no build reads it)."""
    code, static = ("cit", "study"), serve.static_folder(ROOT)
    assert static == ("study/static",)
    assert (serve.relevant(tmp_path, str(tmp_path / rel), code, static) == rel) == watched


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_port_in_use_is_named_and_the_exit_is_not_zero():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        r = subprocess.run([sys.executable, str(ROOT / "build.py"), "--serve", "--port", str(port)],
                           cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode != 0
    assert f"port {port} on 127.0.0.1 is in use" in r.stderr


def test_a_failed_rebuild_keeps_the_last_good_site_and_reports_file_and_line():
    state = serve.ServeState()
    calls = []

    def rebuild(changed, later=None):
        calls.append(changed)
        if changed:
            raise BuildError("content/pages/optics.md:7", "unknown number id 'x'")
        return {"index.html": b"<html><body>good</body></html>"}

    server = serve.bind(_free_port())
    server.RequestHandlerClass = serve.make_handler(state)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        serve._build(rebuild, None, state)
        first = state.token
        serve._build(rebuild, {"content/pages/optics.md"}, state)
        page = urllib.request.urlopen(base).read()
        assert b"good" in page and b"/__cit/reload.js" in page
        # the token had already moved on, so the wait is answered at once; the socket's
        # timeout only keeps a server that holds the request from hanging the test
        waited = urllib.request.urlopen(base + f"__cit/wait?v={first}",
                                        timeout=serve.POLL_SECONDS / 2).read().decode()
        assert json.loads(waited)["token"] != first
        assert "content/pages/optics.md:7: unknown number id" in waited
    finally:
        server.shutdown()
        server.server_close()
    assert calls == [None, {"content/pages/optics.md"}]


def test_an_error_that_is_not_a_build_error_names_our_file_and_line():
    def inner():
        return {}["missing"]

    try:
        inner()
    except KeyError as e:
        text = serve.describe_error(e)
    assert text.startswith(f"{__file__}:") and "KeyError" in text


def test_one_save_seen_as_several_events_is_handed_out_once(tmp_path):
    """`cp` truncates, writes and closes: its events may straddle the quiet spell; the
    late ones find the bytes already handed out and make no second rebuild."""
    from cit.serve import Changes
    page = tmp_path / "content" / "pages" / "p.md"
    page.parent.mkdir(parents=True)
    page.write_text("first\n")
    changes = Changes(tmp_path)
    changes.add(str(page))                        # the truncate and write
    assert changes.take(timeout=5) == {"content/pages/p.md"}
    changes.add(str(page))                        # its close, after the spell
    assert changes.take(timeout=0.3) == set()
    page.write_text("second, longer\n")           # a real second save
    changes.add(str(page))
    assert changes.take(timeout=5) == {"content/pages/p.md"}


def test_a_deleted_file_is_handed_out_once(tmp_path):
    from cit.serve import Changes
    page = tmp_path / "content" / "p.md"
    page.parent.mkdir(parents=True)
    page.write_text("x\n")
    changes = Changes(tmp_path)
    changes.add(str(page))
    assert changes.take(timeout=5) == {"content/p.md"}
    page.unlink()
    changes.add(str(page))
    assert changes.take(timeout=5) == {"content/p.md"}
    changes.add(str(page))
    assert changes.take(timeout=0.3) == set()


# ---- the server's edges (issue 23's review, S4 and C8): only its own Host, slow
# clients dropped, the port the system chose, a backlog for bursts -----------------------

@pytest.fixture
def running(monkeypatch):
    """A preview server on a port the system picks, serving a one-page site."""
    monkeypatch.setattr(serve, "CLIENT_TIMEOUT", 0.5)
    server = serve.bind(0)
    state = serve.ServeState()
    state.publish({"index.html": b"<html><body>hi</body></html>"}, None)
    server.RequestHandlerClass = serve.make_handler(state)
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    yield server.server_address[1], server
    server.shutdown()
    server.server_close()


def _get(port, host):
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(f"GET / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    return data.split(b"\r\n", 1)[0].decode()


@pytest.mark.parametrize("host,status", [
    ("127.0.0.1:{port}", "200"), ("localhost:{port}", "200"), ("LOCALHOST:{port}", "200"),
    ("evil.example", "421"), ("evil.example:{port}", "421"), ("127.0.0.1", "421"),
    ("127.0.0.1:1", "421"), ("localhost.evil.example:{port}", "421")])
def test_only_requests_addressed_to_the_preview_itself_are_answered(running, host, status):
    port, _ = running
    assert _get(port, host.format(port=port)).split(" ")[1] == status


def test_a_request_without_a_host_is_refused(running):
    port, _ = running
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(b"GET / HTTP/1.0\r\n\r\n")
        assert s.recv(100).split(b" ")[1] == b"421"


def test_a_half_sent_request_is_dropped_after_the_client_timeout(running):
    """The review held 100 of them for 30 s, a thread each: now the server closes each
    one once it has waited CLIENT_TIMEOUT for the rest (here half a second)."""
    port, _ = running
    socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(20)]
    for s in socks:
        s.sendall(b"GET / HTTP/1.1\r\nHost: 1")
        s.settimeout(30)
    # the server's side closes: recv returns b"" (no answer to a request never finished)
    assert [s.recv(100) for s in socks] == [b""] * 20
    for s in socks:
        s.close()


def test_the_server_listens_on_loopback_only_with_a_backlog(running):
    port, server = running
    assert server.server_address[0] == "127.0.0.1"
    assert server.request_queue_size == serve.BACKLOG >= 64


@pytest.mark.parametrize("port", [99999, -1, 65536])
def test_a_port_out_of_range_is_one_line(port, capsys):
    with pytest.raises(SystemExit) as e:
        serve.bind(port)
    assert e.value.code == 2
    assert capsys.readouterr().err == (f"serve: port {port} on 127.0.0.1 is out of range (0 "
                                       "to 65535); pick another with --port N\n")


def test_a_syntax_error_in_the_code_is_named_with_its_file_and_line(tmp_path):
    (tmp_path / "cit").mkdir()
    (tmp_path / "build.py").write_text("x = 1\n")
    (tmp_path / "cit" / "fmt.py").write_text("a = 1\n\ndef broken(:\n")
    assert serve.code_error(tmp_path) == "cit/fmt.py:3: SyntaxError: invalid syntax"


def test_code_that_compiles_and_imports_is_no_error():
    assert serve.code_error(ROOT) is None


def test_a_client_that_resets_before_its_answer_is_dropped_without_a_traceback(running,
                                                                               capsys):
    """Issue 23: a client closing (resetting) its connection before the 421 answer to a
    refused Host, or before a page, printed a ConnectionResetError traceback in the
    terminal for each one (10 of 10 here before). It is dropped; the server answers on."""
    import struct
    port, _ = running
    for host in ("evil.example", f"127.0.0.1:{port}"):
        for _ in range(5):
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(f"GET / HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            s.close()                       # linger 0: a reset, not a polite close
    assert _get(port, f"127.0.0.1:{port}").split(" ")[1] == "200"
    assert _get(port, "evil.example").split(" ")[1] == "421"
    err = capsys.readouterr().err
    assert "Traceback" not in err and "Exception occurred" not in err, err


def test_serve_honours_no_cache(monkeypatch, tmp_path):
    """Issue 23's review (C7): `--serve --no-cache` ignored --no-cache. Every rebuild of
    the preview runs cold with it (no page records kept), and keeps them without it."""
    import types
    from cit import build
    seen = []

    def stages(root, vendor_from, use_cache=True, warm=None, **kw):
        seen.append((use_cache, warm and dict(warm.records)))
        if warm is not None:
            warm.records = {"index.html": "its record"}
        return types.SimpleNamespace(files={})
    monkeypatch.setattr(build, "run_stages", stages)
    monkeypatch.setattr(serve, "serve", lambda root, port, rebuild: rebuild(None)
                        or rebuild({"content/hub.md"}) or 0)
    monkeypatch.delenv("CIT_NO_CACHE", raising=False)
    assert build.main(["--serve", "--no-cache", "--root", str(tmp_path)]) == 0
    assert seen == [(False, None), (False, None)]
    seen.clear()
    assert build.main(["--serve", "--root", str(tmp_path)]) == 0
    assert seen == [(True, {}), (True, {"index.html": "its record"})]


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_sigterm_and_sighup_stop_the_preview_as_ctrl_c_does(name):
    """Issue 23's review (C8): SIGTERM and SIGHUP ended the server by the signal (exit
    -15, -1) without `stopped`; they now raise KeyboardInterrupt, which serve() answers
    with `stopped` and exit 0 (the golden test sends SIGTERM to a running preview)."""
    import os
    import signal
    sig = getattr(signal, name)
    before = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        serve._stop_on_signals()
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), sig)
            time.sleep(5)           # the handler runs at once; this is never waited out
    finally:
        for s, h in before.items():
            signal.signal(s, h)
def test_the_study_packages_site_yaml_names_are_the_code_watched():
    """The engine names no study: the code folders come from site.yaml's stages and
    block providers (here study/), and only their Python files restart the server."""
    code = serve.code_folders(ROOT)
    assert code == ("cit", "study")
    assert serve.relevant(ROOT, str(ROOT / "study" / "tables.py"), code) == "study/tables.py"
    assert serve.relevant(ROOT, str(ROOT / "study" / "notes.txt"), code) is None
    assert serve.relevant(ROOT, str(ROOT / "study" / "tables.py")) is None


# ---- issue 32: every Host header, a whole-request deadline, a cap on connections ----

def _raw(port, request: bytes) -> str:
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(request)
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    return data.split(b"\r\n", 1)[0].decode()


@pytest.mark.parametrize("first,second", [("127.0.0.1:{port}", "evil.example"),
                                          ("evil.example", "127.0.0.1:{port}"),
                                          ("127.0.0.1:{port}", "127.0.0.1:{port}")])
def test_a_request_with_two_host_headers_is_refused_whichever_comes_first(running, first,
                                                                         second):
    """N18: the review's `Host: 127.0.0.1:PORT` then `Host: evil.example` was answered."""
    port, _ = running
    request = (f"GET / HTTP/1.1\r\nHost: {first}\r\nHost: {second}\r\n"
               "Connection: close\r\n\r\n").format(port=port).encode()
    assert _raw(port, request).split(" ")[1] == "421"


def test_a_client_trickling_header_lines_is_dropped_at_the_request_deadline(running):
    """N17: each read used to wait CLIENT_TIMEOUT afresh, so a header line every few
    seconds held the connection for as long as it went on. Here (CLIENT_TIMEOUT half a
    second) a line about every 0.3 s, 90 of them (fewer than the standard parser's
    limit of 100 headers, which would end it anyway): the server ends the connection
    before the client stops."""
    port, _ = running
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % port)
        s.settimeout(0.3)
        closed = False
        for _ in range(90):
            try:
                s.sendall(b"X-a: b\r\n")
                if s.recv(100) == b"":
                    closed = True
                    break
            except TimeoutError:
                continue
            except OSError:         # reset: the server closed and this side wrote on
                closed = True
                break
    assert closed


def test_connections_beyond_the_cap_are_answered_busy_without_a_thread(running,
                                                                      monkeypatch):
    """N17: 300 trickling clients held 313 threads. With the cap (here 5), five slow
    clients take every slot; the next connection is answered 503 at once, and once the
    slow ones are gone a request is served again."""
    port, server = running
    monkeypatch.setattr(serve, "CLIENT_TIMEOUT", 30)
    server.slots = threading.BoundedSemaphore(5)
    slow = [socket.create_connection(("127.0.0.1", port)) for _ in range(5)]
    for s in slow:
        s.sendall(b"GET / HTTP/1.1\r\nHost: 1")
    deadline = time.monotonic() + 60        # until the server has taken all five
    while server.slots._value and time.monotonic() < deadline:
        time.sleep(0.01)
    assert _get(port, f"127.0.0.1:{port}") == "HTTP/1.0 503 Service Unavailable"
    for s in slow:
        s.close()
    while server.slots._value < 5 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert _get(port, f"127.0.0.1:{port}") == "HTTP/1.0 200 OK"


def test_a_folder_missing_at_the_start_is_watched_once_it_is_back(tmp_path):
    """N3: only the folders present at the start were watched, so a content/ restored
    afterwards never rebuilt. Now its return is a change, a save inside it is one, and
    so is its going away again."""
    changes = serve.Changes(tmp_path)
    observer = serve.watch(tmp_path, changes)
    try:
        away = tmp_path.parent / f"{tmp_path.name}-content-away"
        (away / "pages").mkdir(parents=True)
        (away / "pages" / "p.md").write_text("first\n")
        away.rename(tmp_path / "content")
        assert "content" in changes.take(timeout=30)
        (tmp_path / "content" / "pages" / "p.md").write_text("restored words\n")
        assert _taken_until(changes, "content/pages/p.md")
        (tmp_path / "content").rename(away)
        assert _taken_until(changes, "content")
        (away / "pages" / "p.md").write_text("edited where it went\n")
        assert changes.take(timeout=1) == set()
    finally:
        observer.stop()


def _taken_until(changes, rel, tries=5) -> bool:
    """Whether `rel` is among the changes handed out within a few quiet spells."""
    return any(rel in changes.take(timeout=30) for _ in range(tries))


# ---- issue 29: the search index follows the reload ------------------------------------

def test_a_save_publishes_the_page_before_its_search_index():
    """The reload waits for the pages only: the rebuild hands its search index over as a
    function (`later`); the page with the new words is served, with the last index,
    while that function still runs, and when it ends its index is served under the
    same token (no second reload)."""
    state = serve.ServeState()
    release = threading.Event()

    def rebuild(changed, later=None):
        pages = {"index.html": f"<html><body>{changed or 'first'}</body></html>".encode()}
        index = {"pagefind/pagefind.js": f"index of {changed or 'first'}".encode()}
        if later is None:
            return pages | index
        later(lambda: (release.wait(60), index)[1])
        return pages
    serve._build(rebuild, None, state)
    assert state.files["pagefind/pagefind.js"] == b"index of first"
    serve._build(rebuild, {"saved"}, state)
    token = state.token
    assert b"saved" in state.files["index.html"]
    assert state.files["pagefind/pagefind.js"] == b"index of first"
    release.set()
    deadline = time.monotonic() + 60
    while state.files["pagefind/pagefind.js"] != b"index of {'saved'}" and \
            time.monotonic() < deadline:
        time.sleep(0.01)
    assert state.files["pagefind/pagefind.js"] == b"index of {'saved'}"
    assert state.token == token


def test_the_preview_rebuilder_gives_the_same_files_with_the_index_later(project_copy):
    """cit.build.serve_rebuilder with `later`: the files it returns lack only the search
    index, and the function it hands over returns that index, the very files a build
    that waited for it holds."""
    from cit import build
    rebuild = build.serve_rebuilder(project_copy, None)
    whole = rebuild(None)
    page = project_copy / "content" / "pages" / "notebook.md"
    page.write_text(page.read_text() + "\nA sentence added for the preview :x[scope].\n")
    handed = []
    files = rebuild({"content/pages/notebook.md"}, later=lambda finish: handed.append(finish))
    assert not any(k.startswith(serve.INDEX_PREFIX) for k in files)
    index = handed[0]()
    again = build.serve_rebuilder(project_copy, None)(None)
    assert files | index == again
    assert set(index) == {k for k in again if k.startswith(serve.INDEX_PREFIX)}
    assert "pagefind/pagefind.js" in index and "pagefind/pagefind.js" in whole


def test_the_preview_keeps_compiled_templates_and_compiles_an_edited_one_again():
    """render.TemplateMemory (the templates' code kept between a server's builds): an
    unchanged template is not compiled again; an edited one is, and renders its new
    text (Jinja checks the code kept against the template's text)."""
    import jinja2
    from cit.render import TemplateMemory
    memory, source = TemplateMemory(), {"page.html": "<p>{{ x }} first</p>"}
    compiled = []

    def render() -> str:
        env = jinja2.Environment(loader=jinja2.FunctionLoader(
            lambda name: (source[name], None, lambda: False)), bytecode_cache=memory)
        real = env.compile
        env.compile = lambda *a, **k: (compiled.append(a[1] if len(a) > 1 else None),
                                       real(*a, **k))[1]
        return env.get_template("page.html").render(x="a")
    assert render() == "<p>a first</p>" and len(compiled) == 1
    assert render() == "<p>a first</p>" and len(compiled) == 1
    source["page.html"] = "<p>{{ x }} edited</p>"
    assert render() == "<p>a edited</p>" and len(compiled) == 2


# ---- issue 29: the warm server -------------------------------------------------------

def _warm_edit(root, edit: str) -> str:
    """One save of the kind `edit` names, as an author makes it; the path saved."""
    if edit == "glossary":
        path = root / "content" / "glossary.yaml"
        edit_first_definition(path)
    else:
        path = (root / "content" / "pages" / "notebook.md" if edit == "page"
                else sorted((root / "content" / "decks").glob("*.md"))[0])
        path.write_text(path.read_text() + "\nA sentence the test adds, in plain words :x[scope].\n")
    return path.relative_to(root).as_posix()


def _tree_state(root):
    return {p: (p.stat().st_size, p.stat().st_mtime_ns) for p in sorted(root.rglob("*"))
            if p.is_file()}


@pytest.mark.parametrize("edit", ["page", "glossary", "deck"])
def test_the_page_served_after_a_save_is_the_one_a_cold_build_writes(project_copy, tmp_path,
                                                                     edit, monkeypatch):
    """The warm server (cit.build.Warm): after a save, the page served (the reload
    script taken out) and every other file it serves are byte for byte what a cold build
    of the same inputs writes; and on the way from the save to the reload it starts no
    process, imports no module and writes nothing (the search index and the cache
    writes follow, in `finish`)."""
    import subprocess as sp
    from cit import build
    from tests.conftest import run_build, tree_digest
    rebuild = build.serve_rebuilder(project_copy, None)
    rebuild(None)
    rel = _warm_edit(project_copy, edit)
    handed, modules, before = [], set(sys.modules), _tree_state(project_copy)

    def no_process(*a, **k):
        raise AssertionError(f"a process started on the way to the reload: {a}")
    with monkeypatch.context() as m:
        m.setattr(sp.Popen, "__init__", no_process)
        files = rebuild({rel}, later=handed.append)
    assert set(sys.modules) == modules
    assert _tree_state(project_copy) == before
    served = files | handed[0]()
    state = serve.ServeState()
    state.publish(served, None)
    server = serve.bind(0)
    server.RequestHandlerClass = serve.make_handler(state)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    out = {"page": "notebook/index.html", "glossary": "glossary/index.html"}.get(
        edit, "decks/" + Path(rel).stem + "/index.html")
    try:
        page = urllib.request.urlopen(f"http://127.0.0.1:{server.server_address[1]}/{out}"
                                      ).read()
    finally:
        server.shutdown()
        server.server_close()
    assert run_build(tmp_path / "cold", root=project_copy).returncode == 0
    tag = serve.RELOAD_TAG.format(token=state.token).encode()
    assert tag in page and page.replace(tag, b"") == (tmp_path / "cold" / out).read_bytes()
    cold = tree_digest(tmp_path / "cold")
    assert {k: hashlib.sha256(v).hexdigest() for k, v in served.items()} == cold
