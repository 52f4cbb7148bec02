"""Questions the window asks the user. One function each, so tests can answer them."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox, QWidget

from designer.core.fileformat import SUFFIX

FILE_FILTER = f"Fabric projects (*{SUFFIX});;JSON files (*.json);;All files (*)"


def ask_open_path(parent: QWidget, start: str = "") -> str | None:
    path, _ = QFileDialog.getOpenFileName(parent, "Open design", start, FILE_FILTER)
    return path or None


def ask_save_path(parent: QWidget, suggested: str) -> str | None:
    path, _ = QFileDialog.getSaveFileName(parent, "Save design as", suggested, FILE_FILTER)
    if not path:
        return None
    if not path.endswith(".json"):
        path += SUFFIX
    return path


def show_error(parent: QWidget, title: str, text: str) -> None:
    QMessageBox.critical(parent, title, text)


def ask_save_changes(parent: QWidget, name: str) -> str:
    """ "save", "discard" or "cancel"."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle("Unsaved changes")
    box.setText(f"Save the changes to “{name}”?")
    box.setInformativeText("Your changes will be lost if you don't save them.")
    box.setStandardButtons(
        QMessageBox.StandardButton.Save
        | QMessageBox.StandardButton.Discard
        | QMessageBox.StandardButton.Cancel
    )
    box.setDefaultButton(QMessageBox.StandardButton.Save)
    answer = box.exec()
    return {
        QMessageBox.StandardButton.Save: "save",
        QMessageBox.StandardButton.Discard: "discard",
    }.get(QMessageBox.StandardButton(answer), "cancel")


def ask_recover(parent: QWidget, name: str, when: str, path: str | None) -> str:
    """ "recover", "discard" or "later" for a design left unsaved by a crash."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Question)
    box.setWindowTitle("Recover unsaved design")
    box.setText(f"Fabric Designer did not close properly. Recover “{name}”?")
    where = f" (from {Path(path).name})" if path else ""
    box.setInformativeText(f"An autosave of it{where} was made at {when}.")
    recover = box.addButton("Recover", QMessageBox.ButtonRole.AcceptRole)
    discard = box.addButton("Discard", QMessageBox.ButtonRole.DestructiveRole)
    box.addButton("Not now", QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(recover)
    box.exec()
    clicked = box.clickedButton()
    if clicked is recover:
        return "recover"
    if clicked is discard:
        return "discard"
    return "later"


def confirm(parent: QWidget, title: str, text: str) -> bool:
    answer = QMessageBox.question(parent, title, text)
    return answer == QMessageBox.StandardButton.Yes


def ask_text(parent: QWidget, title: str, label: str, text: str = "") -> str | None:
    value, ok = QInputDialog.getText(parent, title, label, text=text)
    return value if ok else None
