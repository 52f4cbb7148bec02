"""Writers of the cabling plan: an xlsx workbook (the cables, and a summary by layer and part)
and a plain CSV with the same columns."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence

from designer.core.writers.cabling import MEDIUM_LABELS, CablingPlan
from designer.core.writers.csv_writer import write_csv
from designer.core.writers.network_cabling import CABLE_HEADER as NET_CABLE_HEADER
from designer.core.writers.network_cabling import NetworkCabling
from designer.core.writers.port_map import HEADER as PORT_HEADER
from designer.core.writers.port_map import PortMap
from designer.core.writers.xlsx_stream import (
    BOLD,
    BOLD_INT,
    MUTED,
    TITLE,
    StreamColumn,
    StreamSheet,
    write_workbook,
)

COLUMNS: tuple[StreamColumn, ...] = (
    StreamColumn("Cable label", 12),
    StreamColumn("A-Node Name", 22),
    StreamColumn("A-Type", 8),
    StreamColumn("A-Port", 8),
    StreamColumn("Z-Node Name", 22),
    StreamColumn("Z-Type", 8),
    StreamColumn("Z-Port", 8),
    StreamColumn("Speed (Gb/s)", 9, "int"),
    StreamColumn("Medium", 19),
    StreamColumn("A-side optic", 20),
    StreamColumn("Cable / fibre", 20),
    StreamColumn("Z-side optic", 20),
    StreamColumn("Length (m)", 9, "dec"),
    StreamColumn("Layer", 14),
    StreamColumn("Links", 6, "int"),
    StreamColumn("Note", 30),
    StreamColumn("A-side optic part", 18),
    StreamColumn("Cable / fibre part", 18),
    StreamColumn("Z-side optic part", 18),
)
SUMMARY_COLUMNS = (
    StreamColumn("Layer", 16),
    StreamColumn("Medium", 20),
    StreamColumn("A-side optic", 20),
    StreamColumn("Cable / fibre", 20),
    StreamColumn("Z-side optic", 20),
    StreamColumn("Cables", 10, "int"),
)


PORT_COLUMNS: tuple[StreamColumn, ...] = (
    StreamColumn("Switch", 22),
    StreamColumn("Port", 8),
    StreamColumn("Far device", 22),
    StreamColumn("Far port", 8),
    StreamColumn("Cable label", 12),
    StreamColumn("Layer", 14),
    StreamColumn("Speed (Gb/s)", 9, "int"),
    StreamColumn("Optic at this port", 20),
)


NET_COLUMNS: tuple[StreamColumn, ...] = (
    StreamColumn("Cable label", 12),
    StreamColumn("A-Node Name", 22),
    StreamColumn("A-Type", 8),
    StreamColumn("A-Port", 8),
    StreamColumn("Z-Node Name", 22),
    StreamColumn("Z-Type", 8),
    StreamColumn("Z-Port", 8),
    StreamColumn("Speed (Gb/s)", 9, "int"),
    StreamColumn("A-side optic", 20),
    StreamColumn("Cable / fibre", 20),
    StreamColumn("Z-side optic", 20),
    StreamColumn("Layer", 18),
    StreamColumn("A-side optic part", 18),
    StreamColumn("Cable / fibre part", 18),
    StreamColumn("Z-side optic part", 18),
)


def _network_sheets(nets: Sequence[NetworkCabling]) -> list[StreamSheet]:
    """A cables sheet and a port map sheet per other network."""
    assert tuple(c.header for c in NET_COLUMNS) == NET_CABLE_HEADER
    out = []
    for n in nets:
        out.append(StreamSheet(n.cables_sheet, NET_COLUMNS, n.cables, total=len(n.cables),
                               preamble=[(f"{n.label}: {len(n.cables):,} cables, one a link",
                                          MUTED)]))
        out.append(StreamSheet(n.ports_sheet, PORT_COLUMNS, n.ports, total=len(n.ports),
                               preamble=[(f"{n.label}: every switch port in front-panel "
                                          "order", MUTED)]))
    return out


def write_cabling_xlsx(plan: CablingPlan, path: str | os.PathLike[str], progress=None,
                       ports: PortMap | None = None,
                       networks: Sequence[NetworkCabling] = ()) -> None:
    """The Cables and Summary sheets, and with ``ports`` a Port map sheet: every switch port
    in front-panel order and what its cable reaches; with ``networks`` (the other networks of
    the cluster) their cables and port map, two sheets each."""
    assert tuple(c.header for c in COLUMNS) == plan.header
    cables = StreamSheet("Cables", COLUMNS, plan.rows(), total=plan.n)
    summary = StreamSheet(
        "Summary",
        SUMMARY_COLUMNS,
        plan.by_layer_and_part(),
        preamble=[
            (f"Cabling plan: {plan.project_name}", TITLE),
            (f"{plan.n:,} physical cables, one row each on the Cables sheet (a twin or "
             "splitter copper cable carries two links and names both lanes). Ports are named "
             "as the gear labels them: cage/lane on twin-port cages, NIC number on servers.",
             MUTED),
        ],
        footer=[[("Total", BOLD), (None, 0), (None, 0), (None, 0), (None, 0),
                 (plan.n, BOLD_INT)]],
        filter=False,
    )
    sheets = [cables, summary]
    if ports is not None:
        assert tuple(c.header for c in PORT_COLUMNS) == PORT_HEADER
        sheets.append(StreamSheet("Port map", PORT_COLUMNS, ports.rows(), total=ports.n))
    sheets += _network_sheets(networks)
    write_workbook(path, sheets, title=f"Cabling plan: {plan.project_name}",
                   progress=progress)


def network_medium(cable: str) -> str:
    """The medium of an other network's cable by its gear id, named as the back-end's rows
    name theirs (SR optics run on multimode fibre; management ports on RJ45 copper)."""
    fibre = next((m for m in ("mmf", "smf") if cable.startswith(m)), "")
    return MEDIUM_LABELS[fibre] if fibre else "RJ45 copper"


def network_p2p_rows(net: NetworkCabling) -> Iterator[tuple]:
    """``net``'s cables in the back-end's P2P columns: one link a cable, no length (these
    networks are not on the floor plan's cable runs), the network named in the note."""
    for (label, an, at, ap, zn, zt, zp, gbps, a_opt, cable, z_opt, layer, a_pn, c_pn,
         z_pn) in net.cables:
        yield (label, an, at, ap, zn, zt, zp, gbps, network_medium(cable), a_opt, cable,
               z_opt, "",
               layer, 1, net.label, a_pn, c_pn, z_pn)


def write_cabling_csv(plan: CablingPlan, path: str | os.PathLike[str],
                      networks: Sequence[NetworkCabling] = ()) -> None:
    """The P2P table; with ``networks`` their cables follow the back-end's in the same
    columns and a last ``Network`` column says whose each row is (without networks the
    file is as it always was)."""
    if not networks:
        write_csv(path, plan.header, plan.rows())
        return

    def rows() -> Iterator[tuple]:
        for r in plan.rows():
            yield (*r, "backend")
        for n in networks:
            for r in network_p2p_rows(n):
                yield (*r, n.kind)

    write_csv(path, (*plan.header, "Network"), rows())
