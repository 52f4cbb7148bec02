"""The items of the gear catalog: switches, NICs, GPU servers and their scale-up domains,
optics and cables, scale-up switch trays, coolant distribution units, and gear profiles.

Pure pydantic models; the catalog that holds them and loads them from ``resources/catalog`` is
``designer.core.catalog``. Every figure carries its source and a confidence (H primary source,
M secondary, L weak), or says it is an assumption and why.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from designer.core.errors import CatalogError
from designer.core.text import Name, Notes, ShortText, check_name, check_notes

Confidence = Literal["H", "M", "L"]
# Link technology families: two ports can be linked only if they share one.
Tech = Literal["ib-ndr", "ib-xdr", "eth"]
TECH_LABELS: dict[str, str] = {
    "ib-ndr": "InfiniBand NDR",
    "ib-xdr": "InfiniBand XDR",
    "eth": "Ethernet",
}

GearId = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9._-]{0,63}$")]


def bounded(le: float, gt: float | None = None) -> Any:
    """A figure of gear: a real number (never a string that looks like one), finite, within
    what any real part has, so a typo cannot turn into an infinite total."""
    if gt is not None:
        return Field(gt=gt, le=le, allow_inf_nan=False, strict=True)
    return Field(ge=0, le=le, allow_inf_nan=False, strict=True)


# Upper bounds well past any real part: a price of a billion dollars, a megawatt, a millisecond
# per hop, a 100-unit rack space, 200 km of reach.
Price = Annotated[float, bounded(1e9)]
Watts = Annotated[float, bounded(1e6)]
LatencyNs = Annotated[float, bounded(1e6)]
RackUnits = Annotated[float, bounded(100)]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# The figures of an item a Figure can vouch for (what the catalog's sources check covers).
Covered = Literal["price_usd", "power_w", "latency_ns", "ports", "part_number", "other"]

# A manufacturer's orderable part number (NVIDIA's "OPN"): letters, digits and the marks part
# numbers use. A length left to the buyer is written with x (MCP4Y10-Nxxx: N001 is 1 m).
PartNumber = Annotated[str, Field(max_length=64, pattern=r"^$|^[A-Za-z0-9][A-Za-z0-9._/+#-]*$")]
NOT_KNOWN = "not known"


class Figure(_Frozen):
    """Where one figure of a gear item comes from.

    ``covers`` names the item's fields this figure stands behind; ``date`` is when the source
    said it (a price is only as good as its date); ``assumption`` marks a figure no source
    gives, in which case ``what`` carries the reasoning behind the number.
    """

    what: Annotated[str, Field(max_length=2000), AfterValidator(check_name)]
    source: Annotated[str, Field(max_length=2000), AfterValidator(check_notes)]
    confidence: Confidence
    covers: tuple[Covered, ...] = ()
    tech: Tech | None = None  # a latency figure of one technology only
    date: str = Field(default="", pattern=r"^$|^\d{4}(-\d{2}(-\d{2})?)?$")
    assumption: bool = False


class LatencyParts(_Frozen):
    """One end's latency split by where it is spent (ns): the NIC's own pipeline, the host
    side (PCIe doorbell, descriptor and data DMA, completion write) and the protocol stack
    (posting and polling in user-space verbs). Their sum is the mode's per-end latency."""

    nic_ns: LatencyNs
    host_ns: LatencyNs
    stack_ns: LatencyNs

    @property
    def total_ns(self) -> float:
        return self.nic_ns + self.host_ns + self.stack_ns

    def as_dict(self) -> dict[str, float]:
        return {"nic": self.nic_ns, "host_pcie": self.host_ns, "stack": self.stack_ns}


class PortMode(_Frozen):
    """One way of running a device's cages: ``ports`` ports of ``speed_gbps`` each."""

    ports: int = Field(gt=0, le=100_000, strict=True)
    speed_gbps: int = Field(gt=0, le=3200, strict=True)
    techs: tuple[Tech, ...] = Field(min_length=1)
    # NIC latency differs between InfiniBand and RoCE on the same silicon.
    latency_ns: LatencyNs | None = None
    latency_parts: LatencyParts | None = None

    @model_validator(mode="after")
    def _parts_add_up(self) -> PortMode:
        if self.latency_parts is not None:
            total = self.latency_parts.total_ns
            if self.latency_ns is None or abs(total - self.latency_ns) > 0.5:
                raise ValueError(f"latency_parts add up to {total:g} ns, latency_ns is "
                                 f"{self.latency_ns}")
        return self

    @property
    def label(self) -> str:
        return f"{self.ports} x {self.speed_gbps}G"


