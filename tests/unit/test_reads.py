"""cit/reads.py: the one function every read goes through refuses what lies outside the
project, decodes UTF-8 naming file, line and column, and records what it read so a
cache can tell whether any of it changed."""

import os

import pytest

from cit.errors import BuildError
from cit.reads import MISSING, Reads


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "proj"
    (root / "content").mkdir(parents=True)
    (root / "content" / "a.md").write_text("alpha\n")
    (tmp_path / "secret.txt").write_text("secret\n")
    return root


def test_a_link_out_of_the_project_is_refused_and_one_inside_is_read(project, tmp_path):
    os.symlink(tmp_path / "secret.txt", project / "content" / "leak.md")
    os.symlink("a.md", project / "content" / "again.md")
    reads = Reads(project)
    with pytest.raises(BuildError) as e:
        reads.bytes(project / "content" / "leak.md")
    assert str(e.value) == (f"content/leak.md: a link to {tmp_path / 'secret.txt'}, outside "
                            "the project; the build reads only the project's own files")
    assert reads.text(project / "content" / "again.md") == "alpha\n"
    with pytest.raises(BuildError) as e:
        reads.bytes(project / ".." / "secret.txt")
    assert "outside the project" in str(e.value)


def test_a_fifo_or_a_folder_is_refused_without_blocking(project):
    os.mkfifo(project / "content" / "pipe.md")
    (project / "content" / "dir.md").mkdir()
    reads = Reads(project)
    for name in ("pipe.md", "dir.md"):
        with pytest.raises(BuildError) as e:
            reads.bytes(project / "content" / name)
        assert str(e.value) == (f"content/{name}: not a regular file (a folder, a FIFO or "
                                "a device); the build reads only files here")


def test_a_bad_byte_is_named_by_line_and_column(project):
    (project / "content" / "b.md").write_bytes(b"one\ntwo\nthr\xe9e\n")
    with pytest.raises(BuildError) as e:
        Reads(project).text(project / "content" / "b.md")
    assert str(e.value) == ("content/b.md:3: not UTF-8 (byte 0xe9 at column 4); save the "
                            "file as UTF-8")


def test_recorded_reads_tell_an_edit_a_new_file_and_a_listing_change(project):
    reads = Reads(project)
    with reads.scope() as got:
        reads.text(project / "content" / "a.md")
        assert reads.maybe_text(project / "content" / "none.md") is None
        reads.glob(project / "content", "*.md")
    assert got["f:content/none.md"] == MISSING and set(got) == {
        "f:content/a.md", "f:content/none.md", "g:content|*.md"}
    assert Reads(project).unchanged(got)
    (project / "content" / "a.md").write_text("alpha, edited\n")
    assert not Reads(project).unchanged(got)
    (project / "content" / "a.md").write_text("alpha\n")
    (project / "content" / "none.md").write_text("now here\n")
    assert not Reads(project).unchanged({"f:content/none.md": MISSING})
    assert not Reads(project).unchanged({"g:content|*.md": got["g:content|*.md"]})


def test_a_private_scope_is_left_out_of_the_shared_reads(project):
    (project / "content" / "b.md").write_text("beta\n")
    reads = Reads(project)
    reads.text(project / "content" / "a.md")
    with reads.scope(private=True) as own:
        reads.text(project / "content" / "b.md")
    assert set(own) == {"f:content/b.md"} and set(reads.shared()) == {"f:content/a.md"}


def test_a_file_held_in_memory_is_read_and_listed_but_never_written(tmp_path):
    """--check fetches the upstream files it lacks into memory (Reads.give), so that it
    writes nothing in vendored/ (issue 23's review, C7)."""
    from cit.reads import Reads
    (tmp_path / "v").mkdir()
    (tmp_path / "v" / "a.jsonl").write_text("on disk\n")
    reads = Reads(tmp_path)
    reads.give(tmp_path / "v" / "b.jsonl", b"in memory\n")
    reads.give(tmp_path / "w" / "c.jsonl", b"in a folder that is not there\n")
    assert [p.name for p in reads.glob(tmp_path / "v", "*.jsonl")] == ["a.jsonl", "b.jsonl"]
    assert [p.name for p in reads.glob(tmp_path / "w", "*.jsonl")] == ["c.jsonl"]
    assert reads.glob(tmp_path / "w", "*.md") == []
    assert reads.text(tmp_path / "v" / "b.jsonl") == "in memory\n"
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == [
        "v", "v/a.jsonl"]


def test_a_byte_order_mark_before_front_matter_is_dropped_where_text_is_decoded(tmp_path):
    """Issue 23's review (C4): a UTF-8 BOM before `---` gave `front matter missing`. The
    one decoder drops it, so the page reads as if it were not there."""
    from cit.frontmatter import parse_content_file
    from cit.reads import Reads
    page = "---\ntitle: A page\ndescription: One sentence.\nlayout: page\n---\n\nWords.\n"
    (tmp_path / "p.md").write_bytes(b"\xef\xbb\xbf" + page.encode())
    text = Reads(tmp_path).text(tmp_path / "p.md")
    assert text == page
    assert parse_content_file(text, "p.md").meta.title == "A page"
