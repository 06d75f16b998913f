"""Fixtures of the golden tests: a throwaway project copy with a previous site in place,
which a bad input must leave untouched."""

import shutil

import pytest
import yaml

from cit.vendor import git_blob_sha1
from tests.conftest import give_caches, run_build, run_build_process, tree_digest

HEADLINE = "results/tinystories-gpu"


@pytest.fixture
def case(project_copy, built_site, warm_copy, tmp_path, measured):
    """A project copy plus a previous site in place; `run()` builds over it and returns
    the stderr after checking the build failed and the previous site is unchanged. Each
    failed build's exit status and last line of stderr are recorded (`measured`): the
    run's summary shows what every bad input printed."""
    out = tmp_path / "site"
    shutil.copytree(built_site, out)
    # The copy has the untouched project's caches: an edit to the data or the lock
    # misses them (they are keyed by those inputs), so every data check runs as in a
    # cold build, and an edit to the content re-renders the pages it touches.
    give_caches(warm_copy, project_copy)
    before = tree_digest(out)

    def _said(r) -> None:
        lines = r.stderr.strip().splitlines()
        measured(f"exit {r.returncode}: {lines[-1] if lines else '(nothing on stderr)'}")

    class Case:
        root = project_copy

        @staticmethod
        def run(expect_failure=True):
            r = run_build(out, root=project_copy, env={"CIT_VENDOR_MIRROR": ""}, cold=False)
            if expect_failure:
                assert r.returncode != 0, "the build should have failed"
                assert tree_digest(out) == before, "the previous site was changed"
                assert not [p for p in tmp_path.iterdir() if p.name.startswith(".site-")]
                _said(r)
            return r

        @staticmethod
        def run_out(target, *user_paths, process=False):
            """Build with --out `target` (in a fresh process if `process`); it must fail,
            leaving the previous site and every file under `user_paths` byte-for-byte as
            they were."""
            users = {u: tree_digest(u) if u.is_dir() else u.read_bytes() for u in user_paths}
            r = (run_build_process if process else run_build)(
                target, root=project_copy, env={"CIT_VENDOR_MIRROR": ""})
            assert r.returncode != 0, "the build should have failed"
            assert tree_digest(out) == before, "the previous site was changed"
            for u, was in users.items():
                assert (tree_digest(u) if u.is_dir() else u.read_bytes()) == was, u
            _said(r)
            return r

        @staticmethod
        def repin(rel: str, data: bytes):
            """Write a vendored file and re-pin it in the copy's lock."""
            (project_copy / "vendored" / rel).write_bytes(data)
            lock_path = project_copy / "vendored" / "lock.yaml"
            lock = yaml.safe_load(lock_path.read_text())
            for f in lock["files"]:
                if f["path"] == rel:
                    f["size"], f["blob_sha1"] = len(data), git_blob_sha1(data)
            lock_path.write_text(yaml.safe_dump(lock, sort_keys=False))

        @staticmethod
        def log(n=0):
            logs = sorted((project_copy / "vendored" / HEADLINE).glob("*.jsonl"))
            return logs[n], f"{HEADLINE}/{logs[n].name}"

    return Case
