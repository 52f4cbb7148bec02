"""MkDocs hook: the command-line reference, written at build time from designer's own parsers.

Each command gets a page ``cli/<command>.md`` built from ``designer.cli.main.build_parser``
(the parser the command really runs with), so the reference cannot drift from ``--help``.
The nav entry titled "Command line" receives the overview page and one page per command.
"""

from __future__ import annotations

import argparse
import contextlib
import html
import os
from typing import Any

from designer.cli.commands import COMMANDS
from designer.cli.main import build_parser

# usage lines wrap at the terminal's width: the same width on every machine
os.environ["COLUMNS"] = "76"

NAV_TITLE = "Command line"
INDEX = "cli/index.md"


def _page_of(name: str) -> str:
    return f"cli/{name}.md"


def _help_text(action: argparse.Action, prog: str) -> str:
    """The option's help as ``--help`` prints it (``%(default)s`` and friends expanded)."""
    text = action.help or ""
    if "%" in text:
        params = {k: v for k, v in vars(action).items() if v is not argparse.SUPPRESS}
        params["prog"] = prog
        for key in ("choices",):
            if params.get(key) is not None:
                params[key] = ", ".join(map(str, params[key]))
        with contextlib.suppress(KeyError, TypeError, ValueError):
            text = text % params
    return text


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return html.escape(" ".join(text.split()), quote=False).replace("|", "\\|")


def _names(action: argparse.Action) -> str:
    if action.option_strings:
        meta = ""
        if action.nargs != 0:
            meta = action.metavar or (action.dest.upper() if not action.choices else "")
            if isinstance(meta, tuple):
                meta = " ".join(meta)
            if action.choices and not action.metavar:
                meta = "{" + ",".join(map(str, action.choices)) + "}"
            meta = f" {meta}" if meta else ""
        return ", ".join(f"`{o}{meta}`" for o in action.option_strings)
    meta = action.metavar or action.dest
    if isinstance(meta, tuple):
        meta = " ".join(meta)
    return f"`{meta}`"


def _subparsers(parser: argparse.ArgumentParser) -> argparse._SubParsersAction | None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action
    return None


def _usage(parser: argparse.ArgumentParser) -> str:
    """The usage lines without argparse's "usage: " (continuation lines moved left with it)."""
    lines = parser.format_usage().rstrip().splitlines()
    head = lines[0].removeprefix("usage: ")
    return "\n".join([head, *(line[len("usage: "):] for line in lines[1:])])


def _render(parser: argparse.ArgumentParser, level: int) -> list[str]:
    out: list[str] = []
    out += ["```text", _usage(parser), "```", ""]
    if parser.description:
        out += [parser.description.strip(), ""]
    subs = _subparsers(parser)
    rows_pos, rows_opt = [], []
    for action in parser._actions:
        if action.help == argparse.SUPPRESS or isinstance(action, argparse._HelpAction):
            continue
        if action is subs:
            continue
        row = f"| {_names(action)} | {_cell(_help_text(action, parser.prog))} |"
        (rows_opt if action.option_strings else rows_pos).append(row)
    if rows_pos:
        out += ["**Arguments**", "", "| argument | meaning |", "|---|---|",
                *rows_pos, ""]
    if rows_opt:
        out += ["**Options**", "", "| option | meaning |", "|---|---|",
                *rows_opt, ""]
    if subs is not None:
        helps = {a.dest: a.help or "" for a in subs._choices_actions}
        for name, child in subs.choices.items():
            out += [f"{'#' * level} {child.prog}", ""]
            if helps.get(name):
                out += [helps[name][0].upper() + helps[name][1:] + ".", ""]
            out += _render(child, level + 1)
    if parser.epilog:
        out += [parser.epilog.strip(), ""]
    return out


def command_page(name: str) -> str:
    """The Markdown page of one command."""
    top = build_parser(name)
    sub = _subparsers(top)
    assert sub is not None
    parser = sub.choices[name]
    summary = COMMANDS[name][1]
    lines = [f"# designer {name}", "", summary[0].upper() + summary[1:] + ".", ""]
    lines += _render(parser, 2)
    lines += ["Exit status: 0 success, 1 a check found differences or problems, 2 invalid input "
              "(one line on stderr), 70 an internal error. This page is generated from the "
              "command's own parser: it says what `designer " + name + " --help` says.", ""]
    return "\n".join(lines)


def index_page() -> str:
    top = build_parser()
    lines = ["# Command line", "", top.description or "", "",
             "```text", _usage(top), "```", "",
             "| command | what it does |", "|---|---|"]
    for name, (_module, help_line) in COMMANDS.items():
        lines.append(f"| [`designer {name}`]({name}.md) | {_cell(help_line)} |")
    lines += ["", "`designer --version` prints the version. Exit status of every command: 0 "
              "success, 1 a check found differences or problems, 2 invalid input (a one-line "
              "message, no traceback), 70 an internal error (one line; `DESIGNER_DEBUG=1` prints "
              "the traceback).", ""]
    return "\n".join(lines)


def _fill_nav(entries: list[Any]) -> None:
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        for title, value in entry.items():
            if title == NAV_TITLE:
                pages = [{"Overview": INDEX}]
                pages += [{f"designer {name}": _page_of(name)} for name in COMMANDS]
                entry[title] = pages
            elif isinstance(value, list):
                _fill_nav(value)


def on_config(config: Any) -> Any:
    """Fill the nav's "Command line" entry (at any depth) with the overview and one page per
    command."""
    _fill_nav(config["nav"] or [])
    return config


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File  # only at build time: the tests import this module

    files.append(File.generated(config, INDEX, content=index_page()))
    for name in COMMANDS:
        files.append(File.generated(config, _page_of(name), content=command_page(name)))
    return files
