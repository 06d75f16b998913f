"""The suite's safety net (docs/testing.md): a test that hangs fails, with its stack,
after the per-test timeout of pyproject.toml, instead of holding CI until its own limit."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib

from tests.conftest import ROOT


def test_the_suite_sets_a_per_test_timeout_that_fails_a_test_blocked_on_a_fifo(tmp_path):
    options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert options["timeout"] > 0 and options["timeout_method"] == "signal"
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    (tmp_path / "test_hangs.py").write_text(
        "def test_reads_a_fifo_nobody_writes():\n"
        f"    open({str(fifo)!r}, 'rb').read()\n")
    # the project's own settings, with the limit shortened so the check takes seconds
    r = subprocess.run([sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"),
                        "--rootdir", str(tmp_path), "-n", "0", "-p", "no:cacheprovider",
                        "-o", "timeout=2", str(tmp_path / "test_hangs.py")],
                       cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "Timeout" in r.stdout and "1 failed" in r.stdout, r.stdout
