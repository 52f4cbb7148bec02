"""Inputs for packet- and system-level simulators: htsim's fat-tree topology and connection
matrices, ASTRA-sim's network and system configuration."""

from typing import TYPE_CHECKING

from designer.core.faces import lazy_names

# Loaded on first use (designer.core.faces): importing the package, or any module of it,
# stays as cheap as before.
_WHERE = {
    "write_astrasim": "astrasim",
    "DEFAULT_PATTERNS": "htsim",
    "PATTERNS": "htsim",
    "Row": "htsim_check",
    "check": "htsim_check",
    "has_output": "htsim_check",
    "table": "htsim_check",
    "write_htsim": "htsim_export",
    "SimulatorInputError": "tiers",
}
__getattr__ = lazy_names(__name__, globals(), _WHERE)

if TYPE_CHECKING:
    from designer.core.simulate.astrasim import write_astrasim
    from designer.core.simulate.htsim import DEFAULT_PATTERNS, PATTERNS
    from designer.core.simulate.htsim_check import Row, check, has_output, table
    from designer.core.simulate.htsim_export import write_htsim
    from designer.core.simulate.tiers import SimulatorInputError

__all__ = [
    "DEFAULT_PATTERNS",
    "PATTERNS",
    "Row",
    "SimulatorInputError",
    "check",
    "has_output",
    "table",
    "write_astrasim",
    "write_htsim",
]
