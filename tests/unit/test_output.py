"""cit/output.py: the build's mark on an output folder (docs/output.md)."""

import json
import os

import pytest

from cit import output


def _folder_with(tmp_path, text: str):
    (tmp_path / "numbers.json").write_text(text)
    return tmp_path


def test_the_mark_of_a_real_build_is_recognised(built_site):
    assert output.made_by_build(built_site)


@pytest.mark.parametrize("text", [
    "",
    "not json",
    json.dumps({"build": {"commit": "abc"}, "numbers": []}),                 # no date
    json.dumps({"a": 1, "build": {"commit": "c", "commit_date": "d"}}),     # not first
    json.dumps({"build": ["commit", "commit_date"]}),
    '{"build": {"commit": "c", "commit_date": ',                           # cut short
])
def test_a_numbers_json_without_the_build_block_first_is_no_mark(tmp_path, text):
    assert not output.made_by_build(_folder_with(tmp_path, text))


def test_a_build_block_first_is_the_mark_whatever_follows_it(tmp_path):
    text = json.dumps({"build": {"commit": "c", "commit_date": "d"}, "numbers": []},
                      indent=1, sort_keys=True)
    assert output.made_by_build(_folder_with(tmp_path, text))
    assert not output.made_by_build(tmp_path / "missing")


def test_the_deploy_workflow_always_builds_cold():
    """docs/output.md's threat model: what is published passed a cold build's every
    check, whatever a cache holds (no cache step, --no-cache on the build)."""
    import yaml
    from tests.conftest import ROOT
    wf = yaml.safe_load((ROOT / ".github" / "workflows" / "pages.yml").read_text())
    steps = [s for job in wf["jobs"].values() for s in job.get("steps", [])]
    builds = [s["run"] for s in steps if "build.py" in s.get("run", "")]
    assert builds and all("--no-cache" in b.split() for b in builds)
    assert not [s for s in steps if "cache" in s.get("uses", "")]


MARK = b'{"build": {"commit": "c", "commit_date": "d"}}'


def _inode(path):
    return path.stat().st_ino


def test_a_rebuild_links_the_files_it_did_not_change_and_writes_the_others(tmp_path):
    """docs/output.md: a file whose bytes and mode are those of the previous output's
    is hard-linked from it, not written again; every other file is written afresh, and
    the new folder still replaces the old one in one swap."""
    out = tmp_path / "site"
    output.write_site({"numbers.json": MARK, "same.html": b"kept", "edited.html": b"old",
                       "static/a.css": b"css"}, out)
    before = {p: _inode(out / p) for p in ("same.html", "edited.html", "static/a.css")}
    output.write_site({"numbers.json": MARK, "same.html": b"kept", "edited.html": b"new!",
                       "static/a.css": b"css"}, out)
    assert _inode(out / "same.html") == before["same.html"]
    assert _inode(out / "static/a.css") == before["static/a.css"]
    assert _inode(out / "edited.html") != before["edited.html"]
    assert (out / "edited.html").read_bytes() == b"new!"
    assert all(p.stat().st_nlink == 1 for p in out.rglob("*") if p.is_file())
    assert [p.name for p in tmp_path.iterdir()] == ["site"]


def test_a_previous_file_that_is_not_the_builds_is_written_not_linked(tmp_path):
    """A previous file edited by hand to other bytes of the same size, made a link to a
    file outside the output, linked from elsewhere, or given another mode is not
    linked: the new file has the build's bytes and a new file's mode, and what lies
    outside the output is untouched."""
    out, outside = tmp_path / "site", tmp_path / "outside.html"
    files = {"numbers.json": MARK, "hand.html": b"abc", "link.html": b"ln",
             "twice.html": b"tw", "mode.html": b"md"}
    output.write_site(files, out)
    mode = (out / "hand.html").stat().st_mode & 0o777
    (out / "hand.html").write_bytes(b"xyz")
    outside.write_bytes(b"ln")
    (out / "link.html").unlink()
    (out / "link.html").symlink_to(outside)
    os.link(out / "twice.html", tmp_path / "elsewhere.html")
    (out / "mode.html").chmod(0o600)
    old = {n: _inode(out / n) for n in ("hand.html", "twice.html", "mode.html")}
    output.write_site(files, out)
    for name, data in files.items():
        p = out / name
        assert not p.is_symlink() and p.read_bytes() == data and p.stat().st_nlink == 1
        assert p.stat().st_mode & 0o777 == mode
    assert all(_inode(out / n) != i for n, i in old.items())
    assert outside.read_bytes() == b"ln" and outside.stat().st_nlink == 1


def test_a_rebuild_makes_durable_only_the_files_it_wrote(tmp_path, monkeypatch):
    """docs/output.md, "Writing": before the swap the build syncs what it wrote, never
    the files it hard-linked from the previous output (their bytes were made durable
    with that output): the files handed to the sync are exactly those written."""
    from cit import atomic
    out = tmp_path / "site"
    files = {"numbers.json": MARK, "same.html": b"kept", "edited.html": b"old",
             "static/a.css": b"css"}
    output.write_site(files, out)
    synced = []
    real = atomic.flush_written
    monkeypatch.setattr(atomic, "flush_written", lambda folder, written: (
        synced.append(sorted(p.relative_to(folder).as_posix() for p in written)),
        real(folder, written))[1])
    output.write_site(files | {"edited.html": b"new!"}, out)
    assert synced == [["edited.html"]]
    assert (out / "edited.html").read_bytes() == b"new!"
