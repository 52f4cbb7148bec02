"""Jobs sharing the fabric: each running job's traffic on the design's links, and the rates
the flow model gives them together.

A job's traffic is its collective laid on its own GPUs: rings (data-parallel all-reduce; a
ring's GPU on one server sends at line rate to the ring's GPU on the job's next server, as
NCCL lays its channels on rails) or an all-to-all (expert parallelism; a GPU's line rate
split over the job's GPUs on other servers). GPUs in one server talk over NVLink and are left
out. The flows are summed into rows per pair of GPU classes (GPUs attached alike), so a job
costs as many rows as the classes it touches, and routed by the traffic package's class-level
spray (adaptive routing, the fluid model): the job's load on every switch link at its full
demand, computed once when it starts and kept (and reused by any job with the same class rows).

Rates: every running job communicates at once (the worst alignment of their phases) and moves
as one: all its flows at the same fraction ``t`` of their demand, its collective finishing with
its slowest flow. Progressive filling over jobs (the traffic package's max-min fair solver, a
job for a flow and its link loads for weights) gives each job's ``t``. Only links that the
running jobs together load past their capacity can bind, so only those links and the jobs
crossing them enter the solve; on a lightly loaded fabric nothing is solved at all.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from designer.core.solver.compile import Compiled
from designer.core.traffic.aggregate import (
    NextHops,
    class_spray_port_loads,
)
from designer.core.traffic.maxmin import max_min_fair, max_min_fair_dense
from designer.core.traffic.network import Network
from designer.core.traffic.patterns import Pattern

TRAFFIC = ("ring", "all-to-all", "none")
OVER = 1e-9  # relative: a link loaded past capacity by more than this binds


@dataclass(frozen=True, eq=False)
class JobLoad:
    """A job's load on the switch links at its full demand: (link, Gb/s) sparse."""

    links: np.ndarray
    gbps: np.ndarray

    @property
    def empty(self) -> bool:
        return self.links.size == 0


EMPTY = JobLoad(np.empty(0, np.int64), np.empty(0))


def ring_rows(c: Compiled, server: np.ndarray, gpus: np.ndarray) -> Pattern | None:
    """Class-level rows of the job's rings: as many rings (NCCL channels) as the job has GPUs
    on its smallest server; ring ``k`` crosses from rank ``k`` of each server to rank ``k`` of
    the next (the same rail where the job holds whole servers), the other GPUs joined over
    NVLink. Every GPU sends at most one flow and receives at most one."""
    s = server[gpus]
    step = s[1:] != s[:-1]
    if not step.any():
        return None
    if (s[1:] >= s[:-1]).all():  # placements come sorted: no sort needed
        g = gpus
    else:
        order = np.argsort(s, kind="stable")
        g, s = gpus[order], s[order]
        step = s[1:] != s[:-1]
    # each server's first GPU and count (np.unique on sorted numbers, without its sort)
    first = np.flatnonzero(np.concatenate(([True], step)))
    # ring k's next hop: the same rank on the next server, the last server closing the ring
    nxt = np.empty_like(first)
    nxt[:-1] = first[1:]
    nxt[-1] = first[0]
    size = nxt - first
    size[-1] = s.size - first[-1]
    rank = np.arange(int(size.min()))
    return _rows(c, g[(first[:, None] + rank).ravel()], g[(nxt[:, None] + rank).ravel()])


def all_to_all_rows(c: Compiled, server: np.ndarray, gpus: np.ndarray) -> Pattern | None:
    """Class-level rows of an all-to-all among the job's GPUs on different servers."""
    cls = c.gpu_class[gpus]
    s = server[gpus]
    u_srv, s_i = np.unique(s, return_inverse=True)
    if u_srv.size < 2:
        return None
    u_cls, c_i = np.unique(cls, return_inverse=True)
    m = np.zeros((u_srv.size, u_cls.size))
    np.add.at(m, (s_i.reshape(-1), c_i.reshape(-1)), 1.0)
    tot = m.sum(axis=0)
    pairs = np.outer(tot, tot) - m.T @ m  # GPU pairs by class pair, same server left out
    per_gpu = gpus.size - m.sum(axis=1)[s_i.reshape(-1)]  # destinations of each GPU
    dests = np.bincount(c_i.reshape(-1), weights=per_gpu, minlength=u_cls.size) / tot
    a, b = np.nonzero((pairs > 0.5) & (u_cls[:, None] != u_cls[None, :]))
    if a.size == 0:
        return None
    return Pattern("job all-to-all", u_cls[a], u_cls[b], 1.0 / dests[a], pairs[a, b], None,
                   "class")


