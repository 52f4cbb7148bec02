"""``designer prices import|list|remove``: a project's price books (supplier quotes).

A price book overrides the catalog's estimates for the parts it names, for this project; the
BOM says which price came from which book. ``--price-book FILE`` on ``solve`` and ``export``
applies a book for one run without saving it.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from designer.cli.commands._common import (
    add_catalog_option,
    catalog_from,
    print_sources,
    project_name,
)
from designer.core.fileformat import load_project, save_project
from designer.core.sources import SourcesError
from designer.core.text import shown

# The quote readers (csv, xlsx, currencies) and the project edits load when a price book is
# read or changed: ``solve`` and ``export`` take the --price-book option from here, and
# loading them at every start cost those commands' start-up.


def register(sub: argparse._SubParsersAction, name: str) -> None:
    p = sub.add_parser(name, help="import, list or remove a project's price books (quotes)",
                       description="Price books: a supplier's quote (CSV or xlsx with part "
                       "id, unit price and optional currency and date columns) that "
                       "overrides the catalog's estimated prices for one project. Optional "
                       "columns: supplier SKU and lead time (shown in the BOM). A part id is "
                       "a catalog id or the manufacturer's part number the catalog gives "
                       "(MQM9700-NS2F).")
    acts = p.add_subparsers(dest="action", metavar="ACTION", required=True,
                            parser_class=type(p))
    imp = acts.add_parser("import", help="import a quote into the project (saved in it)")
    imp.add_argument("file", help="project file (*.fabric.json)")
    imp.add_argument("book", type=Path, help="the quote: .csv or .xlsx")
    imp.add_argument("--name", type=project_name,
                     help="the book's name (default: the file's name)")
    imp.add_argument("--currency", help="the prices' currency when the file has no column")
    imp.add_argument("--usd-rate", type=usd_rate_arg, metavar="R",
                     help="US dollars per unit of the book's currency (needed unless USD)")
    imp.add_argument("--decimal", choices=(".", ","),
                     help="the quote's decimal mark, when its numbers do not show it "
                     "(31.500 is 31,500 with a decimal comma)")
    imp.add_argument("--preview", action="store_true",
                     help="show what the quote would apply, price by price, and save nothing")
    imp.add_argument("--date", help="the quote's date, YYYY-MM-DD (default: the file's)")
    imp.add_argument("-o", "--output", help="write the project here (default: in place)")
    add_catalog_option(imp)
    imp.set_defaults(run=run_import)
    ls = acts.add_parser("list", help="list the project's price books")
    ls.add_argument("file", help="project file (*.fabric.json)")
    ls.add_argument("--json", action="store_true", help="print JSON")
    add_catalog_option(ls)
    ls.set_defaults(run=run_list)
    rm = acts.add_parser("remove", help="remove a price book from the project")
    rm.add_argument("file", help="project file (*.fabric.json)")
    rm.add_argument("name", help="the book's name")
    rm.add_argument("-o", "--output", help="write the project here (default: in place)")
    add_catalog_option(rm)
    rm.set_defaults(run=run_remove)


def run_import(args: argparse.Namespace) -> int:
    from designer.core.sources import read_price_book, with_price_book

    base = catalog_from(args)
    project = load_project(args.file, base)
    got = read_price_book(args.book, project.catalog(base), name=args.name,
                          currency=args.currency, usd_per_unit=args.usd_rate, date=args.date,
                          decimal=args.decimal)
    for line in got.preview():
        print(line)
    if args.preview:
        print("nothing saved (--preview)")
        return 0
    project = with_price_book(project, got.book, base)
    save_project(project, args.output or args.file)
    b = got.book
    print(f"imported {shown(b.label)}: {len(b.prices):,} prices into "
          f"{shown(str(args.output or args.file))}")
    return 0


def run_list(args: argparse.Namespace) -> int:
    project = load_project(args.file, catalog_from(args))
    return print_sources(args, project.sources.price_books,
                         "no price books: prices are the catalog's estimates", _describe)


def _describe(b) -> str:
    # Names and sources come from files: shown with their control characters escaped.
    return (f"{shown(b.name)}: {len(b.prices):,} prices, {b.currency}"
            + (f" at {b.usd_per_unit:g} USD" if b.currency != "USD" else "")
            + (f", dated {b.date}" if b.date else "")
            + (f", from {shown(b.source)}" if b.source else ""))


def run_remove(args: argparse.Namespace) -> int:
    from designer.core.sources import without_price_book

    project = load_project(args.file, catalog_from(args))
    project = without_price_book(project, args.name)
    save_project(project, args.output or args.file)
    print(f"removed price book '{shown(args.name)}'")
    return 0


def usd_rate_arg(text: str) -> float:
    """``--usd-rate``: a finite positive number any currency could have."""
    from designer.core.sources import usd_rate

    try:
        value = float(text) if re.fullmatch(r"\s*[0-9]*\.?[0-9]+(e[+-]?[0-9]+)?\s*", text,
                                            re.IGNORECASE) else None
        if value is None:
            raise argparse.ArgumentTypeError(f"'{shown(text, 40)}' is not a number")
        return usd_rate(value)
    except SourcesError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_price_book_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--price-book", action="append", type=Path, metavar="BOOK",
                   help="apply a quote (.csv or .xlsx) for this run only, without saving it "
                   "(repeatable; later books win)")


def apply_price_books(project, args: argparse.Namespace):
    """``project`` with the ``--price-book`` files of this run, and its resolved catalog."""
    from designer.core.sources import read_price_book, with_price_book

    base = catalog_from(args)
    for path in getattr(args, "price_book", None) or ():
        got = read_price_book(path, project.catalog(base))
        project = with_price_book(project, got.book, base)
    return project, project.catalog(base)
