"""The commands of ``designer``: one module per command, imported only when that command runs.

``COMMANDS`` maps a command's name to its module and the one line ``designer --help`` shows, so
listing the commands imports none of them (``designer --help`` stays fast, and the subnet-manager
check, the solver and Qt are loaded only by the commands that use them). A command module has
``register(subparsers, name)``, which adds its parser and sets ``run``.

To add a command: one line ``"name": ("module", "one-line help")``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

COMMANDS: dict[str, tuple[str, str]] = {
    "open": ("open_window", "open the window (the default without a command)"),
    "catalog": ("catalog", "list gear and gear profiles"),
    "validate": ("validate", "check a project file and list its problems"),
    "solve": (
        "solve",
        "analyse a design: bisection, oversubscription, hops, latency, BOM, power",
    ),
    "generate": ("generate", "generate a fabric into a project file"),
    "export": ("export", "export a design (BOM, cabling plan, diagrams, ...)"),
    "import": (
        "import_fabric",
        "build a project from another tool's output (an as-built fabric)",
    ),
    "diff": ("diff", "compare a plan with the as-built fabric, cable by cable"),
    "check-ib": (
        "check_ib",
        "check an InfiniBand design on the real subnet manager (OpenSM over ibsim)",
    ),
}


def load_command(name: str) -> ModuleType:
    """The module of command ``name`` (imported on first use)."""
    return importlib.import_module(f"{__name__}.{COMMANDS[name][0]}")
