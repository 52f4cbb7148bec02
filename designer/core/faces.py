"""Public faces of the core's packages: names a package re-exports, loaded on first use.

A package's ``__init__`` names what the window and the command line may import (its
``__all__``). Re-exporting by importing every module up front would make any import of the
package (or of one of its modules: Python runs the package's ``__init__`` first) pay for all
of them, and ``designer solve`` starts in a fraction of a second. So a package lists where each
name lives and resolves it on first access (PEP 562); an ``if TYPE_CHECKING:`` block names the
same imports for type checkers and the import-graph test.

    _WHERE = {"run_load": "load", "WhatIf": "failures"}
    __getattr__ = lazy_names(__name__, globals(), _WHERE)
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, MutableMapping
from typing import Any


def lazy_names(package: str, namespace: MutableMapping[str, Any],
               where: dict[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: ``name`` is imported from the module
    ``package.where[name]`` when first asked for and kept in ``namespace`` (the package's
    globals), so the next access is an ordinary attribute."""

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    return __getattr__
