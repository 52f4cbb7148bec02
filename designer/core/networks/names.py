"""The names of the cluster's networks and the parsing of a list of them."""

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
