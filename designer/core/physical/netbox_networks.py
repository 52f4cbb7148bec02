"""The other networks (front-end, storage, out-of-band) in the NetBox import tables: their
switches and storage nodes as devices (in their racks where the floor plan placed them),
one device role per network and tier, their device types and manufacturers, and every
cable with the interfaces at its two ends.

Names, ports and cable labels are those of the networks' cabling plan
(``designer.core.writers.network_cabling``): a network device is named by its id, a GPU
server's port of a network by the network (``FE1``, ``ST1``, ``BMC``), a switch's
management port ``mgmt``. These cables have no length: they are not on the floor plan's
cable runs.
"""

from __future__ import annotations

from designer.core.catalog import Catalog
from designer.core.errors import DesignerError
from designer.core.model import Project
from designer.core.networks import NETWORK_LABELS
from designer.core.networks.gear import part
from designer.core.physical.floor import FloorPlan
from designer.core.writers.network_cabling import networks_cabling

TIER_LABELS = {"leaf": "leaf", "spine": "spine", "access": "access switch",
               "storage-node": "storage node"}
# one colour per network, the same for its tiers (NetBox colours are hex without '#')
NETWORK_COLORS = {"frontend": "2e7d32", "storage": "ef6c00", "oob": "6a1b9a"}
# NetBox InterfaceTypeChoices by the optic's form factor and the port's rate
_OPTIC_TYPES = {
    ("qsfp112", 400): "400gbase-x-qsfp112", ("qsfpdd", 400): "400gbase-x-qsfpdd",
    ("osfp", 400): "400gbase-x-osfp", ("osfp", 800): "800gbase-x-osfp",
    ("qsfpdd", 800): "800gbase-x-qsfpdd", ("qsfp56", 200): "200gbase-x-qsfp56",
    ("qsfp28", 100): "100gbase-x-qsfp28", ("sfp28", 25): "25gbase-x-sfp28",
    ("sfp+", 10): "10gbase-x-sfpp",
}
_RATE_TYPES = {1: "1000base-t", 10: "10gbase-x-sfpp", 25: "25gbase-x-sfp28",
               50: "50gbase-x-sfp56", 100: "100gbase-x-qsfp28", 200: "200gbase-x-qsfp56",
               400: "400gbase-x-osfp", 800: "800gbase-x-osfp"}


def role_name(kind: str, tier: str) -> str:
    return f"{NETWORK_LABELS[kind]} {TIER_LABELS[tier]}"


def interface_type(gbps: int, optic: str, cable: str) -> str:
    """NetBox's interface type of a port of these networks."""
    if not optic and cable.startswith("cat"):  # RJ45 copper
        return {1: "1000base-t", 10: "10gbase-t", 100: "100base-tx"}.get(gbps, "1000base-t")
    form = next((f for f in ("qsfp112", "qsfpdd", "qsfp56", "qsfp28", "osfp", "sfp28", "sfp+")
                 if optic.startswith(f)), "")
    return _OPTIC_TYPES.get((form, gbps)) or _RATE_TYPES.get(gbps, "other")


def cable_type(cable: str) -> str:
    """NetBox CableTypeChoices of a cable gear id (by its medium prefix)."""
    for prefix, kind in (("mmf", "mmf"), ("smf", "smf"), ("cat6a", "cat6a"), ("cat6", "cat6"),
                         ("cat5e", "cat5e"), ("dac", "dac-passive"), ("aoc", "aoc")):
        if cable.startswith(prefix):
            return kind
    return ""


def add_networks(t: dict[str, list[tuple]], project: Project, catalog: Catalog,
                 floor: FloorPlan | None, site: str, slug) -> None:
    """Append the networks' rows to the tables ``t`` (back-end rows already in)."""
    nets = project.networks or {}
    parts: dict[str, tuple[str, str, int]] = {}  # model -> (vendor, name, U)

    def gear(model: str) -> tuple[str, str, int]:
        if model not in parts:
            try:
                p = part(model, catalog)
                parts[model] = (p.vendor or "Generic", p.name,
                                max(1, int(-(-float(p.rack_units or 0) // 1))))
            except DesignerError:  # gear no catalog knows any more: named by its id
                parts[model] = ("Generic", model, 1)
        return parts[model]

    vendors = {row[0] for row in t["manufacturers"]}
    types = {row[2] for row in t["device_types"]}
    roles = {row[0] for row in t["device_roles"]}
    for kind, net in nets.items():
        for d in net.devices:
            vendor, name, ru = gear(d.model)
            if vendor not in vendors:
                vendors.add(vendor)
                t["manufacturers"].append((vendor, slug(vendor)))
            if slug(d.model) not in types:
                types.add(slug(d.model))
                t["device_types"].append((vendor, name, slug(d.model), ru, "true",
                                          f"catalog id {d.model}"))
            role = role_name(kind, d.tier)
            if role not in roles:
                roles.add(role)
                t["device_roles"].append((role, slug(role), NETWORK_COLORS[kind]))
            s = floor.placement.get(d.id) if floor is not None else None
            t["devices"].append((d.id, role, vendor, name, "planned", site,
                                 s.rack if s else "", s.u if s else "", "front" if s else ""))
    t["manufacturers"].sort()
    seen = {(row[0], row[1]) for row in t["interfaces"]}
    for cab, net in zip(networks_cabling(project, catalog), nets.values(), strict=True):
        for (label, an, _at, ap, zn, _zt, zp, gbps, a_opt, cable, z_opt, *_rest) in cab.cables:
            for dev, port, optic in ((an, ap, a_opt), (zn, zp, z_opt)):
                if (dev, port) not in seen:
                    seen.add((dev, port))
                    t["interfaces"].append((dev, port, interface_type(gbps, optic, cable),
                                            gbps * 1_000_000, NETWORK_LABELS[net.kind]))
            t["cables"].append((an, "dcim.interface", ap, zn, "dcim.interface", zp,
                                cable_type(cable), "planned", label, "", ""))
