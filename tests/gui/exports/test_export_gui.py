"""File > Export in the window: worker-thread exports with progress, cancel, pictures of the
canvas (whole design and current view) and the PDF report."""

from __future__ import annotations

import threading
import xml.etree.ElementTree as ET

import openpyxl
import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QMainWindow

from designer.core.generators import generate, params_from_dict
from designer.core.solver import solve


@pytest.fixture
def setup(qapp, qtbot, catalog):
    pytest.importorskip("designer.gui.canvas.scene")  # the window's canvas
    from designer.gui.canvas.scene import CanvasScene
    from designer.gui.canvas.view import CanvasView
    from designer.gui.exports.actions import ExportController
    from designer.gui.project.document import Document

    window = QMainWindow()
    qtbot.addWidget(window)
    doc = Document(catalog, window)
    scene = CanvasScene(doc)
    view = CanvasView(scene, window)
    window.setCentralWidget(view)
    window.resize(900, 600)
    doc.replace(generate(params_from_dict("rail", {"sus": 1, "reserve_leaf_ports": 4})))
    ctl = ExportController(window, doc, scene, view)
    return window, doc, ctl


def fmt(key, view_only=False):
    from designer.gui.exports.actions import FORMATS

    return next(f for f in FORMATS if f.key == key and f.view_only == view_only)


def test_bom_export_runs_in_a_worker_and_matches_the_solver(setup, qtbot, tmp_path):
    _window, doc, ctl = setup
    path = tmp_path / "bom.xlsx"
    with qtbot.waitSignal(ctl.finished, timeout=30_000) as done:
        ctl.export(fmt("bom"), path)
    assert "BOM lines" in done.args[0] and not ctl.busy
    result = solve(doc.project, catalog=doc.catalog)
    ws = openpyxl.load_workbook(path)["BOM"]
    ids = [ws[f"C{r}"].value for r in range(5, ws.max_row + 1) if ws[f"C{r}"].value]
    assert ids[: len(result.bom.lines)] == [x.catalog_id for x in result.bom.lines]


def test_cabling_export_can_be_cancelled(setup, qtbot, tmp_path, monkeypatch):
    from designer.gui.exports import actions as export_actions

    _window, _doc, ctl = setup
    path = tmp_path / "cables.xlsx"
    # the real export, held at its first step until Cancel has been pressed, so the test does
    # not race a small design's export to the finish
    gate = threading.Event()
    real = export_actions.export_cabling

    def held(project, catalog, out, result, progress):
        def step(fraction, message):
            gate.wait(10)
            progress(fraction, message)

        return real(project, catalog, out, result, step)

    monkeypatch.setattr(export_actions, "export_cabling", held)
    with qtbot.waitSignal(ctl.failed, timeout=30_000) as failed:
        ctl.export(fmt("cabling"), path)
        ctl.cancel()  # the Cancel button of the progress dialog
        gate.set()
    assert failed.args == [""] and not path.exists() and not ctl.busy
    monkeypatch.undo()
    with qtbot.waitSignal(ctl.finished, timeout=30_000):
        ctl.export(fmt("cabling"), path)
    # NVIDIA DGX H100 SuperPOD RA Table 4, 1 SU: 252 node/UFM-leaf and 256 leaf-spine cables
    assert openpyxl.load_workbook(path)["Cables"].max_row == 1 + 252 + 256


def test_wrong_suffix_is_refused_with_a_message(setup, qtbot, tmp_path):
    _window, _doc, ctl = setup
    with qtbot.waitSignal(ctl.failed) as failed:
        ctl.export(fmt("bom"), tmp_path / "bom.pdf")
    assert ".xlsx or .csv" in failed.args[0]


def test_picture_and_pdf_into_a_missing_folder_are_refused(setup, qtbot, tmp_path):
    _window, _doc, ctl = setup
    for key, name in (("image", "x.png"), ("image", "x.svg"), ("report", "x.pdf")):
        with qtbot.waitSignal(ctl.failed) as failed:
            ctl.export(fmt(key), tmp_path / "gone" / name)
        assert "does not exist" in failed.args[0] and not ctl.busy
    assert list(tmp_path.iterdir()) == []  # no temporary file left behind


def test_images_of_the_whole_design_and_the_view(setup, qtbot, tmp_path):
    window, _doc, ctl = setup
    window.show()
    qtbot.waitExposed(window)
    whole = tmp_path / "whole.png"
    with qtbot.waitSignal(ctl.finished):
        ctl.export(fmt("image"), whole)
    img = QImage(str(whole))
    assert img.width() >= 1600 and img.height() > 100
    # not blank: the drawing has many colours, not just the white background
    colours = {img.pixel(x, y) for x in range(0, img.width(), 7) for y in range(0, img.height(), 7)}
    assert len(colours) > 20
    view = tmp_path / "view.svg"
    with qtbot.waitSignal(ctl.finished) as done:
        ctl.export(fmt("image", view_only=True), view)
    assert "current view" in done.args[0]
    assert ET.parse(view).getroot().tag.endswith("svg")


def test_pdf_report(setup, qtbot, tmp_path):
    _window, _doc, ctl = setup
    path = tmp_path / "report.pdf"
    with qtbot.waitSignal(ctl.finished) as done:
        ctl.export(fmt("report"), path)
    assert path.read_bytes().startswith(b"%PDF")
    pages = int(done.args[0].split(", ")[-1].split()[0])
    # a few pages a manager reads, with the topology, the decision and the cluster over
    # time; then the port maps of one leaf and one spine (the workbook has every switch)
    assert 2 <= pages <= 9


def test_install_puts_export_before_quit(qapp, qtbot, catalog):
    pytest.importorskip("designer.gui.project.document")
    from designer.gui.exports.actions import install
    from designer.gui.project.document import Document

    w = QMainWindow()
    qtbot.addWidget(w)
    w.doc = Document(catalog, w)
    file_menu = w.menuBar().addMenu("&File")
    file_menu.addAction("&Open…")
    file_menu.addAction("&Quit")
    ctl = install(w)
    texts = [a.text() for a in file_menu.actions()]
    assert texts.index("&Export") < texts.index("&Quit")
    labels = [a.text().replace("&", "") for a in ctl.menu.actions() if a.text()]
    assert labels[:3] == ["Bill of Materials…", "Cabling Plan…", "Design Report…"]


def test_cli_draws_png_and_svg(tmp_path):
    pytest.importorskip("designer.gui.canvas.scene")
    import subprocess
    import sys

    from designer.core.fileformat import save_project

    src = tmp_path / "d.fabric.json"
    save_project(generate(params_from_dict("dragonfly", {"a": 4, "p": 2, "h": 2})), src)
    for out in (tmp_path / "d.png", tmp_path / "d.svg"):
        done = subprocess.run([sys.executable, "-m", "designer", "export", "image", str(src),
                               "-o", str(out)], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert "picture of the whole design" in done.stdout
    assert QImage(str(tmp_path / "d.png")).width() >= 1600
    assert ET.parse(tmp_path / "d.svg").getroot().tag.endswith("svg")


def test_drawio_export_from_the_menu(setup, qtbot, tmp_path):
    _window, _doc, ctl = setup
    path = tmp_path / "design.drawio"
    assert ctl.default_path(fmt("drawio")).suffix == ".drawio"
    with qtbot.waitSignal(ctl.finished) as done:
        ctl.export(fmt("drawio"), path)
    assert "device groups" in done.args[0]
    root = ET.parse(path).getroot()
    assert root.tag == "mxfile" and root.find("diagram").get("name") == "Groups"
