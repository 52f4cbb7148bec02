"""One module per command. Each has ``register(subparsers, name)`` setting ``run``."""

from __future__ import annotations

from types import ModuleType

from designer.cli.commands import (
    catalog,
    check_ib,
    diff,
    export,
    generate,
    import_fabric,
    open_window,
    solve,
    sweep,
    validate,
)

COMMANDS: dict[str, ModuleType] = {
    "open": open_window,
    "catalog": catalog,
    "validate": validate,
    "solve": solve,
    "generate": generate,
    "export": export,
    "import": import_fabric,
    "diff": diff,
    "check-ib": check_ib,
    "sweep": sweep,
}
