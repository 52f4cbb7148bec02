"""The cluster's other networks: front-end (in-band), storage and out-of-band management.

The back-end fabric is ``Project.fabric``; these live in ``Project.networks``, each a small
design of its own (switches, links, the parameters it was generated from) that refers to the
back-end's servers by id. The back-end solve never reads them; ``solve_networks`` does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from designer.core.faces import lazy_names
from designer.core.networks.names import (
    BACKEND,
    EXTRA_NETWORKS,
    NETWORK_LABELS,
    NETWORK_NAMES,
    parse_network_names,
)

# Loaded on first use (designer.core.faces): the project model imports this package's model,
# and a solve of the back-end alone pays for nothing more.
_WHERE = {
    "with_networks": "generate",
    "regenerate_networks": "generate",
    "solve_networks": "solve",
    "networks_json": "solve",
    "networks_report": "solve",
    "BOX_H": "drawing",
    "BOX_W": "drawing",
    "Band": "drawing",
    "bands": "drawing",
    "PARAM_LABELS": "edit",
    "asked_params": "edit",
    "resolved_params": "edit",
    "with_network_params": "edit",
    "parse_value": "edit",
}
__getattr__ = lazy_names(__name__, globals(), _WHERE)

if TYPE_CHECKING:
    from designer.core.networks.drawing import BOX_H, BOX_W, Band, bands
    from designer.core.networks.edit import (
        PARAM_LABELS,
        asked_params,
        parse_value,
        resolved_params,
        with_network_params,
    )
    from designer.core.networks.generate import regenerate_networks, with_networks
    from designer.core.networks.solve import networks_json, networks_report, solve_networks

__all__ = [
    "BACKEND",
    "BOX_H",
    "BOX_W",
    "EXTRA_NETWORKS",
    "NETWORK_LABELS",
    "NETWORK_NAMES",
    "PARAM_LABELS",
    "Band",
    "asked_params",
    "bands",
    "networks_json",
    "networks_report",
    "parse_network_names",
    "parse_value",
    "regenerate_networks",
    "resolved_params",
    "solve_networks",
    "with_network_params",
    "with_networks",
]
