"""What ibnetdiscover would find on a fabric, by loading it in ibsim and discovering it.

Useful to rehearse an as-built comparison (``designer diff``) without hardware: simulate the
fabric as it was cabled, discover it with the real tool, compare with the plan.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from designer.core.ibcheck.sim import IbSim, IbSimError, SimLimits
from designer.core.ibcheck.tools import IbTools, find_tools
from designer.core.infiniband.netfile import parse_netfile, write_netfile
from designer.core.infiniband.topology import SWITCH, IbFabric, components, merge, subfabric


def discover(
    ib: IbFabric, tools: IbTools | None = None, cancelled: Callable[[], bool] | None = None
) -> IbFabric:
    """The fabric as ibnetdiscover prints it (GUID node ids, descriptions, LIDs unset: no
    subnet manager ran), one ibsim per connected part."""
    tools = tools or find_tools()
    found: list[IbFabric] = []
    folder = Path(tempfile.mkdtemp(prefix="designer-ibdiscover-"))
    try:
        for k, nodes in enumerate(components(ib)):
            part = subfabric(ib, nodes)
            if not (part.kind != SWITCH).any() and part.n_nodes == 1:
                continue  # a lone switch: ibnetdiscover started elsewhere would not see it
            sub = folder / f"part{k + 1}"
            sub.mkdir()
            net = sub / "fabric.net"
            net.write_text(write_netfile(part))
            with IbSim(tools, sub, net, SimLimits.for_fabric(part), cancelled) as sim:
                run = sim.run([tools.ibnetdiscover], "ibnetdiscover", 120.0 + part.n_nodes / 20)
            if run.returncode != 0:
                raise IbSimError(f"ibnetdiscover failed: {run.stderr_tail()}")
            found.append(parse_netfile(run.stdout.read_text(errors="replace"), "ibnetdiscover"))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return merge(found)
