"""Link check over a built site folder: every internal link and anchor must resolve.

`broken_links(site_dir)` reads every .html file under `site_dir` and returns one line
per problem (an empty list means every link works). Rules, so the site works from
file:// as well as from any static host, with no request leaving the page:

- `href`/`src` of a, area, link, script, img, source, iframe, use, form action: a
  relative URL must name a file inside the site (a folder is not enough: file:// does
  not open index.html by itself), and a `#fragment` must be an id (or an a[name]) in
  the target page;
- a root-relative ("/x") or protocol-relative ("//host") URL is a problem (it breaks
  file://), and so is any absolute URL that the page would load (script, stylesheet,
  image, iframe); plain links to outside pages (a, area with http(s): or mailto:) are
  navigations, not requests, and are allowed;
- ids named by aria-labelledby, aria-describedby, aria-controls, label[for] and
  data-figure-id (+ "-json") must exist on the same page; an id used twice is a problem.
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

LINK_ATTRS = {"a": "href", "area": "href", "link": "href", "script": "src", "img": "src",
              "source": "src", "iframe": "src", "use": "href", "form": "action",
              "video": "src", "audio": "src", "embed": "src", "object": "data"}
NAVIGATION = {"a", "area"}
IDREF_ATTRS = ("aria-labelledby", "aria-describedby", "aria-controls")


class _Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids: list[str] = []
        self.links: list[tuple[str, str]] = []       # (tag, url)
        self.idrefs: list[tuple[str, str]] = []      # (attribute, id)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.append(a["id"])
        if tag == "a" and a.get("name"):
            self.ids.append(a["name"])
        attr = LINK_ATTRS.get(tag)
        if attr and a.get(attr) is not None:
            self.links.append((tag, a[attr]))
        for name in IDREF_ATTRS:
            for ref in (a.get(name) or "").split():
                self.idrefs.append((name, ref))
        if tag == "label" and a.get("for"):
            self.idrefs.append(("label for", a["for"]))
        if a.get("data-figure-id"):
            self.idrefs.append(("data-figure-id", a["data-figure-id"] + "-json"))

    handle_startendtag = handle_starttag


def _parse(path: Path) -> _Page:
    p = _Page()
    p.feed(path.read_text(encoding="utf-8"))
    p.close()
    return p


def broken_links(site_dir) -> list[str]:
    """Every problem with the links of the site in `site_dir` (see the module docstring)."""
    site = Path(site_dir).resolve()
    if not site.is_dir():
        return [f"{site}: not a folder"]
    pages = {p: _parse(p) for p in sorted(site.rglob("*.html"))}
    if not pages:
        return [f"{site}: no .html files"]
    out: list[str] = []
    for path, page in pages.items():
        rel = path.relative_to(site).as_posix()
        seen: set[str] = set()
        for i in page.ids:
            if i in seen:
                out.append(f"{rel}: id {i!r} used more than once")
            seen.add(i)
        for attr, ref in page.idrefs:
            if ref not in seen:
                out.append(f"{rel}: {attr} names missing id {ref!r}")
        for tag, url in page.links:
            problem = _check(site, path, pages, tag, url)
            if problem:
                out.append(f"{rel}: {tag} {url!r}: {problem}")
    return out


def _check(site: Path, page: Path, pages: dict, tag: str, url: str) -> str | None:
    parts = urlsplit(url.strip())
    if parts.scheme or url.startswith("//"):
        if tag in NAVIGATION and parts.scheme in ("http", "https", "mailto"):
            return None
        return "external resource (the site must make no outside request)"
    if not url.strip():
        return "empty URL"
    if parts.path.startswith("/"):
        return "root-relative URL (breaks file://; use a relative path)"
    if parts.path:
        target = (page.parent / unquote(parts.path)).resolve()
        try:
            target.relative_to(site)
        except ValueError:
            return "points outside the site"
        if target.is_dir():
            return "points at a folder (file:// needs the file name, e.g. index.html)"
        if not target.is_file():
            return "no such file"
    else:
        target = page
    if parts.fragment:
        if target.suffix != ".html":
            return "fragment on a non-HTML file"
        frag = unquote(parts.fragment)
        if frag not in pages[target].ids:
            return f"no element with id {frag!r} in {target.relative_to(site).as_posix()}"
    return None
