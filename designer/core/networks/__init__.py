"""The cluster's other networks: front-end (in-band), storage and out-of-band management.

The back-end fabric is ``Project.fabric``; these live in ``Project.networks``, each a small
design of its own (switches, links, the parameters it was generated from) that refers to the
back-end's servers by id. The back-end solve never reads them; ``solve_networks`` does.
"""

from __future__ import annotations

from designer.core.errors import GeneratorError

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
