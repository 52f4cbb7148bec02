"""Switch a whole design to another gear profile (InfiniBand NDR/XDR, RoCE 400G/800G).

A generated design whose switch radix, plane count or server shape changes is generated again
from its recorded parameters with the new profile (a 64-port QM9700 tree and a 128-port
SN5600 tree have different switch counts). Otherwise every device is mapped to its counterpart
in place, so hand edits survive: switches take the profile's switch (generic switches keep
their port count), servers whose NICs cannot run the new technology take the profile's server,
appliances take the profile's NIC, and every link runs at the speed both ends now have.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from designer.core.catalog import (
    TECH_LABELS,
    Catalog,
    MediumSpec,
    PortMode,
    Profile,
    ServerSpec,
    SwitchSpec,
)
from designer.core.errors import CatalogError, FabricError, GeneratorError, PortsExhausted
from designer.core.generators import Plan, generate, params_from_dict, plan
from designer.core.generators.gear import generic_switch
from designer.core.links import MEDIA, LinkTable
from designer.core.model import Device, Fabric, GeneratorSpec, Project, Role
from designer.core.ports import check_ports_exist, port_layout
from designer.core.problems import device_table


@dataclass(frozen=True)
class Conversion:
    project: Project
    regenerated: bool
    notes: tuple[str, ...] = ()


def convert_profile(project: Project, target_id: str, catalog: Catalog) -> Conversion:
    """``project`` running gear profile ``target_id``; raises a FabricError when it cannot.
    A name that mentions the old profile mentions the new one instead."""
    cat = project.catalog(catalog)
    target = cat.profile(target_id)
    if target_id == project.profile:
        return Conversion(project, False, (f"the design already uses {target.name}",))
    done = _convert_generated(project, target, catalog) if project.generator is not None else None
    if done is None:
        done = _map_devices(project, target, cat)
    if done.project.transport is not None:
        # a transport chosen for the old gear gives way to the new profile's
        done = replace(done, project=done.project.evolve(transport=None))
    old = cat.profiles.get(project.profile)
    name = renamed_for(project.name, old, target) if old is not None else project.name
    if name == done.project.name:
        return done
    return replace(done, project=done.project.evolve(name=name))


def renamed_for(name: str, old: Profile, new: Profile) -> str:
    """``name`` with its mention of profile ``old`` (the longest that appears as whole words)
    replaced by ``new``'s name in the same register: the full name (as generated titles and
    the Gear box write it) by the full name, a short one by the short one; unchanged when it
    names no profile."""
    for phrase in old.mentions():
        m = re.search(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])", name)
        if m:
            said = new.name if phrase == old.name else new.short_name
            return name[:m.start()] + said + name[m.end():]
    return name


# generated designs ----------------------------------------------------------------------------
_TECH_SPECIFIC = ("switch", "spine_switch")


def _rail_plan(values: dict[str, Any], catalog: Catalog) -> Plan | None:
    try:
        return plan(params_from_dict("rail", values), catalog)
    except (GeneratorError, CatalogError):
        return None


def drawn_su(pl: Plan | None) -> int | None:
    """Servers in one SU of a planned rail design of 8-GPU-class servers (None for a
    rack-scale design, whose SU is counted in racks, or no plan)."""
    return pl.su_servers if pl is not None and pl.domain_servers == 1 and pl.su_servers \
        else None


def project_su(project: Project, catalog: Catalog) -> int | None:
    """The SU a generated rail design was drawn with (see ``drawn_su``)."""
    gen = project.generator
    if gen is None or gen.kind != "rail":
        return None
    return drawn_su(_rail_plan(dict(gen.params), catalog))


def _target_params(project: Project, target: Profile, catalog: Catalog) -> dict[str, Any] | None:
    assert project.generator is not None
    values = dict(project.generator.params)
    cat = project.catalog(catalog)
    sus: list[Any] = [values.get("servers_per_su")]
    gpus = 0
    if project.generator.kind == "rail" and not values.get("servers_per_su") \
            and not values.get("racks_per_su"):
        # the SU's default follows the leaf's radix: keep the one the design was drawn with
        # while the new leaves hold it, so a swap keeps the layout (Compare lays each
        # technology out again on its own); else the new gear's own SU
        pl = _rail_plan(values, cat)
        drawn = drawn_su(pl)
        if drawn:
            sus.insert(0, drawn)
        if pl is not None and values.get("sus") is not None and not values.get("servers"):
            gpus = pl.gpus  # the count to keep when the SU changes size
    values["gear"] = target.id
    for key in _TECH_SPECIFIC:
        values[key] = None
    # keep the chosen server when its NICs run the new technology, else the profile's server
    for su in dict.fromkeys(sus):
        for server in dict.fromkeys([values.get("server"), None]):
            trial = {**values, "server": server}
            if project.generator.kind == "rail":
                trial["servers_per_su"] = su
                if su is None and gpus:
                    # the new gear's own SU: as many SUs as hold the same GPUs, not as many
                    # SUs as before (an SU of 64 servers would double a design of 4 SUs of 32)
                    trial["sus"], trial["gpus"] = None, gpus
            try:
                plan(params_from_dict(project.generator.kind, trial), cat)
                return trial
            except GeneratorError:
                continue
    return None


def _shape(project: Project, catalog: Catalog, values: dict[str, Any]) -> tuple | None:
    assert project.generator is not None
    try:
        pl = plan(params_from_dict(project.generator.kind, values), project.catalog(catalog))
    except (GeneratorError, CatalogError):
        return None
    g = pl.gear
    assert g is not None
    return (g.leaf.radix, g.upper.radix, g.planes, g.gpus_per_server, pl.total_switches)


def _convert_generated(project: Project, target: Profile, catalog: Catalog) -> Conversion | None:
    assert project.generator is not None
    old_values = dict(project.generator.params)
    new_values = _target_params(project, target, catalog)
    if new_values is None:
        return None  # the recorded parameters cannot be built with this profile: map in place
    before, after = _shape(project, catalog, old_values), _shape(project, catalog, new_values)
    if before is not None and before == after:
        mapped = _map_devices(project, target, project.catalog(catalog))
        spec = GeneratorSpec(kind=project.generator.kind, params=new_values)
        return Conversion(
            mapped.project.model_copy(update={"generator": spec}), False, mapped.notes
        )
    notes = []
    if not _is_pristine(project, catalog, old_values):
        notes.append(
            "the design was edited after it was generated; it was generated again from its "
            "parameters, so those edits are not in the new design (undo brings them back)"
        )
    params = params_from_dict(project.generator.kind, new_values)
    cat = project.catalog(catalog)
    new = generate(params, cat, base=project)
    if before is not None and after is not None:
        notes.append(
            f"generated again: {before[4]:,} -> {after[4]:,} switches "
            f"({before[0]}- to {after[0]}-port leaves)"
        )
    return Conversion(new, True, tuple(notes))


def _is_pristine(project: Project, catalog: Catalog, values: dict[str, Any]) -> bool:
    """Whether the fabric is still exactly what its generator made."""
    assert project.generator is not None
    try:
        params = params_from_dict(project.generator.kind, values)
        fresh = generate(params, project.catalog(catalog)).fabric
    except (GeneratorError, CatalogError):
        return False
    mine = project.fabric
    return (
        len(fresh.devices) == len(mine.devices)
        and all(a == b for a, b in zip(fresh.devices, mine.devices, strict=True))
        and fresh.links == mine.links
    )


# mapping in place ----------------------------------------------------------------------------
def _map_switch(
    dev: Device,
    spec: SwitchSpec,
    source: Profile | None,
    target: Profile,
    cat: Catalog,
    added: dict,
):
    tech = target.tech
    profile_gear = source is not None and spec.id in (source.switch, source.spine_switch)
    if tech in spec.techs and not profile_gear:
        mode = spec.mode_for(target.switch_speed_gbps, tech)
        if mode is None:
            current = spec.mode(dev.port_speed_gbps)
            mode = (
                current
                if tech in current.techs
                else max((m for m in spec.modes if tech in m.techs), key=lambda m: m.speed_gbps)
            )
        return {"port_speed_gbps": mode.speed_gbps}
    if spec.vendor == "generic" or spec.id.startswith("generic-"):
        base = cat.switch(target.switch)
        ports = spec.mode(dev.port_speed_gbps).ports
        generic = generic_switch(ports, base, target.switch_speed_gbps, tech)
        added[generic.id] = generic
        return {"model": generic.id, "port_speed_gbps": target.switch_speed_gbps}
    upper = dev.role in (Role.SPINE, Role.CORE)
    model = (target.spine_switch or target.switch) if upper else target.switch
    return {"model": model, "port_speed_gbps": target.switch_speed_gbps}


def _map_server(
    dev: Device, spec: ServerSpec, source: Profile | None, target: Profile, cat: Catalog
) -> dict[str, Any]:
    tech = target.tech
    nic = cat.nic(dev.nic or spec.nic)
    mode = nic.mode_for(target.nic_speed_gbps, tech) or next(
        (m for m in nic.modes if tech in m.techs), None
    )
    profile_server = source is not None and spec.id == source.server and spec.gpus > 0
    if target.nic_in_servers and spec.gpus > 0 and not profile_server:
        # the profile's NIC goes into the server, whatever NIC it came with
        pnic = cat.nic(target.nic)
        pmode = pnic.mode_for(target.nic_speed_gbps, tech) or pnic.modes[0]
        return {"nic": None if spec.nic == target.nic else target.nic, "nics": None,
                "port_speed_gbps": _speed_field(pnic.modes[0], pmode)}
    if mode is not None and not profile_server:
        first = nic.modes[0]
        same = (mode.speed_gbps, mode.ports) == (first.speed_gbps, first.ports)
        return {"port_speed_gbps": None if same else mode.speed_gbps}
    if spec.gpus == 0:  # an appliance keeps its model and takes the profile's NIC
        pnic = cat.nic(target.nic)
        pmode = pnic.mode_for(target.nic_speed_gbps, tech) or pnic.modes[0]
        nic_field = None if target.nic == spec.nic else target.nic
        return {"nic": nic_field, "port_speed_gbps": _speed_field(pnic.modes[0], pmode)}
    pnic = cat.nic(target.nic)
    pmode = pnic.mode_for(target.nic_speed_gbps, tech) or pnic.modes[0]
    return {
        "model": target.server,
        "nic": None if cat.server(target.server).nic == target.nic else target.nic,
        "nics": None,
        "port_speed_gbps": _speed_field(pnic.modes[0], pmode),
    }


def _speed_field(first: PortMode, mode: PortMode) -> int | None:
    """A device's port_speed_gbps: None when the NIC's first mode is meant."""
    return (
        None
        if (mode.speed_gbps, mode.ports) == (first.speed_gbps, first.ports)
        else mode.speed_gbps
    )


def _map_devices(project: Project, target: Profile, cat: Catalog) -> Conversion:
    fabric = project.fabric
    source = cat.profiles.get(project.profile)
    added: dict[str, SwitchSpec] = {}
    devices: list[Device] = []
    cache: dict[tuple, dict[str, Any]] = {}
    for d in fabric.devices:
        key = (d.model, d.port_speed_gbps, d.nic, d.nics, d.role)
        update = cache.get(key)
        if update is None:
            spec = cat.get(d.model, f"device '{d.id}'")
            if isinstance(spec, SwitchSpec):
                update = _map_switch(d, spec, source, target, cat, added)
            elif isinstance(spec, ServerSpec):
                update = _map_server(d, spec, source, target, cat)
            else:
                raise FabricError(f"device '{d.id}' is a {spec.kind}, which has no ports")
            cache[key] = update
        devices.append(d.model_copy(update=update) if update else d)
    gear = {g.id: g for g in project.overrides.gear}
    gear.update(added)
    new_cat = cat.with_items(added.values()) if added else cat
    links, notes = _remap_server_ports(fabric, tuple(devices), cat, new_cat)
    mapped = Fabric.model_construct(devices=tuple(devices), links=links)
    links = _retune_links(mapped, new_cat, target)
    new_fabric = Fabric(devices=tuple(devices), links=links)
    try:
        check_ports_exist(new_fabric, new_cat)
    except FabricError as exc:
        raise PortsExhausted(
            f"cannot switch to {target.name}: {exc}; the new gear has fewer ports"
        ) from None
    overrides = project.overrides.model_copy(update={"gear": tuple(gear.values())})
    changed = sum(1 for a, b in zip(fabric.devices, devices, strict=True) if a is not b)
    notes.insert(0, f"{changed:,} device(s) mapped to {target.name} gear")
    out = project.model_copy(
        update={"profile": target.id, "fabric": new_fabric, "overrides": overrides}
    )
    return Conversion(out, False, tuple(notes))


def _remap_server_ports(
    fabric: Fabric, devices: tuple[Device, ...], old_cat: Catalog, new_cat: Catalog
) -> tuple[LinkTable, list[str]]:
    """Keep every GPU on its own ports when the ports per GPU change (one port per plane).

    GPU i of a server with P ports per GPU owns ports i*P+1 .. i*P+P; a cable on GPU i's lane
    l moves to the same GPU and lane under the new P, and is dropped when the lane is gone.
    """
    n = len(devices)
    old_p = np.zeros(n, np.int64)
    new_p = np.zeros(n, np.int64)
    cache: dict[tuple, tuple[int, int]] = {}
    for i, (old, new) in enumerate(zip(fabric.devices, devices, strict=True)):
        key = (old.model, old.port_speed_gbps, old.nic, old.nics, new.model, new.port_speed_gbps,
               new.nic, new.nics)  # fmt: skip
        pair = cache.get(key)
        if pair is None:
            pair = cache[key] = (
                port_layout(old, old_cat).per_gpu,
                port_layout(new, new_cat).per_gpu,
            )
        old_p[i], new_p[i] = pair
    changes = (old_p != new_p) & (old_p > 0) & (new_p > 0)
    links = fabric.links
    if not changes.any() or not len(links):
        return links, []
    touched = changes[links.a] | changes[links.b]
    keep = links.take(~touched)
    moved = links.take(touched)
    e = moved.expand()
    a_port = _lane_port(e["a_port"], e["a"], old_p, new_p, changes)
    b_port = _lane_port(e["b_port"], e["b"], old_p, new_p, changes)
    ok = (a_port > 0) & (b_port > 0)
    lost = int((~ok).sum())
    single = LinkTable(
        a=e["a"][ok],
        a_port=a_port[ok],
        b=e["b"][ok],
        b_port=b_port[ok],
        count=1,
        speed_gbps=e["speed_gbps"][ok],
        medium=e["medium"][ok],
        length_m=e["length_m"][ok],
    )
    notes = [f"server ports renumbered for {int(new_p[changes].max())} port(s) per GPU"]
    if lost:
        notes.append(f"{lost:,} cable(s) on GPU ports the new gear does not have were removed")
    return LinkTable.concat([keep, single]), notes


def _lane_port(port, dev, old_p, new_p, changes) -> np.ndarray:
    port = port.astype(np.int64)
    p_old, p_new = old_p[dev], new_p[dev]
    safe_old = np.maximum(p_old, 1)
    gpu, lane = (port - 1) // safe_old, (port - 1) % safe_old
    out = np.where(lane < p_new, gpu * np.maximum(p_new, 1) + lane + 1, 0)
    return np.where(changes[dev], out, port).astype(np.int32)


def _retune_links(fabric: Fabric, cat: Catalog, target: Profile) -> LinkTable:
    """Every link at the fastest speed both ends run; media the new tech lacks become auto."""
    links = fabric.links
    if not len(links):
        return links
    speed = device_table(fabric, cat).speed
    new_speed = np.minimum(speed[links.a], speed[links.b]).astype(np.int32)
    offered = {
        (m.medium_class, m.link_speed_gbps)
        for m in cat.of_kind("transceiver", "cable", "fiber")
        if isinstance(m, MediumSpec) and target.tech in m.techs
    }
    medium = links.medium.copy()
    for code, name in enumerate(MEDIA[1:], start=1):
        rows = medium == code
        if not rows.any():
            continue
        ok = np.isin(new_speed[rows], [s for c, s in offered if c == name])
        idx = np.flatnonzero(rows)[~ok]
        medium[idx] = 0
    return links.replace(slice(None), speed_gbps=new_speed, medium=medium)


def describe_target(profile: Profile) -> str:
    return f"{profile.name} ({TECH_LABELS.get(profile.tech, profile.tech)})"
