"""The render stage over a tiny content tree: pages, navigation, decks, the shell,
determinism and errors (cit/render.py)."""

import re
import shutil
from pathlib import Path

import pytest

from cit.errors import BuildError
from tests.conftest import TINY_PAGES, html_elements, page_text


def test_pages_are_folders_with_an_index_file(site):
    assert set(TINY_PAGES) <= set(site.files)
    assert site.pages == {"/": "Can an optical link compress gradients?", "/optics/": "Optics",
                          "/method/": "Method", "/tested/": "Tested", "/glossary/": "Glossary",
                          "/decks/01-sources/": "Sources", "/decks/02-traffic/": "Training traffic"}


def test_every_link_and_asset_reference_is_relative(site):
    for path in TINY_PAGES:
        for tag, attrs in html_elements(page_text(site, path)):
            for key in ("href", "src"):
                url = attrs.get(key)
                if url is None or url.startswith(("http://", "https://", "mailto:")):
                    continue
                assert not url.startswith("/"), (path, url)
                assert not url.split("#")[0].endswith("/"), (path, url)


def test_appears_lists_the_pages_where_each_number_is_shown(site, render_registry):
    assert set(site.appears) == set(render_registry.numbers)
    assert site.appears["final_loss.A"] == ["/", "/optics/"]
    # the glossary definition of DeMo shows final_loss.B; the index listing is not an appearance
    assert site.appears["final_loss.B"] == ["/glossary/", "/optics/"]
    assert site.appears["runs.completed"] == ["/decks/01-sources/"]
    assert site.appears["build.checked"] == ["/tested/"]


def test_deck_slides_are_sections_inside_a_deck_main(site):
    html = page_text(site, "decks/01-sources/index.html")
    assert '<main id="main" class="deck"' in html
    slides = re.findall(r'<section class="slide" id="(slide-\d+)"[^>]*aria-labelledby="([^"]+)"', html)
    assert [s[0] for s in slides] == ["slide-1", "slide-2"]
    for _, heading in slides:
        assert f'id="{heading}"' in html
    assert ('src="../../static/deck.js"' in html) == ("static/deck.js" in site.files)
    assert 'href="../../decks/02-traffic/index.html" rel="next"' in html


def test_speaker_notes_fold_under_their_slide_and_their_numbers_count(render_content, render_tiny):
    deck = ("---\ntitle: Sources\ndescription: D.\nlayout: deck\norder: 1\n---\n"
            "# Sources\n\nA slide.\n\n::: notes\nSay that :n[runs.completed] runs completed.\n:::\n"
            "\n---\n\n## No notes here\n\nText.\n")
    site = render_tiny(render_content({"decks/01-sources.md": deck}))
    html = page_text(site, "decks/01-sources/index.html")
    first, second = re.findall(r'<section class="slide".*?</section>', html, re.S)
    notes = re.search(r'<details class="slide-notes"><summary>Speaker notes</summary>\n(.*?)</details>',
                      first, re.S)
    assert notes and 'data-id="runs.completed"' in notes.group(1) and "Say that" in notes.group(1)
    assert "A slide." in first and "A slide." not in notes.group(1)
    assert "slide-notes" not in second
    assert site.appears["runs.completed"] == ["/decks/01-sources/"]


def test_the_build_stamp_shows_the_commit_and_its_date(site):
    from conftest import RENDER_BUILD_INFO
    html = page_text(site, "index.html")
    stamp = re.search(r'<p class="build-stamp">(.*?)</p>', html, re.S).group(1)
    assert RENDER_BUILD_INFO["commit"][:12] in stamp and RENDER_BUILD_INFO["commit_date"] in stamp


def test_the_hub_findings_become_cards(site):
    html = page_text(site, "index.html")
    section = html[html.index('<section class="section section-findings"'):]
    section = section[:section.index("</section>")]
    assert section.count('<article class="card finding"') == 1


def test_every_page_has_the_shell_a_reader_needs(site):
    for path in TINY_PAGES:
        html = page_text(site, path)
        assert '<html lang="en">' in html and 'name="viewport"' in html
        assert '<a class="skip-link" href="#main">' in html and 'id="main"' in html
        for label in ("Hub", "Decks", "Optics", "Method", "Tested", "Glossary"):
            assert f">{label}</a>" in html, (path, label)


def test_rendering_twice_gives_identical_bytes(render_content, render_tiny):
    content = render_content()
    assert render_tiny(content).files == render_tiny(content).files


def test_an_undefined_template_variable_is_an_error(render_content, render_tiny, tmp_path):
    tdir = tmp_path / "templates"
    shutil.copytree(Path(__file__).resolve().parents[2] / "templates", tdir)
    (tdir / "page.html").write_text("{{ no_such_variable }}")
    with pytest.raises(BuildError) as e:
        render_tiny(render_content(), templates_dir=tdir)
    assert "no_such_variable" in e.value.message


def test_terms_linked_without_a_glossary_page_fail(render_content, render_tiny):
    with pytest.raises(BuildError) as e:
        render_tiny(render_content(drop=("pages/glossary.md",)))
    assert "@[glossary]" in e.value.message


def test_a_deck_whose_order_differs_from_its_file_name_fails(render_content, render_tiny):
    deck = "---\ntitle: T\ndescription: D.\nlayout: deck\norder: 3\n---\n# T\n"
    with pytest.raises(BuildError) as e:
        render_tiny(render_content({"decks/04-late.md": deck}))
    assert e.value.where == "content/decks/04-late.md:1"


def test_a_page_with_the_wrong_layout_fails(render_content, render_tiny):
    page = "---\ntitle: T\ndescription: D.\nlayout: hub\n---\nText\n"
    with pytest.raises(BuildError) as e:
        render_tiny(render_content({"pages/extra.md": page}))
    assert e.value.where == "content/pages/extra.md:1"


def test_numbers_in_glossary_definitions_appear_even_without_a_number_index(render_content, render_tiny):
    site = render_tiny(render_content(drop=("pages/method.md",)))
    assert "/glossary/" in site.appears["final_loss.B"]

def test_a_heading_never_takes_an_id_the_templates_use(render_content, render_tiny):
    """Issue 23's review (C4): `## Main` gave a second id="main" (the template's <main>),
    reported against the built page with no Markdown line. Every id the templates write
    as it is stays theirs; the heading takes the next free one."""
    from cit.links import check_links
    from cit.reads import Reads
    from cit.render import template_ids
    from tests.conftest import ROOT
    reserved = template_ids(ROOT / "templates", Reads(ROOT))
    assert {"main", "site-nav"} <= reserved
    text = "\n".join(f"## {i.replace('-', ' ').title()}\n\nWords.\n" for i in sorted(reserved))
    content = render_content({"pages/optics.md": "---\ntitle: Optics\ndescription: The "
                              "failure and the repair.\nlayout: page\n---\n" + text})
    site = render_tiny(content)
    html = site.files["optics/index.html"].decode()
    assert check_links(site.files, ["optics/index.html"]) == []
    for i in sorted(reserved):
        assert f'<h2 id="{i}-2">' in html
