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
}
__getattr__ = lazy_names(__name__, globals(), _WHERE)

if TYPE_CHECKING:
    from designer.core.physical.edit import move_device
    from designer.core.physical.floor import BomExtras, FloorPlan, Geometry, Physical
    from designer.core.physical.lengths import Positions, length_distribution, rack_xy
    from designer.core.physical.racks import RackUsage, project_usage
    from designer.core.physical.spares import BASIS, CLASS_OF, parse_assignment
    from designer.core.physical.summary import floor_summary, with_floor

__all__ = [
    "BASIS",
    "CLASS_OF",
    "BomExtras",
    "FloorPlan",
    "Geometry",
    "Physical",
    "Positions",
    "RackUsage",
    "floor_summary",
    "length_distribution",
    "move_device",
    "parse_assignment",
    "project_usage",
    "rack_xy",
    "with_floor",
]
