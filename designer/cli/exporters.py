"""Registers every export format with ``designer export``. One line per format module."""

from __future__ import annotations

import designer.cli.export_formats
import designer.cli.export_ibnetdiscover
import designer.cli.export_infragraph
import designer.cli.export_lldp
import designer.cli.export_physical
import designer.cli.export_simulators
import designer.cli.export_switch_configs  # noqa: F401
