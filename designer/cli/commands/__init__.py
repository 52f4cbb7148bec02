"""One module per command. Each has ``register(subparsers, name)`` setting ``run``."""

from __future__ import annotations

from types import ModuleType

from designer.cli.commands import (
    catalog,
    check_ib,
    compare,
    diff,
    estimate,
    export,
    floor,
    generate,
    import_fabric,
    latency,
    open_window,
    prices,
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
    "estimate": estimate,
    "compare": compare,
    "check-ib": check_ib,
    "floor": floor,
    "prices": prices,
    "latency": latency,
}
