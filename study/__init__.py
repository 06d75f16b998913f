"""This study's code: the run-log schema, the tables, the experiment and simulator stages, its blocks."""
