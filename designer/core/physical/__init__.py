"""The physical layer: racks and rows, where devices sit, real cable lengths, NetBox rows and
the optional lines of a complete bill of materials.

``floor`` holds the saved models (no fabric import, so the project model can hold them);
``placement`` makes a default plan for any fabric and checks racks; ``lengths`` measures every
cable; ``extras`` adds the optional BOM lines; ``netbox`` and ``cabling`` make export rows.
"""

from typing import TYPE_CHECKING

from designer.core.faces import lazy_names

# Loaded on first use (designer.core.faces): importing the package, or any module of it,
# stays as cheap as before.
_WHERE = {
    "move_device": "edit",
    "BomExtras": "floor",
    "FloorPlan": "floor",
    "Geometry": "floor",
    "Physical": "floor",
    "Positions": "lengths",
    "length_distribution": "lengths",
    "rack_xy": "lengths",
    "RackUsage": "racks",
    "project_usage": "racks",
    "BASIS": "spares",
    "CLASS_OF": "spares",
    "parse_assignment": "spares",
    "floor_summary": "summary",
    "with_floor": "summary",
    "NEW_DESIGN": "sections",
    "NOTE_UNPLACED": "sections",
    "SECTIONS": "sections",
    "for_new_design": "sections",
    "new_physical": "sections",
    "parse_sections": "sections",
    "with_sections": "sections",
    "net_size": "network_racks",
    "network_loads": "network_racks",
    "place_networks": "network_racks",
}
__getattr__ = lazy_names(__name__, globals(), _WHERE)

if TYPE_CHECKING:
    from designer.core.physical.edit import move_device
    from designer.core.physical.floor import BomExtras, FloorPlan, Geometry, Physical
    from designer.core.physical.lengths import Positions, length_distribution, rack_xy
    from designer.core.physical.network_racks import net_size, network_loads, place_networks
    from designer.core.physical.racks import RackUsage, project_usage
    from designer.core.physical.sections import (
        NEW_DESIGN,
        NOTE_UNPLACED,
        SECTIONS,
        for_new_design,
        new_physical,
        parse_sections,
        with_sections,
    )
    from designer.core.physical.spares import BASIS, CLASS_OF, parse_assignment
    from designer.core.physical.summary import floor_summary, with_floor

__all__ = [
    "BASIS",
    "CLASS_OF",
    "NEW_DESIGN",
    "NOTE_UNPLACED",
    "SECTIONS",
    "BomExtras",
    "FloorPlan",
    "Geometry",
    "Physical",
    "Positions",
    "RackUsage",
    "floor_summary",
    "for_new_design",
    "length_distribution",
    "move_device",
    "net_size",
    "network_loads",
    "new_physical",
    "parse_assignment",
    "parse_sections",
    "place_networks",
    "project_usage",
    "rack_xy",
    "with_floor",
    "with_sections",
]
