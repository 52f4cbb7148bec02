"""Rail-optimized (DGX SuperPOD) and fat-tree generators, both on the shared Clos wiring."""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction

from designer.core.catalog import TECH_LABELS, Catalog
from designer.core.errors import GeneratorError
from designer.core.generators.clos import ClosPlan, ClosSpec, build_clos, plan_clos, split_ports
from designer.core.generators.gear import GearChoice, larger_switches, resolve_gear, switch_label
from designer.core.generators.params import FatTreeParams, RailParams, Ratio
from designer.core.generators.plan import Plan
from designer.core.generators.reference import RACKS_PER_SU, layout_note, published_row


def _ratio_text(down: int, up: int) -> str:
    if up == 0:
        return "no uplinks"
    f = Fraction(down, up)
    if f.denominator == 1 or f >= 1:
        q = down / up
        return f"{q:g}:1" if abs(q - round(q)) < 1e-9 else f"{q:.2f}:1"
    return f"1:{up / down:g}"


def _built_notes(cp: ClosPlan, asked: tuple[Ratio, Ratio]) -> list[str]:
    """What each tier was built at against what was asked, when the ports cannot meet the
    ratio exactly (uplinks are rounded up, so a tier is never above the ratio asked)."""
    spec = cp.spec
    tiers = [("leaf", asked[0], spec.d1, spec.u1)]
    if spec.tiers == 3:
        tiers.append(("spine", asked[1], cp.spine_down, cp.u2))
    out = []
    for name, ratio, down, up in tiers:
        if ratio.undersubscribed:
            # more uplink than downlink is a real design (Meta's rack switches run 1:2) but
            # also the classic slip for 2:1; say which was built
            out.append(f"{name} tier undersubscribed at {ratio}: {up} up for {down} down, more "
                       f"uplink than the GPUs below can send (for oversubscription write "
                       f"{ratio.up:g}:{ratio.down:g})")
        if up and abs(down / up - ratio.value) > 1e-9:
            out.append(f"{name} tier: {ratio} asked, built {down} down : {up} up "
                       f"({_ratio_text(down, up)}, the closest split not above it)")
    return out


def _fit_spines(spec: ClosSpec, gear: GearChoice) -> tuple[ClosPlan, ClosSpec, list[str]]:
    """Plan the Clos; when the spine/core switch cannot carry its tier and the user did not
    name one (--spine-switch), take the smallest catalog switch of the same technology and
    link speed that can (a modular chassis when only that fits), and say so."""
    try:
        return plan_clos(spec), spec, []
    except GeneratorError as exc:
        if gear.upper_forced or gear.catalog is None or spec.d1 + spec.u1 > spec.leaf.radix:
            raise
        first = exc
    for cand in larger_switches(gear.catalog, gear.tech, spec.upper.speed_gbps,
                                spec.upper.radix):
        trial = replace(spec, upper=cand)
        try:
            cp = plan_clos(trial)
        except GeneratorError:
            continue
        why = str(first).split(";")[0]  # the limit, without the error's own way out
        note = (f"spine switch: {switch_label(spec.upper)} cannot carry this tier ({why}); "
                f"using {switch_label(cand)}, the smallest {TECH_LABELS[gear.tech]} switch in "
                "the catalog that fits (--spine-switch forces one)")
        return cp, trial, [note]
    raise GeneratorError(f"{first} (no {TECH_LABELS[gear.tech]} switch in the catalog fits)")


def _clos_plan(kind: str, title: str, spec: ClosSpec, gear: GearChoice, details: list[str],
               asked: tuple[Ratio, Ratio] | None = None) -> Plan:
    cp, spec, picked = _fit_spines(spec, gear)
    if spec.upper != gear.upper:
        gear = replace(gear, upper=spec.upper)
    details = list(gear.notes) + picked + list(details)
    P = gear.planes
    switches = {"leaf": spec.leaves * P, "spine": cp.spines * P}
    links = {
        "endpoint-leaf": (spec.servers * spec.endpoints + spec.reserve) * P,
        "leaf-spine": spec.leaves * spec.u1 * P,
    }
    os_ = {"leaf": _ratio_text(spec.d1, spec.u1)}
    if spec.tiers == 3:
        switches["core"] = cp.cores * P
        links["spine-core"] = cp.spine_core_links * P
        os_["spine"] = _ratio_text(cp.spine_down, cp.u2)
    details = list(details) + _sizing_notes(cp)
    if asked is not None:
        details += _built_notes(cp, asked)
    if gear.added:
        details.append("generic gear added to the project: " + ", ".join(g.id for g in gear.added))
    return Plan(
        kind=kind,
        title=title,
        gpus=spec.servers * gear.gpus_per_server,
        servers=spec.servers,
        planes=P,
        switches=switches,
        links=links,
        oversubscription=os_,
        details=tuple(details),
        gear=gear,
        build=lambda: build_clos(cp, gear),
        domain_servers=gear.domain_servers,
    )


