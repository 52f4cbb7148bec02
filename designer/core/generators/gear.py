"""Resolve a generator's gear options (profile, switch, radix, server, planes) to catalog items."""

from __future__ import annotations

from dataclasses import dataclass, field

from designer.core.catalog import (
    TECH_LABELS,
    Catalog,
    GearItem,
    NicSpec,
    PortMode,
    Profile,
    ServerSpec,
    SwitchSpec,
)
from designer.core.errors import CatalogError, GeneratorError
from designer.core.generators.params import CommonParams

GENERIC_SERVER = "gpu-server-8"


@dataclass(frozen=True)
class SwitchChoice:
    spec: SwitchSpec
    speed_gbps: int

    @property
    def radix(self) -> int:
        return self.spec.mode(self.speed_gbps).ports

    @property
    def model(self) -> str:
        return self.spec.id


@dataclass(frozen=True)
class GearChoice:
    profile: Profile
    leaf: SwitchChoice
    upper: SwitchChoice  # spine and core tiers
    server: ServerSpec
    nic_id: str
    nic: NicSpec
    nic_mode: PortMode
    nics: int | None  # per-server NIC count when it differs from the catalog's
    planes: int
    added: tuple[GearItem, ...] = field(default=())  # generic gear the project must carry
    upper_forced: bool = False  # --spine-switch (or --radix) named the upper tiers' switch
    catalog: Catalog | None = field(default=None, compare=False, repr=False)
    notes: tuple[str, ...] = ()  # gear picked for the user, said in the plan

    @property
    def tech(self) -> str:
        return self.profile.tech

    @property
    def gpus_per_server(self) -> int:
        return self.server.gpus

    @property
    def endpoint_speed(self) -> int:
        return self.nic_mode.speed_gbps

    @property
    def ports_per_server(self) -> int:
        return (self.server.nics if self.nics is None else self.nics) * self.nic_mode.ports

    @property
    def endpoints_per_server(self) -> int:
        """NIC ports of one server in one plane: the fabric's endpoints (its rails)."""
        return self.ports_per_server // self.planes

    @property
    def domain_servers(self) -> int:
        """Servers (trays) in one scale-up domain: 18 for an NVL72 rack, else 1."""
        return self.server.domain_servers


def _switch_choice(spec: SwitchSpec, profile: Profile, what: str) -> SwitchChoice:
    tech = profile.tech
    if tech not in spec.techs:
        raise GeneratorError(
            f"{what} '{spec.id}' is {TECH_LABELS.get(spec.techs[0], spec.techs[0])}, but gear "
            f"profile '{profile.id}' is {TECH_LABELS[tech]}; pick a switch of that technology"
        )
    mode = spec.mode_for(profile.switch_speed_gbps, tech)
    if mode is None:
        # the switch runs the profile's technology at another speed only: take its fastest
        mode = max((m for m in spec.modes if tech in m.techs), key=lambda m: m.speed_gbps)
    return SwitchChoice(spec, mode.speed_gbps)


def generic_switch(ports: int, base: SwitchSpec, speed: int, tech: str) -> SwitchSpec:
    """A switch of ``ports`` ports priced and powered pro rata from ``base``."""
    base_mode = base.mode(speed)
    scale = ports / base_mode.ports
    per_cage = base.ports_per_cage(speed)
    cages = ports // per_cage if ports % per_cage == 0 else ports
    return SwitchSpec(
        id=f"generic-{tech}-{ports}x{speed}g",
        name=f"Generic {ports}-port {speed}G {TECH_LABELS[tech]} switch",
        vendor="generic",
        cages=cages,
        modes=(PortMode(ports=ports, speed_gbps=speed, techs=(tech,)),),
        latency_ns=base.latency_ns,
        power_w=round(base.power_w * scale, 1),
        rack_units=base.rack_units,
        price_usd=round(base.price_usd * scale, 2),
        figures=(),
        notes=f"Radix given by the user; price, power and latency scaled from {base.id}.",
    )


def larger_switches(catalog: Catalog, tech: str, speed: int, than: int) -> list[SwitchChoice]:
    """Catalog switches of ``tech`` with more than ``than`` ports at ``speed``, smallest (then
    cheapest) first: the candidates when a tier outgrows the chosen switch."""
    out = []
    for spec in catalog.of_kind("switch"):
        if not isinstance(spec, SwitchSpec):
            continue
        mode = spec.mode_for(speed, tech)
        if mode is not None and mode.ports > than:
            out.append(SwitchChoice(spec, speed))
    out.sort(key=lambda c: (c.radix, c.spec.price_usd, c.spec.id))
    return out


