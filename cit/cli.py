"""The `cit` command (installed with the engine; docs/tutorial.md walks through it):

    cit build  [OPTIONS]        build the study in the working folder (or --root DIR)
    cit serve  [OPTIONS]        build, serve on 127.0.0.1, rebuild and reload on save
    cit check  [OPTIONS]        every stage and check, nothing written
    cit diff OLD [OPTIONS]      the numbers and claims a change moves, as Markdown
    cit new DIR                 start a study of your own in DIR
    cit vendor lock|fetch ...   pin or fetch the upstream files (cit/vendor.py)

build, serve, check and diff take build.py's options (`python build.py --help`): `cit
serve` is `--serve`, `cit check` is `--check`, `cit diff OLD` is `--diff OLD`. The one
difference is the project built by default: the working folder, where build.py builds
its own checkout. Relative paths are of the working folder, as everywhere.
"""

from __future__ import annotations

import sys
from pathlib import Path

USAGE = __doc__.split("\n\n")[1]
FLAGS = {"build": [], "serve": ["--serve"], "check": ["--check"]}


def main(argv=None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print("usage:\n" + USAGE)
        return 0 if args else 2
    command, rest = args[0], args[1:]
    if command == "new":
        from . import new
        return new.main(["new", *rest], prog="cit")
    if command == "vendor":
        from . import vendor
        return vendor.main(rest, prog="cit vendor", default_root=Path.cwd())
    if command == "diff":
        if not rest or rest[0].startswith("-"):
            print("cit diff: give the revision, site folder or numbers.json to compare "
                  "with: cit diff OLD [OPTIONS]", file=sys.stderr)
            return 2
        flags, rest = ["--diff", rest[0]], rest[1:]
    elif command in FLAGS:
        flags = FLAGS[command]
    else:
        print(f"cit: unknown command {command!r}; the commands are build, serve, check, "
              "diff, new and vendor (cit --help)", file=sys.stderr)
        return 2
    try:
        from .build import main as build_main
    except KeyboardInterrupt:       # Ctrl-C while the code loads: nothing was written
        print("build interrupted: nothing written", file=sys.stderr)
        return 130
    return build_main([*flags, *rest], prog=f"cit {command}", default_root=Path.cwd())


if __name__ == "__main__":
    sys.exit(main())
