"""Write the figures the documentation quotes: ``python scripts/doc_figures.py [--check]``.

Every file in ``docs/figures/`` comes from the tool's own output (the command line, run as a
user runs it), and the pages include them (``--8<--`` snippets), so a page cannot quote a
figure the tool no longer gives. ``--check`` writes nothing and exits 1 naming each file that
differs from what the tool gives now (``tests/docs/test_doc_figures.py`` runs the same check).
Run it after a change to the catalog, the solver, the generators or the examples.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "figures"
PROJECTS = ROOT / "projects"
DEEPSEEK_SPEC = PROJECTS / "deepseek-isca2025-cost-per-endpoint.sweep.yaml"
SUPERPOD = PROJECTS / "dgx-superpod-4su-ib-ndr.fabric.json"
SUPERPOD_ROCE = PROJECTS / "dgx-superpod-4su-roce-400.fabric.json"


def designer(*args: str, cwd: Path | None = None) -> str:
    """What ``designer ARGS`` prints (stdout), failing loudly on a non-zero exit."""
    env = dict(os.environ, COLUMNS="100", QT_QPA_PLATFORM="offscreen")
    done = subprocess.run([sys.executable, "-m", "designer", *args], capture_output=True,
                          text=True, cwd=cwd or ROOT, env=env, check=False)
    if done.returncode != 0:
        raise SystemExit(f"designer {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout


def money(x: float) -> str:
    return f"${x:,.0f}"


def examples() -> str:
    """One row per bundled example: what ``designer solve --json`` gives for it."""
    rows = ["| example | GPUs | network cost | per GPU | power | latency p50 / p99 | "
            "oversubscription | cables / links | switch ports used |",
            "|---|---|---|---|---|---|---|---|---|"]
    for path in sorted(PROJECTS.glob("*.fabric.json")):
        d = json.loads(designer("solve", str(path), "--json"))
        lat = d["latency_us"]
        rows.append(
            f"| `{path.name.removesuffix('.fabric.json')}` | {d['gpus']:,} | "
            f"{money(d['bom']['total_usd'])} | {money(d['bom']['per_gpu_usd'])} | "
            f"{d['power_w'] / 1000:,.1f} kW | {lat['p50']:.2f} / {lat['p99']:.2f} us | "
            f"{d['oversubscription']['worst_ratio']} | "
            f"{d['cables']['total']:,} / {d['links']['total']:,} | "
            f"{d['ports']['used']:,} of {d['ports']['total']:,} |")
    return "\n".join(rows) + "\n"


def floor_4su() -> str:
    """``designer floor`` on the 4-SU example after ``--place``."""
    with tempfile.TemporaryDirectory() as tmp:
        placed = Path(tmp) / "pod.fabric.json"
        designer("floor", str(SUPERPOD), "--place", "-o", str(placed))
        return designer("floor", str(placed))


def compare_ib_roce() -> str:
    """``designer compare`` of the 4-SU example under InfiniBand NDR and RoCE 400G."""
    return designer("compare", str(SUPERPOD), "--profiles", "ib-ndr,roce-400")


def compare_b300_decision() -> str:
    """The worked example of the decision page: the 1,024-GPU B300 example under four profiles
    on its own servers, each technology under its own transport's routing."""
    return designer("compare", str(SUPERPOD.parent / "b300-superpod-4su-ib-xdr.fabric.json"),
                    "--profiles", "ib-xdr,roce-800,spectrum-x-800,uec-800",
                    "--workload", "deepseek-v3-like")


# The compare rows the transports page quotes, by their labels in ``designer compare``.
TRANSPORT_ROWS = ("Servers / GPU", "Switches", "Optics (transceivers)", "Bandwidth per GPU",
                  "Latency p50", "Step time", "EP all-to-all exposed a step",
                  "busbw ep all-to-all", "Capex (network)", "TCO (network)",
                  "Cost per useful GPU-hour (same GPU only)")
TRANSPORT_PROFILES = "roce-400,spectrum-x-800,uec-800,ib-ndr"
MOE_1024 = {"name": "DeepSeek-V3-like MoE on 1,024 GPUs (PP4, EP128)", "params_b": 671.0,
            "active_params_b": 37.0, "layers": 61, "hidden": 7168, "experts": 256, "top_k": 8,
            "precision": "fp8", "global_batch_tokens": 62914560, "gpus": 1024, "tp": 1,
            "pp": 4, "microbatches": 30, "ep": 128, "nvlink_domain": 8, "overlap_ep": 0.8,
            "schedule": "dualpipe"}


