"""Every format of ``designer export``; importing this package registers them all.

To add a format: a module here that calls ``registry.register_exporter`` at import, and one
line below.
"""

from __future__ import annotations

from designer.cli.exports import (  # noqa: F401  (each registers itself)
    addressing,
    formats,
    ibnetdiscover,
    infragraph,
    lldp,
    physical,
    simulators,
    switch_configs,
)
from designer.cli.exports.registry import EXPORTERS, Exporter, register_exporter

__all__ = ["EXPORTERS", "Exporter", "register_exporter"]
