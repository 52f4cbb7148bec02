"""What the reference-layout defaults cost a plan: ``python bench/bench_reference_plan.py``.

Plans the rail designs whose defaults now follow each profile's reference layout (the SU
sized by the leaf's radix, the plan's published/derived line, idle upper ports, and for
rack-scale designs the pod search) and prints each plan's time; the plan runs before every
generate and in the generate dialog as the user types.
"""

from __future__ import annotations

import time

from designer.core.catalog import builtin_catalog
from designer.core.generators import params_from_dict, plan

CASES = (
    {"gear": "ib-ndr", "sus": 64},  # 16,384 GPUs, 3 tiers, published
    {"gear": "ib-xdr", "sus": 18},  # 10,368 GPUs, 2 tiers, published
    {"gear": "spectrum-x-800", "gpus": 65_536},  # 2 planes, 3 tiers, derived
    {"gear": "gb200-ib-ndr", "sus": 16},  # 9,216 GPUs, rack-scale pod search
)


def main() -> None:
    cat = builtin_catalog()
    for values in CASES:
        params = params_from_dict("rail", values)
        plan(params, cat)  # warm
        t0 = time.perf_counter()
        n = 20
        for _ in range(n):
            pl = plan(params, cat)
        ms = (time.perf_counter() - t0) / n * 1000
        print(f"{values}: {pl.gpus:,} GPUs, {pl.total_switches:,} switches, plan {ms:.2f} ms")


if __name__ == "__main__":
    main()