def switch_label(choice: SwitchChoice) -> str:
    kind = "modular chassis" if choice.spec.modular else "switch"
    return f"'{choice.model}' ({kind}, {choice.radix:,} x {choice.speed_gbps}G)"


def split_mode(nic: NicSpec, split: int, tech: str) -> PortMode:
    """The NIC's mode that splits each whole port into ``split`` ports of 1/split its speed
    (and lanes): Thor Ultra's 800G port as 8 x 100G. The catalog's modes are the breakouts
    the NIC supports, so a split it does not list is refused."""
    base = nic.whole_port(tech)
    if base is None:
        raise GeneratorError(f"NIC '{nic.id}' cannot run {TECH_LABELS[tech]}")
    speed, rest = divmod(base.speed_gbps, split)
    for m in nic.modes:
        if tech in m.techs and m.ports == base.ports * split and m.speed_gbps == speed \
                and not rest:
            return m
    have = ", ".join(m.label for m in nic.modes if tech in m.techs)
    raise GeneratorError(
        f"--plane-split {split}: NIC '{nic.id}' cannot split its {base.speed_gbps}G port into "
        f"{split} x {base.speed_gbps / split:g}G (its {TECH_LABELS[tech]} modes: {have}); pick "
        "a NIC that lists that breakout, such as thor-ultra (8 x 100G)")


def lanes_text(nic: NicSpec, split: int, tech: str) -> str:
    """'8 lanes a port, 1 lane of 100G per plane': lanes from the NIC's finest breakout."""
    base = nic.whole_port(tech)
    modes = [m for m in nic.modes if tech in m.techs]
    finest = max(modes, key=lambda m: m.ports)
    assert base is not None
    lanes = finest.ports // base.ports
    per = lanes // split
    return (f"{lanes} lanes of {finest.speed_gbps}G a port, {per} lane{'s' if per > 1 else ''} "
            "per plane")


def switch_at(spec: SwitchSpec, speed: int, tech: str, option: str,
              catalog: Catalog) -> SwitchChoice:
    """``spec`` run at its ``speed`` mode, or a clear refusal naming switches that have one."""
    if spec.mode_for(speed, tech) is not None:
        return SwitchChoice(spec, speed)
    others = [c.model for c in larger_switches(catalog, tech, speed, 0)][:4]
    modes = ", ".join(m.label for m in spec.modes if tech in m.techs)
    hint = f"; {option} {' or '.join(others)} can" if others else ""
    raise GeneratorError(
        f"switch '{spec.id}' has no {speed}G mode for the split NIC ports (it runs {modes})"
        f"{hint}")


def _server_for_planes(catalog: Catalog, profile: Profile, gpus: int, planes: int,
                       leaf_speed: int) -> tuple[ServerSpec, NicSpec, PortMode] | None:
    """The cheapest catalog GPU server whose own NICs give each of its ``gpus`` GPUs
    ``planes`` ports of the profile's technology (at most the leaf's speed)."""
    best = None
    for spec in catalog.of_kind("server"):
        if not isinstance(spec, ServerSpec) or spec.gpus != gpus or spec.gpus == 0:
            continue
        nic = catalog.nic(spec.nic)
        for mode in nic.modes:
            if profile.tech not in mode.techs or mode.speed_gbps > leaf_speed:
                continue
            ports = spec.nics * mode.ports
            if ports % gpus == 0 and ports // gpus == planes:
                key = (mode.speed_gbps != profile.nic_speed_gbps, spec.price_usd, spec.id)
                if best is None or key < best[0]:
                    best = (key, spec, nic, mode)
    return best[1:] if best else None


