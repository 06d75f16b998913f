"""site.yaml: the study, declared to the engine (docs/site-config.md).

`load_site(root)` reads `root/site.yaml` and returns a `SiteConfig`: the site's title and
base URL and share figure, its navigation, each layout's scripts, the data stages the build runs (each a
`module:function`; its cache key is what it read, cit/stages.py), the block providers,
the module prefixes the data-stage cache may unpickle, and the order of the figures
/tested reports. Every key is checked (cit/fieldcheck.py) with an error naming site.yaml and the
line; a `module:function` is checked when it is imported (`resolve`), with the same
place in the message.
"""

from __future__ import annotations

import importlib
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from . import yamlio
from .errors import BuildError
from .fieldcheck import FieldRule, check_fields, key_places
from .reads import Reads

NAME = "site.yaml"
ENTRY_RE = r"[A-Za-z_][\w.]*:[A-Za-z_]\w*"
TEXT = FieldRule(str, nonblank=True)
TEXTS = FieldRule(list, required=False, item_kind=str)
SITE_RULES = {"title": TEXT, "base_url": FieldRule(str, nullable=True),
              "nav": FieldRule(list, nonblank=True), "layouts": FieldRule(dict),
              "stages": FieldRule(list), "blocks": TEXTS, "unpickle": TEXTS,
              "tested": TEXTS, "pinned": TEXTS, "templates": FieldRule(str, required=False, nonblank=True),
              "static": FieldRule(str, required=False, nonblank=True),
              "share_figure": FieldRule(str, required=False, pattern=r"[A-Za-z][\w-]*"),
              "yaml_name_keys": TEXTS,
              "bibliography": FieldRule(str, required=False, nonblank=True,
                                        pattern=r"[\w./-]+\.bib"),
              "repository": FieldRule(dict, required=False)}
REPOSITORY_RULES = {"url": FieldRule(str, pattern=r"https://[^\s/]+/[\w.-]+/[\w.-]+"),
                    "branch": FieldRule(str, nonblank=True)}
NAV_RULES = {"url": TEXT, "label": TEXT}
LAYOUT_RULES = {"scripts": TEXTS, "findings_cards": FieldRule(bool, required=False)}
LAYOUTS = ("hub", "page", "deck")
STAGE_RULES = {"name": FieldRule(str, pattern=r"[a-z][a-z0-9_]*"),
               "run": FieldRule(str, pattern=ENTRY_RE)}


@dataclass(frozen=True)
class Entry:
    """A `module:function` of site.yaml, with the place it was given (for errors)."""
    ref: str
    where: str

    def resolve(self):
        """The function itself; BuildError at its site.yaml line when it cannot be had."""
        module, _, name = self.ref.partition(":")
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as e:
            if e.name and module.startswith(e.name):
                raise BuildError(self.where, f"`{self.ref}`: no module {e.name}") from None
            raise
        fn = getattr(mod, name, None)
        if not callable(fn):
            raise BuildError(self.where, f"`{self.ref}`: {module} has no function {name}")
        return fn


@dataclass(frozen=True)
class Stage:
    """One data stage: `run` is called with a cit.stages.StageContext."""
    name: str
    run: Entry


@dataclass(frozen=True)
class SiteConfig:
    title: str
    base_url: str | None
    nav: tuple[tuple[str, str], ...]
    layout_scripts: dict[str, tuple[str, ...]]
    findings_cards: frozenset[str]
    stages: tuple[Stage, ...] = ()
    blocks: tuple[Entry, ...] = ()
    unpickle: tuple[str, ...] = ()
    tested: tuple[str, ...] = ()
    where: dict[str, str] = field(default_factory=dict)   # key -> "site.yaml:line"
    templates: str = "templates"
    static: str | None = None     # the study's own static files, shipped beside the engine's
    share_figure: str | None = None     # a hub figure's id: the pages' share image
    # keys of the study's content YAML whose values are names, not prose (cit/sentences.py)
    yaml_name_keys: tuple[str, ...] = ()
    pinned: tuple[str, ...] = ()    # the mirror's files the lock pins (cit/vendor.py)
    bibliography: str | None = None      # the study's BibTeX file (cit/mathcite.py)
    # the project's own repository: its web address and the branch pages are edited on
    # (docs/site-config.md, "Links to our own source")
    repository: tuple[str, str] | None = None

    def packages(self) -> tuple[str, ...]:
        """The study's code: the top-level package of each stage and block provider
        (the engine's own, cit, aside)."""
        refs = [*(s.run.ref for s in self.stages), *(b.ref for b in self.blocks)]
        return tuple(sorted({r.split(":")[0].split(".")[0] for r in refs} - {"cit"}))