class GearBase(_Frozen):
    id: GearId
    name: Name
    vendor: ShortText = ""
    price_usd: Price
    power_w: Watts
    rack_units: RackUnits = 0
    # the manufacturer's orderable part number; a figure covering "part_number" gives its
    # source. Empty: not known (user catalogs and older items carry none)
    part_number: PartNumber = ""
    # power supplies and their inlet (C14 takes a C13 cord, C20 a C19 cord, busbar none);
    # 0 / "": derived from the power (designer.core.physical.power)
    psus: int = Field(default=0, ge=0, le=64, strict=True)
    psu_inlet: Literal["", "C14", "C20", "busbar"] = ""
    figures: tuple[Figure, ...] = Field(default=(), max_length=64)
    notes: Notes = ""

    @property
    def part_number_text(self) -> str:
        """The part number as a BOM shows it: the number, or "not known"."""
        return self.part_number or NOT_KNOWN

    def part_number_source(self) -> str:
        """Where the part number comes from, in one line ("" when there is none)."""
        f = self.figure_for("part_number")
        if f is None:
            return "no source given" if self.part_number else ""
        return f"{f.source} ({f.confidence})"

    def figure_for(self, field: str, tech: str | None = None) -> Figure | None:
        """The figure that covers ``field`` (price_usd, power_w, latency_ns), if any; for a
        latency, the one about ``tech`` first, then one about every technology."""
        hits = [f for f in self.figures if field in f.covers]
        for f in hits:
            if tech is not None and f.tech == tech:
                return f
        return next((f for f in hits if f.tech is None), None)


class Ported(GearBase):
    modes: tuple[PortMode, ...] = Field(min_length=1)
    latency_ns: LatencyNs

    def mode(self, speed_gbps: int | None = None) -> PortMode:
        """The port mode running at ``speed_gbps`` (the first mode when None)."""
        if speed_gbps is None:
            return self.modes[0]
        for m in self.modes:
            if m.speed_gbps == speed_gbps:
                return m
        speeds = ", ".join(f"{m.speed_gbps}G" for m in self.modes)
        raise CatalogError(f"{self.id} has no {speed_gbps}G port mode (it has {speeds})")

    def mode_for(self, speed_gbps: int, tech: str) -> PortMode | None:
        for m in self.modes:
            if m.speed_gbps == speed_gbps and tech in m.techs:
                return m
        return None

    def mode_of_tech(self, tech: str) -> PortMode | None:
        """The first mode running ``tech`` with a latency of its own."""
        for m in self.modes:
            if tech in m.techs and m.latency_ns is not None:
                return m
        return None

    def latency_for(self, tech: str | None = None) -> float:
        """Per-hop latency in ns, the mode's own figure for ``tech`` when it has one."""
        for m in self.modes:
            if (tech is None or tech in m.techs) and m.latency_ns is not None:
                return m.latency_ns
        return self.latency_ns

    @property
    def techs(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(t for m in self.modes for t in m.techs))


class SwitchSpec(Ported):
    kind: Literal["switch"] = "switch"
    cages: int = Field(gt=0, le=100_000, strict=True)
    modular: bool = False
    # co-packaged optics: the optical engines sit on the switch package, the front panel has
    # fibre (MPO) ports and no cage takes a transceiver; the light comes from
    # ``laser_modules`` field-replaceable external laser source modules (``laser_module``,
    # a catalog item) per switch, which the power and price of the switch do not include
    optics: Literal["pluggable", "cpo"] = "pluggable"
    laser_module: GearId | None = None
    laser_modules: int = Field(default=0, ge=0, le=4096, strict=True)

    @model_validator(mode="after")
    def _cages_divide_ports(self) -> SwitchSpec:
        for m in self.modes:
            if m.ports % self.cages:
                raise ValueError(f"{m.label} does not split evenly over {self.cages} cages")
        if self.optics == "pluggable" and (self.laser_module or self.laser_modules):
            raise ValueError("laser modules belong to co-packaged optics (optics: cpo)")
        if self.optics == "cpo" and bool(self.laser_module) != bool(self.laser_modules):
            raise ValueError("a co-packaged-optics switch names its laser_module and its "
                             "laser_modules count together")
        return self

    @property
    def cpo(self) -> bool:
        return self.optics == "cpo"

    def ports_per_cage(self, speed_gbps: int | None = None) -> int:
        return self.mode(speed_gbps).ports // self.cages


