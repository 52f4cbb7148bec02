"""BOM rows for the spreadsheet and the CSV, taken from the solver's Result unchanged.

The solver counts every item (switches, NICs, optics, cables) and prices it; the export only
groups its lines by category, keeping the solver's order, so what procurement receives is
exactly what the window shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from designer.core.catalog_items import NOT_KNOWN

if TYPE_CHECKING:
    from designer.core.solver.bom import BomLine

# the columns of a BOM line, in the CSV and on the workbook's BOM sheet
HEADER = ("Category", "Item", "Catalog id", "Quantity", "Unit price (USD)", "Line total (USD)",
          "Price source", "Vendor", "Part number", "Supplier SKU", "Lead time",
          "Part number source")


CATEGORY_LABELS = {
    "switch": "Switches",
    "laser": "Laser modules (co-packaged optics)",
    "nic": "NICs",
    "transceiver": "Transceivers",
    "cable": "Copper cables",
    "fibre": "Fibres",
    "appliance": "Appliances",
    "storage": "Storage nodes",
    "server": "GPU servers",
    "management": "Management",
    "racks": "Racks and cable management",
    "power": "Power distribution (PDUs, cords)",
    "spares": "Spares",
    "support": "Support",
}


def category_label(category: str) -> str:
    return CATEGORY_LABELS.get(category, category[:1].upper() + category[1:])


# the column a design with other networks adds after the order columns (A-L unchanged)
NETWORK_COLUMN = "Network"


@dataclass(frozen=True)
class BomSection:
    category: str
    lines: tuple[BomLine, ...]
    network: str = ""  # "" when the design has the back-end alone, else its network's name

    @property
    def label(self) -> str:
        if self.network in ("", "backend"):
            return category_label(self.category)
        from designer.core.networks import NETWORK_LABELS

        return f"{category_label(self.category)} · {NETWORK_LABELS.get(self.network, '')}"

    @property
    def total_usd(self) -> float:
        return sum(x.total_usd for x in self.lines)


@dataclass(frozen=True)
class BomTable:
    sections: tuple[BomSection, ...]
    total_usd: float
    gpus: int
    # GPU servers: listed for information, not in the network total (as the solver does)
    compute: tuple[BomLine, ...] = ()
    # the networks with sections of their own, back-end first ((): the back-end alone)
    networks: tuple[str, ...] = ()

    @property
    def header(self) -> tuple[str, ...]:
        return (*HEADER, NETWORK_COLUMN) if self.networks else HEADER

    def network_total(self, network: str) -> float:
        return sum(s.total_usd for s in self.sections if s.network == network)

    @property
    def lines(self) -> list[BomLine]:
        return [x for s in self.sections for x in s.lines]

    @property
    def per_gpu_usd(self) -> float:
        return self.total_usd / self.gpus if self.gpus else 0.0


def _by_category(lines, network: str = "") -> list[BomSection]:
    order: dict[str, list[BomLine]] = {}
    for x in lines:
        order.setdefault(x.category, []).append(x)
    return [BomSection(c, tuple(v), network) for c, v in order.items()]


def bom_table(result: Any, networks: dict[str, Any] | None = None) -> BomTable:
    """Group the Result's BOM lines (the solver's own) by category, first appearance order;
    with the other networks' results (``solve_networks``), the back-end's sections first,
    then each network's, every line and section marked with its network."""
    if not networks:
        return BomTable(tuple(_by_category(result.bom.lines)), float(result.bom.total_usd),
                        int(result.gpus), tuple(result.bom.compute_lines))
    sections = _by_category(result.bom.lines, "backend")
    for name, net in networks.items():
        sections += _by_category(net.lines, name)
    total = float(result.bom.total_usd) + sum(n.cost_usd for n in networks.values())
    return BomTable(tuple(sections), total, int(result.gpus), tuple(result.bom.compute_lines),
                    ("backend", *networks))


def csv_rows(table: BomTable) -> list[tuple]:
    return [(x.category, x.item, x.catalog_id, x.qty, x.unit_usd, x.total_usd,
             price_source_text(x), *order_cells(x), *((s.network,) if table.networks else ()))
            for s in table.sections for x in s.lines]


def order_cells(x: BomLine) -> tuple[str, str, str, str, str]:
    """What to order a line by: vendor, part number ("not known" for a catalog part without
    one, empty for a line that is no catalog part), supplier SKU, lead time and where the
    part number comes from."""
    part = x.part_number or (NOT_KNOWN if x.catalog_id or x.vendor else "")
    return (x.vendor, part, x.sku, x.lead_time, x.part_source)


def price_source_text(x: BomLine) -> str:
    """Where a line's unit price comes from, in one cell: the book, the project, the
    catalog's source (with its date), or the assumption it is."""
    date = f", {x.price_date}" if x.price_date and x.price_kind != "book" else ""
    if x.price_kind == "assumption":
        return f"assumption{date}"
    if x.price_kind == "project":
        return "set in this project"
    return f"{x.price_source}{date}"
