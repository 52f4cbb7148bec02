"""``run_cluster``: a trace replayed on the design, event by event.

Events are arrivals, job ends, failures and repairs. At each the running jobs advance (work at
the rate the network leaves them, restart overhead first), the event is applied, the queue is
scheduled (first in, first out, with EASY backfilling: a later job may start now if it does
not delay the head's reservation), and, when the set of running multi-server jobs changed,
their rates are solved again (``interference.shared_rates``). A job's rate is
``1 / ((1 - s) + s / t)``: ``s`` its exposed communication share, ``t`` its collective's
fraction of demand. A failure interrupts the jobs in its blast radius: they lose the work done
since their last checkpoint, go back to the head of the queue and pay the restart time when
they start again; the failed part's GPUs stay out of reach until repaired.

Goodput = useful GPU-hours (work at ideal speed that was kept) / GPU-hours held by jobs; the
rest is lost to the network (running slower than on an ideal fabric) or to failures (work
redone and restarts).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import numpy as np

from designer.core.cluster.interference import EMPTY, JobLoad, LoadCache, SharedLinks, job_pattern
from designer.core.cluster.jobmix import JobKind
from designer.core.cluster.placement import place, trace_slots, wanted_gpus
from designer.core.cluster.reliability import (
    COMPONENTS,
    blast_radius,
    checkpoint_interval_h,
    job_mtti_h,
    mtti_by_size,
    parts,
    spares,
)
from designer.core.cluster.result import ClusterResult, Timeline
from designer.core.cluster.running import FIGURES, Running
from designer.core.cluster.settings import ClusterError, ClusterSettings
from designer.core.cluster.topology import topology
from designer.core.cluster.trace import Trace
from designer.core.gcpause import collector_paused
from designer.core.solver.compile import Compiled
from designer.core.solver.control import Control
from designer.core.traffic.network import Network, build_network

EPS = 1e-9
MAX_EVENTS = 50_000_000


MAX_REPLAY_JOBS = 50_000
MAX_FAILURE_EVENTS = 20_000  # about half a millisecond each on a 16,384-GPU design


def run_cluster(c: Compiled, trace: Trace, settings: ClusterSettings,
                kinds: dict[str, JobKind], *, usd_per_gpu_hour: float = 2.0,
                domain_gpus: int = 0, net: Network | None = None,
                progress: Callable[[float, str], None] | None = None,
                cancelled: Callable[[], bool] | None = None) -> ClusterResult:
    """Replay ``trace`` on compiled design ``c``. ``kinds``: traffic and communication share
    per workload name (``jobmix.job_kinds``). ``progress(fraction, stage)`` and
    ``cancelled()`` as for the solver (cancel raises ``SolveCancelled``)."""
    s = settings.checked()
    ctl = Control(progress, cancelled)
    t0 = time.perf_counter()
    ctl.stage("placing the trace on the design", 0.0, 0.05)
    tr = trace.head(s.days)
    if tr.n > MAX_REPLAY_JOBS:  # about a millisecond a job: past this, minutes
        raise ClusterError(f"{trace.name}: {tr.n:,} jobs to replay, more than "
                           f"{MAX_REPLAY_JOBS:,} at once; replay part of it with --days")
    topo = topology(c, domain_gpus)
    n_ok = int(topo.connected.sum())
    if n_ok == 0:
        raise ClusterError("design: it has no connected GPUs to schedule on")
    tr.check_fits(n_ok)
    net = net if net is not None else build_network(c, ctl)
    sim = _Sim(c, tr, s, kinds, topo, net, ctl)
    # the replay steps through every failure up to the last job's end: count them first
    expected = sim.fail_total * tr.span_h
    if expected > MAX_FAILURE_EVENTS:
        raise ClusterError(f"{trace.name}: {tr.span_h:,.0f} h of replay on this design means "
                           f"about {expected:,.0f} failures, more than {MAX_FAILURE_EVENTS:,}; "
                           "replay part of it with --days, or leave failures out")
    ctl.stage("replaying the trace", 0.05, 1.0)
    # the event loop makes and drops tuples, dicts and job loads by the million, none in a
    # cycle: the collector's passes over the kept loads were about 9% of the replay
    with collector_paused():
        sim.run()
    pt = parts(c, topo)
    timings = ctl.finish()
    timings["total"] = time.perf_counter() - t0
    return sim.result(usd_per_gpu_hour if s.usd_per_gpu_hour is None else s.usd_per_gpu_hour,
                      blast_radius(c, topo, pt), tuple(mtti_by_size(c, topo, s.failures)),
                      spares(pt, s.failures), timings)


class _Sim:
    def __init__(self, c, tr, s, kinds, topo, net, ctl):
        self.c, self.tr, self.s, self.topo, self.net, self.ctl = c, tr, s, topo, net, ctl
        J = tr.n
        self.J = J
        self.rng = np.random.default_rng(s.seed)
        self.cache = LoadCache(net)
        self.shared = SharedLinks(net.link_cap[: net.n_ports], J)
        try:
            kind = [kinds[w] for w in tr.workload]
        except KeyError as exc:
            raise ClusterError(f"workload {exc} has no kind (call jobmix.job_kinds)") from None
        self.traffic = [k.traffic for k in kind]
        self.share = np.array([k.comm_share for k in kind], np.float64)
        self.gpus = tr.gpus.copy()
        self.remaining = tr.duration_h.copy()
        self.overhead = np.zeros(J)
        self.done = np.zeros(J)  # work kept since the last start (for checkpoints)
        # each job's checkpoint interval: the fixed one, or its Young/Daly optimum
        fs, pt = s.failures, parts(c, topo)
        sizes = {int(g): job_mtti_h(c, topo, fs, pt, int(g)) for g in np.unique(tr.gpus)}
        self.ckpt = np.array([checkpoint_interval_h(fs, sizes[int(g)]) for g in tr.gpus])
        self.rate = np.ones(J)
        # a job's rate when its collective runs at full demand (``_rates`` with t = 1),
        # which is not always exactly 1
        self.rate_unslowed = 1.0 / ((1.0 - self.share) + self.share / np.maximum(1.0, 1e-12))
        self.t_last = np.zeros(J)
        self.start = np.full(J, np.nan)
        self.end = np.full(J, np.nan)
        self.held = np.zeros(J)
        self.run_wall = np.zeros(J)
        self.work = np.zeros(J)
        self.lost_net = np.zeros(J)
        self.lost_fail = np.zeros(J)
        self.interrupts = np.zeros(J, np.int64)
        self.spans = np.zeros(J, np.int64)
        self.lost_layer = np.zeros(len(net.layers))
        self.placed: dict[int, np.ndarray] = {}
        # the running jobs' progress side by side, in start order (``placed``'s keys)
        self.live = Running({f: getattr(self, f) for f in FIGURES}, self.gpus)
        self._run_loaded = np.empty(0, np.int64)  # ``loaded``'s keys, kept as jobs come and go
        self.loads: dict[int, JobLoad] = {}
        # the running jobs that load the fabric, in start order (as ``placed``): what the
        # rates are solved over, without a pass over every running job per event
        self.loaded: dict[int, JobLoad] = {}
        self._fresh: list[int] = []  # loaded jobs started since the rates were last set
        self.queue: list[int] = []
        self.owner = np.full(c.n_gpus, -1, np.int64)
        self.down_until = np.zeros(c.n_gpus)
        self._free: np.ndarray | None = None  # see _free_gpus
        self._free_until = np.inf
        self.now = 0.0
        self.horizon = s.days * 24.0 if s.days is not None else np.inf
        self.cause = {k: {"failures": 0.0, "interruptions": 0.0, "gpu_hours": 0.0}
                      for k in COMPONENTS}
        self.n_fail = 0
        self.tl: list[tuple] = []
        self._fail_setup()
        self.wanted: list[np.ndarray | None] = [None] * J
        if s.policy == "trace" and tr.hosts:
            from designer.core.cluster.formats import host_order

            slots = trace_slots(topo, host_order(tr))
            self.wanted = [wanted_gpus(topo, slots, h) if h else None for h in tr.hosts]
        self.per_srv = np.bincount(topo.server)
        self._leaf_mark = np.zeros(int(topo.leaf.max(initial=0)) + 1, bool)
        self.n_conn = max(int(topo.connected.sum()), 1)
        self.all_connected = bool(topo.connected.all())  # else a GPU back may be unattached
        # what the timeline records, kept as jobs start and end rather than counted over
        # every GPU at every event: GPUs held, the down mask (until a repair is due or a
        # failure changes it) and the free GPUs per server
        self.n_busy = 0
        self.free_srv: np.ndarray | None = None  # None: count again
        self._counted: tuple[float, int] | None = None  # fragmentation, slowed jobs
        self.down_mask = np.zeros(c.n_gpus, bool)
        self.down_next = np.inf  # the next time a down GPU comes back

    # failures ------------------------------------------------------------------------
    def _fail_setup(self) -> None:
        fs = self.s.failures
        pt = parts(self.c, self.topo)
        self.parts = pt
        rates = np.array([pt.counts[k] * fs.rate(k).per_1000_days / 1000 / 24
                          if fs.enabled else 0.0 for k in COMPONENTS])
        self.fail_rates = rates
        self.fail_total = float(rates.sum())
        # a stream per kind of part: two designs with the same parts see the same failures
        # (common random numbers), so a side-by-side compares designs, not draws
        self.fail_rng = [np.random.default_rng([self.s.seed, 1 + k])
                         for k in range(len(COMPONENTS))]
        self.fail_next = np.array([self._draw(k, 0.0) for k in range(len(COMPONENTS))])
        self.next_fail = float(self.fail_next.min())
        self.repairs: list[float] = []
        cab = self.c.cables
        both = self.c.is_switch[cab["a"]] & self.c.is_switch[cab["b"]]
        self.fabric_cables = np.flatnonzero(both)
        self.att_sw = self.net.att_switch
        self.att_owner = np.repeat(np.arange(self.c.n_gpus), np.diff(self.net.att_ptr))

    def _laser_dark(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """GPUs left with no live link and fabric ports when laser module ``i`` fails: it
        lights ``laser_lit`` of its switch's ports, the switch's GPU attachments first, then
        its fabric cables, in order (slot j lights the j-th group)."""
        pt, net = self.parts, self.net
        sw = int(pt.laser_switch[i])  # a switch index, as att_switch and port_src count
        lo = int(pt.laser_slot[i]) * pt.laser_lit
        hi = lo + pt.laser_lit
        on = np.flatnonzero(self.att_sw == sw)
        dark_att = on[lo:hi]
        mine = (net.port_src == sw) | (net.port_dst == sw)
        cables = np.unique(net.port_cable[mine])
        dark_cab = cables[max(lo - on.size, 0):max(hi - on.size, 0)]
        ports = np.flatnonzero(np.isin(net.port_cable, dark_cab) & mine)
        g_on = np.unique(self.att_owner[dark_att])
        keep = np.ones(self.att_owner.size, bool)
        keep[dark_att] = False
        live = np.bincount(self.att_owner[keep], minlength=self.c.n_gpus)
        return g_on[live[g_on] == 0], ports

    def _draw(self, k: int, now: float) -> float:
        r = self.fail_rates[k]
        return now + self.fail_rng[k].exponential(1.0 / r) if r > 0 else np.inf

    def _fail(self) -> None:
        fs = self.s.failures
        k = int(self.fail_next.argmin())
        name = COMPONENTS[k]
        cnt = self.parts.counts[name]
        i = int(self.fail_rng[k].integers(0, cnt))
        self.fail_next[k] = self._draw(k, self.now)
        topo, net = self.topo, self.net
        down = np.empty(0, np.int64)
        ports = np.empty(0, np.int64)
        hit_gpus = np.empty(0, np.int64)
        if name in ("gpu", "nic"):
            down = np.array([i])
        elif name in ("host", "software"):
            hit_gpus = np.flatnonzero(topo.server == i)
            down = hit_gpus if name == "host" else down
        elif name == "link":
            if i < self.parts.nic_links:
                g = int(self.att_owner[i])
                n_att = int(net.att_ptr[g + 1] - net.att_ptr[g])
                down = np.array([g]) if n_att == 1 else down
            else:
                cable = self.fabric_cables[(i - self.parts.nic_links)
                                           % max(self.fabric_cables.size, 1)]
                ports = np.flatnonzero(net.port_cable == cable)
        elif name == "switch":
            on = self.att_sw == i
            g_on = np.unique(self.att_owner[on])
            live = np.bincount(self.att_owner[~on], minlength=self.c.n_gpus)
            down = g_on[live[g_on] == 0]
            ports = np.flatnonzero((net.port_src == i) | (net.port_dst == i))
        elif name == "scaleup":
            down = np.flatnonzero(topo.domain == i % (int(topo.domain.max()) + 1))
        elif name == "laser":
            down, ports = self._laser_dark(i)
        hit_gpus = np.union1d(hit_gpus, down)
        rep = fs.rate(name).repair_h
        if down.size and rep > 0:
            self.down_until[down] = np.maximum(self.down_until[down], self.now + rep)
            self.free_srv = None
            self._free = None
            self.repairs.append(self.now + rep)
        jobs = set(np.unique(self.owner[hit_gpus]).tolist()) - {-1}
        if ports.size:
            hit = np.zeros(self.net.n_ports, bool)
            hit[ports] = True
            jobs.update(j for j, jl in self.loaded.items() if hit[jl.links].any())
        self.n_fail += 1
        self.cause[name]["failures"] += 1
        for j in sorted(jobs):
            self._interrupt(j, name)

    def _interrupt(self, j: int, cause: str) -> None:
        self._release(j)  # its progress back in the per-job figures
        fs = self.s.failures
        tau = self.ckpt[j]  # 0: a checkpoint every step (free writes); inf: never needed
        lost = self.done[j] % tau if 0 < tau < np.inf else 0.0
        self.remaining[j] += lost
        self.done[j] -= lost
        g = float(self.gpus[j])
        self.lost_fail[j] += g * lost
        self.overhead[j] += fs.restart_h
        self.interrupts[j] += 1
        self.cause[cause]["interruptions"] += 1
        self.cause[cause]["gpu_hours"] += float(g * (lost + fs.restart_h))
        self.queue.insert(0, j)

    # jobs ------------------------------------------------------------------------------
    def _release(self, j: int) -> None:
        gp = self.placed.pop(j)
        self.live.remove(j)
        self.owner[gp] = -1
        self.n_busy -= gp.size
        if self._free is not None:
            back = self.down_until[gp] <= self.now
            self._free[gp] = back if self.all_connected else back & self.topo.connected[gp]
        if self.free_srv is not None:
            back = ~self.down_mask[gp]
            if not self.all_connected:
                back &= self.topo.connected[gp]
            self.free_srv += np.bincount(self.topo.server[gp[back]],
                                         minlength=self.per_srv.size)
        jl = self.loads.pop(j)
        if self.loaded.pop(j, None) is not None:
            self._run_loaded = self._run_loaded[self._run_loaded != j]
        if not jl.empty:
            self.shared.remove(j, jl)
            self.dirty = True
        self.rate[j] = 1.0
        self._counted = None

    def _start(self, j: int, gp: np.ndarray) -> None:
        self.owner[gp] = j
        self.n_busy += gp.size
        if self._free is not None:
            self._free[gp] = False
        if self.free_srv is not None:
            self.free_srv -= np.bincount(self.topo.server[gp], minlength=self.per_srv.size)
        self.placed[j] = gp
        self._counted = None
        if np.isnan(self.start[j]):
            self.start[j] = self.now
        self.t_last[j] = self.now
        self.live.add(j)
        # leaf groups spanned, counted on a mark per leaf (np.unique sorts: slower per job)
        lf = self.topo.leaf[gp]
        mark = self._leaf_mark
        mark[lf] = True
        self.spans[j] = np.count_nonzero(mark)
        mark[lf] = False
        jl = self.cache.load(job_pattern(self.traffic[j], self.c, self.topo.server, gp)) \
            if self.share[j] > 0 else EMPTY
        self.loads[j] = jl
        if not jl.empty:
            self.loaded[j] = jl
            self._run_loaded = np.append(self._run_loaded, j)
            self._fresh.append(j)
            self.shared.add(j, jl)
            self.dirty = True

    def _schedule(self) -> None:
        if not self.queue:
            return
        free = self._free_gpus()
        n_free = int(np.count_nonzero(free))
        while self.queue:
            j = self.queue[0]
            if self.gpus[j] > n_free:
                break
            gp = place(self.s.policy, self.topo, free, int(self.gpus[j]), self.rng,
                       self.wanted[j])
            if gp is None:
                break
            self.queue.pop(0)
            self._start(j, gp)  # its GPUs leave ``free``
            n_free -= gp.size
        if not self.queue or self.s.backfill_depth == 0 or n_free == 0:
            return
        head = self.queue[0]
        shadow, extra = self._reservation(int(self.gpus[head]), n_free)
        cand = np.array(self.queue[1: 1 + self.s.backfill_depth], np.int64)
        cand = cand[self.gpus[cand] <= n_free]
        for j in cand.tolist():
            need = int(self.gpus[j])
            if need > n_free:
                continue
            runs = self.overhead[j] + self.remaining[j]
            if self.now + runs > shadow and need > extra:
                continue
            gp = place(self.s.policy, self.topo, free, need, self.rng, self.wanted[j])
            if gp is None:
                continue
            self.queue.remove(j)
            self._start(j, gp)
            n_free -= need
            if self.now + runs > shadow:
                extra -= need

    def _free_gpus(self) -> np.ndarray:
        """GPUs neither held nor down now: kept as jobs start and end, counted again after a
        failure or once a repair is due."""
        if self._free is None or self.now >= self._free_until:
            down = self.down_until > self.now
            self._free = ~down & (self.owner < 0) & self.topo.connected
            later = self.down_until[down]
            self._free_until = float(later.min()) if later.size else np.inf
        return self._free

    def _reservation(self, need: int, n_free: int) -> tuple[float, int]:
        """When the head job can start (running jobs ending as now expected), and the GPUs
        beyond its need free then."""
        run = self.live.jobs
        if run.size == 0:
            return np.inf, 0
        ends = self._ends()
        order = np.argsort(ends)
        cum = n_free + np.cumsum(self.gpus[run[order]])
        k = int(np.searchsorted(cum, need))
        if k >= cum.size:
            return np.inf, 0
        return float(ends[order[k]]), int(cum[k] - need)

    def _ends(self) -> np.ndarray:
        """When each running job ends at its present rate, in start order."""
        f = self.live.figure
        # every running job's clock is at ``now`` (see _advance)
        return self.now + f("overhead") + f("remaining") / np.maximum(f("rate"), 1e-12)

    def _advance(self, to: float) -> None:
        lv = self.live
        if lv.n == 0:
            self.now = to
            return
        t_last, overhead, remaining, _done, _work, run_wall, held_h, lost_net, r, g = (
            lv.figures())
        # every running job was advanced to ``now`` or started at it: one step for all
        dt = to - self.now
        if overhead.any():  # restarts being paid: work begins once they are
            ov = np.minimum(dt, overhead)
            work_t = dt - ov
            overhead -= ov
        else:
            work_t = dt
        prog = np.minimum(work_t * r, remaining)
        remaining -= prog
        both = lv.done_and_work
        both += prog
        run_wall += work_t
        held_h += g * dt
        lostn = g * work_t * (1.0 - r)
        lost_net += lostn
        if lv.n_held:
            tier = lv.tier
            held = tier >= 0
            np.add.at(self.lost_layer, tier[held], lostn[held])
        t_last[:] = to
        self.now = to

    def _rates(self) -> None:
        self.dirty = False
        fresh, self._fresh = self._fresh, []
        if self.shared.solve(self._loaded_jobs):
            idx = self._loaded_jobs()
        else:  # the last answer stands: only the jobs started since need their rate, at
            # their full demand (``t`` 1, not held: their tier stays -1)
            idx = np.array([j for j in fresh if j in self.loaded], np.int64)
            if idx.size:
                self.live.set("rate", idx, self.rate_unslowed[idx])
                self._counted = None
            return
        t, held = self.shared.t[idx], self.shared.held[idx]
        sh = self.share[idx]
        self.live.set("rate", idx, 1.0 / ((1.0 - sh) + sh / np.maximum(t, 1e-12)))
        self._counted = None
        lay = self.net.link_layer
        self.live.set("tier", idx, np.where(held >= 0, lay[np.maximum(held, 0)], -1))

    def _loaded_jobs(self) -> np.ndarray:
        return self._run_loaded

    def run(self) -> None:
        tr = self.tr
        arr = tr.arrival_h.tolist()  # read one at a time: Python floats, not numpy scalars
        i_arr = 0
        self.dirty = False
        events = 0
        total_work = float((tr.gpus * tr.duration_h).sum()) or 1.0
        last_report = time.perf_counter()
        while True:
            t_arr = arr[i_arr] if i_arr < tr.n else np.inf
            ends = self._ends()
            t_end = float(ends.min()) if ends.size else np.inf
            t_rep = min(self.repairs) if self.repairs else np.inf
            nxt = min(t_arr, t_end, self.next_fail, t_rep, self.horizon)
            if not math.isfinite(nxt):
                break
            if i_arr >= tr.n and not self.placed and not self.queue:
                break
            self._advance(nxt)
            if nxt >= self.horizon:
                break
            finished = self.live.jobs[ends <= nxt + EPS]
            for j in finished.tolist():
                if self.live.get("remaining", j) <= 1e-7 and self.live.get("overhead", j) <= 1e-9:
                    self.end[j] = self.now
                    self._release(j)
            while i_arr < tr.n and arr[i_arr] <= nxt:
                self.queue.append(i_arr)
                i_arr += 1
            if self.next_fail <= nxt:
                self._fail()
                self.next_fail = float(self.fail_next.min())
            if self.repairs and min(self.repairs) <= self.now + EPS:
                self.repairs = [r for r in self.repairs if r > self.now + EPS]
            self._schedule()
            if self.dirty:
                self._rates()
            self._record()
            events += 1
            if events > MAX_EVENTS:
                raise ClusterError("the run passed 50 million events; shorten it with --days")
            if time.perf_counter() - last_report > 0.05:
                self.live.write_back()
                done = float((self.gpus * (tr.duration_h - self.remaining)).sum()) / total_work
                self.ctl.step(done)
                last_report = time.perf_counter()
        self.live.write_back()
        if not np.isfinite(self.horizon):
            self.horizon = self.now

    def _record(self) -> None:
        if self.free_srv is None or self.now >= self.down_next:
            self.down_mask = self.down_until > self.now
            later = self.down_until[self.down_mask]
            self.down_next = float(later.min()) if later.size else np.inf
            free = (self.owner < 0) & ~self.down_mask & self.topo.connected
            self.free_srv = np.bincount(self.topo.server[free], minlength=self.per_srv.size)
            self.n_down = int(self.down_mask.sum())
            self._counted = None
        if self._counted is None:  # no job started, ended or changed rate: as counted
            fs = self.free_srv
            part = (fs > 0) & (fs < self.per_srv)
            # idle GPUs in servers other jobs hold part of: capacity a whole-server job
            # cannot use
            frag = float(fs[part].sum()) / self.n_conn
            slowed = int(np.count_nonzero(self.live.figure("rate") < 1 - 1e-9))
            self._counted = (frag, slowed)
        frag, slowed = self._counted
        self.tl.append((self.now, self.n_busy, self.n_down, len(self.queue),
                        len(self.placed), slowed, frag, self.n_fail))

    def result(self, usd, blast, mtti, sp, timings) -> ClusterResult:
        tl = np.array(self.tl, np.float64).reshape(-1, 8)
        timeline = Timeline(tl[:, 0], tl[:, 1].astype(np.int64), tl[:, 2].astype(np.int64),
                            tl[:, 3].astype(np.int64), tl[:, 4].astype(np.int64),
                            tl[:, 5].astype(np.int64), tl[:, 6], tl[:, 7].astype(np.int64))
        with np.errstate(divide="ignore", invalid="ignore"):
            slow = np.where(self.work > 0, self.run_wall / self.work, np.nan)
        by_tier = {self.net.layers[i]: float(v) for i, v in enumerate(self.lost_layer) if v > 0}
        return ClusterResult(
            design=self.c.project.name, trace=self.tr.name, policy=self.s.policy,
            design_gpus=int(self.topo.connected.sum()), horizon_h=float(self.horizon),
            usd_per_gpu_hour=usd, job=self.tr.job, tenant=self.tr.tenant, gpus=self.gpus,
            arrival_h=self.tr.arrival_h, start_h=self.start, end_h=self.end, slowdown=slow,
            interruptions=self.interrupts, lost_network_gpu_h=self.lost_net,
            lost_failures_gpu_h=self.lost_fail + self._overhead_lost(),
            held_gpu_h=self.held, spans=self.spans, comm_share=self.share, by_tier=by_tier,
            by_cause={k: v for k, v in self.cause.items() if v["failures"] > 0},
            timeline=timeline, blast=blast, mtti_h=mtti, spares=sp, timings=timings,
            cache_hits=self.cache.hits, offered_gpu_h=self._offered())

    def _offered(self) -> float:
        """GPU-hours of work arriving before the horizon, cut at the horizon."""
        tr = self.tr
        run = np.clip(self.horizon - tr.arrival_h, 0.0, tr.duration_h)
        return float((self.gpus * run).sum())

    def _overhead_lost(self) -> np.ndarray:
        """Restart time spent (held, no work): restarts paid minus what is still owed."""
        fs = self.s.failures
        return self.gpus * (self.interrupts * fs.restart_h - self.overhead_owed())

    def overhead_owed(self) -> np.ndarray:
        return self.overhead
