"""The routed underlay of an Ethernet design: names, ASNs and addresses of every switch port.

One plan feeds the switch configurations, the NIC summaries, the containerlab file and the
live check, so all of them agree. The plan follows RFC 7938 ("Use of BGP for Routing in
Large-Scale Data Centers"), section 5.2:

* every switch speaks eBGP to its neighbours over point-to-point /31 subnets (RFC 3021), one
  session per cable, so every cable is one equal-cost next hop;
* ASNs are private 4-byte numbers (RFC 6996): the top tier of a plane shares one ASN, the
  middle tier shares one ASN per pod (so a route never leaves a pod and comes back through
  it), and every leaf (and every dragonfly router) has its own;
* every switch has a /32 loopback; a leaf's server ports are routed /31s taken from one
  block per leaf, and the leaf announces the block as one aggregate.

Interface names follow SONiC's lane numbering, ``Ethernet<first lane>`` with eight lanes to a
cage, so a twin-port cage at 2 x 400G gives ``Ethernet0`` and ``Ethernet4``.
"""

from __future__ import annotations

import dataclasses
import functools
import ipaddress
from dataclasses import dataclass

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from designer.core.address_ranges import DEFAULT_RANGES, PRIVATE_ASN, AddressRanges
from designer.core.catalog import Catalog
from designer.core.errors import DesignerError
from designer.core.model import Project, Role
from designer.core.names import HOSTNAME, NameMap, map_names
from designer.core.problems import device_table

# the defaults (a project's ``addressing`` may move them: core/ethernet/ranges.py)
ASN_TOP = DEFAULT_RANGES.asn_top  # + plane: the top tier of each plane
ASN_POD = DEFAULT_RANGES.asn_pod  # + pod: the middle tier of each pod
ASN_LEAF = DEFAULT_RANGES.asn_leaf  # + switch: every leaf and router on its own
LOOPBACKS = ipaddress.ip_network(DEFAULT_RANGES.loopbacks)
FABRIC_P2P = ipaddress.ip_network(DEFAULT_RANGES.p2p)
HOST_BLOCKS = ipaddress.ip_network(DEFAULT_RANGES.hosts)
LANES_PER_CAGE = 8
TIER_OF = {Role.LEAF: 1, Role.ROUTER: 1, Role.SPINE: 2, Role.CORE: 3}
TYPE_OF = {1: "LeafRouter", 2: "SpineRouter", 3: "SpineRouter"}


class NotEthernet(DesignerError):
    """The design is not a routed Ethernet fabric, so its configs cannot be written."""


def ip(value: int) -> str:
    v = int(value)  # dotted quad without ipaddress objects: configs format 100,000s of them
    return f"{v >> 24}.{(v >> 16) & 255}.{(v >> 8) & 255}.{v & 255}"


