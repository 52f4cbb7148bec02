"""The metrics panel: the design's key figures, refreshed with every solve.

Size, bisection, oversubscription, hops and latency, cost and power, problems. A figure that
is poor (a blocking tier, bisection below full, unreachable GPUs, errors) is coloured, with a
short line saying why. Slow solves show a "computing" state with progress; figures of the
previous result stay visible until the new ones arrive.
"""

from __future__ import annotations

import textwrap
from html import escape

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from designer.core.errors import DesignerError
from designer.core.networks import solve_networks
from designer.core.problems import Severity
from designer.core.solver import Result, ratio_text
from designer.gui.panels import fmt

SHOW_BUSY_AFTER_MS = 300  # quick solves never flash a "computing" state
GOOD, POOR, BAD = "", "poor", "bad"
COLOURS = {POOR: "#b35c00", BAD: "#c62828"}
ROWS = (
    ("Size", (("gpus", "GPUs"), ("scale_up", "Scale-up"), ("switches", "Switches"),
              ("cables", "Cables"), ("ports", "Switch ports"))),
    ("Bandwidth", (("bisection", "Bisection"), ("per_gpu", "Per GPU"),
                   ("oversub", "Oversubscription"), ("tiers", "By tier"))),
    ("Paths between GPUs", (("hops", "Switch hops"), ("latency", "Latency"),
                            ("load_latency", "Under load"))),
    ("Cost and power", (("cost", "Network"), ("power", "Power"))),
    ("Checks", (("problems", "Problems"),)),
)


def scale_up_text(d) -> tuple[str, str, str, str]:
    """(value, look, hint, tooltip) of the Scale-up row: the domains GPUs talk over without the
    fabric, and the switch trays that make them."""
    if not d.count:
        return "–", GOOD, "", ""
    fab = f" {d.fabric}" if d.fabric else ""
    kind = "racks" if d.rack_scale else "servers"
    text = f"{d.count:,} x {d.gpus}-GPU{fab} {kind}"
    if d.switch_trays:
        text += f" · {d.switch_trays:,} switch trays"
    hint = (f"{d.incomplete:,} rack(s) short of trays: their GPUs reach each other over the "
            "fabric") if d.incomplete else ""
    bw = f"{d.gbytes_s:,.0f} GB/s per GPU each way" if d.gbytes_s else "the GPUs' datasheet"
    tip = (f"GPUs of one scale-up domain talk over{fab or ' NVLink'} ({bw}), never through the "
           "network: hops, latency, bisection and traffic leave those pairs out, and the "
           "workload's tensor, expert and context parallelism sit inside a domain.")
    return text, POOR if d.incomplete else GOOD, hint, tip


def _us(x: float | None) -> str:
    return "–" if x is None else f"{x:,.2f}"


class _Value(QWidget):
    """A value with an optional second line (the hint) below it."""

    def __init__(self) -> None:
        super().__init__()
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        self.text = QLabel("–")
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.text.setWordWrap(True)
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        self.hint.setObjectName("metricHint")
        self.hint.hide()
        lay.addWidget(self.text)
        lay.addWidget(self.hint)
        self.level = GOOD
        self._styled = False
        # the row's name: hovering it shows the same tooltip as the figure
        self.buddy: QLabel | None = None

    def set(self, text: str, level: str = GOOD, hint: str = "", tip: str = "") -> None:
        self.text.setText(text)
        if level != self.level or not self._styled:
            # restyling is costly on every result: only when the level changes
            self._styled = True
            self.level = level
            colour = COLOURS.get(level)
            self.text.setStyleSheet(f"color: {colour}; font-weight: 600;" if colour else "")
            self.hint.setStyleSheet(f"color: {colour};" if colour else "color: #5d6876;")
        self.hint.setText(hint)
        self.hint.setVisible(bool(hint))
        self.setToolTip(tip)
        self.text.setToolTip(tip)
        if self.buddy is not None:
            self.buddy.setToolTip(tip)


