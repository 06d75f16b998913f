"""Every YAML file the build reads goes through here: libyaml's C parser when it is there
(several times faster than the pure-Python one, which mattered for build time), the
safe schema either way, and no duplicate keys.

A key given twice in one mapping is an error naming the file, the key and both lines;
PyYAML would otherwise keep the last value without a word. The check is a constructor
for mappings registered on the loader (its own hook), so it sees every mapping at every
depth, with the parser's line marks.

Before any of that, the text is bounded (docs/faults.md, N1): a file over `MAX_BYTES`, a
collection nested deeper than `MAX_DEPTH`, or any anchor or alias (`&a`, `*a`, `<<: *a`)
is refused at its line. An alias lets nine short lines stand for a hundred million
nodes (a "billion laughs"), which any walk over the data then visits; none of our YAML
needs one. The check reads libyaml's event stream, which is flat (no recursion, so a
deep document cannot overflow the stack as composing it does) and stops at the first
problem, so a hostile file costs a few milliseconds.
"""

import yaml

from .errors import BuildError

BASE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
MERGE_TAG = "tag:yaml.org,2002:merge"
MAX_BYTES = 1_000_000     # the largest YAML file read (data/sentences.yaml) is 54 KB
MAX_DEPTH = 32            # collections inside collections; ours go 6 deep
_OPENS = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
_CLOSES = (yaml.SequenceEndEvent, yaml.MappingEndEvent)


def bounded(text: str, name: str = "YAML text", first_line: int = 1) -> None:
    """Refuse `text` (the file `name`) when it is over MAX_BYTES, nests deeper than
    MAX_DEPTH or holds an anchor or alias: BuildError at the line. Bad YAML is left for
    the parse that follows to report."""
    def at(mark) -> str:
        return f"{name}:{first_line + mark.line}"
    if len(text) > MAX_BYTES:
        line = text.count("\n", 0, MAX_BYTES) + first_line
        raise BuildError(f"{name}:{line}", f"over {MAX_BYTES:,} characters, the most a "
                         "YAML file may hold (docs/faults.md); split it or shorten it")
    depth = 0
    try:
        for event in yaml.parse(text, Loader=BASE_LOADER):
            if isinstance(event, yaml.AliasEvent):
                raise BuildError(at(event.start_mark), f"a YAML alias (*{event.anchor}): "
                                 "aliases and anchors are refused (docs/faults.md); write "
                                 "the value out")
            if getattr(event, "anchor", None) is not None:
                raise BuildError(at(event.start_mark), f"a YAML anchor (&{event.anchor}): "
                                 "aliases and anchors are refused (docs/faults.md); write "
                                 "the value out")
            depth += isinstance(event, _OPENS) - isinstance(event, _CLOSES)
            if depth > MAX_DEPTH:
                raise BuildError(at(event.start_mark), f"nested more than {MAX_DEPTH} "
                                 "collections deep, the most a YAML file may be")
    except yaml.YAMLError:
        return


class UniqueKeyLoader(BASE_LOADER):
    """The safe loader, refusing a mapping that names a key twice. `cit_name` and
    `cit_first_line` (set per load) say how errors name the file and its first line."""
    cit_name = "YAML text"
    cit_first_line = 1


def _reject_duplicates(loader: UniqueKeyLoader, node: yaml.MappingNode) -> None:
    seen: dict[object, int] = {}
    for key_node, _ in node.value:
        if key_node.tag == MERGE_TAG:
            continue
        key = loader.construct_object(key_node, deep=True)
        line = loader.cit_first_line + key_node.start_mark.line
        try:
            first = seen.get(key)
        except TypeError:        # an unhashable key: the constructor reports it
            continue
        if first is not None:
            raise BuildError(f"{loader.cit_name}:{line}", f"duplicate key {key!r}: first "
                             f"given at line {first}, again at line {line}")
        seen[key] = line


def _construct_unique_map(loader: UniqueKeyLoader, node: yaml.MappingNode):
    data: dict = {}
    yield data
    _reject_duplicates(loader, node)
    data.update(loader.construct_mapping(node))


UniqueKeyLoader.add_constructor("tag:yaml.org,2002:map", _construct_unique_map)


def load(text: str, name: str = "YAML text", first_line: int = 1):
    """Parse `text` (the file `name`, whose first line is `first_line` of that file:
    front matter starts on line 2). Bad YAML raises yaml.YAMLError as PyYAML does; a
    duplicate key, or a text `bounded` refuses, raises BuildError("name:line", ...)."""
    bounded(text, name, first_line)
    loader = UniqueKeyLoader(text)
    loader.cit_name, loader.cit_first_line = name, first_line
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def compose(text: str, name: str = "YAML text", first_line: int = 1):
    """The node tree, whose marks give line numbers for error messages (the text
    `bounded` first)."""
    bounded(text, name, first_line)
    return yaml.compose(text, Loader=BASE_LOADER)


def mapping_value(node, key: str):
    """The node under `key` of a mapping node, or None (also when `node` is no mapping)."""
    if not isinstance(node, yaml.MappingNode):
        return None
    return next((v for k, v in node.value if k.value == key), None)


def load_with_nodes(text: str, name: str):
    """(the data, its node tree) of the file `name`, whose nodes give each key's line
    for the checks that follow; bad YAML is a BuildError naming the file and line."""
    try:
        return load(text, name), compose(text, name)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        raise BuildError(f"{name}:{mark.line + 1}" if mark else name,
                         f"not valid YAML: {getattr(e, 'problem', e)}") from None


def entries(text: str, name: str) -> list[tuple[int, object]]:
    """A file of one key, `entries`, holding a list (the naked-number allow-list, the
    sentence exemptions): each entry with its file line. Bad YAML or another shape is a
    BuildError naming the file's first line."""
    try:
        node = compose(text, name)
        data = load(text, name)
    except yaml.YAMLError as e:
        raise BuildError(f"{name}:1", f"not valid YAML: {e}") from None
    if not isinstance(data, dict) or set(data) != {"entries"} or not isinstance(data["entries"], list):
        raise BuildError(f"{name}:1", "expected one key, `entries`, holding a list")
    seq = [v for k, v in node.value if k.value == "entries"][0]
    return [(seq.value[i].start_mark.line + 1, raw) for i, raw in enumerate(data["entries"])]