def _rows(c: Compiled, src: np.ndarray, dst: np.ndarray) -> Pattern | None:
    a, b = c.gpu_class[src], c.gpu_class[dst]
    # GPUs of one class sit on the same switches: their traffic never enters the fabric
    ok = (a >= 0) & (b >= 0) & (a != b)
    if not ok.any():
        return None
    n = max(c.classes.n, 1)
    key = np.sort(a[ok] * n + b[ok])
    first = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1])))
    w = np.empty_like(first)
    w[:-1] = first[1:] - first[:-1]
    w[-1] = key.size - first[-1]
    src, dst = np.divmod(key[first], n)
    return Pattern("job ring", src, dst, np.ones(src.size), w.astype(np.float64), None,
                   "class")


class LoadCache:
    """Job loads, kept two ways. By the job's class rows: jobs placed alike load the links
    alike. By class pair: loads are linear in the traffic, so a job whose pairs were all seen
    (a ring over leaves other jobs used before) is a sum of kept unit loads; a job with many new
    pairs (scattered placements) is sprayed in one call, its cost set by its destinations."""

    PAIRS_ONE_BY_ONE = 16  # new pairs above which the job is sprayed whole

    def __init__(self, net: Network, limit: int = 20_000, pair_limit: int = 200_000):
        self.net = net
        self.limit = limit
        self.pair_limit = pair_limit
        self._seen: dict[bytes, JobLoad] = {}
        self._pair: dict[tuple[int, int], JobLoad] = {}
        self._hops = NextHops(net)
        self._acc = np.zeros(net.n_ports)
        self.hits = 0
        self.misses = 0

    def _spray(self, p: Pattern, control) -> JobLoad:
        full = class_spray_port_loads(self.net, p, control)
        nz = np.flatnonzero(full > 0)
        return JobLoad(nz, full[nz])

    def _units(self, pairs: list[tuple[int, int]], control) -> dict[tuple[int, int], JobLoad]:
        """Unit loads of class pairs: kept ones looked up, the others walked one by one
        (``NextHops.pair``: its tables, layers and ways down kept for the run)."""
        got = {x: self._pair[x] for x in pairs if x in self._pair}
        new = [x for x in dict.fromkeys(pairs) if x not in got]
        for x in new:
            got[x] = JobLoad(*self._hops.pair(x[0], x[1], control))
            if len(self._pair) < self.pair_limit:
                self._pair[x] = got[x]
        return got

    def load(self, p: Pattern | None, control=None) -> JobLoad:
        if p is None:
            return EMPTY
        key = (p.name.encode() + p.src.tobytes() + p.dst.tobytes() + p.weight.tobytes()
               + p.demand.tobytes())
        got = self._seen.get(key)
        if got is not None:
            self.hits += 1
            return got
        self.misses += 1
        pairs = list(zip(p.src.tolist(), p.dst.tolist(), strict=True))
        new = sum(1 for x in pairs if x not in self._pair)
        if new > self.PAIRS_ONE_BY_ONE:
            out = self._spray(p, control)
        else:
            kept = self._units(pairs, control)
            units = [kept[x] for x in pairs]
            scale = p.weight * p.demand
            # summed unit by unit on a dense vector (a unit's links are distinct): the
            # same sums, in the same order, as a sort of all the entries gave
            acc = self._acc  # zero outside a call: a fresh vector per job cost page faults
            for u, f in zip(units, scale.tolist(), strict=True):
                acc[u.links] += u.gbps * f
            # the loaded links: the units' links (loads are positive), found in the vector
            # by a pass over a boolean mask, a fifth of a sort of the joined links (callgrind)
            idx = units[0].links if len(units) == 1 else np.flatnonzero(acc > 0)
            out = JobLoad(idx, acc[idx])
            acc[idx] = 0.0
        if len(self._seen) < self.limit:
            self._seen[key] = out
        return out


def job_pattern(traffic: str, c: Compiled, server: np.ndarray, gpus: np.ndarray
                ) -> Pattern | None:
    if traffic == "all-to-all":
        return all_to_all_rows(c, server, gpus)
    if traffic == "none":
        return None
    return ring_rows(c, server, gpus)


