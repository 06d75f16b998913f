"""A computation run aside, in a forked child, while this process goes on with other
work (docs/architecture.md, "A cold build on two cores").

    with aside(compute) as result:
        ...other work...
        value = result()

`result()` returns what `compute()` returned. The child sends it back pickled through a
pipe. When no child can be used, `result()` calls `compute()` here: on a machine with
one core, in a process with other threads (--serve, pytest-xdist workers, where a fork
is unsafe), or when the child failed. A failure is therefore raised here, as it would
have been without the child, with the same message. Leaving the block early (an
error in the other work) kills the child and reaps it.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import threading
from typing import Callable, Iterator


def can_fork() -> bool:
    """Whether a child may be forked: there is a second core, and this process has no
    other thread (a fork copies only the calling thread, and any lock another holds)."""
    return hasattr(os, "fork") and (os.cpu_count() or 1) > 1 and threading.active_count() == 1


def _child(compute: Callable[[], object], write_fd: int) -> None:
    """In the child: compute, send the pickled result, exit without running any of the
    parent's cleanup (atexit handlers, buffered output)."""
    code = 1
    try:
        data = pickle.dumps(compute(), protocol=pickle.HIGHEST_PROTOCOL)
        with os.fdopen(write_fd, "wb") as pipe:
            pipe.write(data)
        code = 0
    except BaseException:   # noqa: BLE001 - the parent computes again and raises it
        pass
    finally:
        os._exit(code)


@contextlib.contextmanager
def aside(compute: Callable[[], object]) -> Iterator[Callable[[], object]]:
    if not can_fork():
        yield compute
        return
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        _child(compute, write_fd)
    os.close(write_fd)
    reaped = False

    def result():
        nonlocal reaped
        with os.fdopen(read_fd, "rb", closefd=False) as pipe:
            data = pipe.read()
        _, status = os.waitpid(pid, 0)
        reaped = True
        if status != 0 or not data:
            return compute()
        return pickle.loads(data)

    try:
        yield result
    finally:
        if not reaped:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(read_fd)
