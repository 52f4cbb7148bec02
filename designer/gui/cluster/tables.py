"""The per-job table (a model over the result's arrays, fast at 10,000 rows) and the
side-by-side of the same trace on several designs."""

from __future__ import annotations

import math

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QSortFilterProxyModel, Qt

from designer.core.cluster import ClusterResult

JOB_COLUMNS = ("Job", "Tenant", "GPUs", "Arrival h", "Start h", "End h", "Wait h", "Slowdown",
               "Exposed comm.", "Interruptions", "Leaf groups", "Lost network GPU-h",
               "Lost failures GPU-h", "Lost $")


def _num(x: float, nd: int = 2) -> str:
    return "–" if x is None or (isinstance(x, float) and not math.isfinite(x)) else f"{x:,.{nd}f}"


_ROOT = QModelIndex()


class JobsModel(QAbstractTableModel):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.r: ClusterResult | None = None

    def set_result(self, r: ClusterResult | None) -> None:
        self.beginResetModel()
        self.r = r
        self.endResetModel()

    def rowCount(self, parent=_ROOT) -> int:
        return 0 if self.r is None or parent.isValid() else len(self.r.job)

    def columnCount(self, parent=_ROOT) -> int:
        return len(JOB_COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return JOB_COLUMNS[section]
        return None

    def _value(self, i: int, col: int):
        r = self.r
        lost = float(r.lost_network_gpu_h[i] + r.lost_failures_gpu_h[i])
        return (r.job[i], r.tenant[i] or "–", int(r.gpus[i]), float(r.arrival_h[i]),
                float(r.start_h[i]), float(r.end_h[i]), float(r.start_h[i] - r.arrival_h[i]),
                float(r.slowdown[i]), float(r.comm_share[i]), int(r.interruptions[i]),
                int(r.spans[i]), float(r.lost_network_gpu_h[i]),
                float(r.lost_failures_gpu_h[i]), lost * r.usd_per_gpu_hour)[col]

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if self.r is None or not index.isValid():
            return None
        v = self._value(index.row(), index.column())
        if role == Qt.ItemDataRole.UserRole:  # sorting: numbers as numbers, blanks last
            return v if not (isinstance(v, float) and not math.isfinite(v)) else float("inf")
        if role == Qt.ItemDataRole.DisplayRole:
            if isinstance(v, float):
                if index.column() == 8:
                    return f"{v:.1%}"
                return _num(v, 3 if index.column() == 7 else 2)
            return f"{v:,}" if isinstance(v, int) else v
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() >= 2:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == 7:
            return "running time over the work done: 1.0 = the network cost this job nothing"
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == 8:
            return "the share of the job's step spent in communication not hidden by compute"
        return None


def sorted_jobs(parent=None) -> tuple[JobsModel, QSortFilterProxyModel]:
    m = JobsModel(parent)
    proxy = QSortFilterProxyModel(parent)
    proxy.setSourceModel(m)
    proxy.setSortRole(Qt.ItemDataRole.UserRole)
    return m, proxy


def side_by_side(results: list[ClusterResult]) -> list[tuple[str, list[str]]]:
    """Rows (figure, one text per design) for the comparison table."""
    def money(x: float, r: ClusterResult) -> str:
        return f"${x * r.usd_per_gpu_hour * r.per_month:,.0f}"

    rows = [
        ("Design", [r.design for r in results]),
        ("GPUs", [f"{r.design_gpus:,}" for r in results]),
        ("Goodput", [f"{r.goodput:.2%}" for r in results]),
        ("Utilisation", [f"{r.utilisation:.1%}" for r in results]),
        ("Jobs finished", [f"{r.finished:,} of {len(r.job):,}" for r in results]),
        ("Network loss / month", [money(r.gpu_hours_lost_network, r) for r in results]),
        ("Failure loss / month", [money(r.gpu_hours_lost_failures, r) for r in results]),
        ("Mean slowdown (jobs)", [_num(float(_mean(r.slowdown)), 3) for r in results]),
        ("Jobs slowed > 5%", [f"{int((r.slowdown > 1.05).sum()):,}" for r in results]),
        ("Interruptions", [f"{int(r.interruptions.sum()):,}" for r in results]),
        ("Mean wait h", [_num(float(_mean(r.wait_h()))) for r in results]),
    ]
    tiers = sorted({k for r in results for k in r.by_tier})
    for k in tiers:
        rows.append((f"Network loss at {k} / month",
                     [money(r.by_tier.get(k, 0.0), r) for r in results]))
    return rows


def _mean(x):
    import numpy as np

    x = x[np.isfinite(x)]
    return float(x.mean()) if x.size else float("nan")
