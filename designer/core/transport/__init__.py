"""Transports a design runs on its back-end fabric: InfiniBand, RoCEv2, Spectrum-X, Ultra
Ethernet and MRC. Each is one ``Transport`` record (``profiles``) holding what it decides
everywhere in the tool (the default routing of the load model and of the estimates, the incast
model, the switch configs' QoS profile, the tuning effort in TCO) with its reasoning and sources.
``incast`` is the many-to-one model; ``fabric`` the hashing-versus-spraying factor of an
all-to-all; ``choice`` resolves a project's transport. No Qt, no solver imports here.
"""

from designer.core.transport.profiles import (
    TRANSPORT_IDS,
    TRANSPORTS,
    Transport,
    TransportError,
    default_transport,
    get_transport,
)

__all__ = ["TRANSPORTS", "TRANSPORT_IDS", "Transport", "TransportError", "default_transport",
           "get_transport"]
