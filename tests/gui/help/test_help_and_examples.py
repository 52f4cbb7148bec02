"""File > Open Example lists every bundled project with its line and opens it; Help >
Documentation reads the shipped pages, follows a link to another page, and goes back."""

from __future__ import annotations

from PySide6.QtCore import QUrl

from designer.core.docs import docs_dir
from designer.core.examples import DESCRIPTIONS, examples
from tests.gui.helpers import WAIT_MS


def test_open_example_lists_each_project_with_its_line_and_opens_it(window, qtbot):
    menu = window.actions_.examples_menu
    menu.aboutToShow.emit()
    acts = [a for a in menu.actions() if a.data()]
    assert len(acts) == len(examples()) > 5
    first = acts[0]
    assert first.text().startswith("dgx-superpod-4su-ib-ndr")
    assert DESCRIPTIONS["dgx-superpod-4su-ib-ndr"] in first.text()
    assert menu in [a.menu() for a in window.actions_.menus["file"].actions()]
    first.trigger()
    qtbot.waitUntil(lambda: bool(window.doc.project.fabric.devices), timeout=WAIT_MS)
    assert "1,024 GPUs" in window.doc.project.name
    # an example is never saved over: the document knows it came from the bundled folder
    assert window.doc.path is None or window.doc.path.name.endswith(".fabric.json")


def test_documentation_opens_follows_links_and_goes_back(window, qtbot):
    help_menu = window.actions_.menus["help"]
    assert window.actions_.documentation in help_menu.actions()
    dlg = window.show_documentation()
    qtbot.addWidget(dlg)
    b = dlg.browser
    assert b.current == "index.md"
    titles = [dlg.toc.item(i).text().strip() for i in range(dlg.toc.count())]
    assert "Getting started" in titles and "The first hour" in titles
    # a relative link, as the pages write them, opens the page inside the dialog
    b.anchorClicked.emit(b.document().baseUrl().resolved(QUrl("getting-started.md")))
    assert b.current == "getting-started.md"
    assert "Getting started" in b.toPlainText()
    dlg.back.click()
    assert b.current == "index.md"
    dlg.fwd.click()
    assert b.current == "getting-started.md"
    # a page with the tool's own figures includes them, as the site does
    b.show_page("examples.md")
    assert "--8<--" not in b.toMarkdown() and (docs_dir() / "examples.md").is_file()
