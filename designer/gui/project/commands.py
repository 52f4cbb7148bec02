"""One undo command per user action. A command holds the project before and after.

Projects are immutable and share unchanged devices and link columns, so keeping both is cheap.
Builders (``add_device`` ...) compute the new project with ``designer.core.editing`` first; a
rule the edit breaks raises a ``DesignerError`` before anything is pushed, so a refused
gesture leaves no trace in the history.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import replace

from PySide6.QtGui import QUndoCommand

from designer.core import editing
from designer.core.convert import Conversion, convert_profile
from designer.core.model import Project, Role
from designer.core.scaleup import add_system, is_rack_scale
from designer.gui.project.document import Document, Selection

MOVE_ID = 1001  # keyboard nudges of the same devices merge into one step


class ProjectCommand(QUndoCommand):
    """Replace the document's project; undo puts the previous one back, with its selection."""

    def __init__(
        self,
        document: Document,
        after: Project,
        text: str,
        selection: Selection | None = None,
    ) -> None:
        super().__init__(text)
        self.document = document
        self.before = document.project
        self.after = after
        self.selection_before = document.selection
        self.selection_after = selection

    def redo(self) -> None:
        self.document.set_project(self.after)
        if self.selection_after is not None:
            self.document.set_selection(self.selection_after)

    def undo(self) -> None:
        self.document.set_project(self.before)
        self.document.set_selection(self.selection_before)


class MoveDevices(ProjectCommand):
    def __init__(self, document: Document, after: Project, text: str, ids: frozenset[str],
                 nudge: bool = False) -> None:  # fmt: skip
        super().__init__(document, after, text)
        self.ids = ids
        self.nudge = nudge

    def id(self) -> int:
        return MOVE_ID if self.nudge else -1

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not isinstance(other, MoveDevices) or not other.nudge or other.ids != self.ids:
            return False
        self.after = other.after
        return True


# builders ---------------------------------------------------------------------------------------
def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def add_device(
    doc: Document, gear_id: str, x: float, y: float, role: Role | None = None
) -> ProjectCommand:
    name = doc.catalog.get(gear_id).name
    if role in (None, Role.GPU_SERVER) and is_rack_scale(doc.catalog, gear_id):
        # a rack-scale system comes whole: its trays in a rack of their own, one undo step
        after, ids = add_system(doc.project, doc.catalog, gear_id, x, y)
        return ProjectCommand(doc, after, f"Add {name.split(' (')[0]} rack",
                              Selection(devices=frozenset(ids)))
    after, new_id = editing.add_device(doc.project, doc.catalog, gear_id, x, y, role)
    return ProjectCommand(doc, after, f"Add {name}", Selection(devices=frozenset({new_id})))


def move_devices(
    doc: Document, positions: Mapping[str, tuple[float, float]], nudge: bool = False
) -> MoveDevices:
    after = editing.move_devices(doc.project, positions)
    text = f"Move {_plural(len(positions), 'device')}"
    return MoveDevices(doc, after, text, frozenset(positions), nudge)


def delete(
    doc: Document, device_ids: Collection[str], pairs: Collection[tuple[str, str]] = ()
) -> ProjectCommand:
    after = editing.delete(doc.project, device_ids, pairs)
    parts = []
    if device_ids:
        parts.append(_named(sorted(device_ids), "device"))
    if pairs:
        parts.append(_named([f"{a}–{b}" for a, b in sorted(pairs)], "link", prefix=True))
    return ProjectCommand(doc, after, "Delete " + " and ".join(parts), Selection())


def _named(names: list[str], word: str, prefix: bool = False, most: int = 3) -> str:
    """History text that says what went: 'leaf-3', 'leaf-3, leaf-4', '12 devices (leaf-1, …)'."""
    if len(names) <= most:
        return (f"{word} " if prefix else "") + ", ".join(names)
    return f"{_plural(len(names), word)} ({', '.join(names[:2])}, …)"


def connect(doc: Document, a: str, b: str, **options) -> ProjectCommand:
    after = editing.connect(doc.project, doc.catalog, a, b, **options)
    info = editing.bundle_info(after, None, a, b)
    before_count = (
        editing.bundle_info(doc.project, None, a, b).count
        if editing.pair_rows(doc.project.fabric, a, b).size
        else 0
    )
    n = info.count - before_count
    return ProjectCommand(
        doc, after, f"Link {a} to {b} ({n} x {info.speed_gbps}G)", Selection(link=(a, b))
    )


