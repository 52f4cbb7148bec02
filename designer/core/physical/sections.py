"""The optional BOM sections by name, and the ones a new design starts with.

A complete bill carries racks and cable management, power (PDUs and cords) and spares, each as
its own section in the totals. A new design (generated on the command line or in the window, a
bundled example, File > New) starts with these three on; a project saved before keeps what it
saved (no ``physical`` or a section off means off), so its totals do not move when opened.
"""

from __future__ import annotations

from collections.abc import Iterable

from designer.core.model import Project
from designer.core.physical.floor import BomExtras, Physical

# section name (command line, project JSON flag) -> BomExtras flag
SECTIONS = {
    "subnet-managers": "subnet_manager",
    "management": "management_network",
    "racks": "racks_and_pdus",
    "cable-management": "cable_management",
    "power-cords": "power_cords",
    "spares": "spares",
    "support": "support",
}
# what a new design's bill carries; ``cable-management`` rides with racks (on by default)
NEW_DESIGN = ("racks", "power-cords", "spares")
# the bill's one line when PDUs cannot follow the racks' power yet
NOTE_UNPLACED = ("Note: racks not placed, so the PDUs are not sized from each rack's power; "
                 "place them with 'designer floor --place' or the Floor panel")


def parse_sections(text: str) -> list[str]:
    """``racks,spares`` as names; ValueError naming the first that is no section."""
    names = [x.strip() for x in text.split(",") if x.strip()]
    bad = next((n for n in names if n not in SECTIONS), None)
    if bad or not names:
        raise ValueError(f"'{bad or text}' is no section (sections: {', '.join(SECTIONS)})")
    return names


def with_sections(project: Project, on: Iterable[str] = (),
                  off: Iterable[str] = ()) -> Project:
    """``project`` with the named sections switched (``off`` wins over ``on``)."""
    update = {SECTIONS[n]: True for n in on} | {SECTIONS[n]: False for n in off}
    if not update:
        return project
    phys = project.physical or Physical()
    x = BomExtras.model_validate(phys.extras.model_dump() | update)
    return project.evolve(physical=phys.model_copy(update={"extras": x}))


def for_new_design(project: Project, off: Iterable[str] = ()) -> Project:
    """A freshly made ``project`` with the new-design sections on, but those in ``off``."""
    off = tuple(off)
    return with_sections(project, on=[n for n in NEW_DESIGN if n not in off], off=off)


def new_physical() -> Physical:
    """The physical settings of a blank design (File > New)."""
    return for_new_design(Project()).physical or Physical()
