"""Write this made-up study's run logs, its report and the lock that pins them.

    python examples/toyopt/make_logs.py

Three optimisers (plain gradient descent, heavy-ball momentum, Adam) minimise the same
noisy quadratic, two seeds each. Every run logs its loss every ten steps, in the three
formats the engine reads as text (cit/logs.py, docs/logs.md), as three teams might keep
them: gradient descent as JSON lines, vendored/logs/sgd-s<seed>.jsonl (a config record,
eval records, a done record); momentum as TensorBoard's scalar CSV download,
vendored/logs/run-momentum-s<seed>-tag-loss.csv (Wall time, Step, Value); Adam as one
long-form CSV, vendored/logs/adam.csv (run, step, metric, value). The "experiment" reports the final losses in
vendored/report/results.md, which the build recomputes cell by cell; vendored/lock.yaml
pins every file by its git blob SHA-1, which the build verifies before reading.
The output is a function of the code alone (seeded), so rerunning it changes nothing.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
CURVATURE = (4.0, 1.0, 0.25)        # the quadratic's curvature along each axis
START = (1.0, -1.5, 2.0)
STEPS, EVERY, NOISE = 200, 10, 0.05
WALL_START, WALL_PER_STEP = 1767225600.0, 0.25   # the exports' made-up wall times (s)
OPTIMISERS = {"sgd": {"lr": 0.2}, "momentum": {"lr": 0.1, "beta": 0.9},
              "adam": {"lr": 0.05, "beta1": 0.9, "beta2": 0.999}}
SEEDS = (1, 2)


def loss(x) -> float:
    return 0.5 * sum(a * v * v for a, v in zip(CURVATURE, x))


def run(name: str, seed: int) -> list[dict]:
    rng = random.Random(f"{name}-{seed}")
    hp = OPTIMISERS[name]
    x, m, v = list(START), [0.0] * 3, [0.0] * 3
    lines = [{"type": "config", "optimiser": name, "seed": seed, **hp}]
    for step in range(1, STEPS + 1):
        g = [a * xi + rng.gauss(0.0, NOISE) for a, xi in zip(CURVATURE, x)]
        for i in range(3):
            if name == "sgd":
                x[i] -= hp["lr"] * g[i]
            elif name == "momentum":
                m[i] = hp["beta"] * m[i] + g[i]
                x[i] -= hp["lr"] * m[i]
            else:
                m[i] = hp["beta1"] * m[i] + (1 - hp["beta1"]) * g[i]
                v[i] = hp["beta2"] * v[i] + (1 - hp["beta2"]) * g[i] * g[i]
                mh, vh = m[i] / (1 - hp["beta1"] ** step), v[i] / (1 - hp["beta2"] ** step)
                x[i] -= hp["lr"] * mh / (math.sqrt(vh) + 1e-8)
        if step % EVERY == 0:
            lines.append({"type": "eval", "step": step, "loss": round(loss(x), 6)})
    lines.append({"type": "done", "steps": STEPS})
    return lines


def report(finals: dict) -> str:
    rows = [f"| {name} | {finals[name][0]:.4f} | {finals[name][1]:.4f} | "
            f"{sum(finals[name]) / len(SEEDS):.4f} |" for name in OPTIMISERS]
    return ("# Toy optimisers: results\n\nFinal loss after the last step, per seed and "
            "the mean of the seeds.\n\n| Optimiser | Seed 1 | Seed 2 | Mean |\n"
            "|---|---|---|---|\n" + "\n".join(rows) + "\n")


def jsonl(lines: list[dict]) -> bytes:
    return "".join(json.dumps(x, sort_keys=True) + "\n" for x in lines).encode()


def tb_csv(lines: list[dict]) -> bytes:
    """As TensorBoard's scalar download writes it: one run, one tag."""
    return ("Wall time,Step,Value\n" + "".join(
        f"{WALL_START + x['step'] * WALL_PER_STEP!r},{x['step']},{x['loss']!r}\n"
        for x in lines if x["type"] == "eval")).encode()


def long_csv(runs: dict[str, list[dict]]) -> bytes:
    return ("run,step,metric,value\n" + "".join(
        f"{name},{x['step']},loss,{x['loss']!r}\n"
        for name, lines in runs.items() for x in lines if x["type"] == "eval")).encode()


def blob_sha1(data: bytes) -> str:
    import hashlib
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def main() -> None:
    files, finals, long = {}, {}, {}
    for name in OPTIMISERS:
        finals[name] = []
        for seed in SEEDS:
            lines = run(name, seed)
            finals[name].append(lines[-2]["loss"])
            if name == "sgd":
                files[f"logs/{name}-s{seed}.jsonl"] = jsonl(lines)
            elif name == "momentum":
                files[f"logs/run-{name}-s{seed}-tag-loss.csv"] = tb_csv(lines)
            else:
                long[f"{name}-s{seed}"] = lines
    files["logs/adam.csv"] = long_csv(long)
    for old in (HERE / "vendored" / "logs").glob("*"):
        old.unlink()            # a log this script no longer writes
    files["report/results.md"] = report(finals).encode()
    lock = ["# The made-up study's files, pinned for the build; written by make_logs.py.",
            "repository: none, a made-up study whose logs make_logs.py writes",
            "commit: none", "host: none", "files:"]
    for rel, data in sorted(files.items()):
        path = HERE / "vendored" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        lock += [f"- path: {rel}", f"  size: {len(data)}", f"  blob_sha1: {blob_sha1(data)}",
                 "  commit: none"]
    (HERE / "vendored" / "lock.yaml").write_text("\n".join(lock) + "\n")


if __name__ == "__main__":
    main()
