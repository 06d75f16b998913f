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
              "yaml_name_keys": TEXTS, "sentences": FieldRule(dict, required=False),
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

    def resolve(self, root: Path | None = None):
        """The function itself; BuildError at its site.yaml line when it cannot be had,
        or (given the project's `root`) when it is not the project's code or the
        engine's, or does not take one argument (docs/faults.md, N8)."""
        module, _, name = self.ref.partition(":")
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as e:
            if e.name and module.startswith(e.name):
                raise BuildError(self.where, f"`{self.ref}`: no module {e.name}") from None
            raise BuildError(self.where, f"`{self.ref}`: {module} imports {e.name}, which "
                             "is not installed") from None
        fn = getattr(mod, name, None)
        if not callable(fn):
            raise BuildError(self.where, f"`{self.ref}`: {module} has no function {name}")
        if root is not None:
            self._check_callable(mod, fn, Path(root).resolve())
        return fn

    def _check_callable(self, mod, fn, root: Path) -> None:
        import inspect
        engine = Path(__file__).resolve().parent
        file = Path(getattr(mod, "__file__", None) or "/").resolve()
        top = mod.__name__.split(".")[0]
        # the project's own package (found by name too: a test's copy of the project
        # runs, in-process, the package already imported from the checkout)
        own = (root / top).is_dir() or (root / f"{top}.py").is_file()
        if not (root in file.parents or engine in file.parents or own):
            raise BuildError(self.where, f"`{self.ref}`: {mod.__name__} is not the "
                             "project's code nor the engine's; a stage or block provider "
                             "is a function of the study's own package")
        try:
            inspect.signature(fn).bind(None)
        except (TypeError, ValueError):
            raise BuildError(self.where, f"`{self.ref}` does not take one argument (a "
                             "cit.stages.StageContext or cit.blocks.BlockInputs)") from None

    def call(self, arg, root: Path, what: str):
        """`resolve(root)`(arg); an exception it raises is one line at this entry's
        site.yaml line, naming the exception and the line of the study's code it came
        from (a BuildError is passed on as it is)."""
        fn = self.resolve(root)
        try:
            return fn(arg)
        except BuildError:
            raise
        except Exception as e:
            raise BuildError(self.where, _failure(e, what, arg)) from None


def _failure(e: Exception, what: str, arg) -> str:
    """What a stage's or provider's exception says, in one line."""
    import traceback
    frames = traceback.extract_tb(e.__traceback__)
    engine = str(Path(__file__).parent) + "/"
    ours = [f for f in frames if not f.filename.startswith(engine)] or frames
    at = f" (at {ours[-1].filename}:{ours[-1].lineno})" if ours else ""
    registry = getattr(arg, "registry", None)
    key = e.args[0] if isinstance(e, KeyError) and e.args else None
    if isinstance(key, str) and registry is not None and key not in registry.numbers \
            and key not in registry.claims:
        return (f"{what} looked up {key!r}, which no earlier stage registered (the stages "
                f"run in site.yaml's order){at}")
    text = " ".join(str(e).split())
    return f"{what} failed: {type(e).__name__}: {text[:300]}{at}"


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
    # the sentence check's vocabulary: entities, data nouns, reasons (cit/sentencerules.py)
    sentences: dict = field(default_factory=dict)
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


def engine_templates() -> Path:
    """The engine's own templates folder (beside cit/), which a study may share."""
    return Path(__file__).resolve().parent.parent / "templates"


def folder_of(root: Path, site: SiteConfig, key: str) -> Path | None:
    """The folder site.yaml's `key` (templates, static) names, resolved: inside the
    project, or (for templates only) the engine's own templates; anything else, an
    absolute path included, is a BuildError at its line (the read boundary is the
    project, whatever site.yaml says: docs/output.md)."""
    given = site.templates if key == "templates" else site.static
    if given is None:
        return None
    where, base = site.where.get(key, NAME), Path(root).resolve()
    if Path(given).is_absolute():
        raise BuildError(where, f"{key}: {given} is an absolute path; name a folder of "
                         "the project, relative to site.yaml")
    folder = (base / given).resolve()
    if folder == base or base in folder.parents:
        return folder
    if key == "templates" and folder == engine_templates():
        return folder
    raise BuildError(where, f"{key}: {given} leads to {folder}, outside the project; the "
                     "build reads only the project's own files"
                     + (" (and the engine's templates)" if key == "templates" else ""))