def shared_rates(loads: list[JobLoad], cap: np.ndarray, total: np.ndarray | None = None
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Each job's fraction ``t`` of its demand with all of them communicating, and the link
    each slowed job is held by (-1 when not slowed). ``total``: the summed loads, when the
    caller keeps them."""
    n = len(loads)
    t = np.ones(n)
    held = np.full(n, -1, np.int64)
    if n == 0:
        return t, held
    if total is None:
        total = np.zeros(cap.size)
        for jl in loads:
            np.add.at(total, jl.links, jl.gbps)
    over = np.flatnonzero(total > cap * (1 + OVER))
    if over.size == 0:
        return t, held
    is_over = np.zeros(cap.size, bool)
    is_over[over] = True
    sizes = np.fromiter((jl.links.size for jl in loads), np.int64, n)
    all_links = np.concatenate([jl.links for jl in loads])
    m = is_over[all_links]
    flow = np.repeat(np.arange(n), sizes)[m]
    jobs, t_jobs, held_jobs = _fair(flow, all_links[m],
                                    np.concatenate([jl.gbps for jl in loads])[m], cap)
    t[jobs] = t_jobs
    held[jobs] = held_jobs
    return t, held


def _fair(flow: np.ndarray, link: np.ndarray, wt: np.ndarray, cap: np.ndarray
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Progressive filling over the jobs' entries on overloaded links (``flow`` a job key,
    non-decreasing keys in start order): the keys, their ``t`` and the link holding each
    (-1 when not slowed)."""
    jobs, f = np.unique(flow, return_inverse=True)
    f = f.reshape(-1)
    links, lidx = np.unique(link, return_inverse=True)
    lidx = lidx.reshape(-1)
    fair = max_min_fair(f, lidx, wt, np.ones(jobs.size), cap[links])
    t = np.minimum(fair.t, 1.0)
    # the binding link of a slowed job: the fullest of its links, by its own share there
    util = fair.load / np.maximum(cap[links], 1e-300)
    score = np.where(util[lidx] >= 1 - 1e-6, wt, -1.0)
    best = np.full(jobs.size, -1.0)
    np.maximum.at(best, f, score)
    hit = (score == best[f]) & (score > 0)
    b_link = np.full(jobs.size, -1, np.int64)
    b_link[f[hit]] = links[lidx[hit]]
    return jobs, t, np.where(t < 1 - 1e-9, b_link, -1)


def _fair_dense(a: np.ndarray, links: np.ndarray, cap: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
    """``_fair`` on a dense jobs x links matrix of the entries (jobs in start order, ``links``
    ascending): the same ``t`` and holding links. A small solve (a hundred jobs on a few
    hundred links) is filled faster dense than through sparse matrices."""
    c = cap[links]
    fair = max_min_fair_dense(a, c)
    t = np.minimum(fair.t, 1.0)
    held = np.full(t.size, -1, np.int64)
    slow = np.flatnonzero(t < 1 - 1e-9)
    full = np.flatnonzero(fair.load / np.maximum(c, 1e-300) >= 1 - 1e-6)
    if not slow.size or not full.size:
        return t, held
    # a slowed job's entries on the full links: the largest holds it
    score = a[np.ix_(slow, full)]
    best = score.max(axis=1)
    hit = (score == best[:, None]) & (score > 0)
    # ties between a job's links go to the last, as in ``_fair``'s entry order
    last = full.size - 1 - np.argmax(hit[:, ::-1], axis=1)
    held[slow] = np.where(hit.any(axis=1), links[full[last]], -1)
    return t, held


class SharedLinks:
    """The running jobs' loads on the switch links, kept for solving their rates again at
    every change of the running set (``shared_rates`` over the loaded jobs, same figures).

    A change cannot alter the rates when the overloaded links stay the same and the jobs
    that came or went load none of them: the jobs the solve sees, their entries and the
    capacities are then what they were, and the last answer stands (on a busy fabric most
    starts and ends are such).

    The solve needs the running jobs' entries on the overloaded links: a few thousand of
    about a million on a busy 16,384-GPU fabric. The links ever overloaded are kept as rows
    of a small links x jobs matrix (a column per running job, reused when it ends; loads are
    positive, so zero means none), filled for the running jobs when a link first overloads
    and by each job that starts; the solve reads the overloaded links' rows and puts the
    entries in start order, then link. Past ``budget`` bytes the entries go to one list in
    start order instead (a job's appended when it starts, marked gone when it ends, the list
    compacted when half is gone), read whole at each solve."""

    def __init__(self, cap: np.ndarray, n_jobs: int, budget: int = 256 << 20) -> None:
        self.cap = cap
        self.budget = budget
        self._hot: np.ndarray | None = np.zeros((0, 0))  # links ever overloaded x slots
        self._hot_row = np.full(cap.size, -1, np.int64)  # per link: its row, -1 none
        self._n_hot = 0
        self._slot_of = np.full(n_jobs, -1, np.int64)
        self._seq_of_slot = np.zeros(0, np.int64)
        self._load_of_slot: list[JobLoad | None] = []
        self._free: list[int] = []  # a heap: the lowest free slot is taken first
        self._used = np.zeros(0, bool)
        self._width = 0  # slots up to the last in use: the columns a solve reads
        self._limit = cap * (1 + OVER)
        self.total = np.zeros(cap.size)
        self.t = np.ones(n_jobs)
        self.held = np.full(n_jobs, -1, np.int64)
        self._links = np.empty(4096, np.int64)
        self._gbps = np.empty(4096)
        self._seq = np.empty(4096, np.int64)  # start number of the entry's job
        self._n = 0
        self._live = 0
        self._starts = 0
        self._job_of = np.empty(1024, np.int64)  # per start number: the job
        self._alive = np.zeros(1024, bool)  # per start number: still running
        self._seq_of = np.full(n_jobs, -1, np.int64)
        self._due = False  # a change since the last solve may alter the rates
        self._solved = False
        self._is_over = np.zeros(cap.size, bool)  # the overloaded links at the last solve
        # a total past which adding to a link calls for a solve: its limit, or -inf when it
        # was overloaded at the last solve
        self._trip = self._limit.copy()
        self.solves = 0

    def add(self, j: int, jl: JobLoad) -> None:
        # a job's links are distinct: a plain add is ``np.add.at``, in the same order
        links = jl.links
        total = self.total[links] + jl.gbps
        self.total[links] = total
        # a solve is due when the job loads a link overloaded at the last solve or now: a
        # link overloaded at the next solve was so at the last, or after the last job
        # added to it (only ends, which lower it, came after); ``_trip`` holds both tests
        self._due = self._due or bool((total > self._trip[links]).any())
        s = self._starts
        self._starts += 1
        if s >= self._alive.size:
            self._alive = np.concatenate([self._alive, np.zeros(self._alive.size, bool)])
            self._job_of = np.concatenate([self._job_of, self._job_of])
        self._alive[s] = True
        self._job_of[s] = j
        self._seq_of[j] = s
        self.t[j], self.held[j] = 1.0, -1
        if self._hot is not None:
            self._slot_add(j, s, jl)
        if self._hot is None:
            self._append(s, jl)

    def _append(self, s: int, jl: JobLoad) -> None:
        k = jl.links.size
        if self._n + k > self._links.size:
            size = max(2 * self._links.size, self._n + k)
            for name in ("_links", "_gbps", "_seq"):
                a = getattr(self, name)
                b = np.empty(size, a.dtype)
                b[: self._n] = a[: self._n]
                setattr(self, name, b)
        self._links[self._n: self._n + k] = jl.links
        self._gbps[self._n: self._n + k] = jl.gbps
        self._seq[self._n: self._n + k] = s
        self._n += k
        self._live += k

    def _to_list(self) -> None:
        """Past the budget: the running jobs' entries into the list, in start order, and the
        matrix dropped."""
        self._hot = None
        slots = sorted((int(self._seq_of_slot[k]), k)
                       for k, jl in enumerate(self._load_of_slot) if jl is not None)
        for s, k in slots:
            self._append(s, self._load_of_slot[k])
        self._load_of_slot = []

    def _fits(self, rows: int, slots: int) -> bool:
        if rows * slots * 8 <= self.budget:
            return True
        self._to_list()
        return False

    def _slot_add(self, j: int, s: int, jl: JobLoad) -> None:
        if not self._free:
            n = self._hot.shape[1]
            grow = max(n, 16)
            if not self._fits(self._hot.shape[0], n + grow):
                return
            self._hot = np.concatenate([self._hot, np.zeros((self._hot.shape[0], grow))],
                                       axis=1)
            self._seq_of_slot = np.concatenate([self._seq_of_slot, np.zeros(grow, np.int64)])
            self._load_of_slot += [None] * grow
            self._used = np.concatenate([self._used, np.zeros(grow, bool)])
            self._free = list(range(n, n + grow))
        # the lowest free slot: slots in use stay packed at the low end, and a solve reads
        # only the columns up to the last of them
        k = heapq.heappop(self._free)
        self._used[k] = True
        self._width = max(self._width, k + 1)
        self._slot_of[j] = k
        self._seq_of_slot[k] = s
        self._load_of_slot[k] = jl
        r = self._hot_row[jl.links]
        m = r >= 0
        self._hot[r[m], k] = jl.gbps[m]

    def _make_hot(self, links: np.ndarray) -> None:
        """Rows for ``links`` (ascending, none hot yet), filled from the running jobs."""
        n = self._n_hot
        if n + links.size > self._hot.shape[0]:
            size = max(2 * self._hot.shape[0], n + links.size, 64)
            if not self._fits(size, self._hot.shape[1]):
                return
            grown = np.zeros((size, self._hot.shape[1]))
            grown[:n] = self._hot[:n]
            self._hot = grown
        self._hot_row[links] = np.arange(n, n + links.size)
        self._n_hot += links.size
        fresh = np.zeros(self.cap.size, bool)
        fresh[links] = True
        for k, jl in enumerate(self._load_of_slot):
            if jl is None:
                continue
            m = fresh[jl.links]
            self._hot[self._hot_row[jl.links[m]], k] = jl.gbps[m]

    def remove(self, j: int, jl: JobLoad) -> None:
        self.total[jl.links] -= jl.gbps
        self._due = self._due or bool(self._is_over[jl.links].any())
        self._alive[self._seq_of[j]] = False
        self._seq_of[j] = -1
        k = self._slot_of[j]
        self._slot_of[j] = -1
        self.t[j], self.held[j] = 1.0, -1
        if self._hot is not None:
            # the slot's column holds this job's entries and zeros: cleared whole
            self._hot[: self._n_hot, k] = 0.0
            self._load_of_slot[k] = None
            heapq.heappush(self._free, int(k))
            self._used[k] = False
            while self._width and not self._used[self._width - 1]:
                self._width -= 1
            return
        self._live -= jl.links.size
        if self._n > 65_536 and self._live * 2 < self._n:
            keep = self._alive[self._seq[: self._n]]
            n = int(keep.sum())
            for name in ("_links", "_gbps", "_seq"):
                a = getattr(self, name)
                a[:n] = a[: self._n][keep]
            self._n = n

    def solve(self, running: np.ndarray | Callable[[], np.ndarray]) -> bool:
        """``t`` and ``held`` of every job again after the changes since the last call;
        ``running``: the loaded jobs, in start order (or a function giving them, asked only
        when a solve is due). False when the last answer stands: only the jobs that started
        since have new figures (``t`` 1, not held)."""
        cap = self.cap
        # totals moved only on the links of the jobs that came or went: when none of those
        # links was or is overloaded, the overloaded links are the same and those jobs load
        # none of them (``add`` and ``remove`` tell; when they cannot rule it out a solve
        # runs, and gives the last answer again)
        if self._solved and not self._due:
            return False
        self._due = False
        if callable(running):
            running = running()
        over = np.flatnonzero(self.total > self._limit)
        self._solved = True
        self._is_over[:] = False
        self._is_over[over] = True
        self._trip[:] = self._limit
        self._trip[over] = -np.inf
        self.solves += 1
        self.t[running] = 1.0
        self.held[running] = -1
        if over.size == 0 or running.size == 0:
            return True
        if self._hot is not None:
            fresh = over[self._hot_row[over] < 0]
            if fresh.size:
                self._make_hot(fresh)
        if self._hot is not None:
            sub = self._hot[:, : self._width][self._hot_row[over]]
            # the jobs with an entry there, in start order: the list's flow order (entries
            # are positive, so a slot's sum is above zero when it has one: a sum over rows
            # runs vectorized, a test for any non-zero first casts every entry)
            slots = np.flatnonzero(sub.sum(axis=0) > 0)
            slots = slots[np.argsort(self._seq_of_slot[slots])]
            seqs = self._seq_of_slot[slots]
            t, held = _fair_dense(sub.T[slots], over, cap)
        else:
            at = np.flatnonzero(self._is_over[self._links[: self._n]])
            at = at[self._alive[self._seq[at]]]
            seqs, t, held = _fair(self._seq[at], self._links[at], self._gbps[at], cap)
        jobs = self._job_of[seqs]
        self.t[jobs] = t
        self.held[jobs] = held
        return True
