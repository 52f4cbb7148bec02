"""The floor plan as saved in a project: rows of racks, their geometry, where each device sits.

Plain pydantic models with no reference to the fabric (``designer.core.model`` holds a
``Physical`` in ``Project.physical``, so this module must not import the model). Placing devices
is ``placement.py``; measuring cables is ``lengths.py``; the optional BOM lines are
``extras.py``.

Units: metres and rack units (U). A rack's position on the floor follows from its row and its
place in the row: rows run along x, one after another along y, separated by an aisle. Cables
between racks run in overhead trays above the racks.

Default figures (estimates a user edits per project):

* racks 600 mm wide, 1,200 mm deep, 48U: the usual size of GPU racks (an 8U DGX needs the
  depth); one U is 44.45 mm (EIA-310);
* 44 kW per rack: four 10.2 kW DGX H100 systems fit, as in the DGX SuperPOD H100 reference
  architecture (32 nodes per scalable unit in eight compute racks of four);
* liquid-cooled racks 132 kW unless their system says (a GB300 NVL72 rack is rated 142 kW, a
  Vera Rubin NVL72 up to 230 kW); their heat goes to coolant distribution units (CDUs) that
  stand in the row, N+1;
* a row's power budget is optional (the DGX SuperPOD GB200 puts 1.2 MW under a scalable
  unit's row of 8 racks);
* 1.2 m aisles, trays 0.3 m above the rack tops;
* slack: 0.5 m inside a rack (to the side channel and back), 2 m between racks (a service loop
  at each end);
* sold lengths: the steps NVIDIA LinkX cables and fibres are ordered in (0.5 m steps to 3 m for
  copper, then 5, 7, 10 m ... for fibre); longer runs round up to whole 10 m.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from designer.core.physical.spares import DEFAULT_RULES, SpareRule

RackName = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:/+-]{0,63}$")]
Metres = Annotated[float, Field(ge=0, le=10_000, allow_inf_nan=False)]

SOLD_LENGTHS_M: tuple[float, ...] = (
    0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 7.0, 10.0, 12.0, 15.0, 20.0, 25.0, 30.0, 35.0,
    40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 100.0,
)


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class Geometry(_Frozen):
    """Sizes shared by every rack and the cable-routing rule (see the module docstring)."""

    rack_width_m: Metres = Field(default=0.6, gt=0)
    rack_depth_m: Metres = Field(default=1.2, gt=0)
    rack_u: int = Field(default=48, ge=1, le=60)
    u_height_m: Metres = Field(default=0.04445, gt=0)
    rack_base_m: Metres = 0.1  # floor to the bottom of U1
    rack_kw: float = Field(default=44.0, gt=0, le=1000)
    liquid_rack_kw: float = Field(default=132.0, gt=0, le=1000)
    row_kw: float | None = Field(default=None, gt=0, le=1_000_000)
    cdu: str = Field(default="cdu-inrow-1350", pattern=r"^[a-z0-9][a-z0-9._-]{0,63}$")
    cdu_spares: int = Field(default=1, ge=0, le=16)  # N+1 per row
    aisle_m: Metres = 1.2
    tray_above_rack_m: Metres = 0.3
    in_rack_slack_m: Metres = 0.5
    between_rack_slack_m: Metres = 2.0
    # U kept free at the top of every rack: the management switch and a patch panel
    reserved_u: int = Field(default=2, ge=0, le=20)
    racks_per_row: int = Field(default=16, ge=1, le=1000)
    sold_lengths_m: tuple[Annotated[float, Field(gt=0, le=10_000)], ...] = Field(
        default=SOLD_LENGTHS_M, min_length=1, max_length=200
    )

    @property
    def rack_height_m(self) -> float:
        return self.rack_base_m + self.rack_u * self.u_height_m

    @property
    def tray_height_m(self) -> float:
        return self.rack_height_m + self.tray_above_rack_m


class Rack(_Frozen):
    """One rack. ``u`` and ``kw`` override the geometry's figures for this rack. A ``cdu``
    position holds a coolant distribution unit instead of devices."""

    name: RackName
    kind: Literal["compute", "network", "cdu"] = "compute"
    u: int | None = Field(default=None, ge=1, le=60)
    kw: float | None = Field(default=None, gt=0, le=1000)
    cooling: Literal["air", "liquid"] = "air"


class Row(_Frozen):
    name: RackName
    racks: tuple[Rack, ...] = Field(default=(), max_length=10_000)
    kw: float | None = Field(default=None, gt=0, le=1_000_000)  # budget (None: the geometry's)


class Slot(_Frozen):
    """Where a device sits: its rack and lowest U (numbered from 1 at the bottom)."""

    rack: RackName
    u: int = Field(ge=1, le=60)


class FloorPlan(_Frozen):
    geometry: Geometry = Field(default_factory=Geometry)
    rows: tuple[Row, ...] = Field(default=(), max_length=10_000)
    placement: dict[str, Slot] = Field(default_factory=dict, max_length=2_000_000)

    @model_validator(mode="after")
    def _check(self) -> FloorPlan:
        names = [r.name for row in self.rows for r in row.racks]
        if len(set(names)) != len(names):
            seen: set[str] = set()
            dup = next(n for n in names if n in seen or seen.add(n))  # type: ignore[func-returns-value]
            raise ValueError(f"rack name '{dup}' is used twice")
        known = set(names)
        for dev, slot in self.placement.items():
            if slot.rack not in known:
                raise ValueError(f"device '{dev}' is placed in rack '{slot.rack}', "
                                 "which no row has")
        return self

    def racks(self) -> list[tuple[int, int, Rack]]:
        """(row index, place in row, rack) of every rack, row by row."""
        return [(i, j, r) for i, row in enumerate(self.rows) for j, r in enumerate(row.racks)]

    def rack_u(self, rack: Rack) -> int:
        return rack.u if rack.u is not None else self.geometry.rack_u

    def tray_height_m(self) -> float:
        """Height of the overhead trays: above the tallest rack of this floor (a rack taller
        than the geometry's default lifts them), never through one."""
        g = self.geometry
        tallest = max((self.rack_u(r) for _, _, r in self.racks()), default=g.rack_u)
        return g.rack_base_m + max(tallest, g.rack_u) * g.u_height_m + g.tray_above_rack_m

    def rack_kw(self, rack: Rack) -> float:
        if rack.kw is not None:
            return rack.kw
        return self.geometry.liquid_rack_kw if rack.cooling == "liquid" else self.geometry.rack_kw

    def row_kw(self, row: Row) -> float | None:
        """The row's power budget (None: no budget)."""
        return row.kw if row.kw is not None else self.geometry.row_kw

    def moved(self, device_id: str, slot: Slot | None) -> FloorPlan:
        """A copy with ``device_id`` in ``slot`` (None: taken off the floor)."""
        placement = dict(self.placement)
        if slot is None:
            placement.pop(device_id, None)
        else:
            if not any(r.name == slot.rack for row in self.rows for r in row.racks):
                raise ValueError(f"device '{device_id}' is placed in rack '{slot.rack}', "
                                 "which no row has")
            placement[device_id] = slot
        # the other slots were checked when this plan was made: no need to validate again
        return self.model_copy(update={"placement": placement})


class BomExtras(_Frozen):
    """The optional lines of a complete bill of materials, each with its own switch.

    Prices are estimates (no public list prices exist); replace them with quotes. Sources:
    UFM appliance and subnet manager per the DGX SuperPOD H100 reference architecture (two UFM
    appliances, active and standby, for the InfiniBand compute fabric); one out-of-band
    management switch per rack with a copper cable to every device (DGX SuperPOD management
    network); support as a % of the hardware price per year, 10-20% typical.
    """

    subnet_manager: bool = False  # InfiniBand only: UFM appliances (active + standby)
    subnet_managers: int = Field(default=2, ge=1, le=16)
    subnet_manager_usd: float = Field(default=30_000.0, ge=0, le=1e9)
    management_network: bool = False  # one 1 GbE switch per rack and its cables
    management_switch_usd: float = Field(default=6_000.0, ge=0, le=1e9)
    management_switch_w: float = Field(default=80.0, ge=0, le=1e5)
    management_cable_usd: float = Field(default=8.0, ge=0, le=1e6)
    racks_and_pdus: bool = False
    rack_usd: float = Field(default=2_500.0, ge=0, le=1e9)
    pdus_per_rack: int = Field(default=2, ge=0, le=16)
    pdu_usd: float = Field(default=1_800.0, ge=0, le=1e9)
    spares: bool = False
    # % of the quantity bought again as spares, per item class (rounded up)
    spares_pct: dict[str, Annotated[float, Field(ge=0, le=100)]] = Field(
        default_factory=lambda: {"switch": 2.0, "transceiver": 5.0, "cable": 5.0,
                                 "fibre": 5.0, "nic": 2.0},
        max_length=16,
    )
    support: bool = False
    years: int = Field(default=3, ge=1, le=10)
    # % of the hardware price per year, per vendor class
    support_pct: dict[str, Annotated[float, Field(ge=0, le=100)]] = Field(
        default_factory=lambda: {"switch": 15.0, "nic": 10.0, "appliance": 15.0},
        max_length=16,
    )

    # the spares policy per BOM category (designer.core.physical.spares); it wins over
    # ``spares_pct``, which files written before it keep using
    spares_rules: dict[str, SpareRule] = Field(
        default_factory=lambda: dict(DEFAULT_RULES), max_length=16)
    # power cords by connector, from each device's power supplies
    power_cords: bool = False
    cord_c13_usd: float = Field(default=12.0, ge=0, le=1e6)
    cord_c19_usd: float = Field(default=20.0, ge=0, le=1e6)
    # PDUs per rack from its power: continuous kW a PDU carries (None: ``pdus_per_rack``
    # a rack, as files written before kept) and its outlets of each kind
    pdu_kw: float | None = Field(default=17.7, gt=0, le=1000)
    pdu_c13_outlets: int = Field(default=24, ge=0, le=200)
    pdu_c19_outlets: int = Field(default=12, ge=0, le=200)
    # with racks: cable managers and blanking panels
    cable_management: bool = True
    vertical_manager_usd: float = Field(default=350.0, ge=0, le=1e6)
    horizontal_manager_usd: float = Field(default=60.0, ge=0, le=1e6)
    blanking_panel_usd: float = Field(default=6.0, ge=0, le=1e6)

    @model_validator(mode="before")
    @classmethod
    def _as_written_before(cls, raw):
        """A file written before these fields prices its spares, PDUs and rack lines as it
        did: percentages, a fixed PDU count, no cable management."""
        if isinstance(raw, dict) and "spares_pct" in raw:
            raw = dict(raw)
            raw.setdefault("spares_rules", {})
            raw.setdefault("pdu_kw", None)
            raw.setdefault("cable_management", False)
        return raw

    def spare_rule(self, category: str) -> SpareRule | None:
        if category in self.spares_rules:
            return self.spares_rules[category]
        pct = self.spares_pct.get(category, 0.0)
        return SpareRule(pct=pct) if pct else None

    @property
    def any(self) -> bool:
        return (self.subnet_manager or self.management_network or self.racks_and_pdus
                or self.spares or self.support or self.power_cords)


class Physical(_Frozen):
    """What the project saves about the physical build: the floor plan and the BOM extras."""

    floor: FloorPlan | None = None
    extras: BomExtras = Field(default_factory=BomExtras)