def _nic_for(params: CommonParams, catalog: Catalog, profile: Profile, server: ServerSpec,
             notes: list[str]) -> str:
    """The NIC the servers carry: ``--nic``; else the named server's own when it runs the
    profile's technology, else the profile's (said in the plan); else the profile's."""
    tech = profile.tech
    if params.nic:
        try:
            nic = catalog.nic(params.nic, "--nic")
        except CatalogError as exc:
            raise GeneratorError(str(exc)) from None
        if tech not in nic.techs:
            raise GeneratorError(
                f"--nic '{nic.id}' cannot run {TECH_LABELS[tech]} (gear profile "
                f"'{profile.id}'); pick a NIC of that technology")
        return nic.id
    if not params.server:
        return profile.nic
    own = catalog.nic(server.nic)
    if profile.nic_in_servers and server.nic != profile.nic:
        notes.append(
            f"NICs: '{server.id}' comes with {own.name}; gear profile '{profile.id}' puts its "
            f"{catalog.nic(profile.nic).name} in every server (--nic forces another)")
        return profile.nic
    if tech in own.techs or tech not in catalog.nic(profile.nic).techs:
        return server.nic
    notes.append(
        f"NICs: '{server.id}' comes with {own.name}, which cannot run {TECH_LABELS[tech]}; its "
        f"servers take the profile's {catalog.nic(profile.nic).name} instead (--nic forces one)")
    return profile.nic


