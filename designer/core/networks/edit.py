"""Edit an extra network by its parameters: the switch model and port speed, the
oversubscription, the storage nodes' model and count, the management switches per rack.

A network is regenerated from the parameters it was asked with, the changed ones put in
(``None``: back to automatic). Regenerating the front-end or storage network regenerates the
out-of-band one too (its switches manage theirs, by id), from its own asked parameters.
"""

from __future__ import annotations

from typing import Any

from designer.core.catalog import Catalog, builtin_catalog
from designer.core.errors import GeneratorError
from designer.core.model import Project
from designer.core.networks.generate import DEFAULTS, RESOLVED, with_networks
from designer.core.networks.names import EXTRA_NETWORKS, NETWORK_LABELS

# what each parameter is, for a form: label, and whether None (automatic) is allowed
PARAM_LABELS: dict[str, str] = {
    "switch": "Switch model",
    "switch_gbps": "Switch port speed (Gb/s)",
    "oversubscription": "Leaf oversubscription (down:up)",
    "ports_per_server": "Ports per server",
    "gbps": "Server port speed (Gb/s)",
    "node": "Storage node model",
    "storage_nodes": "Storage nodes",
    "read_gbytes_s_per_gpu": "Read target per GPU (GB/s)",
    "servers_per_rack": "Servers per rack",
    "racks_per_switch": "Racks per management switch",
    "aggregation": "Aggregation switch model",
    "uplinks": "Uplinks per management switch",
}


def asked_params(project: Project, kind: str) -> dict[str, Any]:
    """The parameters ``kind`` was asked with (None: automatic), every one named."""
    net = (project.networks or {}).get(kind)
    if net is None:
        raise GeneratorError(f"the design has no {NETWORK_LABELS.get(kind, kind)} network")
    return {**DEFAULTS[kind], **{k: v for k, v in net.params.items() if k != RESOLVED}}


def resolved_params(project: Project, kind: str) -> dict[str, Any]:
    """What the automatic parameters came to (shown beside an empty field)."""
    net = (project.networks or {}).get(kind)
    got = net.params.get(RESOLVED) if net is not None else None
    return dict(got) if isinstance(got, dict) else {}


def with_network_params(project: Project, kind: str, changes: dict[str, Any],
                        catalog: Catalog | None = None) -> Project:
    """``project`` with network ``kind`` regenerated from its asked parameters and
    ``changes`` (GeneratorError naming a bad value or an unknown parameter)."""
    if kind not in EXTRA_NETWORKS:
        raise GeneratorError(f"unknown network '{kind}' (known: {', '.join(EXTRA_NETWORKS)})")
    params = asked_params(project, kind)
    for k in changes:
        if k not in params:
            raise GeneratorError(f"{kind}: unknown parameter '{k}' (known: {', '.join(params)})")
    for k, v in changes.items():
        # an emptied field: automatic where the parameter may be, else its default
        params[k] = DEFAULTS[kind][k] if v is None else v
    names: tuple[str, ...] = (kind,)
    given = {kind: params}
    nets = project.networks or {}
    if kind != "oob" and "oob" in nets:  # its switches manage this network's: rebuilt too
        names += ("oob",)
        given["oob"] = asked_params(project, "oob")
    return with_networks(project, names, catalog if catalog is not None
                         else project.catalog(builtin_catalog()), given)


def parse_value(text: str) -> Any:
    """A form field's text as a parameter: empty is automatic (None), then a whole number, a
    number, or the text (a gear id)."""
    t = text.strip()
    if not t:
        return None
    try:
        return int(t)
    except ValueError:
        pass
    try:
        return float(t)
    except ValueError:
        return t
