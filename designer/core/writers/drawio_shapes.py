"""What the draw.io pages share: box sizes, the box of a device group and its style."""

from __future__ import annotations

from dataclasses import dataclass

from designer.core.model import ROLE_COLORS

BOX_W, BOX_H, GAP_X, ROW_H = 150, 56, 30, 170


@dataclass(frozen=True)
class Box:
    key: tuple
    role: str
    tier: int
    label: str
    count: int


def box_style(role: str) -> str:
    fill, stroke = ROLE_COLORS.get(role, ("#FFFFFF", "#444444"))
    return (f"rounded=1;whiteSpace=wrap;html=0;fillColor={fill};strokeColor={stroke};"
            "fontSize=11;")