def resolve_gear(params: CommonParams, catalog: Catalog,
                 default_gpus: int | None = None) -> GearChoice:
    try:
        profile = catalog.profile(params.gear)
    except CatalogError as exc:
        raise GeneratorError(str(exc)) from None
    added: list[GearItem] = []
    try:
        leaf_spec = catalog.switch(params.switch or profile.switch, "--switch")
        upper_spec = catalog.switch(
            params.spine_switch or params.switch or profile.spine_switch or profile.switch,
            "--spine-switch",
        )
    except CatalogError as exc:
        raise GeneratorError(str(exc)) from None
    leaf = _switch_choice(leaf_spec, profile, "switch")
    upper = _switch_choice(upper_spec, profile, "spine switch")
    if params.radix is not None:
        generic = generic_switch(params.radix, leaf.spec, leaf.speed_gbps, profile.tech)
        added.append(generic)
        leaf = SwitchChoice(generic, leaf.speed_gbps)
        if params.spine_switch is None:
            upper = leaf

    try:
        server = catalog.server(params.server or profile.server, "--server")
    except CatalogError as exc:
        raise GeneratorError(str(exc)) from None
    gpus = params.gpus_per_server or default_gpus or server.gpus
    if server.gpus == 0:
        raise GeneratorError(f"'{server.id}' is an appliance, not a GPU server")
    notes: list[str] = []
    nic_id = _nic_for(params, catalog, profile, server, notes)
    nic = catalog.nic(nic_id)
    nic_mode = nic.mode_for(profile.nic_speed_gbps, profile.tech) or next(
        (m for m in nic.modes if profile.tech in m.techs), None
    )
    if nic_mode is None:
        raise GeneratorError(
            f"NIC '{nic_id}' of server '{server.id}' cannot run {TECH_LABELS[profile.tech]}"
        )
    split = params.plane_split or 1
    if split > 1:
        nic_mode = split_mode(nic, split, profile.tech)
    nics: int | None = params.nics
    if server.gpus != gpus:
        if params.server and params.server != GENERIC_SERVER:
            raise GeneratorError(
                f"server '{server.id}' has {server.gpus} GPUs, not {gpus}; drop --server or "
                f"--gpus-per-server"
            )
        server = ServerSpec(
            id=f"gpu-server-{gpus}g",
            name=f"Generic {gpus}-GPU server",
            gpus=gpus,
            gpu_model=f"{gpus} x accelerator",
            nic=nic_id,
            nics=gpus,
            power_w=round(1250.0 * gpus, 1),
            rack_units=max(1, gpus),
            price_usd=31250.0 * gpus,
            notes="Made by the generator for --gpus-per-server; figures are estimates.",
        )
        added.append(server)
    ports_per_server = (server.nics if nics is None else nics) * nic_mode.ports
    if nics is not None:
        why = server.cage_fit(ports_per_server)
        if why:
            raise GeneratorError(f"--nics {nics}: {why}; give a NIC count that fills them")
    per_gpu = ports_per_server // server.gpus
    planes = params.planes or profile.planes
    if split > 1 and params.planes is None:
        planes = per_gpu  # every split port its own plane
        notes.append(f"planes: {per_gpu}, each NIC port split into {split} x "
                     f"{nic_mode.speed_gbps}G ({lanes_text(nic, split, profile.tech)}); "
                     "--planes sets it")
    if params.planes is None and per_gpu > planes and ports_per_server % server.gpus == 0:
        # a server with more NIC ports per GPU than the profile's planes (two 800G ports per
        # Rubin GPU): one plane per port, said in the plan
        notes.append(f"planes: {per_gpu}, one per NIC port of each GPU ('{server.id}' gives "
                     f"each GPU {per_gpu} x {nic_mode.speed_gbps}G); --planes sets it")
        planes = per_gpu
    shared = ports_per_server < server.gpus
    if shared:
        # fewer NIC ports than GPUs (8 GPUs on 4 NICs): GPUs share a NIC as NCCL pairs them
        if planes > 1:
            raise GeneratorError(
                f"'{server.id}' has {ports_per_server} NIC port(s) for {server.gpus} GPUs: GPUs "
                f"share NICs, so it runs one plane (--planes {planes} asked)")
        if server.gpus % ports_per_server:
            raise GeneratorError(
                f"'{server.id}' has {ports_per_server} NIC port(s) for {server.gpus} GPUs; "
                "each NIC must serve the same number of GPUs")
        notes.append(f"NICs: {ports_per_server} port(s) for {server.gpus} GPUs, "
                     f"{server.gpus // ports_per_server} GPUs to a NIC (NCCL's GPU-to-NIC "
                     "affinity); rails follow the NICs")
    elif ports_per_server % server.gpus:
        raise GeneratorError(
            f"server '{server.id}' has {ports_per_server} NIC ports for {server.gpus} GPUs; "
            "each GPU needs the same number"
        )
    if not shared and per_gpu < planes and params.server is None and params.nics is None \
            and not server.id.startswith("gpu-server"):
        # the profile's server has too few ports per GPU: take the profile technology's server
        # that has them (a ConnectX-8 server gives 2 x 400G per GPU for two RoCE planes)
        found = _server_for_planes(catalog, profile, server.gpus, planes, leaf.speed_gbps)
        if found is not None:
            old = server
            server, nic, nic_mode = found
            nic_id = server.nic
            per_gpu = planes
            notes.append(
                f"server: '{old.id}' has {ports_per_server // old.gpus} NIC port(s) per GPU, "
                f"{planes} planes need {planes}; using '{server.id}' ({nic.name}, "
                f"{nic_mode.ports * server.nics // server.gpus} x {nic_mode.speed_gbps}G per "
                f"GPU); --server forces one"
            )
    if not shared and per_gpu != planes:
        if server.id.startswith("gpu-server") and planes * server.gpus % nic_mode.ports == 0 \
                and params.nics is None:
            nics = planes * server.gpus // nic_mode.ports
        elif per_gpu > planes:
            raise GeneratorError(
                f"'{nic_id}' gives each GPU of '{server.id}' {per_gpu} ports of "
                f"{nic_mode.speed_gbps}G; use --planes {per_gpu} (one port per plane)"
            )
        else:
            raise GeneratorError(
                f"'{server.id}' has {per_gpu} NIC port(s) per GPU, but {planes} planes need "
                f"{planes}, and no {TECH_LABELS[profile.tech]} server in the catalog has "
                f"them; use --server {GENERIC_SERVER} (NICs added to fit) or fewer planes"
            )
    if split > 1:
        # the switches run the mode of the plane's speed (Tomahawk 6 as 1,024 x 100G)
        plane_speed = nic_mode.speed_gbps
        if params.radix is not None:
            switch_at(leaf_spec, plane_speed, profile.tech, "--switch", catalog)
            generic = generic_switch(params.radix, leaf_spec, plane_speed, profile.tech)
            added = [g for g in added if not g.id.startswith("generic-")] + [generic]
            leaf = SwitchChoice(generic, plane_speed)
        else:
            leaf = switch_at(leaf.spec, plane_speed, profile.tech, "--switch", catalog)
        if params.radix is not None and params.spine_switch is None:
            upper = leaf
        else:
            upper = switch_at(upper.spec, plane_speed, profile.tech, "--spine-switch", catalog)
    if nic_mode.speed_gbps > leaf.speed_gbps:
        raise GeneratorError(
            f"the NICs run at {nic_mode.speed_gbps}G but switch '{leaf.model}' ports run at "
            f"{leaf.speed_gbps}G"
        )
    forced = params.spine_switch is not None or params.radix is not None
    return GearChoice(
        profile, leaf, upper, server, nic_id, nic, nic_mode, nics, planes, tuple(added),
        upper_forced=forced, catalog=catalog, notes=tuple(notes),
    )
