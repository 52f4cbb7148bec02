"""The addressing plan as a table: every address the design uses, with its device, interface,
prefix, ASN and far end; for InfiniBand, the node descriptions the subnet manager and the
as-built check name devices by.

Ethernet rows come from the same ``Underlay`` that ``export configs`` writes FRR and SONiC
from (``plan.build_underlay``), so the plan and the configs cannot disagree. Every address is
checked once more for uniqueness before it is written: a duplicate is refused naming the
address and the range it came from.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import numpy as np

from designer.core.address_ranges import DEFAULT_RANGES
from designer.core.catalog import Catalog
from designer.core.errors import DesignerError
from designer.core.ethernet.plan import Underlay, build_underlay, ip
from designer.core.model import Project
from designer.core.structured import yaml_text
from designer.core.writers.csv_writer import write_csv
from designer.core.writers.output import write_bytes

HEADER = ("Kind", "Device", "Role", "ASN", "Interface", "Address", "Prefix", "Peer device",
          "Peer interface", "Peer address", "Range")
IB_HEADER = ("Device", "Role", "Node description", "Port", "HCA node description")


class AddressCollision(DesignerError):
    """Two interfaces got the same address (a plan bug or overlapping ranges)."""


def ethernet_rows(u: Underlay) -> list[tuple]:
    """Loopbacks, then both ends of every switch-to-switch /31, then both ends of every host
    /31, in device order."""
    rng = u.project.addressing or DEFAULT_RANGES
    dev = u.project.fabric.devices
    role = [dev[int(i)].role.value for i in u.switch.tolist()]
    rows: list[tuple] = []
    for s in range(u.n):
        rows.append(("loopback", u.hostname(s), role[s], int(u.asn[s]), "Loopback0",
                     ip(int(u.loopback[s])), 32, "", "", "", rng.loopbacks))
    for k in range(int(u.a.size)):
        a, b = int(u.a[k]), int(u.b[k])
        ia, ib = u.iface(a, int(u.a_port[k])), u.iface(b, int(u.b_port[k]))
        lo, hi = ip(int(u.p2p[k])), ip(int(u.p2p[k]) + 1)
        rows.append(("p2p", u.hostname(a), role[a], int(u.asn[a]), ia, lo, 31,
                     u.hostname(b), ib, hi, rng.p2p))
        rows.append(("p2p", u.hostname(b), role[b], int(u.asn[b]), ib, hi, 31,
                     u.hostname(a), ia, lo, rng.p2p))
    leaf_side, server_side = u.host_addresses()
    for k in range(int(u.h_server.size)):
        s, srv = int(u.h_leaf[k]), int(u.h_server[k])
        li = u.iface(s, int(u.h_leaf_port[k]))
        nic = f"nic{int(u.h_port[k])}"
        la, sa = ip(int(leaf_side[k])), ip(int(server_side[k]))
        rows.append(("host-gateway", u.hostname(s), role[s], int(u.asn[s]), li, la, 31,
                     u.server_hostname(srv), nic, sa, rng.hosts))
        rows.append(("host", u.server_hostname(srv), dev[srv].role.value, "", nic, sa, 31,
                     u.hostname(s), li, la, rng.hosts))
    _check_unique(rows)
    return rows


def _check_unique(rows: list[tuple]) -> None:
    count = Counter(r[5] for r in rows)
    dup = [a for a, n in count.items() if n > 1]
    if dup:
        r = next(r for r in rows if r[5] == dup[0])
        raise AddressCollision(f"address {dup[0]} is given twice (range {r[10]}); "
                               f"{len(dup):,} address(es) collide")


def infiniband_rows(project: Project) -> list[tuple]:
    """Each device's node description, and each server NIC port's HCA description
    (``<host> mlx5_<k>``), as the subnet manager shows them and the as-built check reads."""
    from designer.core.infiniband.topology import node_descriptions

    names, _field = node_descriptions(project.fabric)
    links = project.fabric.links.expand()
    ports: dict[int, set[int]] = {}
    for d, p in zip(np.r_[links["a"], links["b"]].tolist(),
                    np.r_[links["a_port"], links["b_port"]].tolist(), strict=True):
        ports.setdefault(int(d), set()).add(int(p))
    rows = []
    for i, d in enumerate(project.fabric.devices):
        if d.role.is_switch:
            rows.append((d.name, d.role.value, names[i], "", ""))
            continue
        for p in sorted(ports.get(i, ())):
            rows.append((d.name, d.role.value, names[i], p, f"{names[i]} mlx5_{p - 1}"))
    return rows


def addressing_plan(project: Project, catalog: Catalog) -> tuple[str, list[tuple], dict]:
    """("ethernet" or "infiniband", rows, summary)."""
    profile = catalog.profiles.get(project.profile)
    if profile is not None and profile.tech != "eth":
        rows = infiniband_rows(project)
        return "infiniband", rows, {"devices": len({r[0] for r in rows}),
                                    "hca_ports": sum(1 for r in rows if r[4])}
    # an exhausted range or a non-Ethernet switch is refused here, naming it
    u = build_underlay(project, catalog)
    rows = ethernet_rows(u)
    rng = project.addressing or DEFAULT_RANGES
    return "ethernet", rows, {
        "switches": u.n, "asns": int(np.unique(u.asn).size), "addresses": len(rows),
        "ranges": {"loopbacks": rng.loopbacks, "p2p": rng.p2p, "hosts": rng.hosts,
                   "asn_base": rng.asn_base}}


def combined_plan(project: Project, catalog: Catalog
                  ) -> tuple[str, list[tuple], dict, dict[str, tuple[list[tuple], dict]]]:
    """The back-end's plan and each other network's (rows of HEADER), every IP address
    checked unique across all of them: (kind, back-end rows, summary, per network)."""
    from designer.core.networks.addressing import networks_plan

    kind, rows, summary = addressing_plan(project, catalog)
    nets = networks_plan(project) if project.networks else {}
    if nets:
        _check_unique((rows if kind == "ethernet" else [])
                      + [r for net_rows, _ in nets.values() for r in net_rows])
    return kind, rows, summary, nets


def write_addressing(project: Project, catalog: Catalog,
                     path: str | os.PathLike[str]) -> tuple[str, dict]:
    kind, rows, summary, nets = combined_plan(project, catalog)
    suffix = Path(path).suffix.lower()
    header = HEADER if kind == "ethernet" else IB_HEADER
    if nets:
        summary = summary | {"networks": {k: s for k, (_, s) in nets.items()}}
    if suffix == ".csv" and nets:
        # one table for every network; an InfiniBand back-end's node descriptions are
        # not IP rows, so they stay in the .yaml (and in a plan of the back-end alone)
        table = [(*r, "backend") for r in rows] if kind == "ethernet" else []
        table += [(*r, k) for k, (net_rows, _) in nets.items() for r in net_rows]
        write_csv(path, (*HEADER, "Network"), table)
    elif suffix == ".csv":
        write_csv(path, header, rows)
    else:
        keys = [h.lower().replace(" ", "_") for h in header]
        doc = {"fabric": kind, "scheme": (
            "eBGP per RFC 7938 (top tier one ASN a plane, middle tier one a pod, every leaf "
            "its own; private 4-byte ASNs, RFC 6996); /31 per cable (RFC 3021)"
            if kind == "ethernet" else
            "node descriptions: switch name; HCA '<host> mlx5_<port - 1>'"),
            "summary": {k: v for k, v in summary.items() if k != "networks"},
            "entries": [{k: v for k, v in zip(keys, r, strict=True) if v != ""}
                        for r in rows]}
        net_keys = [h.lower().replace(" ", "_") for h in HEADER]
        if nets:
            doc["networks"] = {k: {"summary": s, "entries": [
                {c: v for c, v in zip(net_keys, r, strict=True) if v != ""} for r in net_rows]}
                for k, (net_rows, s) in nets.items()}
        write_bytes(path, yaml_text(doc, sort_keys=False, allow_unicode=True,
                                    width=1000).encode("utf-8"))
    return kind, summary
