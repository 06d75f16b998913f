"""Sharing: what a published site needs so that search engines and link previews find
it (docs/sharing.md).

With a base URL (site.yaml `base_url`, or the build's `--base-url`, which wins):
`sitemap.xml` (every page, absolute), `robots.txt` (naming the sitemap), and on every
page a canonical link, Open Graph and Twitter card meta whose image is `share.png`,
the figure site.yaml's `share_figure` names on the hub, rasterised at build time.
Without one, only what needs no absolute address is written: Open Graph's title,
description and type, and a Twitter card without an image. `404.html` is always
written; its links start with the base URL's path (`/` without one), since a host
serves it at any missing address, at any depth.

Nothing here reads a file: the render hands over the page list and the texts, and
gets bytes back.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from html import escape
from urllib.parse import urlsplit

from .errors import BuildError


SITEMAP, ROBOTS, IMAGE, NOT_FOUND = "sitemap.xml", "robots.txt", "share.png", "404.html"
# the card's size: the 1.91:1 of Open Graph's large image, as link previews crop it
CARD_W, CARD_H, CARD_PAD = 1200, 630, 48
SVG_NS = "http://www.w3.org/2000/svg"
# the properties that draw SVG (the page's layout ones, width or margin, do not apply)
SVG_PROPS = frozenset({
    "fill", "fill-opacity", "fill-rule", "stroke", "stroke-width", "stroke-opacity",
    "stroke-dasharray", "stroke-linejoin", "stroke-linecap", "paint-order", "opacity",
    "font-family", "font-size", "font-weight", "font-style", "text-anchor",
    "dominant-baseline", "display", "visibility", "overflow", "color"})


def base_url(value: str | None, where: str) -> str | None:
    """The site's address, checked: http(s), a host, no query or fragment; returned
    ending in `/` (its path is where the site's root lives). None stays None.
    BuildError(where, ...) otherwise."""
    if value is None:
        return None
    odd = re.search(r"[^A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]", value.strip())
    if odd:      # robots.txt and the sitemap carry it as written (docs/faults.md, N15)
        raise BuildError(where, f"base URL {value!r} holds {odd.group()!r}, which a URL "
                                "never holds as written; percent-encode it")
    parts = urlsplit(value.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise BuildError(where, f"base URL {value!r} is not an http(s) address with a host "
                                "(e.g. https://user.github.io/repo/)")
    if parts.query or parts.fragment:
        raise BuildError(where, f"base URL {value!r} has a query or fragment; give the "
                                "address of the site's root only")
    path = parts.path if parts.path.endswith("/") else parts.path + "/"
    return f"{parts.scheme}://{parts.netloc}{path}"


def chosen_base_url(option: str | None, site) -> str | None:
    """The build's base URL: the --base-url `option` when given, else site.yaml's
    `base_url` (`site`: cit.siteconfig.SiteConfig); checked by base_url."""
    if option:
        return base_url(option, "--base-url")
    return base_url(site.base_url, site.where.get("base_url", "site.yaml"))


def base_path(base: str | None) -> str:
    """The path the site's root is served at: `/repo/` for a project site, `/` for a
    site at a host's root or with no base URL."""
    return urlsplit(base).path if base else "/"


def page_meta(base: str | None, url: str, image: str | None) -> dict:
    """The addresses one page's head names: `canonical` (base + the page's URL) and
    `image` (the share image's address), each "" when there is no base URL or image."""
    return {"canonical": base + url.lstrip("/") if base else "",
            "image": base + image if base and image else ""}


def sitemap_xml(base: str, urls: list[str]) -> bytes:
    """sitemap.xml: one <url><loc> per page URL (site-relative, "/results/"), in order."""
    locs = "".join(f"<url><loc>{escape(base + u.lstrip('/'))}</loc></url>\n" for u in urls)
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
            f"{locs}</urlset>\n").encode("utf-8")


def robots_txt(base: str) -> bytes:
    """robots.txt: everything may be read; where the sitemap is. (A crawler reads
    robots.txt only at a host's root: at a project site's /repo/ it is advice for
    whoever serves the host, and the sitemap is found from the pages' canonical links.)"""
    return f"User-agent: *\nAllow: /\n\nSitemap: {base}{SITEMAP}\n".encode("utf-8")


def figure_svg(html: str, figure_id: str) -> str | None:
    """The markup of the build-time figure `<svg ... id="figure_id">` in a page, as
    written (cit/svgplot.py writes well-formed XML and nests no <svg>), or None."""
    m = re.search(r'<svg\b[^>]*\bid="' + re.escape(figure_id) + r'"', html)
    if not m:
        return None
    end = html.find("</svg>", m.start())
    return html[m.start():end + len("</svg>")] if end > 0 else None


def figure_title(svg: str) -> str:
    """A figure's own words (its <title>), the share image's alternative text."""
    m = re.search(r"<title\b[^>]*>(.*?)</title>", svg, re.S)
    return re.sub(r"<[^>]+>", "", m.group(1)).strip() if m else ""


