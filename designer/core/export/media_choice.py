"""The solver's medium choice per cable, as the cabling plan and the diagrams show it.

``designer.core.solver.media.choose_media`` picks, for every physical cable, the cheapest
medium that reaches and the items it needs; the BOM counts the same choice. This turns its
item codes into catalog ids per cable (numpy lookups, no per-cable catalog access).
"""

from __future__ import annotations

import numpy as np

from designer.core.catalog import Catalog
from designer.core.export.cabling import CableMedia
from designer.core.links import MEDIA
from designer.core.model import Project
from designer.core.solver.media import MediaPlan, choose_media


def _ids(items: tuple[str, ...], codes: np.ndarray) -> np.ndarray:
    table = np.array([*items, ""], dtype=object)  # code -1 -> ""
    return table[np.where(codes >= 0, codes, len(items))]


def cable_media(project: Project, catalog: Catalog, plan: MediaPlan | None = None) -> CableMedia:
    """Per-cable media of ``project``; ``catalog`` already has the project's overrides."""
    m = plan if plan is not None else choose_media(project, catalog)
    n = len(m)
    medium = np.array([*MEDIA], dtype=object)[m.medium_class.astype(np.int64)]
    medium[m.medium_class == 0] = ""
    cable = _ids(m.items, m.cable)
    fibre = _ids(m.items, m.fibre)
    layer = (np.array(m.layers, dtype=object)[m.layer.astype(np.int64)] if n and m.layers
             else np.full(n, "", dtype=object))
    note = np.full(n, "", dtype=object)
    note[~m.reach_ok] = "longer than the medium reaches: shorten the run or pick another"
    note[m.forced & ~m.forced_ok] = "the medium set on this link does not exist for its gear"
    note[m.medium_class == 0] = "no catalog cable or optic fits this link"
    return CableMedia(
        medium=medium,
        a_optic=_ids(m.items, m.a_module),
        cable=np.where(cable != "", cable, fibre),
        z_optic=_ids(m.items, m.b_module),
        length_m=np.asarray(m.length_m, dtype=np.float64),
        layer=layer,
        note=note,
    )
