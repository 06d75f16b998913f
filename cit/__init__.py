"""The engine: a static results-site generator, every number recomputed from recorded
data. It names no study; a study declares itself in site.yaml (docs/site-config.md)."""
