"""Helpers shared by the commands: loading a project and its catalog, writing output."""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import BaseModel

from designer.core import limits
from designer.core.catalog import Catalog, load_catalog
from designer.core.fileformat import load_project
from designer.core.model import Project
from designer.core.text import NAME_MAX, ascii_float, check_name, shown


def whole_number(text: str) -> int:
    """An argparse type for counts: ASCII digits only (``int`` would also read digits of other
    scripts, such as '٣', and underscores, and build something nobody typed)."""
    if not re.fullmatch(r"[+-]?[0-9]+", text.strip()):
        raise argparse.ArgumentTypeError(f"'{shown(text, 40)}' is not a whole number (digits "
                                         "0-9)")
    return int(text)


def count_arg(low: int, high: int, what: str = "") -> Callable[[str], int]:
    """An argparse type for a whole number between ``low`` and ``high`` (ASCII digits)."""

    def parse(text: str) -> int:
        value = whole_number(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"{value:,} is outside {low:,} to {high:,}" + (f" ({what})" if what else ""))
        return value

    parse.__name__ = "whole number"  # argparse names the type in its messages
    return parse


def number_arg(low: float, high: float, what: str = "", low_open: bool = False
               ) -> Callable[[str], float]:
    """An argparse type for a finite number between ``low`` and ``high`` (above ``low`` when
    ``low_open``), written in ASCII: never inf, nan, 1e308 or digits of other scripts."""

    def parse(text: str) -> float:
        value = ascii_float(text)
        if value is None:
            raise argparse.ArgumentTypeError(f"'{shown(text, 40)}' is not a number")
        if value > high or value < low or (low_open and value == low):
            bound = f"above {low:g}" if low_open else f"from {low:g}"
            raise argparse.ArgumentTypeError(
                f"{value:g} is out of range: {bound} to {high:g}" + (f" ({what})" if what else ""))
        return value

    parse.__name__ = "number"
    return parse


def project_name(text: str) -> str:
    """An argparse type for a project name: what a project file accepts, never cut."""
    try:
        check_name(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if not text.strip():
        raise argparse.ArgumentTypeError("the name is empty")
    if len(text) > NAME_MAX:
        raise argparse.ArgumentTypeError(
            f"the name has {len(text):,} characters; at most {NAME_MAX} are kept in a project"
        )
    return text


def add_command(
    sub: argparse._SubParsersAction,
    name: str,
    run: Callable[[argparse.Namespace], int],
    *,
    help: str,
    description: str,
    file: bool = True,
    json: bool = True,
) -> argparse.ArgumentParser:
    """A command's parser with what most commands take: a project ``file`` (when ``file``),
    ``--json`` (when ``json``) and ``--catalog``; the command adds its own options."""
    p = sub.add_parser(name, help=help, description=description)
    if file:
        p.add_argument("file", help="project file (*.fabric.json)")
    if json:
        p.add_argument("--json", action="store_true", help="print JSON")
    add_catalog_option(p)
    p.set_defaults(run=run)
    return p


def add_catalog_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--catalog",
        metavar="FILE",
        type=Path,
        help="a user catalog file to add (default: $FABRIC_DESIGNER_CATALOG or "
        "~/.config/fabric-designer/catalog.json when present)",
    )


def catalog_from(args: argparse.Namespace) -> Catalog:
    return load_catalog(getattr(args, "catalog", None))


def load(args: argparse.Namespace, path: str | Path) -> tuple[Project, Catalog]:
    """The project at ``path`` and the catalog it resolves against (with its overrides)."""
    base = catalog_from(args)
    project = load_project(path, base)
    return project, project.catalog(base)


def stderr_progress(quiet: bool) -> Callable[[float, str], None]:
    """A progress callback for long checks: one line on stderr per step, with the seconds
    since it was made (nothing when ``quiet``)."""
    t0 = time.perf_counter()

    def progress(fraction: float, message: str) -> None:
        if not quiet:
            print(f"[{time.perf_counter() - t0:6.2f} s] {message}", file=sys.stderr, flush=True)

    return progress


def finite_json(data: object) -> object:
    """``data`` with every infinite or NaN number as null: JSON has no such numbers, and a
    reader given ``Infinity`` fails (a switch without uplinks has an infinite ratio)."""
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, dict):
        return {k: finite_json(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [finite_json(v) for v in data]
    return data


def print_json(data: object) -> None:
    """Strict JSON on standard output, whatever the numbers."""
    # one write: json.dump writes every token on its own, and each write to the shown
    # stream runs its escape pass (280,000 of them for a cluster replay's report)
    sys.stdout.write(json.dumps(finite_json(data), indent=2, sort_keys=False, default=str,
                                allow_nan=False) + "\n")


def print_sources(args: argparse.Namespace, items: Sequence[BaseModel], none: str,
                  line: Callable[[BaseModel], str]) -> int:
    """List what a project carries beside the catalog (price books, measurements): JSON
    with ``--json``, else ``line`` of each, or ``none`` when there is nothing."""
    if args.json:
        print_json([x.model_dump(mode="json") for x in items])
        return 0
    if not items:
        print(none)
    for x in items:
        print(line(x))
    return 0


def finite_number(text: str) -> float:
    """An argparse type for a number the core then bounds (its message names the field):
    ASCII, finite; never inf, nan or digits of other scripts."""
    value = ascii_float(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"'{shown(text, 40)}' is not a finite number")
    return value


finite_number.__name__ = "number"

# Options several commands share, bounded by what the domain allows (core/limits.py). Money
# and time are bounded by the core's Economics, which names the field.
GPU_HOUR = RUN_DAYS = YEARS = finite_number
# where the money defaults come from (core/analysis/constants.py ECONOMICS_DEFAULTS)
GPU_HOUR_HELP = ("cost of a GPU-hour, $ (default: the project's, else 2: the H800 rental price "
                 "DeepSeek-V3 costs its training at, arXiv 2412.19437 section 1)")
RUN_DAYS_HELP = ("days of the run the fabric's slowdown is charged over (default: the "
                 "project's, else 30, an assumption)")
YEARS_HELP = "years of the TCO (default: the project's, else 3, an assumption)"
FLOWS_PER_PAIR = count_arg(1, limits.MAX_FLOWS_PER_PAIR, "queue pairs per connection")
TRIALS = count_arg(1, limits.MAX_TRIALS, "trials")
SEED = count_arg(0, limits.MAX_SEED, "a seed")


def kept_existing(out: Path, force: bool, command: str) -> bool:
    """Whether ``out`` is there (a dangling link too) and must be kept: says so on stderr.
    Every writer of a new project file asks this one question the same way."""
    import os

    if force or not os.path.lexists(out):
        return False
    print(f"designer {command}: {out} exists; use --force to overwrite", file=sys.stderr)
    return True