class NicSpec(Ported):
    kind: Literal["nic"] = "nic"

    def whole_port(self, tech: str) -> PortMode | None:
        """The mode of ``tech`` with the fewest, fastest ports: the physical port (one cage)
        the other modes break out (Thor Ultra's 1 x 800G, split 8 x 100G)."""
        modes = [m for m in self.modes if tech in m.techs]
        return min(modes, key=lambda m: (m.ports, -m.speed_gbps)) if modes else None

    def split_of(self, mode: PortMode) -> int:
        """How many of ``mode``'s ports share one physical port (1 for an unsplit mode)."""
        whole = self.whole_port(mode.techs[0])
        if whole is None or mode.ports % whole.ports:
            return 1
        return max(1, mode.ports // whole.ports)


class ScaleUp(_Frozen):
    """The scale-up domain a server's GPUs belong to: GPUs joined by NVLink, Infinity Fabric
    (xGMI) or UALink, which reach each other over it and never through the scale-out fabric.

    ``servers`` servers (compute trays) make one domain: 1 for an 8-GPU server whose domain is
    the server, 18 for an NVL72 rack of 4-GPU trays. A rack-scale domain is one rack: its
    ``switch_trays`` scale-up switch trays (``switch_tray``, a catalog item) and ``other_u``
    U of power shelves and management switches sit in it with the trays, and ``rack_kw`` is
    the rack's rated power, the floor plan's limit for it.
    """

    fabric: ShortText  # "NVLink 5", "Infinity Fabric (xGMI)", "UALink"
    servers: int = Field(default=1, ge=1, le=1024, strict=True)
    gbytes_s: Annotated[float, bounded(1e5, gt=0)]  # per GPU, one direction
    switch_tray: GearId | None = None
    switch_trays: int = Field(default=0, ge=0, le=1024, strict=True)  # per domain
    rack_kw: Annotated[float, bounded(1000, gt=0)] | None = None
    rack_u: int | None = Field(default=None, ge=1, le=60, strict=True)
    other_u: int = Field(default=0, ge=0, le=60, strict=True)
    # NVLink SHARP or an equivalent in-switch reduction inside the domain
    in_switch_reduction: bool = False

    @model_validator(mode="after")
    def _trays_named(self) -> ScaleUp:
        if self.switch_trays and not self.switch_tray:
            raise ValueError(f"{self.switch_trays} switch trays but no switch_tray item named")
        return self

    @property
    def rack_scale(self) -> bool:
        """One domain fills a rack of its own (several trays, or switch trays beside)."""
        return self.servers > 1 or self.switch_trays > 0


class ServerSpec(GearBase):
    kind: Literal["server"] = "server"
    gpus: int = Field(ge=0, le=1024, strict=True)  # 0 for appliances such as a UFM
    gpu_model: ShortText = ""
    nic: GearId
    nics: int = Field(gt=0, le=1024, strict=True)
    # NIC cages on the node (None: one cage per NIC port, as on PCIe cards). A DGX H100
    # reaches its 8 ConnectX-7 ports through 4 twin-port OSFP cages; the modules that fit a
    # cage serve as many ports as the cage has.
    cages: int | None = Field(default=None, gt=0, le=4096, strict=True)
    # the scale-up domain (None: the server is its own domain, its GPUs' datasheet figures)
    scale_up: ScaleUp | None = None
    cooling: Literal["air", "liquid"] = "air"

    def ports_per_cage(self, ports: int) -> int:
        """NIC ports behind one cage when the server has ``ports`` ports in all (1 when they
        do not fit the cages evenly: ``cage_fit`` says why)."""
        if not self.cages or ports % self.cages:
            return 1
        return ports // self.cages

    def cage_fit(self, ports: int) -> str | None:
        """Why ``ports`` NIC ports do not fit this server's cages evenly (None when they do)."""
        if self.cages and (ports % self.cages or ports < self.cages):
            return (f"{ports} NIC port(s) do not fit the {self.cages} cages of "
                    f"'{self.id}' evenly (each cage serves the same number of ports)")
        return None

    @property
    def domain_servers(self) -> int:
        """Servers (trays) in one scale-up domain."""
        return self.scale_up.servers if self.scale_up else 1

    @property
    def domain_gpus(self) -> int:
        return self.gpus * self.domain_servers

    @property
    def rack_scale(self) -> bool:
        return self.scale_up is not None and self.scale_up.rack_scale


class ScaleUpSwitchSpec(GearBase):
    """A scale-up switch tray (an NVLink switch tray: two NVLink switch chips). It carries no
    scale-out port; the design counts it per domain from its server's ``ScaleUp``."""

    kind: Literal["scale-up-switch"] = "scale-up-switch"
    fabric: ShortText
    chips: int = Field(default=1, ge=1, le=64, strict=True)
    ports: int = Field(default=0, ge=0, le=100_000, strict=True)  # scale-up ports


class CoolingSpec(GearBase):
    """A coolant distribution unit (CDU): moves the heat of liquid-cooled racks to the
    facility's water. ``capacity_kw`` is the heat one unit removes; ``footprint`` is where it
    stands (a rack position in the row, or inside the rack it serves)."""

    kind: Literal["cdu"] = "cdu"
    capacity_kw: Annotated[float, bounded(1e5, gt=0)]
    footprint: Literal["row", "in-rack"] = "row"


class MediumSpec(GearBase):
    """A cable, a transceiver or a fibre.

    ``medium_class`` is what a link's medium names (dac, acc, mmf, smf). ``links_per_item``
    is how many port-to-port links one item serves: a twin-port module or cable serves two.
    """

    kind: Literal["transceiver", "cable", "fiber"]
    medium_class: Literal["dac", "acc", "mmf", "smf"]
    techs: tuple[Tech, ...] = Field(min_length=1)
    link_speed_gbps: int = Field(gt=0, le=3200, strict=True)
    links_per_item: int = Field(default=1, ge=1, le=8, strict=True)
    reach_m: Annotated[float, bounded(200_000, gt=0)]
    # transceivers: the cage they plug into; cables: which two kinds of device they join.
    host: Literal["switch", "nic", "any"] = "any"
    joins: Literal["switch-switch", "switch-nic", "any"] = "any"
    # "" for parts every design may use; a name ("third-party") for parts only designs whose
    # gear profile opens that ecosystem use (third-party coded optics are bought with
    # merchant-silicon Ethernet, not with NVIDIA's InfiniBand or Spectrum-X)
    ecosystem: Annotated[str, Field(pattern=r"^$|^[a-z][a-z0-9-]{0,31}$")] = ""


class LaserSpec(GearBase):
    """An external laser source module of a co-packaged-optics switch: a field-replaceable
    unit on the front panel that feeds the switch's optical engines with light over fibre.
    ``ports_lit`` is how many switch ports one module lights (what its failure takes down when
    the switch has no spare laser); ``mtbf_h`` its mean time between failures in hours."""

    kind: Literal["laser"] = "laser"
    ports_lit: int = Field(gt=0, le=4096, strict=True)
    mtbf_h: Annotated[float, bounded(1e10, gt=0)]


GearItem = Annotated[
    SwitchSpec | NicSpec | ServerSpec | MediumSpec | ScaleUpSwitchSpec | CoolingSpec
    | LaserSpec,
    Field(discriminator="kind"),
]


class Profile(_Frozen):
    """A gear profile: the defaults a design is generated and converted with."""

    id: GearId
    name: str
    tech: Tech
    description: str = ""
    switch: GearId
    switch_speed_gbps: int
    nic: GearId
    nic_speed_gbps: int
    server: GearId
    planes: int = Field(default=1, ge=1, le=16)
    spine_switch: GearId | None = None
    # the transport its designs run (core/transport): None, the technology's usual one
    transport: str | None = Field(default=None, pattern=r"^[a-z][a-z0-9-]{0,31}$")
    # how design names mention this profile, the short form first: switching a design's gear
    # renames "..., InfiniBand NDR" to "..., RoCE 400G" (empty: the name alone)
    aliases: tuple[str, ...] = Field(default=(), max_length=16)
    # the media ecosystem its designs may buy from besides the common parts (MediumSpec)
    media_ecosystem: str = Field(default="", pattern=r"^$|^[a-z][a-z0-9-]{0,31}$")
    # the profile's NIC goes into every GPU server, the servers' own NICs aside: PCIe NICs
    # bought with the network, as multi-vendor Ethernet buys Broadcom or AMD NICs for
    # servers whatever NIC they are sold with
    nic_in_servers: bool = False

    @property
    def short_name(self) -> str:
        return self.aliases[0] if self.aliases else self.name

    def mentions(self) -> tuple[str, ...]:
        """Every way a design name may mention this profile, longest first."""
        return tuple(sorted({self.name, *self.aliases}, key=len, reverse=True))


