"""Pictures of the design: the canvas scene rendered to PNG or SVG, offscreen.

The window exports the whole design or the part in view; the command line builds a scene for
the project (groups collapsed as the window would open them, or all expanded) and renders the
whole design. Drawing is the canvas's own, so a picture looks like the window.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QApplication, QGraphicsScene

from designer.core.catalog import Catalog
from designer.core.export.output import ExportError
from designer.core.model import Project

MARGIN = 40.0
MAX_PIXELS = 16384  # a side longer than this is more than image viewers open


def ensure_app() -> QGuiApplication:
    app = QApplication.instance()
    if app is None:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        app = QApplication([])
    return app  # type: ignore[return-value]


def auto_width(rect: QRectF) -> int:
    """A PNG width that keeps the canvas's labels readable: about 3/4 of the scene's own
    scale (the canvas hides text when zoomed far out), within 1,600 .. 8,000 pixels."""
    return int(min(8000, max(1600, (rect.width() + 2 * MARGIN) * 0.75)))


def render_scene(scene: QGraphicsScene, rect: QRectF, path: str | os.PathLike[str],
                 width: int | None = None, title: str = "") -> tuple[int, int]:
    """Render ``rect`` of ``scene`` to a PNG (``width`` pixels wide, by default
    ``auto_width``) or an SVG; returns the picture's size in pixels."""
    width = width or auto_width(rect)
    target = Path(path)
    if not target.parent.is_dir():
        raise ExportError(f"cannot write {target}: folder {target.parent} does not exist")
    src = QRectF(rect).adjusted(-MARGIN, -MARGIN, MARGIN, MARGIN)
    if src.width() <= 0 or src.height() <= 0:
        src = QRectF(-200, -150, 400, 300)
    suffix = target.suffix.lower()
    tmp = target.with_name(f".{target.name}.tmp")
    if suffix == ".svg":
        w, h = round(src.width()), round(src.height())
        gen = QSvgGenerator()
        gen.setFileName(str(tmp))
        gen.setSize(QSize(w, h))
        gen.setViewBox(QRectF(0, 0, w, h))
        gen.setTitle(title or "Fabric design")
        gen.setDescription("Drawn by Fabric Designer")
        painter = QPainter(gen)
        painter.fillRect(QRectF(0, 0, w, h), QColor("#ffffff"))
        scene.render(painter, QRectF(0, 0, w, h), src, Qt.AspectRatioMode.KeepAspectRatio)
        painter.end()
    elif suffix == ".png":
        scale = max(width, 64) / src.width()
        w = max(1, min(MAX_PIXELS, round(src.width() * scale)))
        h = max(1, min(MAX_PIXELS, round(src.height() * scale)))
        img = QImage(w, h, QImage.Format.Format_ARGB32)
        img.fill(QColor("#ffffff"))
        painter = QPainter(img)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        scene.render(painter, QRectF(0, 0, w, h), src, Qt.AspectRatioMode.KeepAspectRatio)
        painter.end()
        if not img.save(str(tmp), "PNG"):
            raise ExportError(f"cannot write {target}")
    else:
        raise ExportError(f"images are .png or .svg (got '{target.name}')")
    try:
        os.replace(tmp, target)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise ExportError(f"cannot write {target}: {exc.strerror or exc}") from None
    return w, h


def export_design_image(project: Project, catalog: Catalog, path: str | os.PathLike[str],
                        width: int | None = None, expanded: bool = False) -> str:
    """The whole design as the window draws it, without a window."""
    ensure_app()
    from designer.gui.canvas.scene import CanvasScene
    from designer.gui.document import Document

    doc = Document(catalog)
    scene = CanvasScene(doc)  # listens to the document, so it is built before the design
    doc.replace(project)
    if expanded:
        scene.expand_all()
    scene.set_view_scale(1.0)
    scene.clearSelection()
    w, h = render_scene(scene, scene.content_rect(), path, width, project.name)
    shown = "every device" if expanded or not scene.collapsed else "groups collapsed"
    return f"wrote {path}: {w} x {h} px picture of the whole design ({shown})"