def compare_rows(text: str, rows: tuple[str, ...]) -> str:
    """The named rows of ``designer compare``'s table as a Markdown table (columns are set
    apart by two or more spaces; a value holds at most one space in a row)."""
    import re

    lines = text.splitlines()
    head = [c for c in re.split(r"\s{2,}", lines[0].strip()) if c]
    out = ["| | " + " | ".join(head) + " |", "|---" * (len(head) + 1) + "|"]
    found = {}
    for line in lines[1:]:
        for label in rows:
            if line.startswith(label + " ") and label not in found:
                cells = [c for c in re.split(r"\s{2,}", line[len(label):].strip()) if c]
                if len(cells) == len(head):
                    found[label] = cells
    missing = [r for r in rows if r not in found]
    if missing:
        raise SystemExit(f"designer compare gave no row {missing}")
    out += ["| " + label + " | " + " | ".join(found[label]) + " |" for label in rows]
    return "\n".join(out) + "\n"


def compare_transports_24k() -> str:
    """The 24,576-GPU RoCE example under four profiles, DeepSeek-V3-like MoE."""
    return compare_rows(designer("compare",
                                 str(PROJECTS / "roce-fat-tree-24k-oversubscribed.fabric.json"),
                                 "--profiles", TRANSPORT_PROFILES,
                                 "--workload", "deepseek-v3-like"), TRANSPORT_ROWS)


def compare_transports_1024() -> str:
    """A generated 1,024-GPU RoCE fat tree under four profiles, an MoE on 1,024 GPUs."""
    with tempfile.TemporaryDirectory() as tmp:
        design, work = Path(tmp) / "ft1024.fabric.json", Path(tmp) / "moe1024.json"
        designer("generate", "fat-tree", "--gpus", "1024", "--gear", "roce-400",
                 "-o", str(design))
        work.write_text(json.dumps(MOE_1024))
        return compare_rows(designer("compare", str(design), "--profiles", TRANSPORT_PROFILES,
                                     "--workload", str(work)), TRANSPORT_ROWS)


def solve_text() -> str:
    """``designer solve`` of the 4-SU example, as printed."""
    return designer("solve", str(SUPERPOD))


def _endpoint_side_usd(bom: dict, catalog: dict[str, dict]) -> float:
    """NICs and the optics in servers' cages: what every topology pays per endpoint alike."""
    total = 0.0
    for line in bom["lines"]:
        item = catalog.get(line.get("catalog_id") or "", {})
        if line["category"] == "nic" or (line["category"] == "transceiver"
                                             and item.get("host") == "nic"):
            total += line["total_usd"]
    return total


def deepseek() -> str:
    """The DeepSeek ISCA 2025 comparison: ``designer sweep`` of the bundled spec, and each
    design's endpoint side (NICs and the optics in servers' cages) from its bill of materials."""
    from designer.core.solver import solve
    from designer.core.sweep import build, expand, load_spec

    with tempfile.TemporaryDirectory() as tmp:
        table = Path(tmp) / "ds.json"
        designer("sweep", str(DEEPSEEK_SPEC), "--workers", "0", "-o", str(table))
        data = json.loads(table.read_text())
    rows = [dict(zip(data["columns"], r, strict=True)) for r in data["rows"]]
    points = expand(load_spec(DEEPSEEK_SPEC))
    catalog = {i["id"]: i for i in json.loads(designer("catalog", "--json"))["items"]}
    out = ["| design | endpoints | switches | cost per endpoint | without the endpoint side |",
           "|---|---|---|---|---|"]
    costs: dict[str, tuple[float, float]] = {}
    labels = {("fat-tree", 2, False): "FT2", ("fat-tree", 2, True): "MPFT (8 planes)",
              ("fat-tree", 3, False): "FT3"}
    for r, point in zip(rows, points, strict=True):
        if r["kind"] == "dragonfly":
            name = f"DF, p = {r['p']:g}, a = {r['a']:g}, h = {r['h']:g}"
        else:
            name = labels[(r["kind"], int(r["tiers"]), bool(r.get("planes")))]
        bom = solve(build(point)).bom.to_json()
        side = _endpoint_side_usd(bom, catalog) / r["endpoints"]
        out.append(f"| {name} | {r['endpoints']:,.0f} | {r['switches']:,.0f} | "
                   f"{money(r['cost_per_endpoint'])} | {money(r['cost_per_endpoint'] - side)} |")
        costs[name] = (r["cost_per_endpoint"], r["cost_per_endpoint"] - side)
    ft2, ft3, df = costs["FT2"], costs["FT3"], costs["DF, p = 16, a = 32, h = 16"]
    out += ["", f"FT3 / FT2: {ft3[0] / ft2[0]:.2f} with the endpoint side, "
            f"{ft3[1] / ft2[1]:.2f} without it (the paper: 7.5 / 4.39 = 1.71). "
            f"The largest dragonfly / FT2: {df[0] / ft2[0]:.2f} (the paper: 5.8 / 4.39 = 1.32). "
            f"The endpoint side (a NIC port and its optic) is {money(ft2[0] - ft2[1])} "
            "per endpoint on every design."]
    return "\n".join(out) + "\n"


