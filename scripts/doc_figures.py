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


FIGURES: dict[str, Callable[[], str]] = {
    "examples.md": examples,
    "floor-4su.txt": floor_4su,
    "compare-ib-roce.txt": compare_ib_roce,
    "solve-4su.txt": solve_text,
    "deepseek.md": deepseek,
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
