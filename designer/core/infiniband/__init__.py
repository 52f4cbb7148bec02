"""A design as the InfiniBand management stack sees it.

``topology`` turns a project into switches and HCAs joined port to port (and names them as node
descriptions), ``netfile`` writes and reads the topology text that ``ibnetdiscover`` prints and
``ibsim`` loads, ``asbuilt`` builds a project from a discovered fabric, and ``diff`` compares a
plan with an as-built cable by cable (``designer.core.as_built`` reads any as-built source).
Nothing here runs a tool; ``designer.core.ibcheck`` does.
"""

from designer.core.infiniband.asbuilt import project_from_ib
from designer.core.infiniband.diff import CableDiff, diff_projects
from designer.core.infiniband.netfile import parse_netfile, read_netfile, write_netfile
from designer.core.infiniband.topology import (
    IbFabric,
    NotInfiniBand,
    ProjectIb,
    check_infiniband,
    ib_fabric_of,
)

__all__ = [
    "CableDiff",
    "IbFabric",
    "NotInfiniBand",
    "ProjectIb",
    "check_infiniband",
    "diff_projects",
    "ib_fabric_of",
    "parse_netfile",
    "project_from_ib",
    "read_netfile",
    "write_netfile",
]
