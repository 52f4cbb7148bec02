"""The design report as PDF: the report's HTML laid out by Qt's rich-text engine.

Charts are SVG in the HTML; Qt's rich text does not draw inline SVG, so each chart is rendered
to an image at print resolution (QtSvg) and handed to the document as a resource. Needs a
Qt application (the command line makes an offscreen one).
"""

from __future__ import annotations

import os

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMarginsF, QSizeF, QUrl
from PySide6.QtGui import (
    QImage,
    QPageLayout,
    QPageSize,
    QPainter,
    QPdfWriter,
    QTextDocument,
)
from PySide6.QtSvg import QSvgRenderer

from designer.core.catalog import Catalog
from designer.core.export.output import write_bytes
from designer.core.export.report_html import Chart, ReportData, report_html
from designer.core.model import Project
from designer.gui.base.busy import ensure_app

SCREEN_DPI = 96  # the rich-text engine lays out in pixels of this size, then scales to print
CHART_SCALE = 3  # chart images at 3x their layout size: sharp when printed


def _chart_image(chart: Chart) -> QImage:
    renderer = QSvgRenderer(QByteArray(chart[2].encode("utf-8")))
    size = renderer.defaultSize()
    img = QImage(
        size.width() * CHART_SCALE, size.height() * CHART_SCALE, QImage.Format.Format_ARGB32
    )
    img.fill(0xFFFFFFFF)
    painter = QPainter(img)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    renderer.render(painter)
    painter.end()
    return img


PICTURE_WIDTH = 330  # layout pixels: half the text width of an A4 page at 96 dpi
PICTURE_MAX_HEIGHT = 300


def _picture(doc: QTextDocument, picture: QImage | None) -> str:
    """The drawing of the design as an image resource of ``doc``, fitted to the page."""
    if picture is None or picture.isNull():
        return ""
    doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl("design://picture"), picture)
    w = PICTURE_WIDTH
    h = round(w * picture.height() / max(1, picture.width()))
    if h > PICTURE_MAX_HEIGHT:
        w, h = round(w * PICTURE_MAX_HEIGHT / h), PICTURE_MAX_HEIGHT
    return f'<img src="design://picture" width="{w}" height="{h}">'


def report_document(data: ReportData, picture: QImage | None = None) -> QTextDocument:
    doc = QTextDocument()

    def image(chart: Chart) -> str:
        img = _chart_image(chart)
        url = f"chart://{chart[0]}"
        doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(url), img)
        w, h = img.width() // CHART_SCALE, img.height() // CHART_SCALE
        return f'<img src="{url}" width="{w}" height="{h}">'

    doc.setHtml(report_html(data, image, _picture(doc, picture)))
    return doc


def write_report_pdf(data: ReportData, path: str | os.PathLike[str],
                     project: Project | None = None, catalog: Catalog | None = None) -> int:
    """Write the PDF; returns its page count. With ``project`` (and its ``catalog``) the
    report shows a drawing of the design as the window draws it on opening."""
    ensure_app()
    picture = None
    if project is not None and catalog is not None and project.fabric.devices:
        from designer.gui.exports.image import design_image

        picture = design_image(project, catalog, PICTURE_WIDTH * CHART_SCALE,
                               shown_width=PICTURE_WIDTH * 1.4)
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QPdfWriter(buffer)
    writer.setTitle(data.title)
    writer.setCreator("Fabric Designer")
    writer.setResolution(300)
    writer.setPageLayout(
        QPageLayout(
            QPageSize(QPageSize.PageSizeId.A4),
            QPageLayout.Orientation.Portrait,
            QMarginsF(13, 13, 13, 15),
            QPageLayout.Unit.Millimeter,
        )
    )
    doc = report_document(data, picture)
    rect = writer.pageLayout().paintRectPixels(SCREEN_DPI)
    doc.setPageSize(QSizeF(rect.width(), rect.height()))
    doc.print_(writer)
    pages = doc.pageCount()
    del writer  # ends the PDF in the buffer
    write_bytes(path, bytes(buffer.data()))
    return pages
