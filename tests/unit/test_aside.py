"""cit/aside.py: a computation run in a forked child while the caller goes on."""

import os
import threading

import pytest

from cit import aside as aside_mod
from cit.aside import aside
from cit.errors import BuildError


@pytest.fixture
def forking(monkeypatch):
    """Fork even here (a pytest-xdist worker has other threads, where the build would
    not fork; the children below only compute and exit)."""
    monkeypatch.setattr(aside_mod, "can_fork", lambda: True)


def test_the_result_comes_from_the_child(forking, tmp_path):
    parent = os.getpid()

    def compute():
        return {"pid": os.getpid(), "values": list(range(5000))}

    with aside(compute) as result:
        got = result()
    assert got["pid"] != parent, "computed in this process, not in a child"
    assert got["values"] == list(range(5000))


def test_a_failure_in_the_child_is_raised_here_with_its_message(forking):
    calls = []

    def compute():
        calls.append(os.getpid())
        raise BuildError("data/sim/scenario.yaml:3", "made to fail")

    with aside(compute) as result:
        with pytest.raises(BuildError, match="made to fail"):
            result()
    # computed again here after the child failed (the child's call is not seen here)
    assert calls == [os.getpid()]


def test_leaving_early_kills_the_child_and_reaps_it(forking, tmp_path):
    started = tmp_path / "started"

    def compute():
        started.write_text(str(os.getpid()))
        threading.Event().wait(60)

    with pytest.raises(RuntimeError):
        with aside(compute):
            for _ in range(500):
                if started.exists() and started.read_text():
                    break
                threading.Event().wait(0.01)
            raise RuntimeError("the other work failed")
    pid = int(started.read_text())
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)      # already reaped: no such child


def test_with_another_thread_running_it_computes_here():
    stop = threading.Event()
    t = threading.Thread(target=stop.wait)
    t.start()
    try:
        assert not aside_mod.can_fork()
        with aside(os.getpid) as result:
            assert result() == os.getpid()
    finally:
        stop.set()
        t.join()
