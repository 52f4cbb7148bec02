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
    "estimate": (
        "estimate",
        "estimate collectives, step time, money lost, TCO and a recommendation",
    ),
    "compare": ("compare", "compare 2 to 6 designs (files, or one design under other profiles)"),
    "load": ("load", "traffic under load: a pattern routed as the fabric routes it, max-min rates"),
    "whatif": (
        "whatif",
        "failure what-if: bisection retained, oversubscription, stranded GPUs, slowdown",
    ),
    "cluster": (
        "cluster",
        "replay a trace of jobs on the design: placement, interference, failures, goodput",
    ),
    "sweep": ("sweep", "explore a design space: many designs, a Pareto front, on Dask"),
    "floor": ("floor", "floor plan: racks, fill and power, real cable lengths per layer"),
    "prices": ("prices", "import, list or remove a project's price books (quotes)"),
    "bom-lines": ("bom_lines", "switch the BOM's optional sections (spares, power, racks) and "
                  "set the spares policy"),
    "latency": ("latency", "set, import, list or clear a project's measured latencies"),
    "acceptance": (
        "acceptance",
        "acceptance tests for the built cluster with predicted bands; 'check' reads results",
    ),
    "check-ib": (
        "check_ib",
        "check an InfiniBand design on the real subnet manager (OpenSM over ibsim)",
    ),
    "check-roce": (
        "check_roce",
        "check a RoCE design as a routed fabric: FRR in network namespaces, BGP and ECMP",
    ),
    "simulate": (
        "simulate",
        "set a packet simulator's results (htsim) beside the tool's prediction",
    ),
    "desktop": ("desktop", "add the app to the desktop menu; double-click opens project files"),
    "examples": ("examples", "list the bundled example projects, or copy one into a folder"),
}


def load_command(name: str) -> ModuleType:
    """The module of command ``name`` (imported on first use)."""
    return importlib.import_module(f"{__name__}.{COMMANDS[name][0]}")
