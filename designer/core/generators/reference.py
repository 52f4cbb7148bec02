"""Reference layouts: the scalable unit each gear profile is sized by, and the switch counts its
vendor publishes, so a generated plan can say which of its counts are published and which are
derived.

The rule every rail default follows: a scalable unit (SU) of 8-GPU servers fills each rail
leaf's down ports at 1:1, one server per down port (NVIDIA's DGX SuperPOD rule: 32 DGX on a
64-port QM9700, 72 on a 144-port Q3400, 64 on an SN5610 run as 128 x 400G); a rack-scale
system's SU is 8 racks (DGX SuperPOD GB200: 576 GPUs). Two tiers while the leaves of one plane
fit the ports of a spine, a core tier past that. Where a table has a row for the size, the
row's uniform striping is built (the B300 XDR RA's 4-SU row takes 18 spines where 16 have the
ports, so every leaf sends 4 links to each); elsewhere the balanced layout (``clos``) leaves no
spine or core port idle. The tables below are what the rule is checked against
(tests/core/generators/test_reference_layouts.py); a profile without a table is derived by
the same rule, and the plan says so.
"""

from __future__ import annotations

from dataclasses import dataclass

RACKS_PER_SU = 8  # DGX SuperPOD GB200 RA: an SU of 8 DGX GB200 NVL72 racks, 576 GPUs
RACKS_PER_SU_SOURCE = ("NVIDIA DGX SuperPOD GB200 reference architecture (an SU is 8 DGX "
                       "GB200 racks, 576 GPUs; up to 128 racks, 9,216 GPUs)")


@dataclass(frozen=True)
class Row:
    """One published row: switch counts over all planes for ``sus`` full SUs."""

    sus: int
    leaves: int
    spines: int
    cores: int = 0
    source: str = ""  # when the row comes from another table than its reference's

    def text(self) -> str:
        core = f", {self.cores} core" if self.cores else ""
        where = f" ({self.source})" if self.source else ""
        return f"{self.sus} SU: {self.leaves} leaf, {self.spines} spine{core}{where}"


@dataclass(frozen=True)
class Reference:
    """A vendor's reference design for a profile: the servers it is published for, its SU and
    its component table."""

    title: str
    source: str
    servers: tuple[str, ...]  # catalog server ids the table is for
    switch: str  # the leaf (and spine) switch of the table
    su: int  # servers per SU (8-GPU servers) or racks per SU (rack-scale systems)
    rows: tuple[Row, ...] = ()

    def row(self, sus: int) -> Row | None:
        return next((r for r in self.rows if r.sus == sus), None)


_B200 = Reference(
    title="DGX SuperPOD B200 (and H100) on Quantum-2 QM9700",
    source="NVIDIA DGX SuperPOD B200 reference architecture, 'Larger DGX SuperPOD component "
           "counts' (docs.nvidia.com/dgx-superpod/reference-architecture-scalable-"
           "infrastructure-b200); the H100 RA has the same SU and counts",
    servers=("dgx-h100", "dgx-b200"),
    switch="qm9700",
    su=32,
    rows=(Row(2, 16, 8),
          # 16 spines where 12 have the ports: every leaf sends 2 links to each
          Row(3, 24, 16, source="DGX SuperPOD H100 RA, Table 4"),
          Row(4, 32, 16), Row(8, 64, 32), Row(16, 128, 128, 64),
          Row(32, 256, 256, 128), Row(64, 512, 512, 256)),
)
# its 18-SU row lists 9,216 GPUs for 1,296 nodes: 10,368 GPUs, as its own cable counts say
_B300_XDR = Reference(
    title="DGX SuperPOD B300 on Quantum-X800 Q3400 (InfiniBand XDR)",
    source="NVIDIA DGX SuperPOD B300 XDR reference architecture, Table 3 'Example Compute "
           "Fabric Components' (docs.nvidia.com/dgx-superpod/reference-architecture/"
           "scalable-infrastructure-b300-xdr)",
    servers=("dgx-b300",),
    switch="q3400",
    su=72,
    rows=(Row(1, 8, 4), Row(2, 16, 8), Row(4, 32, 18), Row(8, 64, 36), Row(18, 144, 72)),
)
_B300_SPECTRUM = Reference(
    title="DGX SuperPOD B300 on Spectrum-4 (two 400G planes)",
    source="NVIDIA DGX SuperPOD B300 reference architecture (Spectrum-X), Table 3 'Larger DGX "
           "SuperPOD component counts' (docs.nvidia.com/dgx-superpod/reference-architecture/"
           "scalable-infrastructure-b300); counts over both planes",
    servers=("dgx-b300",),
    switch="sn5610",
    su=64,
    rows=(Row(1, 16, 8), Row(2, 32, 16), Row(4, 64, 32), Row(8, 128, 64), Row(16, 256, 128)),
)
_GB200 = Reference(
    title="DGX SuperPOD GB200 (NVL72 racks on Quantum-2 QM9700)",
    source=RACKS_PER_SU_SOURCE + "; the RA gives no switch counts, so they are derived",
    servers=("gb200-nvl72",),
    switch="qm9700",
    su=RACKS_PER_SU,
)

# profile id -> its reference; profiles missing here are derived by the rule above
REFERENCES: dict[str, Reference] = {
    "ib-ndr": _B200,
    "ib-xdr": _B300_XDR,
    "spectrum-x-800": _B300_SPECTRUM,
    "gb200-ib-ndr": _GB200,
}


def published_row(profile_id: str, *, server: str, leaf: str, upper: str, sus: int,
                  su: int, full: bool) -> Row | None:
    """The vendor's row for this design when it has one (same gear, SU and full SUs)."""
    ref = REFERENCES.get(profile_id)
    if (ref is None or server not in ref.servers or leaf != ref.switch or upper != ref.switch
            or su != ref.su or not full):
        return None
    return ref.row(sus)


def rule_text(rack_scale: bool, su: int, leaf_model: str, down: int) -> str:
    if rack_scale:
        return f"SU of {su} racks (the DGX SuperPOD's)"
    return (f"SU of {su} servers: one per down port of a rail leaf at 1:1 ({leaf_model}: "
            f"{down} down), the DGX SuperPOD's rule")


def layout_note(profile_id: str, *, server: str, leaf: str, upper: str, sus: int,
                full: bool, counts: tuple[int, int, int], rack_scale: bool, su: int,
                leaf_down: int, su_given: bool, balanced: str = "") -> str:
    """The plan's line saying whether its layout is published or derived, and from what."""
    ref = REFERENCES.get(profile_id)
    rule = rule_text(rack_scale, su, leaf, leaf_down)
    if su_given:
        rule = f"SU of {su} {'racks' if rack_scale else 'servers'} as given"
    if balanced:
        rule += f"; {balanced}"
    if ref is None or server not in ref.servers or leaf != ref.switch or upper != ref.switch:
        return f"layout: derived ({rule}); no published table for this gear"
    row = ref.row(sus) if full else None
    if row is not None and (row.leaves, row.spines, row.cores) == counts and su == ref.su:
        return f"layout: published, {ref.title}: {row.text()} ({ref.source})"
    have = ", ".join(str(r.sus) for r in ref.rows)
    tables = f"; it publishes {have} SUs" if have else ""
    why = "" if full else " (last SU partial)"
    return f"layout: derived{why} ({rule}); reference: {ref.title}{tables} ({ref.source})"
