"""ASTRA-sim's published configuration schema, as its SDK (the ``astra-sim-sdk`` package)
carries it: OpenAPI models that check every key, type and enumerated value.

This file imports nothing from the designer so that another interpreter can run it by path:
the SDK pins protobuf 5, which other packages beside the designer may not share, so it often
lives in an environment of its own. Run as a script, it reads ``{"network": [...],
"system": {...}}`` as JSON on standard input and prints the list of problems as JSON.
"""

from __future__ import annotations

import json
import sys


def problems(network: list[dict], system: dict) -> list[str]:
    """Each network dimension ({topology, npus_count, bandwidth, latency}) and the system
    configuration checked by the SDK's models. The SDK spells topologies in lower case where
    ASTRA-sim's YAML files write ``Switch``; it takes the system keys with underscores for the
    files' dashes. Raises ImportError when the SDK is not installed here."""
    import astra_sim_sdk as sdk

    found: list[str] = []
    topo = sdk.AnalyticalTopology()
    for i, dim in enumerate(network):
        try:
            topo.network.add(topology=str(dim["topology"]).lower(),
                             npus_count=int(dim["npus_count"]),
                             bandwidth=float(dim["bandwidth"]), latency=float(dim["latency"]))
        except (TypeError, ValueError) as exc:
            found.append(f"network dimension {i}: {exc}")
    keys = {k.replace("-", "_"): v for k, v in system.items()}
    known = set(sdk.SystemConfiguration._TYPES)
    found += [f"system: unknown key '{k}'" for k in sorted(set(keys) - known)]
    try:
        sdk.SystemConfiguration().deserialize({k: v for k, v in keys.items() if k in known})
    except (TypeError, ValueError) as exc:
        found.append(f"system: {exc}")
    return found


def sdk_version() -> str:
    from importlib.metadata import version

    return version("astra-sim-sdk")


if __name__ == "__main__":
    request = json.load(sys.stdin)
    try:
        answer = {"problems": problems(request["network"], request["system"]),
                  "sdk": sdk_version()}
    except ImportError:
        answer = {"error": f"astra-sim-sdk is not installed for {sys.executable}"}
    json.dump(answer, sys.stdout)
