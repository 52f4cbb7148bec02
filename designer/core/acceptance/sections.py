"""The acceptance plan and a check's results as fact sections, for the design report."""

from __future__ import annotations

from designer.core.acceptance.check import CheckResult
from designer.core.acceptance.plan import AcceptancePlan
from designer.core.writers.facts import Fact, FactSection

# the size the report shows of each curve (bandwidth-bound); PLAN.md has every size
REPORT_SIZES = (1 << 30,)
# the KPIs a manager reads on the report's page (all of them are in the plan's files)
REPORT_KPIS = ("JCT ratio, all-reduce 1 GiB (C = 0)",
               "ECMP imbalance (MMR), 1 QP per connection")


def _size(n: int) -> str:
    for unit, k in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << k:
            return f"{n / (1 << k):g} {unit}"
    return f"{n} B"


def plan_sections(plan: AcceptancePlan) -> list[FactSection]:
    c = plan.cluster
    rows = []
    for t in plan.collectives:
        if t.rail is not None and t.rail > 0:
            continue
        label = t.binary if t.rail is None else f"{t.binary}, one rail"
        for r in t.rows:
            if r.bytes in REPORT_SIZES or (t.rail is not None and r.bytes == t.rows[-1].bytes):
                rows.append(Fact(f"{label}, {_size(r.bytes)}", round(r.busbw, 2), "dec2",
                                 "GB/s busbw", note=f"band {r.low:,.2f} - {r.high:,.2f}; "
                                 f"{r.time_us:,.1f} us; {r.algorithm}"))
    lat = [p for p in plan.pairs if p.test == "ib_write_lat"]
    for hops in sorted({p.hops for p in lat})[-1:]:  # the longest leaf-to-leaf path
        p = next(x for x in lat if x.hops == hops)
        rows.append(Fact(f"ib_write_lat, {hops} switch hop(s)", round(p.predicted, 3), "dec2",
                         "us", note=f"band {p.low:.2f} - {p.high:.2f}"))
    bw = next((p for p in plan.pairs if p.test == "ib_write_bw"), None)
    if bw is not None:
        rows.append(Fact("ib_write_bw, one rail", round(bw.predicted, 1), "dec", "Gb/s",
                         note=f"band {bw.low:.1f} - {bw.high:.1f}"))
    rows += [Fact(f"KPI: {k.name}", round(k.value, 3), "dec2", k.unit, note=k.definition)
             for k in plan.kpis if k.name in REPORT_KPIS]
    return [FactSection(
        f"Acceptance: predicted results and KPIs ({len(c.nodes):,} nodes x "
        f"{c.gpus_per_node} GPUs, {c.rails} rails; 'designer acceptance' writes every size)",
        tuple(rows))]


def check_sections(res: CheckResult) -> list[FactSection]:
    rows = []
    for r in res.runs:
        judged = [m for m in r.rows if m.judged] or list(r.rows)
        worst = min(judged, key=lambda m: m.measured / m.predicted if m.predicted else 1.0)
        rows.append(Fact(f"{r.source}: {r.test}, {r.ranks:,} ranks", r.verdict.upper(),
                         detail=f"{_size(worst.bytes)}: {worst.measured:,.4g} {r.unit}",
                         note=f"band {worst.low:,.4g} - {worst.high:,.4g}, predicted "
                         f"{worst.predicted:,.4g}", strong=r.verdict == "miss"))
    out = [FactSection("Acceptance: measured against the bands", tuple(rows))]
    if res.causes:
        out.append(FactSection("Acceptance: likely causes", tuple(
            Fact(c.title, "", note=c.evidence) for c in res.causes)))
    return out
