"""Benchmark: full regeneration of data/sim/results.md (the calibration's check, every DES
run of the default WAN and the sweep, the bisections, rendering), median of five, on this
machine; and the calibration alone.

    python benchmarks/bench_sim.py

Prints figures; it is not a timed test. Writes nothing to the project (it renders the
document in memory).
"""

from __future__ import annotations

import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from study.runs import load_folder  # noqa: E402
from study.sim import calibrate, closed, des  # noqa: E402
from study.sim.compute import compute  # noqa: E402
from study.sim.report import build_doc, render  # noqa: E402
from study.sim.scenario import load_scenario  # noqa: E402

HEADLINE = "results/tinystories-gpu"
RUNS = 5


def main() -> int:
    import yaml
    study = yaml.safe_load((ROOT / "data" / "study.yaml").read_text())
    scenario = load_scenario(ROOT / "data" / "sim" / "scenario.yaml")
    t0 = time.perf_counter()
    folder = load_folder(ROOT / "vendored" / HEADLINE, HEADLINE)
    t_logs = time.perf_counter() - t0

    full, sims = [], []
    for _ in range(RUNS):
        t = time.perf_counter()
        c = compute(folder, scenario, study["sim_target_group"])
        render(build_doc(c))
        full.append(time.perf_counter() - t)
    cals = []
    for _ in range(RUNS):
        t = time.perf_counter()
        values = scenario.resolve(c.inputs.measured)
        cal = calibrate.calibrate(scenario, values, c.params, c.steps, c.quoted)
        cals.append(time.perf_counter() - t)
    # the default WAN's runs, then every mechanism and A under the other layout per point
    n_des = len(closed.MECHS) + len(c.grid) * (len(closed.MECHS) + 1)
    for _ in range(RUNS):
        t = time.perf_counter()
        for mech in closed.MECHS:
            des.simulate(c.params, mech, c.values.simulated_steps)
        sims.append((time.perf_counter() - t) / len(closed.MECHS))

    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}")
    print(f"reading the logs once: {t_logs:.3f} s")
    print(f"regeneration (compute + render), median of {RUNS}: "
          f"{statistics.median(full):.3f} s  (min {min(full):.3f}, max {max(full):.3f})")
    print(f"  DES runs per regeneration: {n_des} ({len(closed.MECHS)} of "
          f"{c.values.simulated_steps} steps at the default WAN, one step of each mechanism "
          f"and of A under the other layout at each of the {len(c.grid)} sweep "
          "bandwidths)")
    print(f"calibration alone ({cal.iterations} Gauss-Newton iterations), median of {RUNS}: "
          f"{statistics.median(cals):.3f} s")
    print(f"one {c.values.simulated_steps}-step DES run, median over mechanisms and repeats: "
          f"{statistics.median(sims) * 1e3:.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
