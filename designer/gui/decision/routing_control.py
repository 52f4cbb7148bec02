"""How the estimates meet the network: the fluid optimum packet spraying reaches (and ideal
adaptive routing approaches), or ECMP
with NCCL's ring channels and queue pairs hashed onto this design's paths (run off the GUI
thread: seconds at 24,576 GPUs). The channel and queue-pair counts are the workload's."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QWidget

from designer.core.analysis import ring_under_ecmp, settings_of
from designer.gui.base.background import BackgroundTask

ADAPTIVE = ("spray", "Packet spraying (fluid optimum)")
ECMP = ("ecmp", "ECMP: NCCL channels x queue pairs hashed")
FLUID_LABEL = "fluid optimum (packet spraying)"


class RoutingControl(QWidget):
    """Emits ``changed`` when the network factor the estimates should use is known."""

    changed = Signal()

    def __init__(self, doc, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.doc = doc
        self.slowdown, self.label = 1.0, FLUID_LABEL
        self.tree_slowdown: float | None = None  # the tree's own factor under ECMP
        self.tree_wanted = True  # whether the last estimate ran a tree (until one is known)
        self.task: BackgroundTask | None = None
        self._key: tuple | None = None
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(QLabel("Network:"))
        self.combo = QComboBox()
        for key, text in (ADAPTIVE, ECMP):
            self.combo.addItem(text, key)
        self.combo.setToolTip(
            "ECMP hashes each of NCCL's ring channels (workload: channels per NIC) and queue "
            "pairs (workload: NCCL_IB_QPS_PER_CONNECTION) onto one path; each channel's "
            "pipelined ring moves at its most loaded link")
        self.combo.activated.connect(
            lambda _i: self.update_for(self.doc.project, self.tree_wanted))
        lay.addWidget(self.combo, 1)

    @property
    def ecmp(self) -> bool:
        return self.combo.currentData() == "ecmp"

    def update_for(self, project, tree: bool = True) -> None:
        """Recompute the factor when ECMP is chosen and the fabric or NCCL settings changed.
        ``tree``: whether the estimate runs NCCL's double binary tree (tree, NVLS-tree), whose
        flows are then hashed too (two to three times the ring's work, so only when used)."""
        self.tree_wanted = tree
        if not self.ecmp:
            if self.slowdown != 1.0 or self.label != FLUID_LABEL:
                self.slowdown, self.label, self._key = 1.0, FLUID_LABEL, None
                self.tree_slowdown = None
                self.changed.emit()
            return
        w = settings_of(project).workload
        ch, qps, job = w.channels_per_nic, w.qps_per_connection, w.gpus or None
        key = (id(project.fabric), ch, qps, job, tree)
        if key == self._key or (self.task is not None and self.task.running):
            return
        self._key = key
        catalog = self.doc.catalog

        def work(_progress, _cancelled):
            return ring_under_ecmp(project, channels_per_nic=ch, qps=qps, gpus=job,
                                   catalog=catalog, tree=tree)

        task = BackgroundTask(self, "ECMP", "Hashing NCCL's channels onto the paths…", work)
        task.finished.connect(self._done)
        task.failed.connect(self._failed)
        self.task = task
        task.start()

    def _done(self, r) -> None:
        self.slowdown, self.label = r.slowdown, r.label()
        self.tree_slowdown = r.tree_slowdown
        self.changed.emit()

    def _failed(self, message: str) -> None:
        self._key = None
        self.combo.setCurrentIndex(0)
        self.slowdown, self.label = 1.0, f"{FLUID_LABEL} (ECMP not run: {message})"
        self.tree_slowdown = None
        self.changed.emit()