class MetricsPanel(QScrollArea):
    """Figures of the latest result of ``service`` (a ``SolverService``)."""

    problemsClicked = Signal()

    def __init__(self, service, document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.service = service
        self.doc = document
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        body = QWidget()
        body.setObjectName("metricsBody")
        outer = QVBoxLayout(body)
        outer.setContentsMargins(10, 6, 10, 8)
        outer.setSpacing(4)

        state = QHBoxLayout()
        self.state_label = QLabel("No design yet")
        self.state_label.setObjectName("hint")
        self.state_label.setWordWrap(True)
        state.addWidget(self.state_label, 1)
        outer.addLayout(state)
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.bar.setTextVisible(False)
        self.bar.setFixedHeight(5)
        self.bar.hide()
        outer.addWidget(self.bar)
        self.error_label = QLabel()
        self.error_label.setObjectName("analysisError")
        self.error_label.setWordWrap(True)
        self.error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error_label.setStyleSheet(
            "QLabel { color: #8e1b1b; background: #fdecea; border: 1px solid #f2b8b5;"
            " border-radius: 3px; padding: 5px; }")
        self.error_label.hide()
        outer.addWidget(self.error_label)

        grid = QGridLayout()
        grid.setHorizontalSpacing(12)
        grid.setVerticalSpacing(3)
        grid.setColumnStretch(1, 1)
        self.values: dict[str, _Value] = {}
        self._names: dict[str, QLabel] = {}
        row = 0
        for section, items in ROWS:
            title = QLabel(section)
            title.setObjectName("sectionTitle")
            grid.addWidget(title, row, 0, 1, 2)
            row += 1
            for key, label in items:
                name = QLabel(label)
                name.setObjectName("hint")
                name.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
                value = _Value()
                value.buddy = name
                grid.addWidget(name, row, 0)
                grid.addWidget(value, row, 1)
                self.values[key] = value
                self._names[key] = name
                row += 1
        outer.addLayout(grid)
        # the cluster's other networks (front-end, storage, out-of-band), when it has them
        self.networks_title = QLabel("Other networks")
        self.networks_title.setObjectName("sectionTitle")
        self.networks_label = QLabel()
        self.networks_label.setObjectName("networksFigures")
        self.networks_label.setWordWrap(True)
        self.networks_label.setTextFormat(Qt.TextFormat.RichText)
        self.networks_label.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse)
        outer.addWidget(self.networks_title)
        outer.addWidget(self.networks_label)
        self.networks_title.hide()
        self.networks_label.hide()
        outer.addStretch(1)
        self.setWidget(body)

        self._busy_timer = QTimer(self)
        self._busy_timer.setSingleShot(True)
        self._busy_timer.setInterval(SHOW_BUSY_AFTER_MS)
        self._busy_timer.timeout.connect(self._show_busy)
        problems = self.values["problems"].text
        problems.setTextInteractionFlags(Qt.TextInteractionFlag.LinksAccessibleByMouse)
        problems.linkActivated.connect(lambda _link: self.problemsClicked.emit())
        service.resultReady.connect(self.show_result)
        service.solveFailed.connect(self.show_error)
        service.progress.connect(self._on_progress)
        service.stateChanged.connect(self._on_state)

    def value(self, key: str) -> QLabel:
        """The label showing figure ``key`` (see ROWS)."""
        return self.values[key].text

    # -- states -------------------------------------------------------------------------------
    def _on_state(self, state: str) -> None:
        if state == "computing":
            if not self._busy_timer.isActive() and not self.bar.isVisible():
                self._busy_timer.start()
        else:
            self._busy_timer.stop()
            self._hide_busy()

    def _show_busy(self) -> None:
        if self.service.state != "computing":
            return
        self.bar.setValue(int(self.service.progress_fraction * 1000))
        self.bar.show()
        self._busy_text(self.service.progress_fraction, self.service.progress_stage)

    def _busy_text(self, fraction: float, stage: str) -> None:
        self.state_label.setText(f"Computing… {fraction * 100:.0f}% ({stage})")

    def _hide_busy(self) -> None:
        self.bar.hide()

    def _on_progress(self, fraction: float, stage: str) -> None:
        if self.bar.isVisible():
            self.bar.setValue(int(fraction * 1000))
            self._busy_text(fraction, stage)

    def show_error(self, _revision: int, message: str) -> None:
        self._busy_timer.stop()
        self._hide_busy()
        self.error_label.setText(f"The analysis stopped: {message}")
        self.error_label.show()
        self.state_label.setText("Figures below are from the last successful analysis")

    # -- figures ----------------------------------------------------------------------------------
    def show_result(self, _revision: int, r: Result) -> None:
        self._busy_timer.stop()
        self._hide_busy()
        self.error_label.hide()
        secs = self.service.last_seconds
        self.state_label.setText(
            f"Up to date · analysed in {fmt.seconds(secs)}" if r.gpus else
            "Add GPU servers and switches, or generate a fabric (Design > Generate)")
        v = self.values
        if not (r.gpus or r.switches.total or r.servers or r.appliances):
            for value in v.values():
                value.set("–")
            return
        # size
        d = r.domains
        parts = [fmt.plural(d.count, "rack") + f" ({fmt.plural(r.servers, 'tray')})"
                 if d.rack_scale else fmt.plural(r.servers, "server")]
        v["scale_up"].set(*scale_up_text(d))
        if r.appliances:
            parts.append(fmt.plural(r.appliances, "appliance"))
        if r.unconnected_gpus:
            v["gpus"].set(f"{r.gpus:,}", BAD, f"{r.unconnected_gpus:,} GPU(s) have no link",
                          "GPUs without a link to the fabric take no part in the analysis")
        else:
            v["gpus"].set(f"{r.gpus:,} · {', '.join(parts)}")
        tiers = ", ".join(f"{n:,} {t}" for t, n in r.switches.by_tier.items())
        models = "\n".join(f"{n:,} x {m}" for m, n in r.switches.by_model.items())
        v["switches"].set(f"{r.switches.total:,}" + (f" · {tiers}" if tiers else ""),
                          tip=models)
        self._cables_and_ports(r)
        self._bandwidth(r)
        self._paths(r)
        # cost and power
        bom = r.bom
        v["cost"].set(fmt.money(bom.total_usd) + (f" · {fmt.money_exact(round(bom.per_gpu_usd))}"
                                                  " per GPU" if r.gpus else ""),
                      tip="Switches, NICs, optics, cables and appliances; GPU servers are not "
                          "included. Catalog prices are estimates: edit them in the BOM panel.")
        v["power"].set(f"{fmt.power(r.power_w)} · {r.rack_units:,.0f} RU",
                       tip="\n".join(f"{k}: {fmt.power(w)}"
                                     for k, w in r.power_by_category.items()))
        self._problems(r)
        self._networks()

    def _networks(self) -> None:
        """Each other network's figures: computed here, apart from the back-end's solve
        (a few hundredths of a second at 16,384 GPUs)."""
        try:
            nets = solve_networks(self.doc.project, self.doc.catalog)
        except DesignerError as exc:
            nets = {}
            self.networks_label.setText(escape(str(exc)))
        shown = bool(nets) or bool(self.doc.project.networks)
        self.networks_title.setVisible(shown)
        self.networks_label.setVisible(shown)
        if not nets:
            return
        rows = []
        for n in nets.values():
            bits = [f"{n.switches:,} switches", f"{n.links:,} links",
                    f"{n.optics:,} optics", f"{n.oversubscription:.2f}:1"]
            if n.storage:
                s = n.storage
                bits.append(f"{s['read_gbytes_s_per_gpu']:.2f} GB/s read per GPU (reference "
                            f"{s['reference_read_gbytes_s_per_gpu']:.0f})")
            elif n.gbps_per_gpu:
                bits.append(f"{n.gbps_per_gpu:,.0f} Gb/s per GPU")
            bits += [fmt.money(n.cost_usd), fmt.power(n.power_w)]
            rows.append(f"<b>{escape(n.label)}</b><br>{escape(' · '.join(bits))}")
        self.networks_label.setText("<br>".join(rows))

    def _cables_and_ports(self, r: Result) -> None:
        v = self.values
        links = "\n".join(f"{layer}: {n:,} links, {r.cables.by_layer.get(layer, 0):,} cables"
                          for layer, n in r.links.by_layer.items())
        v["cables"].set(f"{r.cables.total:,} cables · {r.links.total:,} links",
                        tip="Physical cables against logical (port-to-port) links: a twin or "
                            "splitter copper cable carries two links; optics take a fibre "
                            "per link.\n" + links)
        p = r.ports
        if not p.total:
            v["ports"].set("–")
            return
        groups = "\n".join(f"{g.model} {g.tier}: {g.used:,} of {g.total:,} used "
                           f"({fmt.percent(g.utilisation)}) on {g.switches:,} switches"
                           for g in p.groups)
        stranded = p.stranded
        hint = ""
        if stranded:
            worst = stranded[0]
            hint = (f"{worst.model} {worst.tier}: {fmt.percent(1 - worst.utilisation)} of "
                    f"ports unused, {fmt.money(p.stranded_usd)} of switch price idle")
        v["ports"].set(f"{fmt.percent(p.utilisation)} used · {p.used:,} of {p.total:,}",
                       POOR if stranded else GOOD, hint,
                       groups + f"\nUnused ports above {fmt.percent(p.threshold)} of a tier "
                       "are priced pro rata at the switch's price.")

    def _bandwidth(self, r: Result) -> None:
        v = self.values
        b = r.bisection
        if r.gpus < 2:
            v["bisection"].set("–")
            v["per_gpu"].set("–")
        else:
            proof = "exact" if b.exact else "upper bound"
            tip = (f"Best balanced cut: {b.method}.\nLower bound {fmt.tbps(b.lower_gbps)}: "
                   f"{b.certificate}.\nFull bisection: {fmt.tbps(b.full_gbps)} "
                   f"(half the GPUs x {fmt.gbps(b.per_gpu_rate_gbps)}).")
            frac = b.fraction_of_full
            gbps = b.gbps
            rf = r.rail_forwarding
            if rf is not None:  # rail-only: the rails meet only through the scale-up domains
                frac, gbps, proof = rf.fraction_of_full, rf.bisection_gbps, "with forwarding"
                tip += (f"\nRail-only: {rf.rails} rails with no spine; a balanced cut that "
                        f"keeps the scale-up domains whole: {rf.method}. A uniform all-to-all "
                        f"takes {fmt.percent(rf.a2a_overhead)} longer for the NVLink hop.")
            low = frac < 1 - 1e-9
            hint = ""
            if low:
                hint = (f"below full bisection: only {fmt.percent(frac)} of the GPUs' "
                        "rate crosses a balanced cut")
            v["bisection"].set(f"{fmt.tbps(gbps)} · {proof}", POOR if low else GOOD, hint,
                               tip)
            per_gpu = gbps / (r.gpus // 2) if r.gpus >= 2 else 0.0
            v["per_gpu"].set(f"{fmt.gbps(per_gpu)} · {fmt.percent(frac)} of full",
                             POOR if low else GOOD, tip=tip)
        o = r.oversubscription
        if not o.by_tier:
            v["oversub"].set("–")
            v["tiers"].set("–")
            return
        blocking = o.worst > 1 + 1e-9
        hint = ""
        if blocking:
            names = ", ".join(o.blocking_tiers) or "uplinks"
            hint = f"blocking at {names}: more capacity faces down than up"
        worst_sw = "\n".join(f"{d}: {ratio_text(x)}" for d, x in o.worst_switches)
        basis = "Worst product of down/up capacity along a path up the tree"
        if o.global_cut is not None:
            basis = (f"Dragonfly: {ratio_text(o.global_cut)} global, the endpoint capacity of "
                     "half the GPUs against the global links a balanced cut crosses (each "
                     "router's own endpoint:global ratio is not the figure that matters)")
        v["oversub"].set(f"{ratio_text(o.worst)} · " +
                         ("blocking" if blocking else "non-blocking"),
                         POOR if blocking else GOOD, hint,
                         basis + (f"\nMost oversubscribed switches:\n{worst_sw}"
                                  if worst_sw else ""))
        v["tiers"].set(" · ".join(f"{t} {ratio_text(x.worst)}" for t, x in o.by_tier.items()),
                       POOR if blocking else GOOD,
                       tip="\n".join(f"{t}: worst {ratio_text(x.worst)}, typical "
                                     f"{ratio_text(x.typical)} over {x.switches:,} switches"
                                     for t, x in o.by_tier.items()))

    def _paths(self, r: Result) -> None:
        v = self.values
        h, lat = r.hops, r.latency
        if h.pairs == 0:
            v["hops"].set("–", tip="No two GPUs in different scale-up domains")
            v["latency"].set("–", tip="No two GPUs in different scale-up domains: no path to "
                             "time")
            return
        unreachable = h.unreachable_pairs
        hint = f"{unreachable:,} GPU pairs cannot reach each other" if unreachable else ""
        v["hops"].set(f"p50 {fmt.number(h.p50)} · p99 {fmt.number(h.p99)} · "
                      f"max {fmt.number(h.max)}", BAD if unreachable else GOOD, hint,
                      f"Switches crossed on a shortest path, {h.scope}; mean "
                      f"{fmt.number(h.mean)}")
        a = lat.assumptions or {}
        v["latency"].set(f"p50 {_us(lat.p50_us)} · p99 {_us(lat.p99_us)} · "
                         f"max {_us(lat.max_us)} µs", hint=latency_hint(a),
                         tip=latency_tip(a))

    def _problems(self, r: Result) -> None:
        counts = {s: 0 for s in Severity}
        for p in r.problems:
            counts[p.severity] += 1
        e, w, i = counts[Severity.ERROR], counts[Severity.WARNING], counts[Severity.INFO]
        if not (e or w or i):
            self.values["problems"].set("none")
            return
        parts = []
        if e:
            parts.append(fmt.plural(e, "error"))
        if w:
            parts.append(fmt.plural(w, "warning"))
        if i:
            parts.append(fmt.plural(i, "note"))
        level = BAD if e else POOR if w else GOOD
        first = next((p for p in r.problems if p.severity == Severity.ERROR), None) or next(
            (p for p in r.problems if p.severity == Severity.WARNING), None)
        hint = (first.message[:140] + ("…" if len(first.message) > 140 else "")) if first else ""
        colour = COLOURS.get(level, "#1f5fa8")
        link = (f"<a href='#problems' style='color:{colour}; text-decoration:none'>"
                f"{' · '.join(parts)} ›</a>")
        self.values["problems"].set(link, level, hint,
                                    "Open the Problems panel: click a problem to see its devices")


def latency_hint(a: dict) -> str:
    """One line under the latency figure: idle and static, and how many figures are assumed."""
    figs = a.get("figures") or []
    assumed = sum(1 for f in figs if f.get("assumption"))
    measured = sum(1 for f in figs if (f.get("origin") or {}).get("kind") == "measured")
    parts = ["idle, static"]
    if measured:
        parts.append(f"{fmt.plural(measured, 'figure')} measured")
    if assumed:
        parts.append(f"{fmt.plural(assumed, 'figure')} assumed (see tooltip)")
    return " · ".join(parts)


def latency_tip(a: dict) -> str:
    """The tooltip: the formula, what the figures are, and each NIC and switch figure used
    with its source, its split and whether it is an assumption."""
    size = a.get("message_bytes")
    lines = ["GPU to GPU: 2 x NIC + each switch + cable propagation + serialization"
             + (f" of a {int(size):,}-byte message" if size else "")]
    if a.get("kind"):
        lines.append(a["kind"][:1].upper() + a["kind"][1:] + ".")
    if a.get("tail"):
        lines.append(a["tail"] + ".")
    for f in a.get("figures") or []:
        o = f.get("origin") or {}
        status = {"assumption": "ASSUMED", "measured": "measured"}.get(o.get("kind"), "sourced")
        parts = f.get("parts_ns")
        names = {"nic": "NIC", "host_pcie": "host/PCIe", "stack": "stack"}
        split = (" (" + " + ".join(f"{names.get(k, k)} {v:,.0f}" for k, v in parts.items())
                 + ")" if parts else "")
        lines.append(f"• {f['name']}, {f['tech_label']}, {f['kind']}: {f['ns']:,.0f} ns{split} "
                     f"[{status}]")
        why = o.get("detail") if o.get("kind") == "assumption" else o.get("label")
        if why:
            when = f" ({o['date']})" if o.get("date") else ""
            lines.append(textwrap.fill(f"{why}{when}", 96, initial_indent="    ",
                                       subsequent_indent="    "))
    return "\n".join(lines)
