"""Write the example projects in projects/ with the generators (run after generator changes)."""

from __future__ import annotations

import sys
from pathlib import Path

from designer.core.analysis.workload import PRESETS, DecisionSettings
from designer.core.catalog import builtin_catalog
from designer.core.fileformat import save_project
from designer.core.generators import generate, params_from_dict
from designer.core.layout import compact_if_wide
from designer.core.physical.floor import Geometry
from designer.core.physical.sections import for_new_design
from designer.core.physical.summary import with_floor

EXAMPLES = {
    "dgx-superpod-4su-ib-ndr": (
        "rail",
        {"sus": 4, "name": "DGX SuperPOD 4 SU (1,024 GPUs), InfiniBand NDR"},
    ),
    "dgx-superpod-4su-roce-400": (
        "rail",
        # the NDR example's layout (SUs of 32) on RoCE gear, kept as drawn on purpose: Compare
        # shows what it leaves idle against the RoCE reference layout (SUs of 64)
        {"sus": 4, "servers_per_su": 32, "gear": "roce-400",
         "name": "DGX SuperPOD 4 SU (1,024 GPUs), RoCE 400G"},
    ),
    "b300-superpod-4su-ib-xdr": (
        "rail",
        {"gpus": 1024, "gear": "ib-xdr",
         "name": "DGX B300 SuperPOD 2 SU of 72 (1,024 GPUs), InfiniBand XDR"},
    ),
    "b300-2-plane-roce-800": (
        "rail",
        {
            "gpus": 1024,
            "gear": "roce-800",
            "name": "B300 Spectrum-X, 2 x 400G planes per GPU (1,024 GPUs), RoCE 800G",
        },
    ),
    "dgx-h100-superpod-3su-ufm": (
        "rail",
        {
            "sus": 3,
            "reserve_leaf_ports": 4,
            "name": "DGX H100 SuperPOD 3 SU with UFM (95 nodes), NVIDIA RA Table 4",
        },
    ),
    "dgx-superpod-64su-ib-ndr": (
        "rail",
        {"sus": 64, "name": "DGX SuperPOD 64 SU (16,384 GPUs), InfiniBand NDR"},
    ),
    "roce-fat-tree-24k-oversubscribed": (
        "fat-tree",
        {
            "gpus": 24576,
            "gear": "roce-400",
            "placement": "tor",
            "servers_per_leaf": 2,
            "oversubscription": "1:1,7:1",
            "pod_gpus": 3072,
            "spine_switch": "j3ai-chassis",
            "name": "RoCE fat-tree, 24,576 GPUs, 8 pods joined at 7:1 (Meta Llama 3 style)",
        },
    ),
    "k-ary-fat-tree-k8": ("fat-tree", {"k_ary": 8, "name": "k-ary fat-tree, k = 8 (Al-Fares)"}),
    "dragonfly-1056-gpus": (
        "dragonfly",
        {"a": 8, "p": 4, "h": 4, "name": "Balanced dragonfly, a = 8, p = h = 4 (1,056 GPUs)"},
    ),
    # rack-scale: 4 SUs of 8 GB200 NVL72 racks (2,304 GPUs) on Quantum-2, placed on the floor
    # with the DGX SuperPOD GB200's 1.2 MW a scalable unit's row, an EP-heavy MoE workload
    "gb200-nvl72-superpod-4su-ib-ndr": (
        "rail",
        {"gpus": 2304, "gear": "gb200-ib-ndr",
         "name": "GB200 NVL72 SuperPOD 4 SU (32 racks, 2,304 GPUs), InfiniBand NDR"},
        {"row_kw": 1200.0, "workload": "deepseek-v3-like"},
    ),
    # AMD Instinct MI355X on RoCE 400G (Pollara 400, Tomahawk 5 as 128 x 400G), rail-optimized
    # in SUs of 64 servers, as the AMD MI3XX reference design's rail network
    "amd-mi355x-1024-roce-400": (
        "rail",
        {"gpus": 1024, "gear": "amd-roce-400", "servers_per_su": 64,
         "name": "AMD Instinct MI355X, 1,024 GPUs, RoCE 400G (Pollara 400, Tomahawk 5)"},
        {"row_kw": 1200.0},
    ),
}


def main(folder: str = "projects", *only: str) -> int:
    """Write every example, or only the stems named after the folder."""
    out = Path(folder)
    out.mkdir(exist_ok=True)
    catalog = builtin_catalog()
    unknown = set(only) - set(EXAMPLES)
    if unknown:
        print(f"no such example: {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    for stem, (kind, values, *more) in EXAMPLES.items():
        if only and stem not in only:
            continue
        # wide designs (64 SUs, 8 pods of ToRs) are stored arranged compactly, as the window
        # generates them, so Fit shows them whole and readable
        project = compact_if_wide(generate(params_from_dict(kind, values)))
        extras = more[0] if more else {}
        if "row_kw" in extras:  # a floor plan with each row's power budget
            project = with_floor(project, catalog, geometry=Geometry(row_kw=extras["row_kw"]))
        if "workload" in extras:
            project = project.evolve(
                decision=DecisionSettings(workload=PRESETS[extras["workload"]]))
        # a new design's bill: racks, power cords (PDUs once placed) and spares
        project = for_new_design(project)
        path = out / f"{stem}.fabric.json"
        save_project(project, path, keep_backup=False)
        print(
            f"{path}: {len(project.fabric.devices):,} devices, "
            f"{project.fabric.links.n_cables:,} links"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
