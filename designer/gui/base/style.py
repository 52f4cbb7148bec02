"""Colours, fonts and the application style: one place, so the window reads as one tool.

Roles get a fill and an outline, technologies an accent band, link layers a line colour.
The palette is light and muted so the fabric, not the chrome, draws the eye.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QApplication, QStyleFactory

from designer.core.model import ROLE_COLORS as ROLE_HEX
from designer.gui.canvas.groups import (
    EDGE_ENDPOINT,
    EDGE_GLOBAL,
    EDGE_LEAF_SPINE,
    EDGE_LOCAL,
    EDGE_OTHER,
    EDGE_SPINE_CORE,
)

CANVAS_BG = QColor("#f6f7f9")
GRID_MINOR = QColor("#e9ecf0")
GRID_MAJOR = QColor("#dde1e7")
SELECTION = QColor("#f0a020")
HOVER = QColor("#1f7ae0")
TEXT = QColor("#1d2530")
TEXT_MUTED = QColor("#5d6876")
ERROR = QColor("#c62828")
OK = QColor("#2e7d32")

# fill, outline per role: the core's table (GraphML diagrams use it too), so a role reads the
# same in the window and in every export
ROLE_COLORS: dict[str, tuple[QColor, QColor]] = {
    role: (QColor(fill), QColor(outline)) for role, (fill, outline) in ROLE_HEX.items()
}

TECH_COLORS: dict[str, QColor] = {
    "ib-ndr": QColor("#76b900"),
    "ib-xdr": QColor("#00897b"),
    "eth": QColor("#2b7bd8"),
}
UNKNOWN_TECH = QColor("#9e9e9e")

EDGE_COLORS: dict[int, QColor] = {
    EDGE_ENDPOINT: QColor(120, 134, 152, 150),
    EDGE_LEAF_SPINE: QColor(45, 109, 163, 170),
    EDGE_SPINE_CORE: QColor(122, 84, 180, 170),
    EDGE_LOCAL: QColor(43, 122, 87, 170),
    EDGE_GLOBAL: QColor(224, 112, 40, 190),
    EDGE_OTHER: QColor(110, 110, 110, 160),
}

MARK_COLORS: dict[str, QColor] = {
    "error": QColor("#d32f2f"),
    "warning": QColor("#ef8f00"),
    "info": QColor("#1976d2"),
}
MARK_ORDER = ("info", "warning", "error")

BOX_FILL = QColor("#eef1f5")
BOX_OUTLINE = QColor("#7d8896")
FRAME_OUTLINE = QColor("#aab3bf")


def ui_font(point_size: float = 9.0, bold: bool = False) -> QFont:
    f = QFont(QApplication.font())
    f.setPointSizeF(point_size)
    f.setBold(bold)
    return f


STYLE_SHEET = """
QMainWindow::separator { background: #d9dde3; width: 1px; height: 1px; }
QDockWidget { font-weight: 600; }
QDockWidget::title {
    background: #eceff3; padding: 5px 8px; border-bottom: 1px solid #d9dde3; text-align: left;
}
QToolBar { background: #f3f5f8; border-bottom: 1px solid #d9dde3; spacing: 3px; padding: 2px; }
QToolBar QToolButton { padding: 3px 6px; border-radius: 3px; }
QToolBar QToolButton:hover { background: #e1e6ec; }
QToolBar QToolButton:checked { background: #d5e3f5; border: 1px solid #a9c3e6; }
QStatusBar { background: #f3f5f8; border-top: 1px solid #d9dde3; }
QStatusBar QLabel { color: #3c4654; padding: 0 8px; }
QTreeWidget, QListWidget { border: none; }
QLineEdit#search { border: 1px solid #cfd5dd; border-radius: 3px; padding: 3px 6px; margin: 4px; }
QLabel#sectionTitle { font-weight: 600; color: #1d2530; padding-top: 4px; }
QLabel#hint { color: #5d6876; }
QLabel#error { color: #c62828; }
QLabel#preview { background: #f7f9fb; border: 1px solid #dde2e8; border-radius: 3px; padding: 6px; }
"""


def apply_app_style(app: QApplication) -> None:
    """Fusion, a light neutral palette and a few rules for docks, toolbars and the status bar."""
    fusion = QStyleFactory.create("Fusion")
    if fusion is not None:
        app.setStyle(fusion)
    pal = QPalette()
    pal.setColor(QPalette.ColorRole.Window, QColor("#f3f5f8"))
    pal.setColor(QPalette.ColorRole.Base, QColor("#ffffff"))
    pal.setColor(QPalette.ColorRole.AlternateBase, QColor("#f6f8fa"))
    pal.setColor(QPalette.ColorRole.Text, TEXT)
    pal.setColor(QPalette.ColorRole.WindowText, TEXT)
    pal.setColor(QPalette.ColorRole.Button, QColor("#f3f5f8"))
    pal.setColor(QPalette.ColorRole.ButtonText, TEXT)
    pal.setColor(QPalette.ColorRole.Highlight, QColor("#2f74c0"))
    pal.setColor(QPalette.ColorRole.HighlightedText, QColor("#ffffff"))
    pal.setColor(QPalette.ColorRole.ToolTipBase, QColor("#fffff4"))
    pal.setColor(QPalette.ColorRole.ToolTipText, TEXT)
    pal.setColor(QPalette.ColorRole.PlaceholderText, TEXT_MUTED)
    app.setPalette(pal)
    font = app.font()
    if font.pointSizeF() < 9:
        font.setPointSizeF(9)
        app.setFont(font)
    app.setStyleSheet(STYLE_SHEET)
