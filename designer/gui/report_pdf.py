"""The design report as PDF: the report's HTML laid out by Qt's rich-text engine.

Charts are SVG in the HTML; Qt's rich text does not draw inline SVG, so each chart is rendered
to an image at print resolution (QtSvg) and handed to the document as a resource. Needs a
QGuiApplication (the command line makes an offscreen one).
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QByteArray, QMarginsF, QSizeF, QUrl
from PySide6.QtGui import (
    QGuiApplication,
    QImage,
    QPageLayout,
    QPageSize,
    QPainter,
    QPdfWriter,
    QTextDocument,
)
from PySide6.QtSvg import QSvgRenderer

from designer.core.export.output import ExportError
from designer.core.export.report_html import Chart, ReportData, report_html

SCREEN_DPI = 96  # the rich-text engine lays out in pixels of this size, then scales to print
CHART_SCALE = 3  # chart images at 3x their layout size: sharp when printed


def ensure_app() -> QGuiApplication:
    app = QGuiApplication.instance()
    if app is None:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        app = QGuiApplication([])
    return app  # type: ignore[return-value]


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
    target = Path(path)
    if not target.parent.is_dir():
        raise ExportError(f"cannot write {target}: folder {target.parent} does not exist")
    tmp = target.with_name(f".{target.name}.tmp")
    writer = QPdfWriter(str(tmp))
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
    del writer  # closes the file
    try:
        os.replace(tmp, target)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise ExportError(f"cannot write {target}: {exc.strerror or exc}") from None
    return pages
