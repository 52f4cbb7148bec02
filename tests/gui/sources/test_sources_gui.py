"""File > Import Price Book… (one undoable step, the BOM names the book), File > Import
Measured Latency…, and the latency figure's tooltip naming every assumed figure."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from designer.core.generators import generate, params_from_dict
from designer.gui.panels.bom import SOURCE, UNIT
from designer.gui.sources import actions as sources_actions
from designer.gui.sources import preview
from tests.gui.helpers import solved_after

WAIT_MS = 60_000


@pytest.fixture(scope="module")
def roce():
    return generate(params_from_dict("rail", {"sus": 1, "gear": "roce-400"}))


def _row(window, gear_id):
    m = window.analysis.bom.model
    return next(i for i, r in enumerate(m.rows) if r.catalog_id == gear_id)


def test_import_price_book_is_one_undoable_step_and_the_bom_names_it(
        window, qtbot, roce, tmp_path, monkeypatch, answers):
    solved_after(window, qtbot, lambda: window.doc.replace(roce))
    quote = tmp_path / "acme.csv"
    quote.write_text("part id,unit price,currency,date\nsn5600,41000,EUR,2026-11-02\n")
    monkeypatch.setattr(sources_actions, "ask_price_book_path", lambda *a: str(quote))
    monkeypatch.setattr(sources_actions, "ask_usd_rate", lambda *a: 1.1)
    monkeypatch.setattr(preview, "confirm_book", lambda *a: True)  # the preview's Apply
    src = window.analysis.sources
    svc = window.analysis.service
    with qtbot.waitSignal(svc.resultReady, timeout=WAIT_MS):
        src.import_book.trigger()
        # the first read finds euros, asks for the rate (answered 1.1) and reads again
        qtbot.waitUntil(lambda: bool(window.doc.project.sources.price_books), timeout=WAIT_MS)
    book = window.doc.project.sources.price_books[0]
    assert (book.name, book.currency, book.usd_per_unit) == ("acme", "EUR", 1.1)
    m = window.analysis.bom.model
    qtbot.waitUntil(lambda: m.rows[_row(window, "sn5600")].unit == pytest.approx(45100),
                    timeout=WAIT_MS)
    i = _row(window, "sn5600")
    assert "acme" in m.data(m.index(i, SOURCE), Qt.ItemDataRole.DisplayRole)
    assert "EUR" in m.data(m.index(i, SOURCE), Qt.ItemDataRole.ToolTipRole)
    j = _row(window, "connectx-7")
    assert m.data(m.index(j, SOURCE), Qt.ItemDataRole.DisplayRole).startswith("assumed")
    assert "price book" in window.analysis.bom.summary.text()
    assert window.doc.undo_stack.undoText() == "Import price book 'acme'"
    window.doc.undo_stack.undo()
    assert window.doc.project.sources.price_books == ()
    qtbot.waitUntil(lambda: m.rows[_row(window, "sn5600")].unit == 58800, timeout=WAIT_MS)
    assert m.data(m.index(_row(window, "sn5600"), UNIT), Qt.ItemDataRole.DisplayRole)
    assert not answers.errors


def test_a_bad_price_book_is_refused_with_the_reason(window, qtbot, roce, tmp_path,
                                                     monkeypatch, answers):
    solved_after(window, qtbot, lambda: window.doc.replace(roce))
    quote = tmp_path / "bad.csv"
    quote.write_text("sku,price\nsn5600,lots\n")
    monkeypatch.setattr(sources_actions, "ask_price_book_path", lambda *a: str(quote))
    src = window.analysis.sources
    src.import_book.trigger()
    with qtbot.waitSignal(src.task.failed, timeout=WAIT_MS):
        pass
    assert answers.errors and "unit price 'lots'" in answers.errors[0][1]
    assert window.doc.project.sources.price_books == ()


def test_latency_tooltip_names_the_assumptions_and_a_measurement_replaces_one(
        window, qtbot, roce, tmp_path, answers):
    solved_after(window, qtbot, lambda: window.doc.replace(roce))
    box = window.analysis.metrics.values["latency"]
    tip = box.toolTip()
    assert "Idle, static latency" in tip
    assert ("NVIDIA ConnectX-7 400G, Ethernet, NIC, per end: 450 ns (NIC 250 + host/PCIe 150 "
            "+ stack 50) [ASSUMED]") in tip
    # the switch's figure is sourced now (DeepSeek ISCA 2025): only the NIC's is assumed
    assert "SN5600" in tip and "1 figure assumed" in box.hint.text()
    out = tmp_path / "lat.txt"
    out.write_text(" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]\n"
                   " 2       1000          1.80           4.31         1.90\n")
    src = window.analysis.sources
    solved_after(window, qtbot, lambda: src.import_latency_from(out, "eth", switches=1))
    tip = box.toolTip()
    assert "[measured]" in tip and "1 figure measured" in box.hint.text()
    assert window.doc.undo_stack.undoText() == "Import measured eth latency"
    # the File menu lists it and clears it as one step
    src.books_menu.aboutToShow.emit()
    clear = next(a for a in src.books_menu.actions()
                 if a.text().startswith("Clear measured Ethernet latency"))
    solved_after(window, qtbot, clear.trigger)
    assert window.doc.project.sources.latency == ()
    assert "1 figure assumed" in box.hint.text()
    assert not answers.errors