def load_site(root: Path, reads: Reads | None = None) -> SiteConfig:
    """site.yaml of the project at `root`, read through `reads` (cit/reads.py: so every
    page's record and the data stages' key hold it) and checked;
    BuildError("site.yaml:line", ...). The study's packages are imported from `root`
    (put first on the import path)."""
    path = Path(root) / NAME
    if str(Path(root).resolve()) not in sys.path:
        sys.path.insert(0, str(Path(root).resolve()))
    text = (reads or Reads(root)).maybe_text(path)
    if text is None:
        raise BuildError(NAME, "missing: the engine reads the site's title, navigation, "
                         "layouts and data stages from it (docs/site-config.md)")
    return parse_site(text)


def parse_site(text: str, name: str = NAME) -> SiteConfig:
    data, node = yamlio.load_with_nodes(text, name)
    where = key_places(name, node)
    check_fields(data, SITE_RULES, where, name)
    items = {k.value: v for k, v in node.value}
    nav = tuple(_nav(data["nav"], items["nav"], name))
    scripts, cards = _layouts(data["layouts"], items["layouts"], name)
    stages = tuple(_stages(data["stages"], items["stages"], name))
    names = [s.name for s in stages]
    dup = next((n for n in names if names.count(n) > 1), None)
    if dup:
        raise BuildError(where("stages"), f"two stages are named {dup!r}")
    seqs = {k: items[k].value if k in items else [] for k in ("blocks",)}
    blocks = tuple(_entry(v, n, name) for v, n in zip(data.get("blocks", []), seqs["blocks"]))
    repo = data.get("repository")
    if repo is not None:
        check_fields(repo, REPOSITORY_RULES, key_places(name, items["repository"]), "repository")
        repo = (repo["url"].rstrip("/"), repo["branch"])
    return SiteConfig(data["title"], data["base_url"], nav, scripts, cards, stages, blocks,
                      tuple(data.get("unpickle", [])), tuple(data.get("tested", [])),
                      {k: where(k) for k in data}, data.get("templates", "templates"),
                      data.get("static"),
                      data.get("share_figure"), tuple(data.get("yaml_name_keys", [])),
                      tuple(data.get("pinned", [])), data.get("bibliography"), repo)


def _line(name: str, node) -> str:
    return f"{name}:{node.start_mark.line + 1}"


def _nav(items: list, node, name: str):
    for item, n in zip(items, node.value):
        check_fields(item, NAV_RULES, key_places(name, n), "nav item")
        yield item["url"], item["label"]


def _layouts(data: dict, node, name: str):
    scripts, cards = {}, set()
    lines = {k.value: v for k, v in node.value}
    for layout, spec in data.items():
        if layout not in LAYOUTS:
            raise BuildError(_line(name, lines[layout]), f"layouts: unknown layout "
                             f"{layout!r} (the engine has {', '.join(LAYOUTS)})")
        check_fields(spec, LAYOUT_RULES, key_places(name, lines[layout]), f"layout {layout}")
        scripts[layout] = tuple(spec.get("scripts", ()))
        if spec.get("findings_cards"):
            cards.add(layout)
    for layout in LAYOUTS:
        scripts.setdefault(layout, ())
    return scripts, frozenset(cards)


def _stages(items: list, node, name: str):
    for item, n in zip(items, node.value):
        place = key_places(name, n)
        check_fields(item, STAGE_RULES, place, "stage")
        yield Stage(item["name"], Entry(item["run"], place("run")))


def _entry(value, node, name: str) -> Entry:
    if not isinstance(value, str) or not re.fullmatch(ENTRY_RE, value):
        raise BuildError(_line(name, node), f"blocks: {value!r} is not module:function")
    return Entry(value, _line(name, node))
