"""One module per command. Each has ``register(subparsers, name)`` setting ``run``."""

from __future__ import annotations

from types import ModuleType

from designer.cli.commands import catalog, export, generate, open_window, validate

COMMANDS: dict[str, ModuleType] = {
    "open": open_window,
    "catalog": catalog,
    "validate": validate,
    "generate": generate,
    "export": export,
}
