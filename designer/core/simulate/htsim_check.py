"""The tool's prediction for htsim's flows, and htsim's output read back beside it.

At export time every pattern's flows (the very lines of its connection matrix) are routed by
the tool's flow model as each htsim program routes them: ``ecmp`` as ``htsim_roce -strat
ecmp_host`` does (one path per flow, picked by a hash of the flow at every switch, its
lossless switches fair among ingress ports before flows: ``traffic.arbitration``), ``spray``
as ``htsim_eqds -paths N`` does (every packet of a flow on one of N hashed path ids, the
packets trimmed on links they overload sent again: ``htsim_spray``), and the rates taken as
htsim measures them (headers, pacing, the last acknowledgement: ``htsim_measure``). The
answer depends on the hash draw, so it is the mean of ``TRIALS`` draws of each figure, their
range kept beside it (htsim's run is one draw). The figures, per flow relative to
its share of its GPU's line rate (a flow's bytes over its GPU's bytes, as htsim's NIC shares
its line among its flows):

- ``throughput``: min, p1, median, mean over the flows (htsim: bytes / completion time);
- ``last_us``: the last flow's completion (the tool: bytes over its steady rate, which does
  not speed the flows that remain once others finish: an upper bound where rates vary);
- ``slowdown``: ``last_us`` over the same flows' completion when only the GPUs' own NIC links
  limit (the busiest NIC's bytes at line rate).

``check`` reads ``PATTERN.ROUTING.out`` (htsim's standard output, one ``Flow ... finished at
T`` line per finished flow) and sets htsim's figures beside the tool's; a flow htsim did not
finish counts at throughput 0.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from designer.core.errors import DesignerError
from designer.core.simulate.htsim import Flows, read_matrix

ROUTINGS = ("ecmp", "spray")
TOOL_ROUTING = {"ecmp": "ecmp", "spray": "spray"}
TRIALS = 4
# hash draws are cut to keep the export's work bounded on large designs (at least one):
# ECMP's flows solved as they finish, EQDS's path ids routed one by one
DRAW_FLOWS = 8192  # ECMP flows x draws
DRAW_PATH_IDS = 1 << 17  # EQDS path ids (flows x N) x draws
# DETAIL_FLOWS equals DRAW_FLOWS by choice, not by meaning: one bounds the draws' work, the
# other the size where the ingress-port model gives way to flow-fair shares
DETAIL_FLOWS = 8192  # beyond: ECMP flow-fair, not fair among ingress ports first
DETAIL_PATH_IDS = 1 << 20  # beyond: spraying evenly, not over hashed path ids
PREDICTION = "prediction.json"
FINISHED = re.compile(r"^Flow (?:Roce|Eqds)_(\d+)_(\d+)\b.*? finished at ([0-9.eE+-]+)")
RESENT = re.compile(r"^New: (\d+) Rtx: (\d+)", re.M)  # htsim_eqds's packet count at the end
MEAN_WITHIN, WORST_WITHIN = 0.10, 0.25  # what the check holds the flow model to
STATS = ("min", "p1", "median", "mean")


class CheckError(DesignerError):
    """An export folder without what ``simulate check`` reads, or output it cannot read."""


def demand_of(f: Flows) -> np.ndarray:
    """Each flow's share of its host's line rate: its bytes over the host's bytes."""
    out = np.bincount(f.src, weights=f.size.astype(np.float64))
    return f.size / out[f.src]


def ideal_us(f: Flows, line_gbps: float) -> float:
    """The flows' completion when only the hosts' NIC links limit: the busiest NIC (out or
    in) at line rate."""
    b = f.size.astype(np.float64)
    busiest = max(np.bincount(f.src, weights=b).max(initial=0.0),
                  np.bincount(f.dst, weights=b).max(initial=0.0))
    return busiest * 8 / (line_gbps * 1e3)


def figures(t: np.ndarray, f: Flows, line_gbps: float) -> dict:
    """Throughput statistics, last completion and slowdown of flows at throughput ``t``
    (relative to each flow's demand)."""
    rate = t * demand_of(f) * line_gbps * 1e3  # bytes*8 per microsecond
    with np.errstate(divide="ignore"):
        done = np.where(rate > 0, f.size * 8 / np.maximum(rate, 1e-300), np.inf)
    last = float(done.max()) if done.size else 0.0
    ideal = ideal_us(f, line_gbps)
    return {
        "throughput": {"min": float(t.min()), "p1": float(np.quantile(t, 0.01)),
                       "median": float(np.median(t)), "mean": float(t.mean())},
        "last_us": last if np.isfinite(last) else None,
        "slowdown": last / ideal if np.isfinite(last) and ideal > 0 else None,
    }


