"""An as-built fabric from whatever the user has: a project file, ``ibnetdiscover`` output,
or LLDP neighbour tables. It sits above the InfiniBand and Ethernet readers, which know
nothing of each other.
"""

from __future__ import annotations

from pathlib import Path

from designer.core.catalog import Catalog
from designer.core.errors import DesignerError
from designer.core.ethernet.lldp import looks_like_lldp, project_from_lldp
from designer.core.fileformat import load_project
from designer.core.infiniband.asbuilt import project_from_ib
from designer.core.infiniband.netfile import read_netfile
from designer.core.model import Project
from designer.core.safe_io import FileRefused, read_head


def load_as_built(path: str | Path, catalog: Catalog) -> Project:
    """A project file, or ``ibnetdiscover`` output, or LLDP neighbour tables (a folder of
    them, ``lldpcli -f json`` or SONiC ``show lldp table``) turned into a project (by its
    content)."""
    p = Path(path)
    if p.is_dir():
        return project_from_lldp([p], catalog)
    try:
        head = read_head(p, 4096, what="as-built file").lstrip()
    except FileRefused as exc:  # a FIFO or a device: refused before it is opened to read
        raise DesignerError(str(exc)) from None
    if looks_like_lldp(head):
        return project_from_lldp([p], catalog)
    if head.startswith(b"{"):
        return load_project(p, catalog)
    return project_from_ib(read_netfile(p), catalog, name=f"As-built {p.name}"[:200],
                           source=p.name)
