"""The cluster's other networks: front-end (in-band), storage and out-of-band management.

The back-end fabric is ``Project.fabric``; these live in ``Project.networks``, each a small
design of its own (switches, links, the parameters it was generated from) that refers to the
back-end's servers by id. The back-end solve never reads them; ``solve_networks`` does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from designer.core.errors import GeneratorError
from designer.core.faces import lazy_names

BACKEND = "backend"
EXTRA_NETWORKS = ("frontend", "storage", "oob")
NETWORK_NAMES = (BACKEND, *EXTRA_NETWORKS)
NETWORK_LABELS = {
    BACKEND: "Back-end (compute)",
    "frontend": "Front-end (in-band)",
    "storage": "Storage",
    "oob": "Out-of-band management",
}


def parse_network_names(text: str, option: str = "--networks") -> tuple[str, ...]:
    """``backend,frontend`` -> the extra networks asked for, in canonical order. The back-end
    is always built; naming it is allowed so the list reads like the cluster."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in NETWORK_NAMES]
    if unknown:
        raise GeneratorError(f"{option}: unknown network '{unknown[0]}' "
                             f"(known: {', '.join(NETWORK_NAMES)})")
    if not names:
        raise GeneratorError(f"{option}: name at least one network "
                             f"(known: {', '.join(NETWORK_NAMES)})")
    return tuple(n for n in EXTRA_NETWORKS if n in names)


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
}
__getattr__ = lazy_names(__name__, globals(), _WHERE)

if TYPE_CHECKING:
    from designer.core.networks.drawing import BOX_H, BOX_W, Band, bands
    from designer.core.networks.generate import regenerate_networks, with_networks
    from designer.core.networks.solve import networks_json, networks_report, solve_networks

__all__ = [
    "BACKEND",
    "BOX_H",
    "BOX_W",
    "EXTRA_NETWORKS",
    "NETWORK_LABELS",
    "NETWORK_NAMES",
    "Band",
    "bands",
    "networks_json",
    "networks_report",
    "parse_network_names",
    "regenerate_networks",
    "solve_networks",
    "with_networks",
]
