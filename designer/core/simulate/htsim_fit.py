"""What htsim's fat tree accepts, and the design re-expressed for it when the design's switches
are larger than htsim allows.

Checked against csg-htsim's ``sim/datacenter/fat_tree_topology.cpp``:

- ports: a ToR takes at most 96 ports (``assert(addPort(...) < 96)``: ``addPort`` returns the
  new port's index, 0 to 95), an aggregation or core switch at most 64 (``< 64``); a ToR's
  ports are its host downlinks and its uplinks, an aggregation switch's its downlinks and
  uplinks, a core's its downlinks. Beyond them htsim aborts on an assertion.
- ``set_custom_params``: whole pods of whole ToRs, each tier's down radix a multiple of its
  bundle, a ToR's down:up radix equal to its oversubscription, the uplinks shared evenly
  over the aggregation switches of a pod and over the cores. htsim prints these and exits.
- flows: ``ConnectionMatrix::load`` reads a flow's size with ``stoi`` into a 32-bit int, so a
  flow of 2^31 bytes or more aborts it.

A design over the port limits is re-expressed when it was generated: the same generator and
parameters with generic 64-port switches of the same speed (a 128-port leaf of 64 GPUs and 64
uplinks becomes two 64-port leaves of 32 and 32; a 128-port spine two of 64). Same GPUs, same
servers, same oversubscription; what changes is that GPUs of one real leaf that land on two
of htsim's leaves talk through a spine. The tool's prediction written beside htsim's inputs
is made on that re-expressed design, so the two answer the same question.
"""

from __future__ import annotations

from designer.core.catalog import Catalog
from designer.core.model import Project

TOR_MAX_PORTS = 96
UPPER_MAX_PORTS = 64
MAX_FLOW_BYTES = 2**31 - 1
# generic switch sizes tried, largest first, when the design's switches exceed the limits
FIT_RADICES = (64, 48, 32)


def fat_tree_problems(topo: dict) -> list[str]:
    """What htsim's fat tree refuses in ``topo`` (``htsim.read_topology``'s dict), each as
    one sentence; empty when htsim builds it."""
    head, t = topo["header"], topo["tiers"]
    n, tiers, podsize = head["nodes"], head["tiers"], head["podsize"]
    out: list[str] = []

    def g(i: int, k: str, default: int = 0) -> int:
        return t[i].get(k, default) if i < len(t) else default

    rd = [g(i, "radix_down") for i in range(3)]
    ru = [g(i, "radix_up") for i in range(3)]
    bundle = [g(i, "bundle", 1) for i in range(3)]
    over = [g(i, "oversubscribed", 1) for i in range(3)]
    speed = [g(i, "downlink_speed_gbps") for i in range(3)]
    names = ("ToR", "aggregation", "core")
    for i in range(tiers):
        ports = rd[i] + ru[i]
        limit = TOR_MAX_PORTS if i == 0 else UPPER_MAX_PORTS
        if ports > limit:
            out.append(f"{ports} ports on a tier-{i} ({names[i]}) switch: htsim's fat tree "
                       f"takes at most {TOR_MAX_PORTS} on a ToR and {UPPER_MAX_PORTS} on an "
                       "aggregation or core switch")
        if rd[i] % bundle[i]:
            out.append(f"tier {i}: down radix {rd[i]} is not a multiple of its bundle "
                       f"{bundle[i]}")
        if i < tiers - 1 and ru[i] % bundle[i + 1]:
            out.append(f"tier {i}: up radix {ru[i]} is not a multiple of tier {i + 1}'s "
                       f"bundle {bundle[i + 1]}")
    if out:
        return out
    if n % podsize or podsize % rd[0]:
        return [f"{n} hosts do not make whole pods of {podsize} of whole ToRs of {rd[0]}"]
    pods = n // podsize
    if (n * speed[0]) % (speed[1] * over[0]):
        return ["the ToR uplinks do not come out whole"]
    tor_up = n * speed[0] // (speed[1] * over[0])
    if rd[0] // ru[0] != over[0]:
        return [f"a ToR of {rd[0]} down and {ru[0]} up is not {over[0]}:1 oversubscribed as "
                "htsim counts it (down radix / up radix, at one speed)"]
    if tor_up % (pods * rd[1]):
        return ["the ToR uplinks do not spread evenly over the aggregation switches"]
    agg_per_pod = tor_up // (pods * rd[1])
    if agg_per_pod * bundle[1] != ru[0]:
        return [f"a ToR's {ru[0]} uplinks do not meet {agg_per_pod} aggregation switches per "
                f"pod with bundles of {bundle[1]}"]
    if tiers == 3:
        if (tor_up * speed[1]) % (speed[2] * over[1]):
            return ["the aggregation uplinks do not come out whole"]
        agg_up = tor_up * speed[1] // (speed[2] * over[1])
        if agg_up % rd[2]:
            return ["the aggregation uplinks do not fill whole core switches"]
        cores = agg_up // rd[2]
        if cores % agg_per_pod or cores * bundle[2] // agg_per_pod != ru[1]:
            return [f"{cores} core switches do not meet {agg_per_pod} aggregation switches "
                    f"per pod with {ru[1]} uplinks each in bundles of {bundle[2]}"]
    return []


def refit(project: Project, catalog: Catalog, tiers: int) -> list[tuple[int, Project]]:
    """The design generated again with generic switches of each of ``FIT_RADICES`` ports
    (same parameters otherwise), in that order; sizes the generator refuses are skipped.
    Empty for a design that was not generated."""
    from designer.core.errors import DesignerError
    from designer.core.generators import regenerate

    if project.generator is None:
        return []
    out = []
    for radix in FIT_RADICES:
        changes = {"radix": radix, "switch": None, "spine_switch": None}
        if "tiers" in project.generator.params:
            changes["tiers"] = tiers
        try:
            out.append((radix, regenerate(project, changes, catalog)))
        except (DesignerError, ValueError):
            continue
    return out


def split_sizes(size: int) -> list[int]:
    """``size`` bytes as flows htsim accepts: as few equal parts as keep each under 2^31."""
    k = -(-size // MAX_FLOW_BYTES)
    base, extra = divmod(size, k)
    return [base + 1] * extra + [base] * (k - extra)
