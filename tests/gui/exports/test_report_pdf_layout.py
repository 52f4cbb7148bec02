"""The PDF report as Qt lays it out (issue 17): page 1 is filled (no large blank gap before a
forced page break), the drawing of the design is in it, and grid columns do not touch."""

from __future__ import annotations

import pytest

from designer.core.fileformat import load_project
from designer.core.paths import projects_dir
from designer.core.solver import solve
from designer.core.writers.report import report_data


def _laid_out(name, catalog, picture=True):
    from PySide6.QtCore import QSizeF

    from designer.gui.exports.image import design_image
    from designer.gui.exports.report_pdf import PICTURE_WIDTH, report_document

    project = load_project(projects_dir() / name, catalog)
    cat = project.catalog(catalog)
    data = report_data(project, cat, solve(project, catalog=cat))
    image = design_image(project, cat, PICTURE_WIDTH * 2) if picture else None
    doc = report_document(data, image)
    page = QSizeF(696, 1005)  # A4 inside the report's margins, in 96-dpi layout pixels
    doc.setPageSize(page)
    return doc, page, image


def _used_on_first_page(doc, page) -> float:
    """How far down page 1 its last block reaches, as a share of the page height."""
    lay = doc.documentLayout()
    bottom, block = 0.0, doc.begin()
    while block.isValid():
        r = lay.blockBoundingRect(block)
        if r.bottom() <= page.height():
            bottom = max(bottom, r.bottom())
        block = block.next()
    # tables are frames: their cells' blocks are visited through the frame iterators
    for frame in doc.rootFrame().childFrames():
        r = lay.frameBoundingRect(frame)
        if r.bottom() <= page.height():
            bottom = max(bottom, r.bottom())
    return bottom / page.height()


@pytest.mark.parametrize("name", ["dgx-superpod-4su-ib-ndr.fabric.json",
                                  "dgx-superpod-64su-ib-ndr.fabric.json",
                                  "dragonfly-1056-gpus.fabric.json"])
def test_page_one_is_filled(app, catalog, name):
    doc, page, image = _laid_out(name, catalog)
    assert image is not None and not image.isNull()
    assert _used_on_first_page(doc, page) > 0.7


def test_the_wide_design_is_drawn_compactly(app, catalog):
    _doc, _page, image = _laid_out("dgx-superpod-64su-ib-ndr.fabric.json", catalog)
    # 64 SUs in one row would be about 170 times wider than tall; wrapped, a readable block
    assert image.width() / image.height() < 3


def test_pdf_is_written_with_the_picture(app, catalog, tmp_path):
    from designer.gui.exports.report_pdf import write_report_pdf

    project = load_project(projects_dir() / "dgx-superpod-4su-ib-ndr.fabric.json", catalog)
    cat = project.catalog(catalog)
    data = report_data(project, cat, solve(project, catalog=cat))
    plain, with_picture = tmp_path / "a.pdf", tmp_path / "b.pdf"
    write_report_pdf(data, plain)
    write_report_pdf(data, with_picture, project, cat)
    assert with_picture.stat().st_size > plain.stat().st_size + 10_000  # the drawing is in


@pytest.mark.parametrize("name", ["dgx-superpod-4su-ib-ndr.fabric.json",
                                  "roce-fat-tree-24k-oversubscribed.fabric.json"])
def test_no_heading_is_left_alone_at_a_page_foot(app, catalog, name):
    """Issue 27: "Decision analysis: workload and step" sat at the foot of page 2 with its
    facts on page 3. After pagination every heading has its first lines under it."""
    from PySide6.QtCore import QSizeF

    from designer.gui.exports.report_pdf import orphaned_headings, paginate, report_document

    project = load_project(projects_dir() / name, catalog)
    cat = project.catalog(catalog)
    data = report_data(project, cat, solve(project, catalog=cat))
    page = QSizeF(695, 1016)  # the report's A4 page inside its margins, 96-dpi pixels
    plain = report_document(data)
    plain.setPageSize(page)
    doc = paginate(lambda breaks: report_document(data, None, breaks), page)
    assert orphaned_headings(doc) == []
    if name.startswith("dgx"):  # this one had the orphan: the check is not vacuous
        assert orphaned_headings(plain)


def test_header_words_fit_their_columns_and_numbers_their_line():
    """A header never breaks inside a word ("Latenc/y", "Statu/s"), and a one-line column
    holds its longest number, in the room Qt gives a column (the table less its padding)."""
    from designer.core.writers.html_report import (
        BODY_CHAR_PX,
        CELL_PAD_PX,
        HEADER_CHAR_PX,
        TABLE_PX,
        column_widths,
    )

    head = ("Gear", "Latency (ns)", "Where", "Source or reasoning", "Status")
    rows = [("NVIDIA Quantum-2 QM9700 (managed)", "130", "switch, per hop, InfiniBand NDR",
             "reseller comparison 'QM9700 vs SN5400' (router-switch.com FAQ) (2026-11)",
             "sourced"), ("x", "1,234,567,890", "", "", "")]
    w = column_widths(head, rows, one_line=(1,))
    room = TABLE_PX - CELL_PAD_PX * len(head)
    for i, title in enumerate(head):
        word = max(len(x) for x in title.split())
        assert w[i] / 100 * room >= word * HEADER_CHAR_PX + CELL_PAD_PX - 1, (title, w)
    assert w[1] / 100 * room >= len("1,234,567,890") * BODY_CHAR_PX
    assert sum(w) == 100


def test_key_facts_sections_share_their_columns(catalog):
    """The value column lines up across Design, Performance, ... TCO: every section's table
    has the same widths and only numbers are held on one line."""
    import re

    from designer.core.writers.html_report import report_html

    project = load_project(projects_dir() / "dgx-superpod-4su-ib-ndr.fabric.json", catalog)
    cat = project.catalog(catalog)
    html = report_html(report_data(project, cat, solve(project, catalog=cat)))
    facts = re.findall(r'<table class="facts".*?</table>', html, re.S)
    assert len(facts) >= 5
    widths = {tuple(re.findall(r'<td[^>]*?width="(\d+)%"', t)[:4]) for t in facts}
    assert widths == {("34", "24", "3", "39")}
    assert 'class="v n"' in html and 'class="v"' in html  # numbers one-line, text wraps
