"""Transports a design runs on its back-end fabric: InfiniBand, RoCEv2, Spectrum-X, Ultra
Ethernet and MRC. Each is one ``Transport`` record (``profiles``) holding what it decides
everywhere in the tool (the default routing of the load model and of the estimates, the incast
model, the switch configs' QoS profile, the tuning effort in TCO) with its reasoning and sources.
``incast`` is the many-to-one model; ``fabric`` the hashing-versus-spraying factor of an
all-to-all; ``choice`` resolves a project's transport. No Qt, no solver imports here.
"""

from typing import TYPE_CHECKING

from designer.core.faces import lazy_names
from designer.core.transport.profiles import (
    TRANSPORT_IDS,
    TRANSPORTS,
    Transport,
    TransportError,
    default_transport,
    get_transport,
)

# Loaded on first use (designer.core.faces): importing the package, or any module of it,
# stays as cheap as before.
_WHERE = {
    "profile_transport": "choice",
    "project_tech": "choice",
    "transport_of": "choice",
    "check_fits": "profiles",
    "BURST_BYTES": "traffic",
    "LOSSLESS": "traffic",
    "LOSSLESS_TEXT": "traffic",
    "lossless_model": "traffic",
    "TransportLoad": "traffic",
    "run_transport_load": "traffic",
    "tuning_name": "tuning",
}
__getattr__ = lazy_names(__name__, globals(), _WHERE)

if TYPE_CHECKING:
    from designer.core.transport.choice import profile_transport, project_tech, transport_of
    from designer.core.transport.profiles import check_fits
    from designer.core.transport.traffic import (
        BURST_BYTES,
        LOSSLESS,
        LOSSLESS_TEXT,
        TransportLoad,
        lossless_model,
        run_transport_load,
    )
    from designer.core.transport.tuning import tuning_name

__all__ = [
    "BURST_BYTES",
    "LOSSLESS",
    "LOSSLESS_TEXT",
    "TRANSPORTS",
    "TRANSPORT_IDS",
    "Transport",
    "TransportError",
    "TransportLoad",
    "check_fits",
    "default_transport",
    "get_transport",
    "lossless_model",
    "profile_transport",
    "project_tech",
    "run_transport_load",
    "transport_of",
    "tuning_name",
]
