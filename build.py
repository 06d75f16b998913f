"""Build the site: python build.py [--out DIR] [--check] [--vendor-from DIR]"""
import sys

try:
    from cit.build import main
except KeyboardInterrupt:       # Ctrl-C while the code loads: nothing was written
    print("build interrupted: nothing written", file=sys.stderr)
    sys.exit(130)

if __name__ == "__main__":
    sys.exit(main())