def edit_device(doc: Document, device_id: str, **changes) -> ProjectCommand:
    after = editing.update_device(doc.project, doc.catalog, device_id, **changes)
    fields = ", ".join(k.replace("_gbps", "").replace("_", " ") for k in changes)
    return ProjectCommand(doc, after, f"Change {fields} of {device_id}")


def edit_link(doc: Document, a: str, b: str, **changes) -> ProjectCommand:
    after = editing.update_bundle(doc.project, doc.catalog, a, b, **changes)
    fields = ", ".join(k.replace("_gbps", "").replace("_m", "") for k in changes)
    return ProjectCommand(doc, after, f"Change link {a}-{b}: {fields}")


def paste(
    doc: Document, clip: Project, dx: float, dy: float, text: str = "Paste"
) -> ProjectCommand:
    after, ids = editing.merge(doc.project, clip, dx, dy)
    label = f"{text} {_plural(len(ids), 'device')}"
    return ProjectCommand(doc, after, label, Selection(devices=frozenset(ids)))


class ReplaceDesign(ProjectCommand):
    """Generate > Replace: another design takes the document's place, so it is untitled (Save
    asks where, never overwriting the old design's file); undo brings back the old design with
    its name and file."""

    def __init__(self, document: Document, after: Project, text: str) -> None:
        super().__init__(document, after, text, Selection())
        self.path_before = document.path
        self.example_before = document.example

    def redo(self) -> None:
        super().redo()
        self.document.set_path(None)

    def undo(self) -> None:
        super().undo()
        self.document.set_path(self.path_before, example=self.example_before)


def generated(doc: Document, after: Project, text: str) -> ProjectCommand:
    return ProjectCommand(doc, after, text, Selection())


def replaced(doc: Document, after: Project, text: str) -> ReplaceDesign:
    return ReplaceDesign(doc, after, text)


def switch_profile(doc: Document, profile_id: str, relayout: bool = False
                   ) -> tuple[ProjectCommand, Conversion]:
    """The whole design on ``profile_id``'s gear. ``relayout``: when the switch as drawn leaves
    paid-for ports idle, the layout is planned again as Compare plans it (``best_design``: the
    same GPUs, bisection and oversubscription, the cheapest layout) and the plan is the
    conversion's first note."""
    conv = convert_profile(doc.project, profile_id, doc.base_catalog)
    name = doc.base_catalog.profile(profile_id).name
    if relayout and doc.project.generator is not None:
        from designer.core.analysis import best_design
        from designer.core.errors import DesignerError

        try:
            best = best_design(doc.project, profile_id, doc.base_catalog)
        except DesignerError as exc:
            conv = replace(conv, notes=(*conv.notes, f"layout kept: {exc}"))
        else:
            if best.replanned:
                conv = replace(conv, project=best.chosen.project, regenerated=True,
                               notes=(best.reason, *conv.notes))
                return ProjectCommand(doc, conv.project,
                                      f"Switch gear to {name}, laid out again"), conv
            conv = replace(conv, notes=(*conv.notes, best.reason))
    return ProjectCommand(doc, conv.project, f"Switch gear to {name}"), conv


def arrange_compact(doc: Document) -> MoveDevices:
    from designer.core.layout import arrange_compact as arrange

    positions = arrange(doc.project.fabric)
    after = editing.move_devices(doc.project, positions)
    return MoveDevices(doc, after, "Arrange compactly", frozenset(positions))


def rename_project(doc: Document, name: str) -> ProjectCommand:
    after = doc.project.evolve(name=name)
    return ProjectCommand(doc, after, f"Rename design to {name}")


def edit_notes(doc: Document, notes: str) -> ProjectCommand:
    after = doc.project.evolve(notes=notes)
    return ProjectCommand(doc, after, "Edit notes")


def set_price(doc: Document, gear_id: str, price: float | None) -> ProjectCommand:
    """Override the unit price of ``gear_id`` in this project (None: back to the catalog's)."""
    project = doc.project
    prices = dict(project.overrides.prices)
    name = doc.catalog.get(gear_id).name
    if price is None:
        prices.pop(gear_id, None)
        text = f"Reset price of {name}"
    else:
        prices[gear_id] = float(price)
        text = f"Set price of {name} to ${price:,.2f}"
    overrides = project.overrides.model_copy(update={"prices": prices})
    return ProjectCommand(doc, project.evolve(overrides=overrides), text)
