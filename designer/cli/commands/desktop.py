"""``designer desktop {install,uninstall,status}``: the menu entry, icon and project-file type
for the current user (so a double-click on a ``*.fabric.json`` file opens it here)."""

from __future__ import annotations

import argparse
import json

from designer.core.desktop import install, status, uninstall


def register(sub: argparse._SubParsersAction, name: str) -> None:
    p = sub.add_parser(
        name, help="add the app to the desktop menu and open project files on double-click",
        description="Install (or remove) the desktop entry, the icon and the MIME type of "
        "project files (*.fabric.json) for the current user, under $XDG_DATA_HOME "
        "(~/.local/share) and $XDG_CONFIG_HOME/mimeapps.list. No root needed.")
    p.add_argument("action", choices=("install", "uninstall", "status"),
                   help="install or remove the files, or say whether they are there")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.action == "status":
        st = status()
        if args.json:
            print(json.dumps(st, indent=2))
        else:
            for key, value in st.items():
                print(f"  {key:<22} {value}")
        return 0
    out = install() if args.action == "install" else uninstall()
    if args.json:
        print(json.dumps({"written": [str(p) for p in out.written],
                          "removed": [str(p) for p in out.removed], "ran": out.ran,
                          "skipped": out.skipped}, indent=2))
        return 0
    for line in out.lines():
        print(line)
    if args.action == "install":
        print("Fabric Designer is in the menu; double-clicking a *.fabric.json file opens it.")
    return 0
