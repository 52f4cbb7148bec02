"""The designs a comparison puts side by side, built in one place for the window, the command
line and sweeps: the design under other gear profiles, transports, oversubscriptions or
servers, each with its column label, how it was laid out and, when it cannot be built, why.

Compute is held constant: a profile's column keeps the design's servers (and so its GPUs)
unless other servers are asked for, and picks the NIC those servers take on that profile's
gear: the profile's NIC when the servers can drive it (it is no faster than their own NIC),
else their own NIC when it runs the profile's technology (a DGX H100 keeps its 400G
ConnectX-7 on an 800G Ethernet profile, one plane), else the column says why no NIC fits.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from designer.core.analysis.best import Target, best_design
from designer.core.analysis.workload import WorkloadError
from designer.core.catalog import Catalog
from designer.core.convert import convert_profile, project_su, renamed_for
from designer.core.errors import DesignerError
from designer.core.generators import generate, params_from_dict, regenerate
from designer.core.model import Project
from designer.core.ports import port_layout
from designer.core.solver import Result, solve
from designer.core.transport.choice import with_transport
from designer.core.transport.profiles import get_transport

MAX_COLUMNS = 6
PROFILE_LABELS = {"ib-ndr": "IB NDR", "ib-xdr": "IB XDR", "roce-400": "RoCE 400G",
                  "roce-800": "RoCE 800G", "spectrum-x-800": "Spectrum-X 800G",
                  "uec-800": "UEC 800G", "mv-roce-400": "Multi-vendor RoCE 400G"}
SIZE_FIELDS = {  # what sizes a generated design besides its GPU count: dropped for a rebuild
    "rail": ("sus", "servers", "servers_per_su", "racks_per_su", "reserve_leaf_ports"),
    "fat-tree": ("servers_per_leaf", "pod_gpus", "k_ary"),
}
TECH_NAMES = {"ib-ndr": "InfiniBand NDR", "ib-xdr": "InfiniBand XDR", "eth": "Ethernet"}

Kind = Literal["profile", "transport", "ratio", "server"]


@dataclass(frozen=True)
class Spec:
    """One column asked for: ``kind`` and its value; ``server``: the servers a profile's
    column is built on ("" for the design's own)."""

    kind: Kind
    value: str
    server: str = ""


@dataclass(frozen=True)
class Variant:
    label: str
    project: Project | None = field(default=None, repr=False)
    result: Result | None = field(default=None, repr=False)
    layout: str = ""  # how it was laid out, and why
    reason: str = ""  # why there is no design (project None)
    replanned: bool = False

    def item(self) -> tuple:
        """The (label, project, result, layout) ``compare`` takes, or (label, reason)."""
        if self.project is None or self.result is None:
            return (self.label, None, None, self.reason)
        return (self.label, self.project, self.result, self.layout)


def profile_label(profile: str, catalog: Catalog | None = None) -> str:
    if profile in PROFILE_LABELS:
        return PROFILE_LABELS[profile]
    try:
        return catalog.profile(profile).short_name if catalog is not None else profile
    except DesignerError:
        return profile


def server_name(catalog: Catalog, server: str) -> str:
    try:
        return catalog.get(server).name.split(" (")[0]
    except DesignerError:
        return server


def label_of(spec: Spec, catalog: Catalog) -> str:
    if spec.kind == "profile":
        head = profile_label(spec.value, catalog)
        return f"{head} on {server_name(catalog, spec.server)}" if spec.server else head
    if spec.kind == "transport":
        return get_transport(spec.value, "transports").short
    if spec.kind == "ratio":
        return f"{spec.value} oversubscribed"
    return f"on {server_name(catalog, spec.value)}"


def specs(project: Project, *, profiles=(), transports=(), ratios=(), servers=(),
          own_best: bool = False, room: int = MAX_COLUMNS) -> tuple[list[Spec], list[str]]:
    """The columns asked for, in order, and a sentence for each one there is no room for.
    With profiles, ``servers`` builds every profile on each of them (the servers are then
    the compared axis); without, the design is rebuilt on each beside it. ``own_best``: the
    design's own profile at its best too, if there is room (a verdict then weighs like with
    like whichever design is open)."""
    out: list[Spec] = []
    profiles = [p for p in dict.fromkeys(x.strip() for x in profiles) if p]
    if profiles:
        for s in (list(servers) or [""]):
            out += [Spec("profile", p, s) for p in profiles]
    else:
        out += [Spec("server", s) for s in servers]
    out += [Spec("transport", t) for t in transports]
    out += [Spec("ratio", r) for r in ratios]
    if own_best and len(out) < room and all(
            s.kind != "profile" or s.value != project.profile or s.server for s in out):
        out.insert(0, Spec("profile", project.profile))
    kept, skipped = out[:room], out[room:]
    return kept, [f"{s.kind} {s.value}" + (f" on {s.server}" if s.server else "")
                  + f": not compared, a comparison holds {MAX_COLUMNS} columns"
                  for s in skipped]


def design_server(project: Project, catalog: Catalog) -> str | None:
    """The server model most of the design's GPUs sit in."""
    count: dict[str, int] = {}
    for d in project.fabric.devices:
        if d.role.value == "gpu-server":
            count[d.model] = count.get(d.model, 0) + 1
    return max(count, key=lambda m: count[m]) if count else None


def design_gpus(project: Project, catalog: Catalog) -> int:
    total = 0
    seen: dict[str, int] = {}
    for d in project.fabric.devices:
        if d.role.value != "gpu-server":
            continue
        if d.model not in seen:
            try:
                seen[d.model] = port_layout(d, catalog).gpus
            except DesignerError:
                seen[d.model] = 0
        total += seen[d.model]
    return total


def _top_gbps(nic) -> int:
    """The most a NIC sends: its fastest mode's ports times speed."""
    return max((m.ports * m.speed_gbps for m in nic.modes), default=0)


def nic_for(profile_id: str, server_id: str, catalog: Catalog) -> tuple[str, str]:
    """(NIC id, note) the servers take on ``profile_id``'s gear; raises WorkloadError with the
    reason when none fits."""
    prof = catalog.profile(profile_id)
    spec = catalog.server(server_id, "servers")
    own, pnic = catalog.nic(spec.nic), catalog.nic(prof.nic)
    tech = prof.tech
    if tech in pnic.techs and _top_gbps(pnic) <= _top_gbps(own):
        return pnic.id, ("" if pnic.id == own.id else
                         f"NICs: {pnic.name} in place of {own.name}")
    if tech in own.techs:
        return own.id, (f"NICs: {server_name(catalog, spec.id)} keeps its {own.name} "
                        f"({_top_gbps(own)}G): the profile's {pnic.name} "
                        f"({_top_gbps(pnic)}G) is faster than these servers drive")
    raise WorkloadError(
        f"{server_name(catalog, spec.id)} cannot join {prof.name}: its {own.name} does not "
        f"run {TECH_NAMES.get(tech, tech)} and the profile's {pnic.name} "
        f"({_top_gbps(pnic)}G) is faster than its {_top_gbps(own)}G; --servers (Same GPUs "
        "on...) compares on other servers")


def on_servers(project: Project, profile: str, catalog: Catalog,
               server: str | None = None) -> tuple[Project, str]:
    """``project`` under gear ``profile`` on its own servers (or ``server``), as drawn: the
    generated design built again with the servers pinned, one plane when the servers have
    one NIC port per GPU; a drawn design mapped in place. Raises WorkloadError with the
    reason when the servers cannot run the profile's gear."""
    cat = project.catalog(catalog)
    srv = server or design_server(project, cat)
    if srv is None:
        raise WorkloadError("servers: the design has no GPU servers")
    gen = project.generator
    if gen is None or gen.kind not in SIZE_FIELDS:
        if server and server != design_server(project, cat):
            raise WorkloadError("servers: only a generated rail or fat-tree design can be "
                                "built again on other servers")
        conv = convert_profile(project, profile, catalog).project
        now = design_server(conv, cat)
        if now != srv:
            raise WorkloadError(
                f"{profile_label(profile, cat)}: switching this design (not a generated rail "
                f"or fat tree) maps its "
                f"{server_name(cat, srv)} to the profile's {server_name(cat, now or '')}, "
                "other GPUs; not compared (a generated rail or fat tree keeps its servers)")
        return conv, ""
    nic, note = nic_for(profile, srv, cat)
    values = dict(gen.params) | {
        "gear": profile, "switch": None, "spine_switch": None, "radix": None, "server": srv,
        "nic": None if nic == cat.server(srv).nic else nic, "nics": None, "planes": None}
    if gen.kind == "rail" and not server and values.get("servers_per_su") is None \
            and values.get("racks_per_su") is None:
        # as drawn: the SU the design has, not the one the new gear's leaves would default to
        drawn = project_su(project, cat)
        if drawn:
            values["servers_per_su"] = drawn
    if server:
        values["gpus_per_server"] = None  # the new servers' own
        # other servers: the same GPU count laid out at their sizes
        values |= {k: None for k in SIZE_FIELDS[gen.kind]} | {
            "gpus": design_gpus(project, cat)}
        if gen.kind == "rail":
            values["reserve_leaf_ports"] = 0
    notes = [note] if note else []
    sized = values | {k: None for k in SIZE_FIELDS[gen.kind]} | {
        "gpus": design_gpus(project, cat)} | ({"reserve_leaf_ports": 0}
                                              if gen.kind == "rail" else {})
    one = (f"one plane: {server_name(cat, srv)} has one NIC port per GPU where the profile "
           "runs more")
    own = "laid out at this gear's own sizes (the drawn sizes do not fit its switches)"
    first: DesignerError | None = None
    for vals, why in ((values, ()), (values | {"planes": 1}, (one,)), (sized, (own,)),
                      (sized | {"planes": 1}, (own, one))):
        try:
            built = generate(params_from_dict(gen.kind, vals), cat, base=project)
        except DesignerError as exc:
            first = first or exc
            continue
        notes += why
        break
    else:
        raise WorkloadError(f"{profile_label(profile, cat)} on {server_name(cat, srv)}: "
                            f"{first}")
    old = cat.profiles.get(project.profile)
    name = renamed_for(project.name, old, cat.profile(profile)) if old is not None \
        else project.name
    return built.evolve(transport=None, name=name), "; ".join(notes)


def _rebuilt(project: Project, catalog: Catalog) -> Project:
    """The generated design at its gear's own sizes for the same GPUs and servers."""
    gen = project.generator
    assert gen is not None
    changes: dict = {k: None for k in SIZE_FIELDS[gen.kind]}
    if gen.kind == "rail":
        changes["reserve_leaf_ports"] = 0
    changes["gpus"] = design_gpus(project, project.catalog(catalog))
    return regenerate(project, changes, catalog)


def profile_variant(project: Project, profile: str, catalog: Catalog, *,
                    server: str = "", target: Target | None = None, as_drawn: bool = False,
                    solver=None) -> Variant:
    """The column of ``project`` under ``profile`` on its servers (or ``server``), laid out as
    it would be bought unless ``as_drawn``; a Variant with the reason when it cannot be."""
    cat = project.catalog(catalog)
    label = label_of(Spec("profile", profile, server), cat)
    run = solver or (lambda p: solve(p, catalog=p.catalog(catalog)))
    try:
        if profile == project.profile and not server:
            drawn, note = project, ""
        else:
            drawn, note = on_servers(project, profile, catalog, server or None)
    except DesignerError as exc:
        return Variant(label, reason=str(exc))
    try:
        best = best_design(drawn, profile, catalog, target=target, as_drawn=as_drawn,
                           solver=run)
    except DesignerError as exc:
        if drawn.generator is None or drawn.generator.kind not in SIZE_FIELDS:
            return Variant(label, reason=str(exc))
        try:
            p = _rebuilt(drawn, catalog)
        except DesignerError as exc2:
            return Variant(label, reason=f"{exc}; laid out at the gear's sizes: {exc2}")
        why = f"laid out again for this gear ({exc})"
        return Variant(label, p, run(p), "; ".join(x for x in (note, why) if x), replanned=True)
    layout = "; ".join(x for x in (note, best.reason) if x)
    return Variant(label, best.chosen.project, best.chosen.result, layout,
                   replanned=best.replanned)


def server_variant(project: Project, server: str, catalog: Catalog) -> Project:
    """The generated design rebuilt on ``server`` with the same GPU count and gear profile: an
    NVL72 design against 8-GPU servers, or the other way round."""
    gen = project.generator
    if gen is None or gen.kind not in SIZE_FIELDS:
        raise WorkloadError("servers: only a generated rail or fat-tree design can be built "
                            "again on other servers")
    spec = catalog.server(server, "servers")
    total = design_gpus(project, catalog)
    if not total:
        raise WorkloadError("servers: the design has no GPUs to rebuild on other servers")
    changes: dict = {k: None for k in SIZE_FIELDS[gen.kind]}
    if gen.kind == "rail":
        changes["reserve_leaf_ports"] = 0
    changes |= {"server": spec.id, "gpus": total, "nic": None, "nics": None,
                "gpus_per_server": None, "planes": None, "name": None}
    return regenerate(project, changes, catalog)


def oversubscription_variant(project: Project, ratio: str, catalog: Catalog) -> Project:
    """A generated fat tree again with another oversubscription (``2:1``, ``1:1,3:1``)."""
    if project.generator is None or project.generator.kind != "fat-tree":
        raise WorkloadError("oversubscriptions: only a generated fat tree can be built "
                            "again with another oversubscription")
    return regenerate(project, {"oversubscription": ratio}, catalog)


def build(project: Project, spec: Spec, catalog: Catalog, *, target: Target | None = None,
          as_drawn: bool = False, solver=None) -> Variant:
    """One column: never raises for a design that cannot be built, the Variant says why."""
    cat = project.catalog(catalog)
    run = solver or (lambda p: solve(p, catalog=p.catalog(catalog)))
    if spec.kind == "profile":
        return profile_variant(project, spec.value, catalog, server=spec.server,
                               target=target, as_drawn=as_drawn, solver=run)
    label = spec.value
    try:
        label = label_of(spec, cat)
        if spec.kind == "transport":
            p = with_transport(project, spec.value, catalog)
        elif spec.kind == "ratio":
            p = oversubscription_variant(project, spec.value, catalog)
        else:
            p = server_variant(project, spec.value, catalog)
        return Variant(label, p, run(p), "")
    except DesignerError as exc:
        return Variant(label, reason=str(exc))


def build_all(project: Project, catalog: Catalog, *, profiles=(), transports=(), ratios=(),
              servers=(), as_drawn: bool = False, solver=None, room: int = MAX_COLUMNS
              ) -> tuple[list[Variant], list[str]]:
    """Every column asked for (see ``specs``) built, and the sentences for those left out."""
    wanted, skipped = specs(project, profiles=profiles, transports=transports, ratios=ratios,
                            servers=servers, room=room)
    run = solver or (lambda p: solve(p, catalog=p.catalog(catalog)))
    target = None
    if any(s.kind == "profile" for s in wanted):
        target = Target.of(run(project))
    return [build(project, s, catalog, target=target, as_drawn=as_drawn, solver=run)
            for s in wanted], skipped
