"""`python -m cit COMMAND ...`: the `cit` command without its script (cit/cli.py)."""
import sys

from .cli import main

sys.exit(main())
