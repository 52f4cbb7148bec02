"""Entry point of ``designer`` and ``python -m designer``.

``designer`` or ``designer FILE`` opens the window; ``designer COMMAND ...`` runs a headless
command. Commands live in ``designer.cli.commands``, one module each, and register themselves
in ``COMMANDS``. Exit status: 0 success, 1 a check found differences or problems, 2 invalid
input (with a one-line message on stderr, never a traceback), 70 an internal error (a bug: one
line; ``DESIGNER_DEBUG=1`` prints its traceback).
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import traceback
from collections.abc import Sequence

from designer import __version__
from designer.cli.commands import COMMANDS, load_command
from designer.cli.terminal import shown_output
from designer.core.errors import MEMORY_MESSAGE, DesignerError, readable
from designer.core.gcpause import collector_paused

# The models use no pydantic plugins, and looking for them reads the metadata of every
# installed package when the first model is built (about 1% of a command's start-up); a
# user who wants plugins sets PYDANTIC_DISABLE_PLUGINS themselves (an empty value: all on).
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

EXIT_OK, EXIT_FOUND, EXIT_INVALID = 0, 1, 2
# A bug, not the input (sysexits' EX_SOFTWARE): one line, the traceback with DESIGNER_DEBUG=1.
EXIT_INTERNAL = 70


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse exits 2 too; keep its one-line form
        self.print_usage(sys.stderr)
        self.exit(EXIT_INVALID, f"{self.prog}: error: {message}\n")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of ``designer``. With ``only``, the full parser of that one command (its
    module alone is imported); without, every command is listed by its one-line help and no
    command module is imported (``designer --help`` and errors need nothing more)."""
    parser = _Parser(
        prog="designer",
        description=(
            "Fabric Designer: design, generate and analyse the back-end network fabric of GPU "
            "clusters. Without a command it opens the window (on FILE when given)."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Run 'designer COMMAND --help' for the options of a command.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    if only is not None:
        load_command(only).register(sub, only)
        return parser
    for name, (_module, help_line) in COMMANDS.items():
        sub.add_parser(name, help=help_line, add_help=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    with shown_output():  # nothing printed can act on the terminal (see cli/terminal.py)
        return _main(argv)


def _main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if not args_list or (args_list[0] not in COMMANDS and not args_list[0].startswith("-")):
        args_list = ["open", *args_list]
    # importing a command's modules builds thousands of classes, functions and validators
    # that live as long as the process and hold few cycles: no collector passes while they
    # are made, and (as the process's own command) none over them afterwards either; the
    # collector's passes were about 6% of a start-up. Called with ``argv`` (as a library, in
    # tests), the caller's objects are left to the collector.
    with collector_paused():
        parser = build_parser(args_list[0] if args_list[0] in COMMANDS else None)
    if argv is None:
        gc.freeze()
    args = parser.parse_args(args_list)
    try:
        return int(args.run(args) or 0)
    except DesignerError as exc:
        print(f"designer: {exc}", file=sys.stderr)
        return EXIT_INVALID
    except MemoryError:
        print(f"designer: {MEMORY_MESSAGE}", file=sys.stderr)
        return EXIT_INVALID
    except KeyboardInterrupt:
        print("designer: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:
        if os.environ.get("DESIGNER_DEBUG"):
            traceback.print_exc()
        print(f"designer: {readable(exc)} (DESIGNER_DEBUG=1 shows the details)",
              file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
