"""The medium of every physical cable, as the cabling plan and the diagrams show it.

Placeholder until the solver's per-cable choice is wired in: the link's own medium, and its
length or the project's default for its layer.
"""

from __future__ import annotations

import numpy as np

from designer.core.catalog import Catalog
from designer.core.export.cabling import CableMedia
from designer.core.export.layers import link_layers
from designer.core.links import MEDIA
from designer.core.model import Project


def cable_media(project: Project, catalog: Catalog) -> CableMedia:
    links = project.fabric.links
    e = links.expand()
    layer = link_layers(project.fabric)[e["row"]] if len(links) else np.empty(0, object)
    default = np.array([project.analysis.length_for(x) for x in layer.tolist()], np.float64)
    length = e["length_m"].astype(np.float64)
    length = np.where(np.isnan(length), default, length)
    medium = [MEDIA[m] for m in e["medium"].tolist()]
    return CableMedia(medium, [""] * len(medium), length, layer.tolist())
