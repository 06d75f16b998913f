"""`python -m study.sim`: regenerate data/sim/results.md (the explicit command; a build
only checks it). `python -m study.sim --check` compares without writing.
`python -m study.sim calibrate` fits the scenario's `fitted` inputs to the original's quoted
figures and records them in data/sim/scenario.yaml (then regenerate the results)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cit.errors import BuildError
from . import calibrate
from .compute import compute_from_paths, fit_from_paths
from .report import RESULTS, check_results, write_results

ROOT = Path(__file__).resolve().parent.parent.parent


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m study.sim", description=__doc__)
    ap.add_argument("command", nargs="?", choices=("calibrate",),
                    help="calibrate: fit the `fitted` inputs and record them in the scenario")
    ap.add_argument("--check", action="store_true",
                    help="recompute and compare with data/sim/results.md; write nothing")
    ap.add_argument("--out", help="write the results here instead of data/sim/results.md "
                    "(the benchmark times regeneration without touching the record)")
    ap.add_argument("--root", default=str(ROOT), help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    root = Path(a.root)
    try:
        if a.command == "calibrate":
            scenario, cal = fit_from_paths(root)
            if cal is None:
                print("no fitted inputs in the scenario")
                return 0
            calibrate.write_calibration(root / "data/sim/scenario.yaml", scenario, cal)
            for f in cal.fitted:
                print(f"{f.key} = {f.value!r} (fitted)")
            for k, r in cal.residuals.items():
                print(f"  {k}: relative residual {r:+.5f}")
            print(f"  RMS relative residual {cal.rms!r}, {cal.iterations} iterations")
            return 0
        computed = compute_from_paths(root)
        if a.check:
            n = check_results(computed, root / RESULTS)
            print(f"{RESULTS}: {n} cells match")
        else:
            out = Path(a.out) if a.out else root / RESULTS
            write_results(computed, out)
            print(f"wrote {out}")
    except BuildError as e:
        print(f"simulator failed: {e}", file=sys.stderr)
        return 1
    except OSError as e:        # the atomic writer left the file as it was
        print(f"simulator failed: {e.filename or 'a file'} not written ({e.strerror}); "
              "it is as it was", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("simulator interrupted: every file is as it was", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
