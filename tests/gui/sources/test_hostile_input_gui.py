"""The window's side of the second hostile-input round: a quote's prices are shown before they
apply (and a quote whose numbers do not show their locale asks for it), and closing the window
while a file is still being read cancels the read and opens nothing."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import QTimer

from designer.core.generators import generate, params_from_dict
from designer.core.model import Project
from designer.core.sources.pricebook_io import read_price_book
from designer.gui.project import files as project_files
from designer.gui.sources import actions as sources_actions
from designer.gui.sources import preview
from tests.gui.helpers import solved_after

WAIT_MS = 60_000


@pytest.fixture(scope="module")
def roce():
    return generate(params_from_dict("rail", {"sus": 1, "gear": "roce-400"}))


def _import(window, qtbot, monkeypatch, quote, confirm):
    shown = []

    def answer(parent, got):
        shown.append(got)
        return confirm

    monkeypatch.setattr(sources_actions, "ask_price_book_path", lambda *a: str(quote))
    monkeypatch.setattr(preview, "confirm_book", answer)
    src = window.analysis.sources
    src.import_book.trigger()
    qtbot.waitUntil(lambda: bool(shown), timeout=WAIT_MS)
    return shown


def test_a_quote_is_shown_before_it_applies_and_cancel_applies_nothing(
        window, qtbot, roce, tmp_path, monkeypatch, answers):
    solved_after(window, qtbot, lambda: window.doc.replace(roce))
    quote = tmp_path / "eu.csv"
    quote.write_text("Part ID;Unit price\nsn5600;31.500\nconnectx-7;1.750,00\n")
    shown = _import(window, qtbot, monkeypatch, quote, confirm=False)
    assert [(x.gear_id, x.text, x.price) for x in shown[0].lines] == [
        ("sn5600", "31.500", 31500.0), ("connectx-7", "1.750,00", 1750.0)]
    assert window.doc.project.sources.price_books == ()  # cancelled: nothing applied
    shown = _import(window, qtbot, monkeypatch, quote, confirm=True)
    qtbot.waitUntil(lambda: bool(window.doc.project.sources.price_books), timeout=WAIT_MS)
    assert window.doc.project.sources.price_books[0].prices["sn5600"] == 31500.0
    assert not answers.errors


def test_an_ambiguous_quote_asks_for_the_decimal_mark(window, qtbot, roce, tmp_path,
                                                      monkeypatch, answers):
    solved_after(window, qtbot, lambda: window.doc.replace(roce))
    quote = tmp_path / "tab.csv"
    quote.write_text("part id\tunit price\nsn5600\t31.500\n")
    asked = []
    monkeypatch.setattr(preview, "ask_decimal", lambda parent, msg: asked.append(msg) or ",")
    _import(window, qtbot, monkeypatch, quote, confirm=True)
    qtbot.waitUntil(lambda: bool(window.doc.project.sources.price_books), timeout=WAIT_MS)
    assert "row 2: unit price '31.500'" in asked[0]
    assert window.doc.project.sources.price_books[0].prices["sn5600"] == 31500.0


def test_the_preview_dialog_lists_every_price_and_shades_the_far_ones(qtbot, tmp_path, catalog):
    quote = tmp_path / "q.csv"
    quote.write_text("part id,unit price\nsn5600,58.8\nconnectx-7,\"1,800.00\"\n")
    got = read_price_book(quote, catalog)
    dlg = preview.BookPreview(None, got)
    qtbot.addWidget(dlg)
    t = dlg.table
    assert t.rowCount() == 2
    cells = [[t.item(r, c).text() for c in range(t.columnCount())] for r in range(2)]
    assert cells[0][:6] == ["2", "sn5600", "58.8", "58.80", "58.80", "58,800.00"]
    assert cells[0][6] == "1,000x below the price in use" and cells[1][6] == ""
    assert t.item(0, 1).background().color() == preview.SUSPECT


def test_closing_the_window_while_a_file_opens_cancels_it(window, qtbot, monkeypatch, answers,
                                                           tmp_path):
    from designer.core.fileformat import LoadCancelled, save_project

    path = tmp_path / "slow.fabric.json"
    save_project(Project(name="slow"), path)
    before = window.doc.project

    def slow_load(p, catalog, progress, cancelled):
        for _ in range(600):  # until the window's close cancels it
            if cancelled():
                raise LoadCancelled("cancelled")
            time.sleep(0.01)
        raise AssertionError("the read was not cancelled")

    monkeypatch.setattr(project_files, "load_project", slow_load)
    QTimer.singleShot(50, window.close)
    assert window.open_path(path, ask=False) is False
    assert window.closing and window.doc.project is before  # nothing opened after the close
