"""``designer export FORMAT FILE -o OUT``: write a design in a format other tools read.

Each format registers an ``Exporter`` (``designer.cli.exports``); the writer does the work
and returns a one-line summary to print.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from designer.cli.commands._common import add_command, load
from designer.cli.commands.prices import add_price_book_option, apply_price_books
from designer.cli.exports import EXPORTERS


def register(sub: argparse._SubParsersAction, name: str) -> None:
    p = sub.add_parser(name, help="export a design (BOM, cabling plan, diagrams, ...)",
                       description="Export a project file in a format other tools read.")
    formats = p.add_subparsers(dest="format", metavar="FORMAT", required=True,
                               parser_class=type(p))
    for fmt, exp in EXPORTERS.items():
        f = add_command(formats, fmt, run, help=exp.help, description=exp.help, json=False)
        f.add_argument("-o", "--output", required=True, metavar="OUT",
                       help="folder to write into (made when missing)" if exp.suffix == "/"
                       else f"file to write (usually *{exp.suffix})")
        if exp.add_options:
            exp.add_options(f)
        add_price_book_option(f)
        f.set_defaults(exporter=exp)


def run(args: argparse.Namespace) -> int:
    project, cat = load(args, args.file)
    if args.price_book:
        project, cat = apply_price_books(project, args)
    message = args.exporter.write(project, cat, Path(args.output), args)
    print(message)
    return 0
