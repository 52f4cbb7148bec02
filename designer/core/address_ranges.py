"""The address ranges and ASN base an Ethernet design's underlay draws from (saved in the
project as ``addressing``; None: these defaults).

Three IPv4 ranges that must not overlap (a collision is refused naming both ranges): switch
loopbacks (/32 each), switch-to-switch point-to-point /31s (RFC 3021) and the leaves' host
blocks (a routed /31 per server port). ASNs are private 4-byte numbers (RFC 6996,
4,200,000,000 to 4,294,967,294): the top tier of a plane at ``asn_base`` + plane, the middle
tier at ``asn_base`` + 100,000 + pod, every leaf at ``asn_base`` + 200,000 + switch
(RFC 7938, section 5.2.1).

The other networks (front-end, storage, out-of-band) each draw from one range of their own,
split in the same three parts (first quarter loopbacks, second quarter point-to-point /31s,
second half host blocks), and number their ASNs by the same rule from ``asn_base`` +
``NETWORK_ASN_STRIDE`` times the network's place (1, 2, 3).
"""

from __future__ import annotations

import ipaddress
from itertools import combinations

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

PRIVATE_ASN = (4_200_000_000, 4_294_967_294)  # RFC 6996, 4-byte
POD_OFFSET = 100_000
LEAF_OFFSET = 200_000
NETWORK_ASN_STRIDE = 10_000_000  # the back-end keeps asn_base .. asn_base + 9,999,999
NETWORK_RANGE_FIELDS = {"frontend": "front-end", "storage": "storage", "oob": "out-of-band"}


class AddressRanges(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    loopbacks: str = "10.255.0.0/16"
    p2p: str = "10.0.0.0/10"
    hosts: str = "10.64.0.0/10"
    # the other networks' ranges (a file without them takes these)
    frontend: str = "10.128.0.0/12"
    storage: str = "10.144.0.0/12"
    oob: str = "10.160.0.0/12"
    asn_base: int = Field(default=PRIVATE_ASN[0], ge=PRIVATE_ASN[0],
                          le=PRIVATE_ASN[1] - LEAF_OFFSET - 1)

    @field_validator("loopbacks", "p2p", "hosts", "frontend", "storage", "oob")
    @classmethod
    def _network(cls, value: str) -> str:
        try:
            net = ipaddress.IPv4Network(value, strict=True)
        except ValueError as exc:
            raise ValueError(f"'{value}' is not an IPv4 network with its prefix "
                             f"(10.255.0.0/16): {exc}") from None
        if net.prefixlen > 30:
            raise ValueError(f"{net} is too small for a range of addresses (at most /30)")
        return str(net)

    @model_validator(mode="after")
    def _apart(self) -> AddressRanges:
        for (na, a), (nb, b) in combinations(self.networks().items(), 2):
            if a.overlaps(b):
                raise ValueError(f"the {na} range {a} and the {nb} range {b} overlap: "
                                 "addresses would collide")
        return self

    def networks(self) -> dict[str, ipaddress.IPv4Network]:
        return {"loopback": ipaddress.IPv4Network(self.loopbacks),
                "point-to-point": ipaddress.IPv4Network(self.p2p),
                "host": ipaddress.IPv4Network(self.hosts)} | {
                    f"{label} network": ipaddress.IPv4Network(getattr(self, field))
                    for field, label in NETWORK_RANGE_FIELDS.items()}

    def network_parts(self, kind: str) -> dict[str, ipaddress.IPv4Network]:
        """The loopback, point-to-point and host parts of network ``kind``'s range."""
        net = ipaddress.IPv4Network(getattr(self, kind))
        quarters = list(net.subnets(prefixlen_diff=2))
        return {"loopback": quarters[0], "point-to-point": quarters[1],
                "host": list(net.subnets(prefixlen_diff=1))[1]}

    @property
    def asn_top(self) -> int:
        return self.asn_base

    @property
    def asn_pod(self) -> int:
        return self.asn_base + POD_OFFSET

    @property
    def asn_leaf(self) -> int:
        return self.asn_base + LEAF_OFFSET


DEFAULT_RANGES = AddressRanges()
