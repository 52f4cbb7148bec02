"""The command-line reference pages are generated from the parsers ``designer`` runs with, so
every command, subcommand and option of the real parser is on its page."""

from __future__ import annotations

import argparse
import importlib.util

import pytest

from designer.cli.commands import COMMANDS
from designer.cli.main import build_parser
from tests._paths import ROOT


def _hook():
    path = ROOT / "docs" / "hooks" / "cli_reference.py"
    spec = importlib.util.spec_from_file_location("cli_reference", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


HOOK = _hook()


def _walk(parser: argparse.ArgumentParser):
    """Every parser below ``parser`` (itself included) with its options."""
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                yield from _walk(child)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_page_has_every_option_of_the_parser(name: str) -> None:
    page = HOOK.command_page(name)
    top = build_parser(name)
    sub = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    for parser in _walk(sub.choices[name]):
        if parser.prog != f"designer {name}":
            assert f"## {parser.prog}" in page or f"### {parser.prog}" in page, parser.prog
        for action in parser._actions:
            if action.help == argparse.SUPPRESS or isinstance(action, argparse._HelpAction):
                continue
            for option in action.option_strings:
                assert f"`{option}" in page, (name, parser.prog, option)


def test_index_links_every_command() -> None:
    index = HOOK.index_page()
    for name in COMMANDS:
        assert f"]({name}.md)" in index
