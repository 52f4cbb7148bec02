"""The design report as PDF: the report's HTML laid out by Qt's rich-text engine.

Charts are SVG in the HTML; Qt's rich text does not draw inline SVG, so each chart is rendered
to an image at print resolution (QtSvg) and handed to the document as a resource. Needs a
Qt application (the command line makes an offscreen one).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMarginsF, QRectF, QSizeF, QUrl
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
from designer.core.model import Project
from designer.core.writers import Chart, ReportData, report_html, write_bytes
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


def report_document(data: ReportData, picture: QImage | None = None,
                    breaks: frozenset[int] | set[int] = frozenset()) -> QTextDocument:
    """The report as a rich-text document; ``breaks``: headings that start a new page."""
    doc = QTextDocument()

    def image(chart: Chart) -> str:
        img = _chart_image(chart)
        url = f"chart://{chart[0]}"
        doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(url), img)
        w, h = img.width() // CHART_SCALE, img.height() // CHART_SCALE
        return f'<img src="{url}" width="{w}" height="{h}">'

    doc.setHtml(break_before_headings(report_html(data, image, _picture(doc, picture)),
                                      set(breaks)))
    return doc


KEEP_BELOW_HEADING_PX = 90  # a heading needs room for a few lines of what it heads
_HEADING = re.compile(r"<h[1-6](?=[\s>])")


def orphaned_headings(doc: QTextDocument) -> list[int]:
    """The headings (their number in document order) that sit at the foot of a page with
    nothing of their section under them."""
    page_h = doc.pageSize().height()
    layout = doc.documentLayout()
    out, k = [], 0
    block = doc.begin()
    while block.isValid():
        if block.blockFormat().headingLevel() > 0:
            r = layout.blockBoundingRect(block)
            room = page_h - (r.bottom() % page_h)
            if room < KEEP_BELOW_HEADING_PX and r.top() % page_h > KEEP_BELOW_HEADING_PX:
                out.append(k)
            k += 1
        block = block.next()
    return out


def break_before_headings(html: str, numbers: set[int]) -> str:
    """``html`` with a page break before each heading whose number is in ``numbers``."""
    k = -1

    def mark(m: re.Match) -> str:
        nonlocal k
        k += 1
        return f'{m.group(0)} style="page-break-before: always"' if k in numbers else m.group(0)

    return _HEADING.sub(mark, html)


def paginate(make: Callable[[set[int]], QTextDocument], size: QSizeF,
             rounds: int = 8) -> QTextDocument:
    """The document laid out on pages of ``size`` with no heading left alone at a page foot
    (Qt's rich text knows no ``page-break-after: avoid``). ``make(breaks)`` builds the
    document with page breaks before those headings; each break moves what follows, so the
    layout is checked again until no heading is orphaned."""
    breaks: set[int] = set()
    doc = make(breaks)
    doc.setPageSize(size)
    for _ in range(rounds):
        more = set(orphaned_headings(doc)) - breaks
        if not more:
            break
        breaks |= {min(more)}  # the first one: later ones move when it does
        doc = make(breaks)
        doc.setPageSize(size)
    return doc


def print_pages(doc: QTextDocument, writer: QPdfWriter) -> None:
    """Each page of ``doc`` clipped to the part the layout fills: a page's last
    ``documentMargin`` pixels are left empty by the layout, but the first line of the next
    page reaches into them when drawn (``QTextDocument.print_`` showed the top of a heading
    moved to a new page at the foot of the page before)."""
    scale = writer.resolution() / SCREEN_DPI
    size = doc.pageSize()
    body = size.height() - doc.documentMargin()
    painter = QPainter(writer)
    try:
        for i in range(doc.pageCount()):
            if i:
                writer.newPage()
            painter.save()
            painter.scale(scale, scale)
            painter.translate(0, -i * size.height())
            doc.drawContents(painter, QRectF(0, i * size.height(), size.width(), body))
            painter.restore()
    finally:
        painter.end()


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
    rect = writer.pageLayout().paintRectPixels(SCREEN_DPI)
    doc = paginate(lambda breaks: report_document(data, picture, breaks),
                   QSizeF(rect.width(), rect.height()))
    print_pages(doc, writer)
    pages = doc.pageCount()
    del writer  # ends the PDF in the buffer
    write_bytes(path, bytes(buffer.data()))
    return pages
