"""``designer examples [list | copy NAME DIR]``: the bundled example projects, wherever the
package is installed (a checkout, a wheel, pipx)."""

from __future__ import annotations

import argparse
import json

from designer.core.examples import copy_example, examples


def register(sub: argparse._SubParsersAction, name: str) -> None:
    p = sub.add_parser(
        name, help="list the bundled example projects, or copy one into a folder",
        description="The example projects shipped with the app. 'list' (the default) names "
        "each with a line on what it shows and where the file is; 'copy NAME DIR' copies one "
        "into DIR (made if missing) to open and edit: designer DIR/NAME.fabric.json.")
    p.add_argument("action", nargs="?", default="list", choices=("list", "copy"),
                   help="list (default) or copy")
    p.add_argument("name", nargs="?", help="the example to copy (as 'list' names it)")
    p.add_argument("folder", nargs="?", help="the folder to copy it into")
    p.add_argument("--force", action="store_true", help="overwrite a file of the same name")
    p.add_argument("--json", action="store_true", help="print JSON (list)")
    p.set_defaults(run=run, parser=p)


def run(args: argparse.Namespace) -> int:
    if args.action == "copy":
        if not args.name or not args.folder:
            args.parser.error("copy takes NAME and DIR: designer examples copy NAME DIR")
        dest = copy_example(args.name, args.folder, force=args.force)
        print(f"copied {args.name} to {dest}; open it with: designer {dest}")
        return 0
    if args.name:
        args.parser.error("list takes no name (did you mean: designer examples copy NAME DIR?)")
    items = examples()
    if args.json:
        print(json.dumps([{"name": e.name, "description": e.description, "path": str(e.path)}
                          for e in items], indent=2))
        return 0
    width = max((len(e.name) for e in items), default=0)
    for e in items:
        print(f"  {e.name:<{width}}  {e.description}")
    if items:
        print(f"\nin {items[0].path.parent}; copy one to edit: designer examples copy NAME DIR")
    return 0
