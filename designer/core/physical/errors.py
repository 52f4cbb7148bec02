"""Errors of the physical layer (caught like every ``DesignerError``)."""

from __future__ import annotations

from designer.core.errors import DesignerError


class NoFloorPlan(DesignerError):
    """A command needs the project's floor plan and it has none."""


class PlacementError(DesignerError):
    """A device cannot go where it was asked to (no such rack, past the top ...)."""
