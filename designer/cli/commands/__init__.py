"""One module per command. Each has ``register(subparsers, name)`` setting ``run``."""

from __future__ import annotations

from types import ModuleType

from designer.cli.commands import (
    catalog,
    check_ib,
    check_roce,
    diff,
    export,
    generate,
    import_fabric,
    open_window,
    solve,
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
    "check-roce": check_roce,
}
