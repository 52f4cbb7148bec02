"""The window's menu entries for InfraGraph, the simulators and acceptance, each running its
core function in the background (progress, Cancel) on a snapshot of the design."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog

from designer.core.solver import solve
from designer.gui.base import dialogs
from designer.gui.base.background import BackgroundTask, TaskOwner, run_and_wait

if TYPE_CHECKING:
    from designer.gui.acceptance.dialog import AcceptanceDialog


class AcceptanceActions(TaskOwner):
    """Owns the actions and the one background task at a time of one window."""

    def __init__(self, window, analysis) -> None:
        self.w = window
        self.analysis = analysis
        self.task: BackgroundTask | None = None
        self.dialog: AcceptanceDialog | None = None
        self.sim_dialog = None  # the last htsim check shown
        self.check = QAction("Check &Acceptance Results…", window)
        self.check.setShortcut(QKeySequence("Ctrl+Shift+K"))
        self.check.setStatusTip("Set nccl-tests and perftest results from the built cluster "
                                "beside the bands this design predicts, with likely causes")
        self.check.triggered.connect(self.open_check)
        self.plan = QAction("Write Acceptance &Test Plan…", window)
        self.plan.setStatusTip("Write the nccl-tests and perftest runs for the built cluster "
                               "with the predicted busbw and latency bands into a folder")
        self.plan.triggered.connect(self.ask_plan)
        self.import_ig = QAction("Import &InfraGraph…", window)
        self.import_ig.setStatusTip("Open an InfraGraph infrastructure (JSON or YAML) as a "
                                    "new design")
        self.import_ig.triggered.connect(self.ask_import)
        a = window.actions_
        file_menu = a.menus["file"]
        for act in (self.import_ig, self.plan, self.check):
            file_menu.insertAction(a.file_end, act)
        self.exports: dict[str, QAction] = {}
        ctl = getattr(window, "export_controller", None)
        if ctl is not None:
            ctl.menu.addSeparator()
            for key, label in (("infragraph", "&InfraGraph…"), ("htsim", "&htsim Inputs…"),
                               ("astrasim", "&ASTRA-sim Inputs…")):
                act = QAction(label, window)
                act.triggered.connect(lambda _=False, k=key: self.ask_export(k))
                ctl.menu.addAction(act)
                self.exports[key] = act

    # -- helpers ------------------------------------------------------------------------------
    def _snapshot(self) -> tuple[Any, Any, Any]:
        project = self.w.doc.project
        return project, self.w.doc.catalog, self.analysis.service.result_for(project)

    def _start(self, title: str, label: str, work: Callable, done: Callable[[Any], None]
               ) -> BackgroundTask | None:
        if self.busy:
            return None
        task = BackgroundTask(self.w, title, label, work)
        task.finished.connect(done)
        task.failed.connect(lambda msg: dialogs.show_error(self.w, title, msg))
        task.cancelled.connect(lambda: self.w.doc.say(f"{title}: cancelled"))
        self.task = task
        task.start()
        return task

    def _folder(self, title: str, suggested: str) -> Path | None:
        start = self.w.doc.path.parent if self.w.doc.path else Path.cwd()
        folder = QFileDialog.getExistingDirectory(self.w, title, str(start))
        return Path(folder) / suggested if folder else None

    # -- acceptance ---------------------------------------------------------------------------
    def open_check(self) -> AcceptanceDialog:
        if self.dialog is None:
            from designer.gui.acceptance.dialog import AcceptanceDialog

            self.dialog = AcceptanceDialog(self.w, self._snapshot)
        self.dialog.show()
        self.dialog.raise_()
        return self.dialog

    def ask_plan(self) -> None:
        folder = self._folder("Folder for the acceptance test plan", "acceptance")
        if folder is not None:
            self.write_plan(folder)

    def write_plan(self, folder: Path) -> BackgroundTask | None:
        # the acceptance planner and the simulators' writers bring scipy's graph module: loaded
        # when first asked for, on this thread, never at the window's start
        from designer.core.acceptance import plan_for, write_plan

        project, catalog, result = self._snapshot()

        def work(progress, cancelled):
            plan = plan_for(project, catalog, result=result, progress=progress,
                            cancelled=cancelled)
            files = write_plan(plan, folder)
            return (f"Wrote the acceptance test plan to {folder}: {len(files)} files, "
                    f"{len(plan.collectives)} nccl-tests and {len(plan.pairs):,} perftest runs")

        return self._start("Acceptance test plan", "Predicting the bands…", work,
                           lambda msg: self.w.doc.say(msg))

    # -- exports ------------------------------------------------------------------------------
    def ask_export(self, key: str) -> None:
        stem = self.w.doc.path.name.split(".")[0] if self.w.doc.path else "design"
        if key == "infragraph":
            start = (self.w.doc.path.parent if self.w.doc.path else Path.cwd()) / \
                f"{stem}.infragraph.json"
            path, _ = QFileDialog.getSaveFileName(self.w, "Export InfraGraph", str(start),
                                                  "InfraGraph JSON (*.json)")
            if path:
                self.export(key, Path(path))
            return
        folder = self._folder(f"Folder for the {key} inputs", f"{stem}-{key}")
        if folder is None:
            return
        if key == "htsim":
            from designer.core.simulate import has_output

            # the folder picked may be the export itself, run since: offer to read it
            ran = next((d for d in (folder.parent, folder) if has_output(d)), None)
            if ran is not None and dialogs.confirm(
                    self.w, "htsim output found",
                    f"{ran} holds htsim's output. Set it beside the tool's prediction for "
                    "the same flows? (No writes the inputs again.)"):
                self.check_htsim(ran)
                return
        self.export(key, folder)

    def check_htsim(self, folder: Path):
        """htsim's output in an export folder beside the tool's prediction, in a dialog;
        the dialog, or None after an error shown."""
        from designer.core.errors import DesignerError
        from designer.core.simulate import check
        from designer.gui.acceptance.simcheck import SimCheckDialog

        try:
            rows = check(folder)
        except DesignerError as exc:
            dialogs.show_error(self.w, "htsim check", str(exc))
            return None
        dlg = self.sim_dialog = SimCheckDialog(self.w, folder, rows)
        dlg.show()
        self.w.doc.say(f"htsim check of {folder}: {len(rows)} run(s) beside the prediction")
        return dlg

    def export(self, key: str, out: Path) -> BackgroundTask | None:
        from designer.core.infragraph import write_infragraph
        from designer.core.simulate import write_astrasim, write_htsim

        project, catalog, result = self._snapshot()

        def work(progress, cancelled):
            if key == "infragraph":
                s = write_infragraph(project, catalog, out)
                return (f"Exported InfraGraph to {out}: {s.instances} instance group(s), "
                        f"{s.edges:,} edges for {s.cables:,} cables")
            if key == "htsim":
                ex = write_htsim(project, catalog, out)
                return (f"Wrote htsim inputs to {out}: "
                        + ", ".join(p.name for p, _ in ex.files)
                        + "; run its run.sh, then export to the same folder again to check "
                        "htsim's output against the prediction")
            r = result or solve(project, progress, cancelled, catalog=catalog)
            ex = write_astrasim(project, r, catalog, out)
            return (f"Wrote ASTRA-sim inputs to {out}: "
                    + ", ".join(p.name for p in ex.files)
                    + f"; its run.sh runs one all-reduce over the {ex.gpus:,} GPUs")

        return self._start(f"Export {key}", "Writing…", work, lambda msg: self.w.doc.say(msg))

    # -- import -------------------------------------------------------------------------------
    def ask_import(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self.w, "Import InfraGraph", "",
                                              "InfraGraph (*.json *.yaml *.yml);;All files (*)")
        if path:
            self.import_path(Path(path))

    def import_path(self, path: Path) -> bool:
        if not self.w.maybe_save():
            return False
        from designer.core.infragraph import project_from_infragraph

        catalog = self.w.doc.base_catalog
        task = BackgroundTask(self.w, "Import InfraGraph", f"Reading {path.name}…",
                              lambda progress, cancelled: project_from_infragraph(path, catalog))
        kind, value = run_and_wait(task)
        if kind == "failed":
            dialogs.show_error(self.w, "Cannot import the InfraGraph file", value)
            return False
        if kind != "finished":
            return False
        self.w.doc.replace(value, None, modified=True)
        self.w.view.fit_readable()
        n = len(value.fabric.devices)
        self.w.doc.say(f"Imported {path.name}: {n:,} devices, "
                       f"{value.fabric.links.n_cables:,} cables (not saved yet)")
        return True

    def shutdown(self) -> None:
        super().shutdown()
        if self.dialog is not None and self.dialog.task is not None:
            self.dialog.task.wait()