def _sizing_notes(cp: ClosPlan) -> list[str]:
    spec = cp.spec
    K2 = spec.upper.radix
    notes = []
    if cp.balanced:
        return [_balanced_note(cp)]
    if spec.tiers == 2:
        fit = math.ceil(spec.leaves * spec.u1 / K2)
        if fit != cp.spines_per_pod:
            notes.append(
                f"{cp.spines_per_pod} spines: {fit} would have the ports, but the spine count "
                f"must divide the {spec.u1} uplinks of each leaf"
            )
    else:
        notes.append(
            f"{cp.pods} pod(s) of up to {spec.leaves_per_pod} leaves, {cp.spines_per_pod} "
            f"spines per pod, {cp.cores_per_group} core(s) per spine position"
        )
    return notes


def _balanced_counts(pl: Plan) -> str:
    """The layout line's account of a balanced layout's spine/core counts."""
    if not any(d.startswith("balanced striping") for d in pl.details):
        return ""
    core = pl.switches.get("core", 0)
    what = f"{pl.switches['spine']:,} spines" + (f" and {core:,} cores" if core else "")
    return (f"{what}: the fewest that hold every uplink, links spread as evenly as the ports "
            "allow (balanced striping)")


def _balanced_note(cp: ClosPlan) -> str:
    """What a balanced layout built, and what its uneven link counts cost under static ECMP."""
    spec = cp.spec
    K2 = spec.upper.radix
    if spec.tiers == 2:
        lo, hi = spec.u1 // cp.spines, -(-spec.u1 // cp.spines)
        what = (f"{cp.spines} spines, the fewest with the ports ({spec.leaves:,} leaves x "
                f"{spec.u1} uplinks), each leaf's uplinks spread over all of them "
                f"({lo}-{hi} links a spine)")
        uniform = "a spine count dividing the uplinks"
    else:
        sp = "/".join(str(x) for x in sorted(set(cp.pod_spines), reverse=True))
        what = (f"{cp.pods} pod(s) of up to {spec.leaves_per_pod} leaves with {sp} spines, "
                f"{cp.cores} cores, the fewest with the ports ({cp.up_links:,} spine uplinks "
                f"on {K2}-port cores), every spine's uplinks spread over all cores")
        uniform = "core groups dividing the spine uplinks"
    return (f"balanced striping (derived): {what}; link counts differ by at most one, so no "
            f"port idles where {uniform} would. The cost: a cut taking the leaves with one "
            "more link to a spine crosses slightly less than full bisection (designer solve "
            "gives it), and static ECMP, splitting by link, loads the single links harder "
            "(designer load --routing ecmp)")


def _title(gear: GearChoice, body: str) -> str:
    return f"{body}, {gear.profile.name}"


