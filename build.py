"""Build the site: python build.py [--out DIR] [--check] [--vendor-from DIR]"""
import signal
import sys


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def _run() -> int:
    # SIGTERM while the code loads ends the build as Ctrl-C does (docs/faults.md, N12);
    # cit.build installs its own handler for the build itself
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        from cit.build import main
    except KeyboardInterrupt:       # Ctrl-C or SIGTERM while the code loads
        print("build interrupted: nothing written", file=sys.stderr)
        return 130
    return main()


if __name__ == "__main__":
    sys.exit(_run())
