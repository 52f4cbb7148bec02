"""``designer [FILE]``: open the window."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction, name: str) -> None:
    p = sub.add_parser(
        name,
        help="open the window (the default without a command)",
        description="Open the Fabric Designer window, on FILE when given.",
    )
    p.add_argument("file", nargs="?", help="a project file (*.fabric.json) to open")
    p.add_argument("--screenshot", metavar="PNG",
                   help="save a picture of the window once FILE is open and analysed, then "
                   "quit (works offscreen: QT_QPA_PLATFORM=offscreen)")
    p.set_defaults(run=run)


# What the window needs from the core at its start, imported before Qt: once PySide6 is
# loaded, every later import is read by its import hook (the module's source searched for Qt's
# feature switches), which for the few hundred modules of numpy, scipy and the core costs
# more CPU than the imports themselves.
BEFORE_QT = ("designer.core.solver", "designer.core.generators", "designer.core.fileformat",
             "designer.core.analysis.comparison")


def run(args: argparse.Namespace) -> int:
    import importlib

    for name in BEFORE_QT:
        importlib.import_module(name)
    from designer.gui.app import run_app  # Qt is imported only when the window is wanted

    return run_app(args.file, screenshot=args.screenshot)