def card_svg(svg: str, css: str, where: str) -> tuple[str, str]:
    """The figure `svg` on a CARD_W x CARD_H card of the page's background, as one SVG
    that needs no stylesheet: the site's stylesheets `css` applied to it as a browser
    in light mode would (_Cascade). Returns (the card, the figure's own style)."""
    root = ET.fromstring(svg)
    styles = _Cascade(css)
    styles.inline(root)
    view = (root.get("viewBox") or "").split()
    if len(view) != 4:
        raise BuildError(where, "the share figure has no viewBox to scale it by")
    vw, vh = float(view[2]), float(view[3])
    scale = min((CARD_W - 2 * CARD_PAD) / vw, (CARD_H - 2 * CARD_PAD) / vh)
    w, h = vw * scale, vh * scale
    for attr in ("width", "height", "class"):
        root.attrib.pop(attr, None)
    for attr, value in (("x", (CARD_W - w) / 2), ("y", (CARD_H - h) / 2),
                        ("width", w), ("height", h)):
        root.set(attr, f"{value:.1f}")
    ET.register_namespace("", SVG_NS)
    bg = styles.root_value("--bg") or "#ffffff"
    return (f'<svg xmlns="{SVG_NS}" width="{CARD_W}" height="{CARD_H}" '
            f'viewBox="0 0 {CARD_W} {CARD_H}"><rect width="{CARD_W}" height="{CARD_H}" '
            f'fill="{escape(bg)}"/>{ET.tostring(root, encoding="unicode")}</svg>',
            styles.element_style(root))


def share_png(svg: str, css: str, where: str) -> bytes:
    """The share image: the figure's card (card_svg) drawn by resvg (the `resvg_py`
    package) with the system's fonts. A machine with no font for the figure's text
    fails the build (its text would be missing)."""
    import resvg_py
    card, style = card_svg(svg, css, where)
    if not _fonts_draw_text(resvg_py, style):
        raise BuildError(where, "no font on this machine draws the share figure's text "
                                "(install one, e.g. Debian's fonts-dejavu-core)")
    return bytes(resvg_py.svg_to_bytes(svg_string=card))


def _fonts_draw_text(resvg_py, style: str) -> bool:
    """Whether resvg finds a font for text in `style`'s font family: a word drawn
    differs from no word."""
    def draw(text: str) -> bytes:
        return bytes(resvg_py.svg_to_bytes(svg_string=(
            f'<svg xmlns="{SVG_NS}" width="80" height="30"><text x="4" y="22" '
            f'style="{escape(style)}">{text}</text></svg>')))
    return draw("Aa") != draw("")


class _Cascade:
    """The site's stylesheets applied to an SVG tree as a browser's cascade would, for
    one that reads no stylesheet and knows no custom properties (resvg): each element
    gets a `style` attribute of the declarations that match it (by specificity, then
    order; tinycss2 parses, cssselect2 matches), with `var()` resolved through the
    custom properties it inherits. Rules inside @media (dark mode, print) and pseudo-
    class or pseudo-element selectors (:hover, ::before) are left out: a card is drawn
    once, in light mode."""

    def __init__(self, css: str):
        import cssselect2
        import tinycss2
        self._tinycss2, self._cssselect2 = tinycss2, cssselect2
        self.matcher = cssselect2.Matcher()
        self.root_vars: dict = {}
        for order, rule in enumerate(tinycss2.parse_stylesheet(
                css, skip_comments=True, skip_whitespace=True)):
            if rule.type != "qualified-rule":
                continue
            decls = [d for d in tinycss2.parse_blocks_contents(
                rule.content, skip_comments=True, skip_whitespace=True)
                if d.type == "declaration"]
            prelude = tinycss2.serialize(rule.prelude).strip()
            if prelude == ":root":
                self.root_vars.update((d.name, d.value) for d in decls
                                      if d.name.startswith("--"))
                continue
            if ":" in prelude:
                continue
            for sel in cssselect2.compile_selector_list(rule.prelude):
                self.matcher.add_selector(sel, (order, decls))
        self._styles: dict = {}

    def root_value(self, name: str) -> str | None:
        got = self._resolve(self.root_vars.get(name), self.root_vars)
        return self._tinycss2.serialize(got).strip() if got else None

    def inline(self, root: ET.Element) -> None:
        self._walk(self._cssselect2.ElementWrapper.from_xml_root(root), dict(self.root_vars))

    def element_style(self, el: ET.Element) -> str:
        return self._styles.get(id(el), "")

    def _walk(self, wrapper, inherited: dict) -> None:
        found = sorted(self.matcher.match(wrapper), key=lambda m: (m[0], m[3][0]))
        props, env = {}, dict(inherited)
        for _spec, _order, _pseudo, (_n, decls) in found:
            for d in decls:
                (env if d.name.startswith("--") else props)[d.name] = d.value
        style = []
        for name, value in props.items():
            if name not in SVG_PROPS:
                continue
            got = self._resolve(value, env)
            if got is not None:
                style.append(f"{name}:{self._tinycss2.serialize(got).strip()}")
        el = wrapper.etree_element
        if style:
            self._styles[id(el)] = ";".join(style)
            el.set("style", ";".join(style))
        for child in wrapper.iter_children():
            self._walk(child, env)

    def _resolve(self, tokens, env: dict, depth: int = 0):
        """`tokens` with each var() replaced by its value in `env` (or its fallback);
        None when one has neither (the declaration is then dropped, as a browser does)."""
        if tokens is None or depth > 20:
            return None
        out = []
        for tok in tokens:
            if tok.type == "function" and tok.lower_name == "var":
                args = tok.arguments
                name = next((a.value for a in args if a.type == "ident"), None)
                comma = next((i for i, a in enumerate(args)
                              if a.type == "literal" and a.value == ","), None)
                value = env.get(name) if name else None
                if value is None and comma is not None:
                    value = args[comma + 1:]
                got = self._resolve(value, env, depth + 1)
                if got is None:
                    return None
                out.extend(got)
            else:
                out.append(tok)
        return out
