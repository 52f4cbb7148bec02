"""What goes into the design report: figures, charts, problems, BOM, assumptions.

Built from the solver's Result (its stable JSON keys for figures, its BOM lines unchanged), so
the report says exactly what the window and ``designer solve`` say.
"""

from __future__ import annotations

from collections import Counter
from datetime import date
from typing import Any

from designer import __version__
from designer.core.catalog import Catalog
from designer.core.errors import DesignerError
from designer.core.model import Project
from designer.core.writers.bom_rows import BomTable, bom_table
from designer.core.writers.charts_svg import BAR, BAR_ALT, WARN, bar_chart, column_chart
from designer.core.writers.facts import (
    Fact,
    FactSection,
    assumption_sections,
    histogram_pairs,
    message_label,
    profile_label,
    summary_sections,
)
from designer.core.writers.html_report import Chart, ReportData, headline
from designer.core.writers.tier_diagram import tier_diagram


def charts(data: dict, table: BomTable) -> list[Chart]:
    out: list[Chart] = []
    hops = histogram_pairs((data.get("hops") or {}).get("histogram"))
    if hops:
        total = sum(v for _, v in hops) or 1
        out.append(("hops", "Switch hops between GPU pairs", column_chart(
            "Switch hops between GPU pairs", [str(k) for k, _ in hops],
            [100 * v / total for _, v in hops], x_title="switches on the shortest path",
            y_title="% of GPU pairs", value_format="{:.1f}%", y_max=100)))
    lat = data.get("latency_us") or {}
    by_hops = lat.get("mean_by_hops") or {}
    if by_hops:
        keys = sorted(by_hops, key=lambda k: int(k))
        out.append(("latency", "Mean latency by switch hops (µs)", column_chart(
            "Mean latency by switch hops (µs)", keys, [float(by_hops[k]) for k in keys],
            x_title="switches on the path", value_format="{:.2f}", colors=[BAR_ALT] * len(keys))))
    if table.sections:
        sections = sorted(table.sections, key=lambda s: -s.total_usd)
        out.append(("cost", "Cost by category (USD)", bar_chart(
            "Cost by category (USD)", [s.label for s in sections],
            [s.total_usd for s in sections], value_format="${:,.0f}")))
    by_tier = (data.get("oversubscription") or {}).get("by_tier") or {}
    if by_tier:
        values = [float(v["worst"]) for v in by_tier.values()]
        # each bar says the ratio as the text and the window say it (1.07:1, not 1.1:1)
        out.append(("oversubscription", "Oversubscription per tier (down:up)", column_chart(
            "Oversubscription per tier (down:up)", [str(k) for k in by_tier], values,
            value_labels=[str(v.get("ratio") or f"{float(v['worst']):.3g}:1")
                          for v in by_tier.values()],
            reference=1.0, reference_label="1:1 non-blocking",
            colors=[WARN if v > 1.0001 else BAR for v in values])))
    links = ((data.get("cables") or data.get("links") or {}).get("by_layer")) or {}
    if len(out) < 4 and links:
        out.append(("links", "Cables per layer", bar_chart(
            "Cables per layer", list(links), [float(v) for v in links.values()],
            value_format="{:,.0f}", color=BAR_ALT)))
    return out


def _decision(project: Project, catalog: Catalog, result: Any) -> list[FactSection]:
    """The decision analysis page: step, money, TCO and the rules (none when the project's
    workload cannot run on the design: the report says why)."""
    from designer.core.analysis.estimates import estimate
    from designer.core.analysis.sections import decision_sections
    from designer.core.errors import DesignerError

    try:
        return decision_sections(estimate(project, result, catalog=catalog))
    except DesignerError as exc:
        return [FactSection("Decision analysis", (Fact("Not estimated", str(exc)),))]



def _cluster(project: Project, catalog: Catalog, result: Any) -> list[FactSection]:
    """The cluster page: a synthetic mix replayed under two policies, and the failure model
    on this design (a line saying why when the design cannot run one)."""
    from designer.core.cluster.report import cluster_sections
    from designer.core.errors import DesignerError

    try:
        return cluster_sections(project, catalog, result)
    except DesignerError as exc:
        return [FactSection("Cluster over time", (Fact("Not run", str(exc)),))]


def _acceptance(project: Project, catalog: Catalog, result: Any) -> list[FactSection]:
    """What the acceptance tests should measure on the built cluster (none when the design
    has no GPU servers to test)."""
    from designer.core.acceptance.plan import acceptance_plan
    from designer.core.acceptance.sections import plan_sections
    from designer.core.errors import DesignerError

    try:
        return plan_sections(acceptance_plan(project, result, catalog))
    except DesignerError:
        return []


def _solve_networks(project: Project, catalog: Catalog) -> dict:
    from designer.core.networks.solve import solve_networks

    return solve_networks(project, catalog)


