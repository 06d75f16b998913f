"""Read results/colab_sweep.log, the sweep's own console log across Colab sessions.

The log has no timestamps and no session markers; what it does show is each start of
the sweep script (it begins with the learning-rate stage), the stages it found and how
many runs each still had to do, each run it finished (with its wall time), each crash
and resume attempt, and each run it gave up on. Every line must be one of those or part
of a Python traceback; anything else is an error naming the line.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from cit.errors import BuildError

STAGE = re.compile(r"^(\d+) runs for (\S+); (\d+) to do$")
CHOSEN = re.compile(r"^learning rates chosen: (\{.*\})$")
DONE = re.compile(r"^done (\S+) in (\d+) s$")
RESUME = re.compile(r"^run (\S+) exited with (\d+); resuming \(attempt (\d+)\)$")
GIVE_UP = re.compile(r"^giving up on (\S+)$")
TRACEBACK_START = "Traceback (most recent call last):"
FRAME = re.compile(r'^  File "[^"]*", line \d+, in (\S+)$')
EXCEPTION = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception)): (.*)$")


@dataclass
class Session:
    """One start of the sweep script, from its first stage line to the next start."""
    index: int
    first_line: int
    last_line: int = 0
    stages: list[tuple[str, int, int]] = field(default_factory=list)  # folder, runs, to do
    finished: list[tuple[str, int, int]] = field(default_factory=list)  # run, seconds, line
    crashes: list[tuple[str, int, int]] = field(default_factory=list)   # run, attempt, line
    gave_up: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # exception lines of tracebacks
    # the functions each traceback passes through, outermost first (one per error)
    frames: list[tuple[str, ...]] = field(default_factory=list)
    # for each resume line: whether the line before it ends a traceback (a crash)
    resume_after_error: list[bool] = field(default_factory=list)
    rates: list[dict] = field(default_factory=list)  # each "learning rates chosen" line's


def parse_sweep_log(text: str, name: str) -> list[Session]:
    sessions: list[Session] = []
    in_traceback, frames, after_error = False, [], False
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for i, line in enumerate(lines, start=1):
        where = f"{name}:{i}"
        if line == TRACEBACK_START:
            in_traceback, frames = True, []
            continue
        if in_traceback:
            m = EXCEPTION.match(line)
            if m:
                in_traceback, after_error = False, True
                if not sessions:
                    raise BuildError(where, "traceback before any stage line")
                sessions[-1].errors.append(line)
                sessions[-1].frames.append(tuple(frames))
            elif (f := FRAME.match(line)):
                frames.append(f.group(1))
            continue
        follows_error, after_error = after_error, False
        m = STAGE.match(line)
        if m:
            folder, n, todo = m.group(2), int(m.group(1)), int(m.group(3))
            # The script always starts with the learning-rate stage, so that stage line
            # marks a new start of the script (a new session or a resume).
            if not sessions or folder.endswith("-lr"):
                sessions.append(Session(len(sessions) + 1, i))
            sessions[-1].stages.append((folder, n, todo))
        elif (m := CHOSEN.match(line)):
            try:
                rates = ast.literal_eval(m.group(1))
            except (ValueError, SyntaxError):
                raise BuildError(where, "learning rates chosen: not a mapping of rates") from None
            sessions[-1].rates.append(rates)
        elif (m := DONE.match(line)):
            sessions[-1].finished.append((m.group(1), int(m.group(2)), i))
        elif (m := RESUME.match(line)):
            sessions[-1].crashes.append((m.group(1), int(m.group(3)), i))
            sessions[-1].resume_after_error.append(follows_error)
        elif (m := GIVE_UP.match(line)):
            sessions[-1].gave_up.append(m.group(1))
        else:
            raise BuildError(where, f"unrecognised sweep log line: {line[:80]!r}")
        if sessions:
            sessions[-1].last_line = i
    if in_traceback:
        raise BuildError(f"{name}:{len(lines)}", "log ends inside a traceback")
    for s in sessions:
        s.last_line = max(s.last_line, s.first_line)
    return sessions
