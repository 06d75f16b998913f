"""Browser tests (Playwright driving Debian's Chromium). A package, so this folder's
conftest does not shadow tests/conftest.py for modules that import from it."""
