"""Compute in Transit: the static results site, every number recomputed from recorded data."""
