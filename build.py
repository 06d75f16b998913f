"""Build the site: python build.py [--out DIR] [--check] [--vendor-from DIR]"""
import sys

from cit.build import main

if __name__ == "__main__":
    sys.exit(main())
