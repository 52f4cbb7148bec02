"""The decision figures as fact sections, for the report page and the workbook."""

from __future__ import annotations

from designer.core.analysis.constants import ASSUMED, constant_notes
from designer.core.analysis.estimates import Estimate
from designer.core.transport.tuning import tuning_label
from designer.core.writers.facts import Fact, FactSection


def decision_sections(e: Estimate) -> list[FactSection]:
    s, t, loss, econ = e.step, e.tco, e.loss, e.economics
    par = s.parallel
    w = e.workload
    work = FactSection("Decision analysis: workload and step", (
        Fact("Workload", w.name, note=w.source),
        Fact("Layout", f"{par.gpus:,} GPUs, TP{par.tp} PP{par.pp} DP{par.dp} CP{par.cp} "
             f"EP{par.ep}", detail=f"{w.placement} placement"),
        Fact("Step time", s.step_s, "dec2", "s", strong=True, key="step_s"),
        Fact("Compute", s.compute_s, "dec2", "s"),
        Fact("Pipeline bubble", s.bubble_s, "dec2", "s"),
        Fact("Exposed communication", s.exposed_comm_s, "dec2", "s"),
        Fact("Communication share of the step", s.comm_fraction, "pct", strong=True,
             key="comm_fraction"),
        Fact("MFU", s.mfu, "pct", key="mfu"),
        *[Fact(f"{p.kind.upper()} {p.op}", p.time_s, "dec2", "s",
               note=f"{p.overlap:.0%} hidden, {p.algorithm}") for p in s.parts],
        Fact("Slowdown against an ideal fabric", e.slowdown, "dec2", "x",
             note="non-blocking, no fabric latency, same NICs"),
        Fact(f"GPU-hours lost over {econ.run_days:g} days", loss.gpu_hours_lost, "int"),
        Fact("Money lost", loss.usd_lost, "usd", note=f"at ${econ.gpu_hour_usd:g}/GPU-hour"),
        Fact("Routing", e.routing, note=f"network terms x{e.network_slowdown:g}" + (
            "" if e.tree_slowdown is None else f", tree and NVLS-tree x{e.tree_slowdown:g}")),
        Fact("IB SHARP", "on" if e.view.collnet else "off", note="NCCL_COLLNET_ENABLE"),
        Fact("Constants assumed", sum(1 for n in constant_notes(w) if n.kind == ASSUMED),
             "int", note=", ".join(n.field.replace("_", " ") for n in constant_notes(w)
                                   if n.kind == ASSUMED)),
    ))
    money = FactSection(f"TCO over {t.years:g} years", (
        Fact("Capex (network BOM)", t.capex_usd, "usd"),
        Fact("Energy per year", t.energy_usd_per_year, "usd"),
        Fact("Support per year", t.support_usd_per_year, "usd"),
        Fact("Space per year", t.space_usd_per_year, "usd"),
        Fact(tuning_label(e.transport), t.tuning_usd, "usd",
             note="one-off; the transport's weeks unless the project sets its own"),
        Fact("Total", t.total_usd, "usd", strong=True, key="tco_usd"),
        Fact("Cost per useful GPU-hour", round(t.usd_per_useful_gpu_hour, 3), "usd2",
             strong=True, note="network TCO + GPU time, over the GPU-hours doing useful work"),
    ))
    r = e.recommendation
    rows = [Fact(x.rule, "fired" if x.fired else "not fired", note=f"{x.figure}; {x.source}")
            for x in r.rules]
    rows.append(Fact("Break-even from this design's numbers", "agrees" if r.agrees else
                     "disagrees", note=r.break_even + (f" ({r.note})" if r.note else "")))
    rules = FactSection(f"Recommendation: {r.choice}", tuple(rows))
    return [work, money, rules]