def _mean_figures(runs: list[dict]) -> dict:
    def avg(vals):
        vals = [v for v in vals if v is not None]
        return float(np.mean(vals)) if len(vals) == len(runs) else None

    return {"throughput": {k: avg([r["throughput"][k] for r in runs]) for k in STATS},
            "last_us": avg([r["last_us"] for r in runs]),
            "slowdown": avg([r["slowdown"] for r in runs])}


def predict(c, net, f: Flows, host_gpu: np.ndarray, line_gbps: float, name: str,
            routing: str, trials: int = TRIALS, pfc: bool | None = None,
            rtt_us: np.ndarray | None = None, path_ids: int = 0) -> dict:
    """The tool's figures for flows ``f`` (host numbers; ``host_gpu`` maps them to the
    compiled design's GPU ids) under ``routing`` (``ROUTINGS``). ``pfc`` (default: for
    ECMP, as htsim_roce's fabric is lossless): with PFC's head-of-line blocking
    (``traffic.pfc``). ``rtt_us``: each flow's round trip in htsim's fabric; given, the
    figures are what htsim measures of those rates (``htsim_measure``: headers, pacing and
    the last acknowledgement). ``path_ids``: under spraying, each flow over that many hashed
    path ids as EQDS sprays, less the packets trimmed where they overload a link
    (``htsim_spray``); 0: evenly over every path."""
    from designer.core.simulate.htsim_measure import measured
    from designer.core.simulate.htsim_spray import trimmed_share
    from designer.core.traffic.load import run_load
    from designer.core.traffic.patterns import Pattern

    p = Pattern(name, host_gpu[f.src], host_gpu[f.dst], demand_of(f), np.ones(len(f)),
                f.size.astype(np.float64))
    tool = TOOL_ROUTING[routing]
    pfc = routing == "ecmp" if pfc is None else pfc
    runs = []
    hashed_ids = routing == "spray" and path_ids > 0
    trimmed: list[float] = []
    # past these sizes one draw of the detailed models costs minutes (a 16,384-GPU
    # permutation: the ingress-port fixed point solved again at every finishing time, and
    # millions of hashed path ids): the plain fluid figures stand in, and the model says so
    if hashed_ids and len(f) * path_ids > DETAIL_PATH_IDS:
        hashed_ids = False
    port_fair = pfc and len(f) <= DETAIL_FLOWS
    if hashed_ids:
        draws = max(1, min(trials, DRAW_PATH_IDS // max(len(f) * path_ids, 1)))
    elif tool == "ecmp":
        draws = max(1, min(trials, DRAW_FLOWS // max(len(f), 1))) if pfc else trials
    else:
        draws = 1
    for k in range(draws):
        t = run_load(c, p, tool, seed=k if tool == "ecmp" else 0, net=net, pfc=pfc,
                     arbitration="port" if port_fair else "flow").t
        if hashed_ids:  # EQDS: the packets trimmed on links its hashed ids overload
            rate = t * p.demand * net.line_rate[p.src]
            trim = trimmed_share(net, p.src, p.dst, rate, path_ids, k)
            t = t * (1 - trim)
            trimmed.append(float(np.mean(trim)))
        if rtt_us is not None:
            t = measured(t, f.size.astype(np.float64), demand_of(f), f.dst, line_gbps,
                         rtt_us, routing)
        runs.append(figures(t, f, line_gbps))
    out = _mean_figures(runs)
    out["trials"] = len(runs)
    if len(runs) > 1:  # one hash draw against another: the spread over the tool's draws
        out["range"] = {k: [min(r["throughput"][k] for r in runs),
                            max(r["throughput"][k] for r in runs)] for k in STATS}
    out["measured"] = rtt_us is not None
    if hashed_ids:
        out["trimmed"] = float(np.mean(trimmed))  # share of packets sent again
        out["model"] = (f"spraying over {path_ids} hashed path ids per flow (EQDS), the "
                        "packets trimmed on overloaded links sent again")
    elif port_fair:
        out["model"] = tool + (" on a lossless switch (egress fair among ingress ports, "
                               "then flows; PFC head-of-line blocking)")
    elif routing == "spray" and path_ids > 0:
        out["model"] = (f"spraying evenly over every path ({len(f):,} flows x {path_ids} path "
                        "ids: past the size of the hashed path-id model)")
    else:
        out["model"] = tool + (f" (flow-fair with PFC head-of-line blocking; {len(f):,} "
                               "flows: past the size of the ingress-port model)" if pfc else "")
    return out


# -- reading htsim's output ---------------------------------------------------------------
def read_output(text: str, f: Flows) -> np.ndarray:
    """Completion time (µs) of every flow of ``f`` from htsim's output; NaN for a flow that
    did not finish. Flows of one pair are matched in the order they finished."""
    done = np.full(len(f), np.nan)
    slots: dict[tuple[int, int], list[int]] = {}
    for i, (a, b) in enumerate(zip(f.src.tolist(), f.dst.tolist(), strict=True)):
        slots.setdefault((a, b), []).append(i)
    for line in text.splitlines():
        m = FINISHED.match(line)
        if not m:
            continue
        key = (int(m.group(1)), int(m.group(2)))
        left = slots.get(key)
        if not left:
            raise CheckError(f"htsim finished a flow {key[0]}->{key[1]} the matrix does not "
                             "list (the output of another export?)")
        done[left.pop(0)] = float(m.group(3))
    return done


def htsim_figures(done_us: np.ndarray, f: Flows, line_gbps: float) -> dict:
    ok = np.isfinite(done_us) & (done_us > 0)
    rate = np.zeros(len(f))
    rate[ok] = f.size[ok] * 8 / done_us[ok]  # bits per microsecond
    t = rate / (demand_of(f) * line_gbps * 1e3)
    out = figures(t, f, line_gbps)
    if ok.all():  # every flow finished: the last one's time as htsim gives it
        out["last_us"] = float(done_us.max())
        out["slowdown"] = out["last_us"] / ideal_us(f, line_gbps)
    return out


@dataclass(frozen=True)
class Row:
    pattern: str
    routing: str
    listed: int
    finished: int
    htsim: dict
    tool: dict
    fluid: dict | None = None  # ECMP without the PFC step, for reference
    notes: tuple[str, ...] = ()  # known differences between the two, in words

    def ratio(self) -> dict:
        """htsim's figure over the tool's, per figure."""
        def r(a, b):
            return a / b if a is not None and b else None

        return {"throughput": {k: r(self.htsim["throughput"][k], self.tool["throughput"][k])
                               for k in STATS},
                "last_us": r(self.htsim["last_us"], self.tool["last_us"]),
                "slowdown": r(self.htsim["slowdown"], self.tool["slowdown"])}

    def to_json(self) -> dict:
        return {"pattern": self.pattern, "routing": self.routing, "listed": self.listed,
                "finished": self.finished, "htsim": _rounded(self.htsim),
                "tool": _rounded(self.tool), "ratio": _rounded(self.ratio()),
                **({"tool_without_pfc": _rounded(self.fluid)} if self.fluid else {}),
                "notes": list(self.notes)}


def _rounded(d):
    if isinstance(d, dict):
        return {k: _rounded(v) for k, v in d.items()}
    return round(d, 6) if isinstance(d, float) else d


def check(folder: str | Path) -> list[Row]:
    """htsim's runs in an export folder beside the tool's prediction written there."""
    d = Path(folder)
    if not d.is_dir():
        raise CheckError(f"{d} is not a folder (give the folder 'designer export htsim' wrote)")
    pred_path = d / PREDICTION
    if not pred_path.is_file():
        raise CheckError(f"{d} has no {PREDICTION}; export it again with 'designer export "
                         "htsim'")
    try:
        pred = json.loads(pred_path.read_text(encoding="utf-8"))
        line = float(pred["line_gbps"])
        patterns = pred["patterns"]
    except (ValueError, KeyError, TypeError) as exc:
        raise CheckError(f"{pred_path} is not a prediction this version writes ({exc})") \
            from None
    rows = []
    for pat, info in patterns.items():
        cm = d / f"{pat}.cm"
        outs = [(r, d / f"{pat}.{r}.out") for r in ROUTINGS if (d / f"{pat}.{r}.out").is_file()]
        if not outs:
            continue
        try:
            fl = read_matrix(cm.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise CheckError(f"{cm}: {exc}") from None
        f = Flows(np.array([x[0] for x in fl], np.int64), np.array([x[1] for x in fl], np.int64),
                  np.array([x[3] for x in fl], np.int64))
        for routing, out in outs:
            tool = info.get("routings", {}).get(routing)
            if tool is None:
                continue
            try:
                text = out.read_text(encoding="utf-8", errors="replace")
            except OSError as exc:
                raise CheckError(f"{out}: {exc}") from None
            done = read_output(text, f)
            fluid = info.get("ecmp_without_pfc") if routing == "ecmp" else None
            row = Row(pat, routing, len(f), int(np.isfinite(done).sum()),
                      htsim_figures(done, f, line), tool, fluid)
            rows.append(Row(**{**row.__dict__, "notes": notes(row, text)}))
    if not rows:
        raise CheckError(f"{d} has no htsim output yet (PATTERN.ecmp.out, PATTERN.spray.out): "
                         "run its run.sh first")
    return rows


def notes(row: Row, text: str) -> tuple[str, ...]:
    """The known differences behind a row, one line each: what htsim counts that the flow
    model does not, and why a figure misses where it does."""
    out = []
    ratio = row.ratio()["throughput"]
    if row.routing == "spray":
        m = RESENT.findall(text)
        trimmed = row.tool.get("trimmed")
        if m and trimmed is not None:
            new, rtx = (int(x) for x in m[-1])
            if rtx or trimmed > 0:
                out.append(f"htsim sent {rtx / max(new + rtx, 1):.1%} of its packets again, "
                           f"the tool counts {trimmed:.1%} trimmed where hashed path ids "
                           "overload a link; not modelled: EQDS moving traffic off marked path "
                           "ids, and its first window (sent before any credit) trimmed at a "
                           "shared receiver")
    rng = row.tool.get("range")
    draws = row.tool.get("trials", 1)

    def within_draws(stat: str) -> str:
        if not rng or stat not in rng:
            return ""
        lo, hi = rng[stat]
        h = row.htsim["throughput"][stat]
        inside = "within" if lo * (1 - 1e-3) <= h <= hi * (1 + 1e-3) else "outside"
        return (f"; htsim's {h:.3g} is {inside} the tool's {draws} hash draws "
                f"({lo:.3g} to {hi:.3g}), htsim's run being one draw of its own")

    w = ratio["min"]
    if row.routing == "ecmp" and w is not None and abs(w - 1) > WORST_WITHIN:
        out.append(f"worst flow {w:.2f} of the tool's, outside {WORST_WITHIN:.0%}"
                   + within_draws("min") + "; the tool follows PFC pauses upstream as steady "
                   "shares of time (first order), htsim's pause and resume in bursts over "
                   "its 15-packet queues")
    mean = ratio["mean"]
    if mean is not None and abs(mean - 1) > MEAN_WITHIN:
        out.append(f"mean {mean:.2f} of the tool's, outside {MEAN_WITHIN:.0%}"
                   + (within_draws("mean") if row.routing == "ecmp" else
                      " (EQDS's start-up, queueing and path-id penalties are not modelled)"))
    return tuple(out)


def has_output(folder: str | Path) -> bool:
    """Whether ``folder`` holds a prediction and at least one htsim run's output."""
    d = Path(folder)
    return (d / PREDICTION).is_file() and any(
        any(d.glob(f"*.{r}.out")) for r in ROUTINGS)


def table(rows: list[Row]) -> str:
    """The rows as text: per pattern and routing htsim's and the tool's figures, and the
    ratio."""
    def fmt(x, spec=".3f"):
        return "-" if x is None else format(x, spec)

    lines = [f"{'pattern':<12} {'routing':<6} {'flows':>11} {'':<6} "
             f"{'min':>6} {'p1':>6} {'median':>6} {'mean':>6} {'last µs':>10} {'slowdown':>8}"]
    for r in rows:
        ratio = r.ratio()
        for who, fig in (("htsim", r.htsim), ("tool", r.tool), ("ratio", ratio)):
            th = fig["throughput"]
            head = (f"{r.pattern:<12} {r.routing:<6} {f'{r.finished:,}/{r.listed:,}':>11}"
                    if who == "htsim" else f"{'':<12} {'':<6} {'':>11}")
            last = fmt(fig["last_us"], ".3f" if who == "ratio" else ",.1f")
            lines.append(f"{head} {who:<6} " + " ".join(f"{fmt(th[k]):>6}" for k in STATS)
                         + f" {last:>10} {fmt(fig['slowdown'], '.2f'):>8}")
    for r in rows:
        for n in r.notes:
            lines.append(f"note: {r.pattern} {r.routing}: {n}")
    return "\n".join(lines)
