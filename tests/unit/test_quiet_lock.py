"""The lock that lets a quiet (timed) test run alone on workers (docs/testing.md): a
quiet test waits for the test running on the other worker, and no test starts there
until it is done. Each side runs in its own process, as workers do."""

import multiprocessing
import time

from tests.conftest import quiet_lock


def _hold(path: str, exclusive: bool, seconds: float, ask_at: float, log, name: str) -> None:
    time.sleep(max(0.0, ask_at - time.monotonic()))
    with quiet_lock(path, exclusive):
        log.put((name, "start", time.monotonic()))
        time.sleep(seconds)
        log.put((name, "end", time.monotonic()))


def _run(path, plan):
    """Run each (name, exclusive, hold seconds, when it asks) in its own process, the
    asking times counted from a moment after every process has started; return
    {name: (start, end)}."""
    ctx = multiprocessing.get_context("fork")
    log = ctx.Queue()
    procs = []
    t0 = time.monotonic() + 1.0          # CLOCK_MONOTONIC is one clock for every process
    for name, exclusive, seconds, ask in plan:
        p = ctx.Process(target=_hold, args=(path, exclusive, seconds, t0 + ask, log, name))
        p.start()
        procs.append(p)
    for p in procs:
        p.join(30)
        assert p.exitcode == 0, f"a lock holder failed ({p.exitcode})"
    times: dict = {}
    while not log.empty():
        name, what, t = log.get()
        times.setdefault(name, {})[what] = t
    return {k: (v["start"], v["end"]) for k, v in times.items()}


def test_a_quiet_test_waits_for_the_running_one_and_the_next_waits_for_it(tmp_path):
    path = tmp_path / "quiet.lock"
    path.write_bytes(b"")
    t = _run(str(path), [("running", False, 1.0, 0), ("quiet", True, 0.6, 0.4),
                         ("next", False, 0.1, 0.7)])
    # the quiet test began after the running test ended, and the next ordinary test,
    # which asked while the quiet one waited, began only after the quiet one ended
    assert t["quiet"][0] >= t["running"][1]
    assert t["next"][0] >= t["quiet"][1]


def test_ordinary_tests_share_the_lock(tmp_path):
    path = tmp_path / "quiet.lock"
    path.write_bytes(b"")
    t = _run(str(path), [("one", False, 1.0, 0), ("two", False, 0.1, 0.4)])
    assert t["two"][1] < t["one"][1], "an ordinary test waited for another ordinary one"