def interface_name(port: int, per_cage: int) -> str:
    """SONiC's name of port ``port`` (from 1) on a switch with ``per_cage`` ports a cage."""
    per_cage = max(1, per_cage)
    lanes = max(1, LANES_PER_CAGE // per_cage)
    cage, sub = divmod(port - 1, per_cage)
    return f"Ethernet{cage * LANES_PER_CAGE + sub * lanes}"


@dataclass(frozen=True, eq=False)
class Underlay:
    """Per switch (index ``s`` into ``switch``) and per cable arrays of the routed fabric.

    Fabric cables (switch to switch) are ``a``/``b`` switch indices with device ports; the
    ``a`` end has the even address of its /31. Host cables are server to leaf.
    """

    project: Project
    switch: np.ndarray  # device index of each switch
    names: tuple[str, ...]  # hostname of each switch (its device name)
    tier: np.ndarray  # 1 leaf/router, 2 spine, 3 core
    plane: np.ndarray  # connected switch fabric it belongs to
    asn: np.ndarray  # int64
    loopback: np.ndarray  # uint32 address
    per_cage: np.ndarray  # of each switch
    ports: np.ndarray  # port count of each switch
    speed: np.ndarray  # port speed (Gb/s) of each switch
    a: np.ndarray
    a_port: np.ndarray
    b: np.ndarray
    b_port: np.ndarray
    p2p: np.ndarray  # uint32, the even address of each fabric cable's /31
    length_m: np.ndarray  # cable length (design's, or the analysis default)
    block: np.ndarray  # uint32 host block of each switch (0: none)
    block_bits: int  # host block size: 2**block_bits addresses
    h_server: np.ndarray  # device index of the server of each host cable
    h_port: np.ndarray  # server port
    h_leaf: np.ndarray  # switch index
    h_leaf_port: np.ndarray
    h_speed: np.ndarray
    # the name each switch and server takes in configs (FRR and SONiC hostnames, containerlab
    # nodes, file names): by device index, safe, unique and stated in plan.json (core/names)
    hostnames: NameMap | None = None
    host_of: dict[int, str] = dataclasses.field(default_factory=dict)

    @property
    def n(self) -> int:
        return int(self.switch.size)

    @property
    def block_prefix(self) -> int:
        return 32 - self.block_bits

    def iface(self, s: int, port: int) -> str:
        return interface_name(int(port), int(self.per_cage[s]))

    def host_addresses(self) -> tuple[np.ndarray, np.ndarray]:
        """(leaf side, server side) address of every host cable's /31."""
        return self._host_addresses

    @functools.cached_property
    def _host_addresses(self) -> tuple[np.ndarray, np.ndarray]:
        base = self.block[self.h_leaf] + 2 * (self.h_leaf_port.astype(np.uint32) - 1)
        return base.astype(np.uint32), (base + 1).astype(np.uint32)

    def adjacency(self) -> tuple[np.ndarray, np.ndarray]:
        """Both directions of every fabric cable: (from switch, to switch)."""
        return np.concatenate([self.a, self.b]), np.concatenate([self.b, self.a])

    def hostname(self, s: int) -> str:
        """The hostname of switch ``s`` in configs."""
        return self.host_of[int(self.switch[s])]

    def server_hostname(self, device: int) -> str:
        """The hostname of a server (by device index) in configs."""
        return self.host_of[int(device)]

    def leaves(self) -> np.ndarray:
        """Switches with servers (the ones that announce a host block)."""
        return np.flatnonzero(self.block > 0)


def _tiers(project: Project, sw: np.ndarray) -> np.ndarray:
    roles = [project.fabric.devices[i].role for i in sw.tolist()]
    return np.array([TIER_OF.get(r, 1) for r in roles], np.int64)


def profile_problem(project: Project, catalog: Catalog) -> str | None:
    """Why the design's gear profile rules out configs and the routed check (None: it does
    not); instant, for the window's menu. ``build_underlay`` checks every switch as well."""
    profile = catalog.profiles.get(project.profile)
    if profile is None or profile.tech == "eth":
        return None
    return (f"this is not an Ethernet design (gear profile '{project.profile}'); switch "
            "configs and the routed check are for RoCE designs (for InfiniBand use "
            "'designer check-ib')")


def build_underlay(project: Project, catalog: Catalog) -> Underlay:
    """The routed underlay of an Ethernet design (raises NotEthernet for InfiniBand)."""
    fabric = project.fabric
    profile = catalog.profiles.get(project.profile)
    table = device_table(fabric, catalog)
    techs = table.techs
    is_sw = table.is_switch.copy()
    sw = np.flatnonzero(is_sw)
    if not sw.size:
        raise NotEthernet("the design has no switches, so there is nothing to configure")
    eth = [("eth" in techs[i]) for i in sw.tolist()]
    if (profile is not None and profile.tech != "eth") or not all(eth):
        bad = next((fabric.devices[i] for i, e in zip(sw.tolist(), eth, strict=True) if not e),
                   fabric.devices[int(sw[0])])
        raise NotEthernet(
            f"this is not an Ethernet design (gear profile '{project.profile}', switch "
            f"'{bad.id}' is {bad.model}); switch configs and the routed check are for RoCE "
            "designs (for InfiniBand use 'designer check-ib')"
        )
    n_dev = len(fabric.devices)
    sidx = np.full(n_dev, -1, np.int64)
    sidx[sw] = np.arange(sw.size)
    e = fabric.links.expand()
    ea, eb = e["a"].astype(np.int64), e["b"].astype(np.int64)
    both = is_sw[ea] & is_sw[eb]
    # fabric cables: the lower tier at the a end, so a leaf always has the even address
    tier = _tiers(project, sw)
    a, ap = sidx[ea[both]], e["a_port"][both].astype(np.int64)
    b, bp = sidx[eb[both]], e["b_port"][both].astype(np.int64)
    flip = tier[a] > tier[b]
    a, b = np.where(flip, b, a), np.where(flip, a, b)
    ap, bp = np.where(flip, bp, ap), np.where(flip, ap, bp)
    order = np.lexsort((ap, a))
    a, ap, b, bp = a[order], ap[order], b[order], bp[order]
    lengths = e["length_m"][both][order].astype(float)
    default = {1: "leaf-spine", 2: "spine-core"}
    layer = np.minimum(tier[a], tier[b])
    for t, name in default.items():
        fill = np.isnan(lengths) & (layer == t)
        lengths[fill] = project.analysis.length_for(name)
    lengths[np.isnan(lengths)] = project.analysis.length_for("other")
    # host cables: server <-> switch
    one = is_sw[ea] ^ is_sw[eb]
    srv = np.where(is_sw[ea[one]], eb[one], ea[one])
    srv_port = np.where(is_sw[ea[one]], e["b_port"][one], e["a_port"][one]).astype(np.int64)
    leaf = sidx[np.where(is_sw[ea[one]], ea[one], eb[one])]
    leaf_port = np.where(is_sw[ea[one]], e["a_port"][one], e["b_port"][one]).astype(np.int64)
    h_speed = e["speed_gbps"][one].astype(np.int64)
    order = np.lexsort((leaf_port, leaf))
    srv, srv_port, leaf, leaf_port, h_speed = (
        x[order] for x in (srv, srv_port, leaf, leaf_port, h_speed)
    )

    # planes: connected parts of the switch graph
    n = sw.size
    g = coo_matrix((np.ones(a.size), (a, b)), shape=(n, n))
    _, plane = connected_components(g, directed=False)
    rng = project.addressing or DEFAULT_RANGES
    nets = rng.networks()
    loopbacks, fabric_p2p, host_blocks = (nets["loopback"], nets["point-to-point"],
                                          nets["host"])
    asn = asn_plan(tier, plane, a, b, rng)
    if int(asn.max()) > PRIVATE_ASN[1]:
        raise NotEthernet(f"{n:,} switches: the leaf ASNs from {rng.asn_leaf:,} run past the "
                          f"private 4-byte range's end ({PRIVATE_ASN[1]:,}); lower asn_base")

    if n >= loopbacks.num_addresses - 1:
        raise NotEthernet(f"{n:,} switches: more than the loopback range {loopbacks} holds "
                          f"({loopbacks.num_addresses - 2:,} addresses)")
    loop = np.uint32(int(loopbacks.network_address)) + np.arange(1, n + 1, dtype=np.uint32)
    if 2 * a.size > fabric_p2p.num_addresses:
        raise NotEthernet(f"{a.size:,} switch-to-switch cables: more than the point-to-point "
                          f"range {fabric_p2p} holds ({fabric_p2p.num_addresses // 2:,} /31s)")
    p2p = np.uint32(int(fabric_p2p.network_address)) + 2 * np.arange(a.size, dtype=np.uint32)
    ports = table.ports[sw]
    has_hosts = np.zeros(n, bool)
    has_hosts[leaf] = True
    top_port = int(ports[has_hosts].max()) if has_hosts.any() else 1
    bits = max(8, int(np.ceil(np.log2(2 * top_port))))
    need = int(has_hosts.sum()) << bits
    if need > host_blocks.num_addresses:
        raise NotEthernet(f"{int(has_hosts.sum()):,} leaves of /{32 - bits} host blocks: more "
                          f"than the host range {host_blocks} holds "
                          f"({host_blocks.num_addresses >> bits:,} blocks)")
    named = sw.tolist() + np.unique(srv).tolist()
    hostnames = map_names([(fabric.devices[i].id, fabric.devices[i].name) for i in named],
                          HOSTNAME)
    block = np.zeros(n, np.uint32)
    block[has_hosts] = np.uint32(int(host_blocks.network_address)) + (
        np.arange(int(has_hosts.sum()), dtype=np.uint32) << np.uint32(bits)
    )
    return Underlay(
        project=project,
        switch=sw,
        names=tuple(fabric.devices[i].name for i in sw.tolist()),
        tier=tier,
        plane=plane.astype(np.int64),
        asn=asn,
        loopback=loop,
        per_cage=table.per_cage[sw],
        ports=ports,
        speed=table.speed[sw],
        a=a,
        a_port=ap,
        b=b,
        b_port=bp,
        p2p=p2p,
        length_m=lengths,
        block=block,
        block_bits=bits,
        h_server=srv,
        h_port=srv_port,
        h_leaf=leaf,
        h_leaf_port=leaf_port,
        h_speed=h_speed,
        hostnames=hostnames,
        host_of=dict(zip(named, hostnames.mapped, strict=True)),
    )


def asn_plan(tier: np.ndarray, plane: np.ndarray, a: np.ndarray, b: np.ndarray,
              rng: AddressRanges = DEFAULT_RANGES) -> np.ndarray:
    """RFC 7938 5.2.1: the top tier of a plane shares an ASN, the middle tier one per pod,
    leaves (and the switches of a one-tier plane, e.g. dragonfly routers) one each."""
    n = tier.size
    asn = rng.asn_leaf + np.arange(n, dtype=np.int64)
    _, plane_code = np.unique(plane, return_inverse=True)
    top = np.zeros(n, np.int64)
    np.maximum.at(top, plane_code, tier)
    top_of = top[plane_code]
    is_top = (tier == top_of) & (top_of > 1)
    asn[is_top] = rng.asn_top + plane_code[is_top]
    middle = (tier > 1) & ~is_top
    if middle.any():
        # pods: parts of the graph below the top tier
        keep = ~is_top[a] & ~is_top[b]
        g = coo_matrix((np.ones(int(keep.sum())), (a[keep], b[keep])), shape=(n, n))
        _, pod = connected_components(g, directed=False)
        _, pod_code = np.unique(pod[middle], return_inverse=True)
        asn[middle] = rng.asn_pod + pod_code
    return asn
