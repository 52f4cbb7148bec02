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

from designer.core.export.output import write_bytes
from designer.core.export.report_html import Chart, ReportData, report_html
from designer.gui.app import ensure_app

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


def report_document(data: ReportData) -> QTextDocument:
    doc = QTextDocument()

    def image(chart: Chart) -> str:
        img = _chart_image(chart)
        url = f"chart://{chart[0]}"
        doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(url), img)
        w, h = img.width() // CHART_SCALE, img.height() // CHART_SCALE
        return f'<img src="{url}" width="{w}" height="{h}">'

    doc.setHtml(report_html(data, image))
    return doc


def write_report_pdf(data: ReportData, path: str | os.PathLike[str]) -> int:
    """Write the PDF; returns its page count."""
    ensure_app()
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
    doc = report_document(data)
    rect = writer.pageLayout().paintRectPixels(SCREEN_DPI)
    doc.setPageSize(QSizeF(rect.width(), rect.height()))
    doc.print_(writer)
    pages = doc.pageCount()
    del writer  # ends the PDF in the buffer
    write_bytes(path, bytes(buffer.data()))
    return pages
