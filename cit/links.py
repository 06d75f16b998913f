"""Link check: every internal link and anchor of the rendered pages must resolve.

The build runs it on the pages it rendered, in memory, before anything is written
(`check_links(files, pages)`); a problem fails the build, named by the Markdown source
and line when the link is found there (`describe`). `broken_links(site_dir)` checks a
site folder on disk the same way. Rules, so the site works from file:// as well as
from any static host, with no request leaving the page:

- `href`/`src` of a, area, link, script, img, source, iframe, use, form action: a
  relative URL must name a file inside the site (a folder is not enough: file:// does
  not open index.html by itself), and a `#fragment` must be an id (or an a[name]) in
  the target page;
- a root-relative ("/x") or protocol-relative ("//host") URL is a problem (it breaks
  file://), and so is any absolute URL that the page would load (script, stylesheet,
  image, iframe); plain links to outside pages (a, area with http(s): or mailto:) are
  navigations, not requests, and are allowed; those to a page that can change (not
  pinned to a commit, an archive snapshot, a DOI or a versioned arXiv id) are listed
  by `unpinned_links` for `python build.py --check`;
- ids named by aria-labelledby, aria-describedby, aria-controls, label[for] and
  data-figure-id (+ "-json") must exist on the same page; an id used twice is a problem.

Pages are read by cit/htmlscan.py, the build's one HTML reader (lexbor's parser):
comments and the text of script, style, textarea and title elements are not markup.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from .errors import BuildError
from .htmlscan import link_attributes
from .reads import Reads

LINK_ATTRS = {"a": "href", "area": "href", "link": "href", "script": "src", "img": "src",
              "source": "src", "iframe": "src", "use": "href", "form": "action",
              "video": "src", "audio": "src", "embed": "src", "object": "data"}
# an image carried in its page, which docs/output.md allows (the Markdown step refuses
# every other data: URL, svg included, with its reason)
IMAGE_DATA_RE = re.compile(r"data:image/(?:gif|png|jpeg|webp);")
NAVIGATION = {"a", "area", "link rel=canonical"}   # followed by a reader or crawler, not loaded
NOT_FOUND = "404.html"      # served at any missing address: its links start at the root path
IDREF_ATTRS = ("aria-labelledby", "aria-describedby", "aria-controls")
_PINNED = re.compile(r"/[0-9a-f]{40}(?:[/?#]|$)|^https?://web\.archive\.org/web/\d{14}/"
                     r"|^https?://(?:dx\.)?doi\.org/|^https?://arxiv\.org/abs/[\d.]+v\d+$")


@dataclass
class PageLinks:
    """What the check reads from one page."""
    ids: list[str] = field(default_factory=list)
    links: list[tuple[str, str]] = field(default_factory=list)     # (tag, url)
    idrefs: list[tuple[str, str]] = field(default_factory=list)    # (attribute, id)
    id_set: set[str] = field(default_factory=set)     # the ids, for look-ups


@dataclass(frozen=True)
class Broken:
    """One problem on a built page; `tag` and `url` are set for a link."""
    page: str
    problem: str
    tag: str = ""
    url: str = ""

    def __str__(self) -> str:
        if self.url or self.tag:
            return f"{self.page}: {self.tag} {self.url!r}: {self.problem}"
        return f"{self.page}: {self.problem}"


def scan(text: str) -> PageLinks:
    """The ids, links and id references of one HTML page (read by cit/htmlscan.py)."""
    out = PageLinks()
    for tag, a in link_attributes(text):
        if a.get("id"):
            out.ids.append(a["id"])
        if tag == "a" and a.get("name"):
            out.ids.append(a["name"])
        attr = LINK_ATTRS.get(tag)
        if attr and attr in a:
            canonical = tag == "link" and (a.get("rel") or "").lower() == "canonical"
            out.links.append(("link rel=canonical" if canonical else tag, a[attr] or ""))
        for name in IDREF_ATTRS:
            out.idrefs.extend((name, ref) for ref in (a.get(name) or "").split())
        if tag == "label" and a.get("for"):
            out.idrefs.append(("label for", a["for"]))
        if a.get("data-figure-id"):
            out.idrefs.append(("data-figure-id", a["data-figure-id"] + "-json"))
    out.id_set.update(out.ids)
    return out


def check_links(files: Mapping[str, bytes], pages: Iterable[str],
                root_path: str = "/") -> list[Broken]:
    """Problems with the links of `pages` (output paths of .html files in `files`,
    the whole site: relative path -> bytes); anchors are looked up in their targets.
    404.html's links must start with `root_path`, the path the site is served at (the
    base URL's), and are read from the site's root."""
    scanned: dict[str, PageLinks] = {}

    def parsed(rel: str) -> PageLinks:
        if rel not in scanned:
            scanned[rel] = scan(files[rel].decode("utf-8"))
        return scanned[rel]

    folders = {str(parent) for k in files for parent in list(Path(k).parents)[:-1]}
    out: list[Broken] = []
    for rel in sorted(pages):
        page = parsed(rel)
        seen: set[str] = set()
        for i in page.ids:
            if i in seen:
                out.append(Broken(rel, f"id {i!r} used more than once"))
            seen.add(i)
        out += [Broken(rel, f"{attr} names missing id {ref!r}")
                for attr, ref in page.idrefs if ref not in seen]
        for tag, url in page.links:
            problem = _link_problem(files, folders, parsed, rel, tag, url,
                                    root_path if rel == NOT_FOUND else None)
            if problem:
                out.append(Broken(rel, problem, tag, url))
    return out


def _link_problem(files, folders, parsed, page: str, tag: str, url: str,
                  root_path: str | None = None) -> str | None:
    parts = urlsplit(url.strip())
    if root_path is not None and parts.path and not parts.scheme and not url.startswith("//"):
        if not parts.path.startswith(root_path):
            return f"404.html's links must start with the site's root path {root_path!r}"
        parts = parts._replace(path=parts.path[len(root_path):])
        if not parts.path:
            return "points at a folder (file:// needs the file name, e.g. index.html)"
    if parts.scheme or url.startswith("//"):
        if tag in NAVIGATION and parts.scheme in ("http", "https", "mailto"):
            return None
        if tag == "img" and IMAGE_DATA_RE.match(url.strip().lower()):
            return None        # drawn from the page itself (docs/output.md; CSP img-src data:)
        return "external resource (the site must make no outside request)"
    if not url.strip():
        return "empty URL"
    if parts.path.startswith("/"):
        return "root-relative URL (breaks file://; use a relative path)"
    target = page
    if parts.path:
        target = posixpath.normpath(posixpath.join(posixpath.dirname(page),
                                                   unquote(parts.path)))
        if target == ".." or target.startswith("../"):
            return "points outside the site"
        if target not in files:
            if target in folders or target == ".":
                return "points at a folder (file:// needs the file name, e.g. index.html)"
            return "no such file"
    if parts.fragment:
        if not target.endswith(".html"):
            return "fragment on a non-HTML file"
        frag = unquote(parts.fragment)
        if frag not in parsed(target).id_set:
            return f"no element with id {frag!r} in {target}"
    return None


def unpinned_links(files: Mapping[str, bytes], pages: Iterable[str]) -> list[str]:
    """`page: url` for each link to an outside web page that is not pinned (it may
    change or vanish under the site): allowed, but listed for the author (a page's own
    canonical address is not one)."""
    out = []
    for rel in sorted(pages):
        for tag, url in scan(files[rel].decode("utf-8")).links:
            if (tag in ("a", "area") and urlsplit(url).scheme in ("http", "https")
                    and not _PINNED.search(url)):
                out.append(f"{rel}: {url}")
    return out


def _as_written(url: str) -> list[str]:
    """How a rendered href may appear in the Markdown: as is, or as the folder link
    the renderer completed with index.html."""
    path, hash_, frag = url.partition("#")
    forms = [url]
    if path == "index.html" or path.endswith("/index.html"):
        folder = path[: -len("index.html")] or "./"
        forms += [folder + hash_ + frag, folder.rstrip("/") + hash_ + frag]
    return [f for f in forms if f]


def _source_line(text: str, url: str) -> tuple[int, str] | None:
    for form in _as_written(url):
        needles = (f"]({form})", f"]({form} ", f"](<{form}>", f"]: {form}", f'href="{form}"')
        for n, line in enumerate(text.splitlines(), 1):
            if any(s in line for s in needles):
                return n, form
    return None


def describe(problems: list[Broken], sources: Mapping[str, tuple[str, str]]
             ) -> list[tuple[str, str]]:
    """(where, message) per problem: the Markdown file and line that wrote the link when
    it is found there (`sources`: page -> (display path, text)), else the built page."""
    out = []
    for b in problems:
        src = sources.get(b.page)
        found = _source_line(src[1], b.url) if src and b.url else None
        if found:
            line, form = found
            out.append((f"{src[0]}:{line}", f"broken link {form!r}: {b.problem} "
                        f"(built page {b.page}, {b.tag} {b.url!r})"))
        elif b.url or b.tag:
            out.append((f"built page {b.page}", f"{b.tag} {b.url!r}: {b.problem}"))
        else:
            out.append((f"built page {b.page}", b.problem))
    return out


def require_intact(files: Mapping[str, bytes], pages: Iterable[str],
                   page_sources: Mapping[str, str], root: Path, root_path: str = "/") -> None:
    """The build's gate: raise BuildError naming the first problem (and listing the
    rest) when a link or anchor of `pages` is broken. `page_sources`: page -> the
    Markdown file (relative to `root`) it was rendered from; `root_path`: 404.html's
    (check_links)."""
    problems = check_links(files, pages, root_path)
    if not problems:
        return
    texts, reads = {}, Reads(root)
    for page, src in page_sources.items():
        try:
            texts[page] = (src, reads.text(Path(root) / src))
        except BuildError:     # the render read it; a file changed since is not named
            continue
    (where, message), *rest = describe(problems, texts)
    more = "".join(f"\n  {w}: {m}" for w, m in rest[:20])
    if len(rest) > 20:
        more += f"\n  ... and {len(rest) - 20} more"
    raise BuildError(where, message + more)


def broken_links(site_dir, root_path: str = "/") -> list[str]:
    """Every problem with the links of the site folder `site_dir`, one line each
    (`root_path`: the path its 404.html's links start with, check_links)."""
    site = Path(site_dir).resolve()
    if not site.is_dir():
        return [f"{site}: not a folder"]
    files = {p.relative_to(site).as_posix(): p.read_bytes()
             for p in sorted(site.rglob("*")) if p.is_file()}
    pages = [k for k in files if k.endswith(".html")]
    if not pages:
        return [f"{site}: no .html files"]
    return [str(b) for b in check_links(files, pages, root_path)]