MRC_PLAN = ("generate", "fat-tree", "--gear", "roce-400", "--gpus", "131072", "--nic",
            "thor-ultra", "--plane-split", "8", "--switch", "th5-64x800", "--tiers", "2",
            "--plan")


def mrc_plan() -> str:
    """OCP MRC's two-tier 131,072-GPU multi-plane design, as ``designer generate`` plans it."""
    return designer(*MRC_PLAN)


def _network(d: dict) -> tuple[float, float]:
    """Switches, optics, fibre and lasers (NICs left out: alike in both designs)."""
    lines = [x for x in d["bom"]["lines"] if x["category"] != "nic"]
    return sum(x["total_usd"] for x in lines), sum(x["power_w"] for x in lines)


def rail_only_savings() -> str:
    """Rail-only against rail-optimized on the same GPUs (roce-400), from ``designer solve``."""
    out = ["| GPUs (`roce-400`) | rail-optimized switches | rail-only switches | "
           "switches, optics and fibre | their power |", "|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory() as tmp:
        for gpus in (1024, 8192, 16384):
            got = []
            for kind in ("rail", "rail-only"):
                f = Path(tmp) / f"{kind}-{gpus}.fabric.json"
                # the network gear alone, as the column says (no racks, power or spares)
                designer("generate", kind, "--gear", "roce-400", "--gpus", str(gpus),
                         "--bom-off", "racks,power-cords,spares", "-o", str(f))
                got.append(json.loads(designer("solve", str(f), "--json")))
            (c1, p1), (c2, p2) = _network(got[0]), _network(got[1])
            out.append(f"| {gpus:,} | {got[0]['switches']['total']:,} | "
                       f"{got[1]['switches']['total']:,} | {c2 / c1 - 1:+.1%} | "
                       f"{p2 / p1 - 1:+.1%} |")
    return "\n".join(out) + "\n"


def cpo_vs_pluggable() -> str:
    """The same Vera Rubin design on a pluggable and a co-packaged Tomahawk 6."""
    out = ["| switch | transceivers | laser modules | optics power at the switches | "
           "network total |", "|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory() as tmp:
        for sw in ("th6-102t", "th6-davisson-cpo"):
            f = Path(tmp) / f"{sw}.fabric.json"
            designer("generate", "rail", "--gear", "vr-spectrum-x", "--sus", "2", "--switch",
                     sw, "-o", str(f))
            d = json.loads(designer("solve", str(f), "--json"))
            by: dict[str, list[float]] = {}
            for x in d["bom"]["lines"]:
                acc = by.setdefault(x["category"], [0, 0.0])
                acc[0] += x["qty"]
                acc[1] += x["power_w"]
            nic_ports = d["links"]["by_layer"]["endpoint-leaf"]
            mods = [x for x in d["bom"]["lines"] if x["category"] == "transceiver"]
            sw_mod_w = sum(x["unit_power_w"] * max(x["qty"] - nic_ports, 0) for x in mods)
            lasers = by.get("laser", [0, 0.0])
            engines = 0.0
            if lasers[0]:  # the switch's power above the pluggable box is its engines
                base = json.loads(designer("catalog", "--json", "--kind", "switch"))["items"]
                box = {i["id"]: i["power_w"] for i in base}
                engines = d["switches"]["total"] * (box[sw] - box["th6-102t"])
            optics = sw_mod_w + engines + lasers[1]
            out.append(f"| `{sw}` | {by['transceiver'][0]:,} | {lasers[0]:,} | "
                       f"{optics / 1000:,.1f} kW | {money(d['bom']['total_usd'])}, "
                       f"{d['power_w'] / 1000:,.0f} kW |")
    return "\n".join(out) + "\n"


def estimates_table() -> str:
    """Every published figure the tool is compared with (``designer.core.published``)."""
    from designer.core.published import evaluate, markdown

    return markdown(evaluate())


FIGURES: dict[str, Callable[[], str]] = {
    "estimates-table.md": estimates_table,
    "mrc-plan.txt": mrc_plan,
    "rail-only-savings.md": rail_only_savings,
    "cpo-vs-pluggable.md": cpo_vs_pluggable,
    "examples.md": examples,
    "floor-4su.txt": floor_4su,
    "compare-ib-roce.txt": compare_ib_roce,
    "compare-b300-decision.txt": compare_b300_decision,
    "solve-4su.txt": solve_text,
    "deepseek.md": deepseek,
    "compare-transports-24k.md": compare_transports_24k,
    "compare-transports-1024.md": compare_transports_1024,
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare, write nothing")
    ap.add_argument("names", nargs="*", help=f"only these files (of {', '.join(FIGURES)})")
    args = ap.parse_args()
    stale = []
    for name in args.names or FIGURES:
        text = FIGURES[name]()
        path = OUT / name
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(name)
        else:
            OUT.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            print("wrote", path.relative_to(ROOT))
    if stale:
        print("stale: " + ", ".join(stale) + " (run python scripts/doc_figures.py)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
