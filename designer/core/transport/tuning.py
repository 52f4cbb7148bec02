"""What TCO's one-off tuning line is called: the tuning of the transport the design runs.

The effort differs by transport (PFC, ECN and DCQCN thresholds for RoCE; a validated vendor
profile for Spectrum-X; a subnet manager's routes for InfiniBand), so the line names it rather
than calling every design's tuning "RoCE".
"""

from __future__ import annotations

from designer.core.transport.profiles import Transport

# the technology a reader knows the transport by; Transport.short is a column label
# ("RoCE ECMP") and says more than a cost line needs
_NAMES = {"infiniband": "InfiniBand", "roce": "RoCE", "spectrum-x": "Spectrum-X",
          "uec": "Ultra Ethernet", "mrc": "MRC"}


def tuning_name(transport: Transport | None) -> str:
    """'InfiniBand', 'RoCE', ...; 'Transport' when the design's transport is unknown."""
    if transport is None:
        return "Transport"
    return _NAMES.get(transport.id, transport.short)


def tuning_label(transport: Transport | None) -> str:
    """The TCO line: 'InfiniBand tuning and validation'."""
    return f"{tuning_name(transport)} tuning and validation"
