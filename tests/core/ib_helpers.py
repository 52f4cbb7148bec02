"""Helpers of the InfiniBand tests: designs, and editing their cables as an installer might."""

from __future__ import annotations

import numpy as np

from designer.core.generators import generate, params_from_dict
from designer.core.links import LinkTable
from designer.core.model import Project


def design(kind: str, **params) -> Project:
    return generate(params_from_dict(kind, params))


def cables(project: Project) -> dict[str, np.ndarray]:
    """Every physical cable as writable columns."""
    e = project.fabric.links.expand()
    return {k: e[k].copy() for k in ("a", "a_port", "b", "b_port", "speed_gbps")}


def row(project: Project, cols: dict[str, np.ndarray], device: str, port: int) -> int:
    """The cable on ``port`` of ``device``."""
    i = project.fabric.index[device]
    hit = ((cols["a"] == i) & (cols["a_port"] == port)) | (
        (cols["b"] == i) & (cols["b_port"] == port)
    )
    return int(np.flatnonzero(hit)[0])


def with_cables(project: Project, cols: dict[str, np.ndarray], keep=None) -> Project:
    """``project`` cabled as ``cols`` says (only the rows ``keep`` marks)."""
    keep = np.ones(len(cols["a"]), bool) if keep is None else keep
    return project.with_fabric(
        project.fabric.with_links(LinkTable(**{k: v[keep] for k, v in cols.items()}))
    )