def reads_for(root: Path, site: SiteConfig) -> Reads:
    """The Reads of a build of `root`: the project, plus the engine's templates folder
    itself (not its parent) when site.yaml names them."""
    templates = folder_of(root, site, "templates")
    base = Path(root).resolve()
    if templates == base or base in templates.parents:
        return Reads(root)
    return Reads(root, templates.parent, only=(base, templates))


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
    seqs = {k: items[k].value if k in items else [] for k in ("blocks", "unpickle")}
    blocks = tuple(_entry(v, n, name) for v, n in zip(data.get("blocks", []), seqs["blocks"]))
    for prefix, n in zip(data.get("unpickle", []), seqs["unpickle"]):
        _unpickle_prefix(prefix, _line(name, n))
    _bibliography_place(data.get("bibliography"), where("bibliography"))
    repo = data.get("repository")
    if repo is not None:
        check_fields(repo, REPOSITORY_RULES, key_places(name, items["repository"]), "repository")
        repo = (repo["url"].rstrip("/"), repo["branch"])
    return SiteConfig(data["title"], data["base_url"], nav, scripts, cards, stages, blocks,
                      tuple(data.get("unpickle", [])), tuple(data.get("tested", [])),
                      {k: where(k) for k in data} | _item_places(items, name),
                      data.get("templates", "templates"),
                      data.get("static"),
                      data.get("share_figure"), tuple(data.get("yaml_name_keys", [])),
                      data.get("sentences") or {}, tuple(data.get("pinned", [])),
                      data.get("bibliography"), repo)


def _bibliography_place(given: str | None, where: str) -> None:
    """The bibliography lies inside the project (relative, no `..`: a link that leads
    out is refused when it is read, cit/reads.py) and in content/, where the sentence
    check reads its notes."""
    if given is None:
        return
    path = Path(given)
    if path.is_absolute() or ".." in path.parts:
        raise BuildError(where, f"bibliography: {given} leads outside the project; name a "
                         "file of the project, relative to site.yaml")
    if path.parts[0] != "content":
        raise BuildError(where, f"bibliography: {given} is not in content/, where the "
                         "sentence check reads its notes")


def _item_places(items: dict, name: str) -> dict[str, str]:
    """`where` entries of each nav item ("nav /url/") and each layout's scripts
    ("layouts page"), for the checks made once the pages and static files are known."""
    places = {f"nav {v.value}": _line(name, v) for item in items["nav"].value
              for k, v in item.value if k.value == "url"}
    for k, spec in items["layouts"].value:
        places[f"layouts {k.value}"] = key_places(name, spec)("scripts")
    return places


def _line(name: str, node) -> str:
    return f"{name}:{node.start_mark.line + 1}"


def _nav(items: list, node, name: str):
    for item, n in zip(items, node.value):
        place = key_places(name, n)
        check_fields(item, NAV_RULES, place, "nav item")
        if item["url"] != "decks" and not re.fullmatch(r"/([a-z0-9-]+/)?", item["url"]):
            raise BuildError(place("url"), f"nav: {item['url']!r} is not a page's address "
                             "(/, /name/ for content/pages/name.md, or decks)")
        yield item["url"], item["label"]


def _layouts(data: dict, node, name: str):
    scripts, cards = {}, set()
    lines = {k.value: v for k, v in node.value}
    for layout, spec in data.items():
        if layout not in LAYOUTS:
            raise BuildError(_line(name, lines[layout]), f"layouts: unknown layout "
                             f"{layout!r} (the engine has {', '.join(LAYOUTS)})")
        place = key_places(name, lines[layout])
        check_fields(spec, LAYOUT_RULES, place, f"layout {layout}")
        scripts[layout] = tuple(spec.get("scripts", ()))
        odd = next((s for s in scripts[layout] if not re.fullmatch(r"[\w.-]+\.js", s)
                    or s.startswith(".")), None)
        if odd is not None:
            raise BuildError(place("scripts"), f"layouts: {layout}: {odd!r} is not the name "
                             "of a script in static/ (a file name ending .js)")
        if spec.get("findings_cards"):
            cards.add(layout)
    missing = [layout for layout in LAYOUTS if layout not in scripts]
    if missing:      # a layout left out loaded none of its scripts, without a word (N9)
        raise BuildError(_line(name, node), f"layouts: no entry for {', '.join(missing)} "
                         f"(give each of {', '.join(LAYOUTS)}, `{{scripts: []}}` for none)")
    return scripts, frozenset(cards)


def _stages(items: list, node, name: str):
    for item, n in zip(items, node.value):
        place = key_places(name, n)
        check_fields(item, STAGE_RULES, place, "stage")
        yield Stage(item["name"], Entry(item["run"], place("run")))


def _unpickle_prefix(prefix: str, where: str) -> None:
    """An `unpickle` entry: a dotted module name of the study's own, never blank, the
    standard library's or a builtin (docs/faults.md, N5: an empty prefix let the cache
    unpickler import any module a cache names)."""
    if not re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", prefix):
        raise BuildError(where, f"unpickle: {prefix!r} is not a module name (a dotted "
                         "name of the study's own package, such as study.sim)")
    top = prefix.split(".")[0]
    if top in sys.stdlib_module_names or top in sys.builtin_module_names:
        raise BuildError(where, f"unpickle: {prefix!r} is the standard library's; the "
                         "cache may rebuild only the study's own data classes")


def _entry(value, node, name: str) -> Entry:
    if not isinstance(value, str) or not re.fullmatch(ENTRY_RE, value):
        raise BuildError(_line(name, node), f"blocks: {value!r} is not module:function")
    return Entry(value, _line(name, node))