def network_sections(nets: dict) -> list[FactSection]:
    """A section per other network of the cluster: its switches, links, optics,
    oversubscription, bandwidth per GPU (storage: read per GPU against the reference), cost
    and power."""
    out = []
    for n in nets.values():
        tiers = ", ".join(f"{v:,} {k}" for k, v in n.switches_by_tier.items())
        models = ", ".join(f"{v:,} x {k}" for k, v in n.switches_by_model.items())
        facts = [
            Fact("Switches", n.switches, "int", tiers, models, key=f"{n.kind}_switches"),
            Fact("Links (one cable each)", n.links, "int", key=f"{n.kind}_links"),
            Fact("Optics", n.optics, "int", "one module at each end of an optical link"),
            Fact("Oversubscription (line rate)", round(n.oversubscription, 2), "dec2",
                 "down : up, worst switch"),
        ]
        if n.storage:
            s = n.storage
            facts += [
                Fact("Storage nodes", int(s["nodes"]), "int",
                     f"{s['read_gbytes_s']:,.0f} GB/s read in all"),
                Fact("Read per GPU (GB/s)", round(s["read_gbytes_s_per_gpu"], 2), "dec2",
                     f"reference {s['reference_read_gbytes_s_per_gpu']:.1f} GB/s per GPU",
                     "DGX SuperPOD H100 RA: over 40 GB/s a node with GPUDirect Storage"),
                Fact("Storage fabric per GPU (GB/s)", round(s["fabric_gbytes_s_per_gpu"], 2),
                     "dec2"),
            ]
        elif n.gbps_per_gpu:
            facts.append(Fact("Per GPU (Gb/s)", round(n.gbps_per_gpu, 1), "dec",
                              "its share of the server's ports"))
        facts += [Fact("Cost (USD)", round(n.cost_usd), "usd", key=f"{n.kind}_cost_usd"),
                  Fact("Power (kW)", round(n.power_w / 1000, 1), "dec",
                       f"{n.rack_units:,.0f} RU")]
        out.append(FactSection(f"Network: {n.label}", tuple(facts)))
    return out


def report_data(project: Project, catalog: Catalog, result: Any,
                today: str | None = None) -> ReportData:
    data = result.to_json()
    nets = _solve_networks(project, catalog)
    table = bom_table(result, nets)
    when = today or date.today().isoformat()
    summary = summary_sections(project, data, app_version=__version__, date=when,
                               catalog=catalog)
    facts: dict[str, Fact] = {f.key: f for s in summary for f in s.facts if f.key}
    # the report's key facts skip what the cards above them already say
    # (and the design's name, which is the report's title)
    shown = [FactSection(s.title, tuple(f for f in s.facts if f.key != "name"))
             for s in summary if s.title != "About this file"]
    shown += _decision(project, catalog, result)
    shown += _cluster(project, catalog, result)
    shown += _acceptance(project, catalog, result)
    shown += network_sections(nets)
    return ReportData(
        title=project.name,
        subtitle=f"Fabric design report · {profile_label(project, catalog)} · {when} · "
                 f"Fabric Designer {__version__}",
        headline=headline(facts, data, message_label(project)),
        summary=shown,
        charts=charts(data, table),
        problems=list(data.get("problems") or []),
        bom=table,
        assumptions=assumption_sections(
            project, catalog, [x.catalog_id for x in table.lines],
            ((data.get("latency_us") or {}).get("assumptions") or {}).get("figures")),
        notes=project.notes,
        tiers=tier_diagram(data, switch_models_by_tier(project)),
        **_port_maps(project, catalog, result),
    )


def _port_maps(project: Project, catalog: Catalog, result: Any) -> dict:
    """The port map of the first switch of each role (a leaf, a spine ...): the report stays
    a few pages; the cabling workbook's Port map sheet has every switch."""
    from designer.core.writers.port_map import port_map

    try:
        pm = port_map(project, catalog, getattr(result, "media", None),
                      getattr(getattr(result, "bom", None), "cable_id", None))
    except DesignerError:
        return {}
    switches = pm.switches()
    devices = project.fabric.devices
    first: dict[str, int] = {}
    for i in switches:
        first.setdefault(devices[i].role.value, i)
    maps = tuple((f"{pm.names[i]} ({devices[i].role.label.lower()}, {devices[i].model})",
                  pm.of_switch(i)) for i in first.values())
    net_maps, net_switches = _network_port_maps(project, catalog)
    return {"port_maps": maps + net_maps, "switches": len(switches) + net_switches}


def _network_port_maps(project: Project, catalog: Catalog) -> tuple[tuple, int]:
    """The first switch of each tier of every other network (front-end leaf, storage spine,
    out-of-band access ...), rows as the back-end's; and how many switches they have."""
    if not project.networks:
        return (), 0
    from designer.core.writers.network_cabling import networks_cabling

    short = {"frontend": "front-end", "storage": "storage", "oob": "out-of-band"}

    maps: list[tuple] = []
    count = 0
    for nc in networks_cabling(project, catalog):
        net = project.networks[nc.kind]
        rows: dict[str, list[tuple]] = {}
        for r in nc.ports:
            rows.setdefault(r[0], []).append(r)
        count += len(rows)
        first: dict[str, str] = {}
        for d in net.devices:
            if d.id in rows:
                first.setdefault(d.tier, d.id)
        model = {d.id: d.model for d in net.devices}
        label = short.get(nc.kind, nc.kind)
        maps += [(f"{dev} ({label} {tier}, {model[dev]})", rows[dev])
                 for tier, dev in first.items()]
    return tuple(maps), count


def switch_models_by_tier(project: Project) -> dict[str, list[str]]:
    """The switch models of each tier, most used first: {"leaf": ["qm9700"], ...}."""
    counts: dict[str, Counter[str]] = {}
    for d in project.fabric.devices:
        if d.role.is_switch:
            counts.setdefault(d.role.value, Counter())[d.model] += 1
    return {tier: [m for m, _ in c.most_common()] for tier, c in counts.items()}
