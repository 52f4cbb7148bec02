"""Traffic patterns: which GPU talks to which, and how much of its line rate it asks for.

A pattern is a set of flows (source GPU, destination GPU) with a ``demand``: the fraction of
the source GPU's line rate the flow asks for when the network is perfect (a permutation asks
1.0 per flow; all-to-all splits a GPU's line rate over its destinations). ``weight`` lets one
row stand for many alike flows (all-to-all by class, see ``all_to_all``); ``level`` says
whether ``src``/``dst`` are GPU ids or GPU class ids. GPUs are numbered as the solver numbers
them: servers in device order, GPUs of a server in port order, from 0. Pairs inside one scale-up
domain (a server, or the NVL72 rack of its tray) talk over NVLink and are left out, as the
solver's hop statistics leave them out.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from designer.core.errors import DesignerError
from designer.core.limits import MAX_FLOWS_PER_TRIAL
from designer.core.safe_io import FileRefused, read_text
from designer.core.solver.compile import Compiled
from designer.core.solver.paths import same_domain_pairs
from designer.core.text import ascii_float, ascii_int, shown

PATTERNS = ("permutation", "all-to-all", "ring", "tree", "incast", "bisection")
EXPLICIT_ALL_TO_ALL = 100_000  # flows above which all-to-all runs by GPU class


class PatternError(DesignerError):
    """A traffic pattern that names GPUs the design does not have, or cannot be read."""


@dataclass(frozen=True, eq=False)
class Pattern:
    name: str
    src: np.ndarray  # int64 GPU (or class) ids
    dst: np.ndarray
    demand: np.ndarray  # fraction of the source GPU's line rate, per flow
    weight: np.ndarray  # alike flows each row stands for
    nbytes: np.ndarray | None = None  # bytes per flow (CSV patterns)
    level: str = "gpu"  # "gpu" or "class"

    @property
    def n_flows(self) -> int:
        return int(self.weight.sum()) if self.src.size else 0


def gpu_server(c: Compiled) -> np.ndarray:
    """Device index of the server of every GPU."""
    srv = np.flatnonzero(c.is_server)
    gpus = c.table.gpus[srv]
    return np.repeat(srv, gpus)


def _make(name: str, c: Compiled, src: np.ndarray, dst: np.ndarray, demand: float | np.ndarray,
          nbytes: np.ndarray | None = None) -> Pattern:
    src = np.asarray(src, np.int64)
    dst = np.asarray(dst, np.int64)
    dom = c.gpu_domain
    keep = (dom[src] != dom[dst]) & (c.gpu_class[src] >= 0) & (c.gpu_class[dst] >= 0)
    dem = np.broadcast_to(np.asarray(demand, np.float64), src.shape)[keep]
    return Pattern(name, src[keep], dst[keep], np.ascontiguousarray(dem),
                   np.ones(int(keep.sum())), None if nbytes is None else nbytes[keep])


def permutation(c: Compiled, seed: int = 0) -> Pattern:
    """Every GPU sends at line rate to one GPU drawn at random, each receiving from one."""
    rng = np.random.default_rng(seed)
    n = c.n_gpus
    return _make("permutation", c, np.arange(n), rng.permutation(n), 1.0)


def ring(c: Compiled) -> Pattern:
    """The rings of a ring all-reduce as NCCL lays them on a rail-optimized design: one ring
    per GPU position, server after server (GPU k of server s sends to GPU k of server s+1);
    inside a server the ring runs over NVLink."""
    srv = np.flatnonzero(c.is_server)
    gpus = c.table.gpus[srv].astype(np.int64)
    if srv.size < 2:
        raise PatternError("pattern 'ring' needs at least two GPU servers")
    base = c.gpu_base[srv]
    k = int(gpus.min())
    pos = np.arange(k)
    src = (base[:, None] + pos[None, :]).ravel()
    dst = (np.roll(base, -1)[:, None] + pos[None, :]).ravel()
    return _make("ring", c, src, dst, 1.0)


def tree(c: Compiled) -> Pattern:
    """The trees of a tree all-reduce laid on rails: per GPU position, the servers form a
    binary tree in order (server s under server (s - 1) // 2); reduction goes up and the
    broadcast comes down at the same time, pipelined, so every tree edge carries a flow each
    way and a GPU's line rate is shared among the tree neighbours it sends to."""
    srv = np.flatnonzero(c.is_server)
    if srv.size < 2:
        raise PatternError("pattern 'tree' needs at least two GPU servers")
    base = c.gpu_base[srv]
    k = int(c.table.gpus[srv].min())
    child = np.arange(1, srv.size)
    parent = (child - 1) // 2
    pos = np.arange(k)
    up_src = (base[child][:, None] + pos[None, :]).ravel()
    up_dst = (base[parent][:, None] + pos[None, :]).ravel()
    src = np.r_[up_src, up_dst]
    dst = np.r_[up_dst, up_src]
    out = np.bincount(src, minlength=c.n_gpus)
    return _make("tree", c, src, dst, 1.0 / out[src])


def incast(c: Compiled, fan_in: int = 16, target: int = 0) -> Pattern:
    """``fan_in`` GPUs of other scale-up domains send at line rate to GPU ``target``."""
    n = c.n_gpus
    if not 0 <= target < n:
        raise PatternError(f"incast target GPU {target} does not exist (GPUs 0..{n - 1})")
    server = gpu_server(c)
    others = np.flatnonzero(c.gpu_domain != c.gpu_domain[target])
    if fan_in < 1 or others.size == 0:
        raise PatternError("incast fan-in must be at least 1 and the design needs two "
                           "scale-up domains")
    # one GPU of each other server first (spread over the fabric), then more
    _, first = np.unique(server[others], return_index=True)
    pick = np.concatenate([others[np.sort(first)], np.setdiff1d(others, others[first])])
    src = pick[: min(fan_in, pick.size)]
    return _make("incast", c, src, np.full(src.size, target), 1.0)


def bisection(c: Compiled) -> Pattern:
    """The first half of the GPUs (by number) exchanges with the second half at line rate,
    GPU i with GPU i + N/2: in generated designs the halves sit under different spines or
    pods, so every flow crosses the fabric's middle."""
    h = c.n_gpus // 2
    if h == 0:
        raise PatternError("pattern 'bisection' needs at least two GPUs")
    a = np.arange(h)
    return _make("bisection", c, np.r_[a, a + h], np.r_[a + h, a], 1.0)


def all_to_all(c: Compiled, explicit_limit: int = EXPLICIT_ALL_TO_ALL) -> Pattern:
    """Every GPU sends to every GPU of other scale-up domains, its line rate split evenly.

    Up to ``explicit_limit`` flows they are listed one by one; above it one row per pair of
    GPU classes stands for all alike flows (``weight``), which is exact for routings that
    treat alike GPUs alike (adaptive spraying)."""
    n = c.n_gpus
    dom = c.gpu_domain
    per_dom = np.bincount(dom, minlength=max(c.domains.count, 1))
    dests = n - per_dom[dom]  # destinations of each GPU
    if n * (n - 1) <= explicit_limit:
        src, dst = np.divmod(np.arange(n * n, dtype=np.int64), n)
        with np.errstate(divide="ignore"):
            dem = 1.0 / np.maximum(dests[src], 1)
        return _make("all-to-all", c, src, dst, dem)
    cl = c.classes
    same = same_domain_pairs(c).toarray()
    pairs = np.outer(cl.count, cl.count).astype(np.float64) - same
    ca, cb = np.nonzero(pairs > 0)
    w = pairs[ca, cb]
    gd = np.bincount(c.gpu_class[c.gpu_class >= 0], weights=dests[c.gpu_class >= 0],
                     minlength=cl.n) / np.maximum(cl.count, 1)
    return Pattern("all-to-all", ca.astype(np.int64), cb.astype(np.int64),
                   1.0 / np.maximum(gd[ca], 1), w, None, "class")


def _gpu_ref(text: str, c: Compiled, where: str) -> int:
    text = text.strip()
    n = c.n_gpus
    if ":" in text:  # device-id:k
        dev, _, k = text.rpartition(":")
        i = c.fabric.index.get(dev)
        if i is None or not c.is_server[i]:
            raise PatternError(f"{where}: '{shown(dev, 80)}' is not a GPU server of the design")
        kk = ascii_int(k)
        if kk is None or not 0 <= kk < int(c.table.gpus[i]):
            raise PatternError(f"{where}: '{shown(text, 80)}': {shown(dev, 80)} has GPUs "
                               f"0..{int(c.table.gpus[i]) - 1}")
        return int(c.gpu_base[i]) + kk
    g = ascii_int(text)
    if g is None:
        raise PatternError(f"{where}: '{shown(text, 80)}' is not a GPU number or server-id:k")
    if not 0 <= g < n:
        raise PatternError(f"{where}: GPU {g:,} does not exist (the design has GPUs "
                           f"0..{n - 1:,})")
    return g


# A flow's bytes: a petabyte is past any message; more would overflow the sums to infinity.
MAX_FLOW_BYTES = 2.0**50
# A pattern file: a few tens of bytes a flow, at most as many flows as one load trial routes.
MAX_CSV_BYTES = 128 * 1024 * 1024


def from_csv(c: Compiled, path: str | Path) -> Pattern:
    """Flows from a CSV file: source GPU, destination GPU, bytes (a header row is allowed).
    GPUs are numbers (0..N-1) or ``server-id:k``. A GPU's line rate is shared among its
    flows in proportion to their bytes. The file is UTF-8 text (a refusal names the line of
    anything else) and a regular file of bounded size."""
    name = shown(Path(path).name, 120)
    try:
        text = read_text(path, limit=MAX_CSV_BYTES, what="pattern file")
    except FileRefused as exc:
        raise PatternError(str(exc)) from None
    try:
        rows = []
        for r in csv.reader(io.StringIO(text)):
            if r and any(x.strip() for x in r):
                rows.append(r)
                if len(rows) > MAX_FLOWS_PER_TRIAL + 1:
                    raise PatternError(f"pattern file {name}: more than "
                                       f"{MAX_FLOWS_PER_TRIAL:,} flows")
    except csv.Error as exc:
        raise PatternError(f"pattern file {name}: not readable as CSV ({exc})") from None
    if rows and ascii_float(rows[0][-1]) is None:
        rows = rows[1:]
    if not rows:
        raise PatternError(f"pattern file {name}: no flows (expected: source, destination, "
                           "bytes)")
    src, dst, nbytes = [], [], []
    for i, r in enumerate(rows, start=1):
        where = f"{name}, flow {i:,}"
        if len(r) < 3:
            raise PatternError(f"{where}: expected source, destination, bytes")
        src.append(_gpu_ref(r[0], c, where + ", source"))
        dst.append(_gpu_ref(r[1], c, where + ", destination"))
        b = ascii_float(r[2])
        if b is None:
            raise PatternError(f"{where}, bytes: '{shown(r[2].strip(), 40)}' is not a number")
        if not 0 < b <= MAX_FLOW_BYTES:
            raise PatternError(f"{where}, bytes: must be above 0 and at most {MAX_FLOW_BYTES:.3g}")
        nbytes.append(b)
    s = np.array(src, np.int64)
    b_arr = np.array(nbytes)
    out_bytes = np.bincount(s, weights=b_arr, minlength=c.n_gpus)
    return _make(Path(path).name, c, s, np.array(dst, np.int64), b_arr / out_bytes[s], b_arr)


def make_pattern(c: Compiled, name: str, seed: int = 0, fan_in: int = 16) -> Pattern:
    """A pattern by name (see ``PATTERNS``) or a CSV file path."""
    if c.n_gpus < 2:
        raise PatternError("the design has fewer than two connected GPUs: no traffic to model")
    if name == "permutation":
        return permutation(c, seed)
    if name == "all-to-all":
        return all_to_all(c)
    if name == "ring":
        return ring(c)
    if name == "tree":
        return tree(c)
    if name == "incast":
        return incast(c, fan_in)
    if name == "bisection":
        return bisection(c)
    if name.endswith(".csv") or Path(name).is_file():
        return from_csv(c, name)
    raise PatternError(f"unknown pattern '{name}' (choose {', '.join(PATTERNS)} or a .csv file)")
