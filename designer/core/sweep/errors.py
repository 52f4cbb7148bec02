"""Errors of the sweep room."""

from __future__ import annotations

from designer.core.errors import DesignerError


class SweepSpecError(DesignerError):
    """A sweep spec that cannot run; the message names the field."""