def _rail_size(params: RailParams, gear: GearChoice) -> tuple[int, int, int]:
    """(servers per SU, SUs, servers) of a rail design, with the one-line refusals."""
    G, T = gear.gpus_per_server, gear.domain_servers
    name = gear.server.id
    if T > 1:
        if params.servers_per_su is not None:
            raise GeneratorError(
                f"'{name}' is a rack-scale system ({T} trays a rack): its SU is counted in "
                f"racks; use --racks-per-su (default {RACKS_PER_SU}, the DGX SuperPOD's)")
        if params.reserve_leaf_ports:
            raise GeneratorError(
                "--reserve-leaf-ports takes server slots of 8-GPU servers; a rack-scale "
                f"system's SU has no free slot (leave '{name}' racks out with --gpus)")
        S = (params.racks_per_su or RACKS_PER_SU) * T
    else:
        if params.racks_per_su is not None:
            raise GeneratorError(
                f"--racks-per-su is for rack-scale systems; '{name}' is a domain of its own: "
                "use --servers-per-su")
        # the DGX SuperPOD's SU fills each rail leaf's down ports at 1:1, one server a port
        # (32 on 64-port QM9700, 72 on 144-port Q3400, 64 on SN5610 as 128 x 400G)
        S = params.servers_per_su or max(1, gear.leaf.radix // 2)
    if params.gpus is not None and params.servers is not None:
        raise GeneratorError("give --gpus or --servers, not both")
    servers = params.servers
    if params.gpus is not None:
        per = G * T
        if params.gpus % per:
            what = (f"{T}-tray '{name}' racks ({per} GPUs each, one scale-up domain)" if T > 1
                    else f"{G}-GPU servers")
            raise GeneratorError(
                f"{params.gpus:,} GPUs is not a whole number of {what}; use a multiple of "
                f"{per}")
        servers = params.gpus // G
    if servers is not None and servers % T:
        raise GeneratorError(
            f"{servers:,} trays is not a whole number of {T}-tray '{name}' racks (scale-up "
            f"domains); use a multiple of {T}")
    R = params.reserve_leaf_ports
    reserved_slots = math.ceil(R / gear.endpoints_per_server)
    if servers is not None:
        need = math.ceil((servers + reserved_slots) / S)
        sus = params.sus or need
        if params.sus and need < params.sus:
            what = "GPUs" if params.gpus is not None else "servers"
            raise GeneratorError(
                f"{params.gpus or servers:,} {what} fill {need} SU(s) of {S} "
                f"{'trays' if T > 1 else 'servers'}, not the {params.sus} asked; drop --sus (or "
                "set the SUs to 'enough') or give more")
        if servers + reserved_slots > sus * S:
            raise GeneratorError(
                f"{servers:,} servers and {R} reserved leaf ports need "
                f"{servers + reserved_slots:,} server slots, but {sus} SU(s) of {S} hold "
                f"{sus * S:,}; raise --sus or lower --servers"
            )
    else:
        sus = params.sus or 4
        servers = sus * S - reserved_slots
    if servers < 1:
        raise GeneratorError("the design has no GPU server left after the reserved ports")
    return S, sus, servers


def _rails_per_leaf(rails: int, domains: int, down: int) -> int | None:
    """The most rails of a domain one leaf takes from every domain of an SU: a divisor of
    ``rails`` (so every leaf of the SU is alike) that fits ``down`` ports."""
    for r in range(min(rails, down // max(domains, 1)), 0, -1):
        if rails % r == 0:
            return r
    return None


def plan_rail(params: RailParams, catalog: Catalog) -> Plan:
    gear = resolve_gear(params, catalog)
    E, T = gear.endpoints_per_server, gear.domain_servers
    S, sus, servers = _rail_size(params, gear)
    R = params.reserve_leaf_ports
    reserved_slots = math.ceil(R / E)
    K1, K2 = gear.leaf.radix, gear.upper.radix
    domains = S // T  # domains per SU
    if T == 1:
        # NVIDIA's rule for one-server domains: one leaf per rail (NIC i of every server)
        if 2 * S > K1:
            raise GeneratorError(
                f"a rail leaf of '{gear.leaf.model}' has {K1} ports: at 1:1 it serves at most "
                f"{K1 // 2} servers per SU ({S} asked); use --servers-per-su {K1 // 2} or a "
                "larger radix"
            )
        r = 1
    else:
        r = _rails_per_leaf(E * T, domains, K1 // 2)
        if r is None:
            raise GeneratorError(
                f"a rail leaf of '{gear.leaf.model}' has {K1} ports: at 1:1 it takes at most "
                f"{K1 // 2} racks per SU ({domains} asked); use --racks-per-su {K1 // 2} or a "
                "larger radix")
    leaves_per_su = E * T // r
    leaves = sus * leaves_per_su
    tiers = params.tiers or (2 if leaves <= K2 else 3)
    sus_per_pod = (K2 // 2) // leaves_per_su
    if tiers == 3 and sus_per_pod < 1:
        raise GeneratorError(
            f"a spine of {K2} ports cannot take the {leaves_per_su} rail leaves of one SU at 1:1"
        )
    spec = ClosSpec(
        endpoints=E,
        servers=servers,
        placement="rail",
        unit=S,
        units=sus,
        u1=r * domains,
        tiers=tiers,
        leaves_per_pod=max(1, sus_per_pod) * leaves_per_su,
        spine_ratio=Ratio(down=1, up=1),
        leaf=gear.leaf,
        upper=gear.upper,
        reserve=R,
        domain=T,
        rails_per_leaf=r,
        striping="balanced",
    )
    row = published_row(gear.profile.id, server=gear.server.id, leaf=gear.leaf.model,
                        upper=gear.upper.model, sus=sus, su=S // T if T > 1 else S,
                        full=servers + reserved_slots == sus * S)
    if row is not None:  # the vendor's table stripes uniformly, whatever it idles
        spec = replace(spec, striping="uniform")
    details = []
    if tiers == 3 and T > 1:
        spec, why = _rack_scale_pods(spec)
        details += why
    if reserved_slots:
        details.append(
            f"{R} leaf port(s) reserved for management appliances ({reserved_slots} server "
            "slot(s) left out)"
        )
    if servers + reserved_slots < sus * S:
        unit = "trays" if T > 1 else "slots"
        details.append(
            f"last SU partial: {(servers + reserved_slots - 1) % S + 1} of {S} {unit} used"
        )
    G = gear.gpus_per_server
    if T > 1:
        details.append(
            f"SU: {domains} '{gear.server.id}' racks of {T} trays, {domains * T * G:,} GPUs "
            f"(one {T * G}-GPU {gear.server.scale_up.fabric if gear.server.scale_up else ''} "
            f"domain a rack); {leaves_per_su} rail leaves, each taking {r} rail(s) "
            f"(GPU positions) of every rack: derived, {E * T} rails / {r}")
    body = f"Rail-optimized {sus} SU ({servers * G:,} GPUs)"
    pl = _clos_plan("rail", _title(gear, body), spec, gear, details)
    note = layout_note(
        gear.profile.id, server=gear.server.id, leaf=gear.leaf.model,
        upper=pl.gear.upper.model if pl.gear else gear.upper.model, sus=sus,
        full=servers + reserved_slots == sus * S,
        counts=(pl.switches.get("leaf", 0), pl.switches.get("spine", 0),
                pl.switches.get("core", 0)),
        rack_scale=T > 1, su=S // T if T > 1 else S, leaf_down=K1 // 2,
        su_given=(params.racks_per_su if T > 1 else params.servers_per_su) is not None,
        balanced=_balanced_counts(pl))
    extra = [note, *_idle_upper_note(pl, published=note.startswith("layout: published"))]
    return replace(pl, details=tuple(extra) + pl.details, su_servers=S)


def _upper_switches(spec: ClosSpec) -> tuple[int, Fraction, int] | None:
    """(spines + cores, how unevenly a full pod's uplinks reach the cores: 0 when alike,
    else one link's share of a pod's links per core; 1 when a leaf's links to its pod's
    spines are uneven) of a layout."""
    try:
        cp = plan_clos(spec)
    except GeneratorError:
        return None
    if not cp.balanced:
        return cp.spines + cp.cores, Fraction(0), 0
    pod_ups = spec.leaves_per_pod * spec.u1  # 1:1 spines: a full pod's uplinks
    uneven_core = (Fraction(cp.cores, pod_ups) if cp.pods > 1 and pod_ups % cp.cores
                   else Fraction(0))
    uneven_leaf = any(spec.u1 % sp for sp in cp.pod_spines)
    return cp.spines + cp.cores, uneven_core, int(uneven_leaf)


def _rack_scale_pods(spec: ClosSpec) -> tuple[ClosSpec, list[str]]:
    """Pods for a rack-scale design's core tier. An SU's rail leaves (18 of them for 8 NVL72
    racks on 64-port leaves) rarely fill a spine's down ports evenly, so a pod may be a part
    of an SU, a divisor of its leaves: the one needing the fewest spines and cores is taken.
    On a tie, first one whose uplinks reach the cores most alike (when every pod sends each
    core as many links, a balanced cut between pods crosses half of every core's links: full
    bisection; else the smaller a link's share, the nearer), then one whose leaves
    send as many links to each of its spines (static ECMP loads those evenly), then the
    larger pod. GB200 on QM9700, 4 SUs: pods of one SU, 18 spines each, 36 cores (every pod
    16 links to each core); pods of 2 leaves need as many switches but reach the cores 1 or 2
    links apiece, and uniform striping needed 64 cores (1,792 ports idle)."""
    Lu = spec.leaves_per_unit
    first = _upper_switches(spec)
    big = 1 << 60
    best = (*(first or (big, Fraction(1), 1)), -spec.leaves_per_pod, spec)
    for lp in range(1, Lu):
        if Lu % lp:
            continue
        trial = replace(spec, leaves_per_pod=lp)
        got = _upper_switches(trial)
        if got is not None and (*got, -lp) < best[:4]:
            best = (*got, -lp, trial)
    chosen = best[4]
    if chosen is spec:
        return spec, []
    whole = (f"pods of whole SUs need {first[0]:,}" if first is not None
             else "pods of whole SUs do not fit the spines")
    if first is not None and first[0] == best[0]:
        whole = f"pods of whole SUs need as many ({first[0]:,}) but stripe less evenly"
    return chosen, [
        f"pods of {chosen.leaves_per_pod} leaves (1/{Lu // chosen.leaves_per_pod} SU): "
        f"{best[0]:,} spines and cores where {whole}; derived"]


def _idle_upper_note(pl: Plan, published: bool = False, why: str = "") -> list[str]:
    """Spine and core ports a plan leaves idle, priced: the divisor rule and whole pods can
    leave some, which the plan says rather than hides."""
    if pl.gear is None:
        return []
    up = pl.gear.upper
    ports = (pl.switches.get("spine", 0) + pl.switches.get("core", 0)) * up.radix
    used = pl.links.get("leaf-spine", 0) + 2 * pl.links.get("spine-core", 0)
    idle = ports - used
    if idle <= 0:
        return []
    price = idle * up.spec.price_usd / up.radix
    if why:  # the caller's reason (the fat-tree generator's)
        return _idle_line(idle, ports, price, up.model, why)
    if published:
        why = "the published table's uniform striping (every leaf as many links to each spine)"
    elif any(d.startswith("balanced striping") for d in pl.details):
        why = (f"whole switches: the uplinks of a tier are not a multiple of {up.radix} "
               "ports (the fewest switches that hold them)")
    else:
        why = "whole spines by the divisor rule" + (
            ", whole pods and core groups" if pl.switches.get("core") else "")
    return _idle_line(idle, ports, price, up.model, why)


def _idle_line(idle: int, ports: int, price: float, model: str, why: str) -> list[str]:
    return [f"{idle:,} spine/core ports idle ({idle / ports:.0%} of them, ${price:,.0f} of "
            f"'{model}' price): {why}"]


def plan_fat_tree(params: FatTreeParams, catalog: Catalog) -> Plan:
    if params.k_ary is not None:
        return _plan_k_ary(params, catalog)
    gear = resolve_gear(params, catalog)
    G, T = gear.gpus_per_server, gear.domain_servers
    gpus = params.gpus or (1024 if T == 1 else 8 * T * G)
    if T > 1 and gpus % (G * T):
        raise GeneratorError(
            f"{gpus:,} GPUs is not a whole number of {T}-tray '{gear.server.id}' racks "
            f"({G * T} GPUs each, one scale-up domain); use a multiple of {G * T}")
    if gpus % G:
        raise GeneratorError(
            f"{gpus:,} GPUs is not a whole number of {G}-GPU servers; use a multiple of {G} or "
            "--gpus-per-server"
        )
    servers = gpus // G
    G = gear.endpoints_per_server  # from here on the fabric wires NIC ports
    ratios = params.oversubscription
    if not ratios:
        raise GeneratorError("--oversubscription needs at least one ratio, such as 1:1")
    if params.tiers == 2 and len(ratios) > 1:
        raise GeneratorError("a 2-tier fabric takes one oversubscription ratio (the leaf tier)")
    if len(ratios) > 2:
        raise GeneratorError("give at most two ratios: leaf tier, then spine tier")
    r1 = ratios[0]
    r2 = ratios[1] if len(ratios) > 1 else Ratio(down=1, up=1)
    K1, K2 = gear.leaf.radix, gear.upper.radix
    d_max, _ = split_ports(K1, r1)
    if params.placement == "tor":
        spl = params.servers_per_leaf or d_max // G
        if spl < 1:
            raise GeneratorError(
                f"a leaf of {K1} ports at {r1} has {d_max} down ports, fewer than the {G} NIC "
                "ports of one server; use --placement rail or a larger radix"
            )
        d1 = spl * G
        unit, units = spl, math.ceil(servers / spl)
        leaves = units
    else:
        unit = params.servers_per_leaf or d_max
        d1 = unit
        units = math.ceil(servers / unit)
        leaves = units * G
    u1 = r1.uplinks(d1)
    if d1 + u1 > K1:
        raise GeneratorError(
            f"a leaf needs {d1} down and {u1} up ports at {r1}, more than the {K1} of "
            f"'{gear.leaf.model}'; use fewer servers per leaf"
        )
    tiers = params.tiers or (3 if len(ratios) > 1 or leaves > K2 else 2)
    if tiers == 2 and leaves > K2:
        limit = K2 * d1 if params.placement == "tor" else (K2 // G) * unit * G
        raise GeneratorError(
            f"a 2-tier fabric of {K2}-port switches holds at most {limit:,} GPUs at {r1}; "
            "use --tiers 3 or a larger radix"
        )
    d2, _ = split_ports(K2, r2)
    leaves_per_unit = G if params.placement == "rail" else 1
    gpus_per_unit = unit * G
    if params.pod_gpus:
        if params.pod_gpus % gpus_per_unit:
            raise GeneratorError(
                f"--pod-gpus {params.pod_gpus:,} is not a whole number of "
                f"{'SUs' if params.placement == 'rail' else 'leaves'} of {gpus_per_unit} GPUs"
            )
        lp = params.pod_gpus // gpus_per_unit * leaves_per_unit
    else:
        lp = (d2 // leaves_per_unit) * leaves_per_unit
        if lp < 1:
            raise GeneratorError(f"a spine of {K2} ports at {r2} cannot take one rail group")
    spec = ClosSpec(
        endpoints=G,
        servers=servers,
        placement=params.placement,
        unit=unit,
        units=units,
        u1=u1,
        tiers=tiers,
        leaves_per_pod=lp,
        spine_ratio=r2,
        leaf=gear.leaf,
        upper=gear.upper,
        striping=params.striping,
    )
    body = f"{tiers}-tier fat-tree ({gpus:,} GPUs, {params.placement} placement)"
    pl = _clos_plan("fat-tree", _title(gear, body), spec, gear, [], asked=(r1, r2))
    return replace(pl, details=tuple(_fat_tree_idle_note(pl, spec)) + pl.details)


def _fat_tree_idle_note(pl: Plan, spec: ClosSpec) -> list[str]:
    """Spine and core ports a fat-tree plan leaves idle, priced, and why."""
    if pl.gear is None:
        return []
    if any(d.startswith("balanced striping") for d in pl.details):
        why = (f"whole switches: the uplinks of a tier are not a multiple of "
               f"{pl.gear.upper.radix} ports (the fewest switches that hold them)")
    elif spec.striping == "uniform":
        why = ("uniform striping, as asked: spine counts dividing each leaf's "
               "uplinks" + (", core groups dividing each spine's" if spec.tiers == 3 else ""))
    elif spec.tiers == 3 and spec.spine_ratio.value != 1:
        why = (f"the {spec.spine_ratio} spine tier: an oversubscribed tier keeps its ratio "
               "only striped uniformly (spine counts dividing the uplinks, whole pods and core "
               "groups)")
    else:
        why = "whole spines by the divisor rule" + (
            ", whole pods and core groups" if spec.tiers == 3 else "")
    return _idle_upper_note(pl, why=why)


def _plan_k_ary(params: FatTreeParams, catalog: Catalog) -> Plan:
    k = params.k_ary
    assert k is not None
    if k % 2:
        raise GeneratorError(f"a k-ary fat-tree needs an even k ({k} given)")
    G = params.gpus_per_server or 1
    if (k // 2) % G:
        raise GeneratorError(
            f"{G}-GPU servers do not fit the {k // 2} host ports of a k={k} edge switch"
        )
    p = params.model_copy(update={"radix": params.radix or k, "gpus_per_server": G})
    gear = resolve_gear(p, catalog, default_gpus=G)
    if gear.leaf.radix != k:
        raise GeneratorError(
            f"--k-ary {k} needs {k}-port switches (--radix {gear.leaf.radix} given)"
        )
    hosts = k**3 // 4
    spec = ClosSpec(
        endpoints=G,
        servers=hosts // G,
        placement="tor",
        unit=k // 2 // G,
        units=k * k // 2,
        u1=k // 2,
        tiers=3,
        leaves_per_pod=k // 2,
        spine_ratio=Ratio(down=1, up=1),
        leaf=gear.leaf,
        upper=gear.upper,
    )
    body = f"k-ary fat-tree, k = {k} ({hosts:,} hosts)"
    return _clos_plan("fat-tree", _title(gear, body), spec, gear, [])
