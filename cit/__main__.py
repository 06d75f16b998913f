"""`python -m cit new DIR` (cit/new.py)."""
import sys

from .new import main

sys.exit(main())
