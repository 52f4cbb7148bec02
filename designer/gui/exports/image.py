"""Pictures of the design: the canvas scene rendered to PNG or SVG, offscreen.

The window exports the whole design or the part in view; the command line builds a scene for
the project (groups collapsed as the window would open them, or all expanded) and renders the
whole design. Drawing is the canvas's own, so a picture looks like the window.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QBuffer, QIODevice, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QGraphicsScene

from designer.core.catalog import Catalog
from designer.core.model import Project
from designer.core.writers import ExportError, write_bytes
from designer.gui.base.busy import ensure_app

MARGIN = 40.0
MAX_PIXELS = 16384  # a side longer than this is more than image viewers open


def auto_width(rect: QRectF) -> int:
    """A PNG width that keeps the canvas's labels readable: about 3/4 of the scene's own
    scale (the canvas hides text when zoomed far out), within 1,600 .. 8,000 pixels."""
    return int(min(8000, max(1600, (rect.width() + 2 * MARGIN) * 0.75)))


def render_scene(scene: QGraphicsScene, rect: QRectF, path: str | os.PathLike[str],
                 width: int | None = None, title: str = "") -> tuple[int, int]:
    """Render ``rect`` of ``scene`` to a PNG (``width`` pixels wide, by default
    ``auto_width``) or an SVG; returns the picture's size in pixels."""
    width = width or auto_width(rect)
    src = QRectF(rect).adjusted(-MARGIN, -MARGIN, MARGIN, MARGIN)
    if src.width() <= 0 or src.height() <= 0:
        src = QRectF(-200, -150, 400, 300)
    suffix = Path(path).suffix.lower()
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if suffix == ".svg":
        w, h = round(src.width()), round(src.height())
        gen = QSvgGenerator()
        gen.setOutputDevice(buffer)
        gen.setSize(QSize(w, h))
        gen.setViewBox(QRectF(0, 0, w, h))
        gen.setTitle(title or "Fabric design")
        gen.setDescription("Drawn by Fabric Designer")
        painter = QPainter(gen)
        painter.fillRect(QRectF(0, 0, w, h), QColor("#ffffff"))
        scene.render(painter, QRectF(0, 0, w, h), src, Qt.AspectRatioMode.KeepAspectRatio)
        painter.end()
    elif suffix == ".png":
        img = scene_image(scene, src, width)
        w, h = img.width(), img.height()
        if not img.save(buffer, "PNG"):
            raise ExportError(f"cannot write {path}: the PNG encoder failed")
    else:
        raise ExportError(f"images are .png or .svg (got '{Path(path).name}')")
    write_bytes(path, bytes(buffer.data()))
    return w, h


def scene_image(scene: QGraphicsScene, src: QRectF, width: int) -> QImage:
    """``src`` of ``scene`` drawn into an image ``width`` pixels wide (white background)."""
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
    return img


def design_scene(project: Project, catalog: Catalog, expanded: bool = False):
    """A canvas scene of ``project`` without a window: groups collapsed as the window opens
    them (or every device with ``expanded``)."""
    ensure_app()
    from designer.gui.canvas.scene import CanvasScene
    from designer.gui.project.document import Document

    doc = Document(catalog)
    scene = CanvasScene(doc)  # listens to the document, so it is built before the design
    doc.replace(project)
    if expanded:
        scene.expand_all()
    scene.set_view_scale(1.0)
    scene.clearSelection()
    return scene, doc


def design_image(project: Project, catalog: Catalog, width: int,
                 max_aspect: float = 3.0, shown_width: float | None = None) -> QImage:
    """The whole design as the window draws it on opening, ``width`` pixels wide; titles are
    sized for the picture shown ``shown_width`` wide (default ``width``). A design wider than
    ``max_aspect`` times its height is drawn arranged compactly (Design > Arrange
    Compactly), else 64 SUs in one row come out as a thin strip."""
    scene, _doc = design_scene(project, catalog)
    rect = scene.content_rect()
    if rect.height() > 0 and rect.width() / rect.height() > max_aspect:
        from designer.core.editing import move_devices
        from designer.core.errors import DesignerError
        from designer.core.layout import arrange_compact

        try:
            compact = move_devices(project, arrange_compact(project.fabric))
        except DesignerError:
            compact = None
        if compact is not None:
            scene, _doc = design_scene(compact, catalog)
            rect = scene.content_rect()
    # titles keep their size in the picture's pixels, as on screen at that zoom
    lod = (shown_width or width) / (rect.width() + 2 * MARGIN) if rect.width() > 0 else 1.0
    scene.set_view_scale(lod)
    # the title tabs above the top row are sized for the picture now: leave room for them
    rect = QRectF(scene.content_rect()).adjusted(-MARGIN, -MARGIN - 24 / lod, MARGIN, MARGIN)
    if rect.width() <= 0 or rect.height() <= 0:
        rect = QRectF(-200, -150, 400, 300)
    return scene_image(scene, rect, width)


def export_design_image(project: Project, catalog: Catalog, path: str | os.PathLike[str],
                        width: int | None = None, expanded: bool = False) -> str:
    """The whole design as the window draws it, without a window."""
    scene, _doc = design_scene(project, catalog, expanded)
    w, h = render_scene(scene, scene.content_rect(), path, width, project.name)
    shown = "every device" if expanded or not scene.collapsed else "groups collapsed"
    return f"wrote {path}: {w} x {h} px picture of the whole design ({shown})"
