"""Plan against as-built, cable by cable: missing, extra and miswired.

Devices are matched by their node description (the name the export writes, see
``topology.node_descriptions``) and ports by number, so a plan compares with the project that
``designer import ibnetdiscover`` builds from the real fabric. Every comparison works on whole
arrays of integer keys: a cable is the pair of its two (device, port) ends.

A planned cable that is not found is explained, most specific first, as
1. *wrong ports*: a found cable joins the same two devices at other ports, preferring one that
   keeps one of the planned ports (two cables swapped at a switch show as two of these);
2. *wrong device*: a found cable starts at one of its two ports but ends on another device;
3. otherwise *missing*. Found cables that explain nothing are *extra*.
Each found cable explains at most one planned cable.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.core.catalog import Catalog
from designer.core.errors import DesignerError
from designer.core.infiniband.topology import node_descriptions
from designer.core.model import Project
from designer.core.ports import per_cage_of, port_label
from designer.core.problems import MAX_NAMED_DEVICES, Problem, Severity

WRONG_PORTS, WRONG_DEVICE = 0, 1
KIND_NAMES = {WRONG_PORTS: "wrong-ports", WRONG_DEVICE: "wrong-device"}
KIND_TEXT = {WRONG_PORTS: "right devices, wrong ports", WRONG_DEVICE: "a port on the wrong device"}
_PORT_BITS = 24


def device_keys(project: Project) -> list[str]:
    """The name each device is matched by: its node description when the design exports."""
    try:
        return node_descriptions(project.fabric)[0]
    except DesignerError:
        names = [d.name for d in project.fabric.devices]
        return names if len(set(names)) == len(names) else [d.id for d in project.fabric.devices]


@dataclass(frozen=True, eq=False)
class CableDiff:
    """Differences between a plan and an as-built. Cable arrays are (k, 4) int64 rows
    ``a, a_port, b, b_port`` with devices as indices into ``names``."""

    names: tuple[str, ...]
    per_cage: np.ndarray  # per name: 0 a server/appliance, 1 a plain switch, 2+ twin-port cages
    planned: int
    built: int
    matched: int
    missing: np.ndarray
    extra: np.ndarray
    miswired_plan: np.ndarray
    miswired_built: np.ndarray
    miswired_kind: np.ndarray
    devices_missing: tuple[str, ...]
    devices_extra: tuple[str, ...]

    @property
    def equal(self) -> bool:
        """No difference at all: every cable and every device as planned."""
        return not (len(self.missing) or len(self.extra) or len(self.miswired_plan)
                    or self.devices_missing or self.devices_extra)

    @property
    def counts(self) -> dict[str, int]:
        return {
            "planned": self.planned,
            "built": self.built,
            "as_planned": self.matched,
            "miswired": len(self.miswired_plan),
            "missing": len(self.missing),
            "extra": len(self.extra),
        }

    def port_label(self, name: int, port: int) -> str:
        cage = int(self.per_cage[name])
        if cage == 0:
            return f"port {port} (mlx5_{port - 1})"
        if cage > 1:
            return f"port {port} ({port_label(port, cage)})"
        return f"port {port}"

    def cable_text(self, row: np.ndarray) -> str:
        a, ap, b, bp = (int(v) for v in row)
        return (
            f"{self.names[a]} {self.port_label(a, ap)} <-> {self.names[b]} {self.port_label(b, bp)}"
        )

    def cable_json(self, row: np.ndarray) -> dict:
        a, ap, b, bp = (int(v) for v in row)
        return {"a": self.names[a], "a_port": ap, "b": self.names[b], "b_port": bp}

    def end_text(self, name: int, port: int) -> str:
        return f"{self.names[name]} {self.port_label(name, port)}"

    def miswire_text(self, i: int) -> str:
        """One miswired cable: the port that kept its end, where it should go and where it
        goes (or both cables when no end is kept)."""
        p = [int(v) for v in self.miswired_plan[i]]
        b = [int(v) for v in self.miswired_built[i]]
        why = KIND_TEXT[int(self.miswired_kind[i])]
        for k in (0, 2):
            if p[k : k + 2] == b[k : k + 2]:
                o = 2 - k
                return (
                    f"{self.end_text(p[k], p[k + 1])}: planned to "
                    f"{self.end_text(p[o], p[o + 1])}, found on {self.end_text(b[o], b[o + 1])}"
                    f" ({why})"
                )
        return (
            f"{self.cable_text(self.miswired_plan[i])} planned, found "
            f"{self.cable_text(self.miswired_built[i])} ({why})"
        )

    def summary(self) -> str:
        c = self.counts
        return (
            f"{c['planned']:,} cables planned, {c['built']:,} found: {c['as_planned']:,} as "
            f"planned, {c['miswired']:,} miswired, {c['missing']:,} missing, {c['extra']:,} extra"
        )

    def lines(self, limit: int | None = 200) -> list[str]:
        """Readable differences, port by port (at most ``limit`` of each kind; None: all)."""
        out: list[str] = []

        def take(n: int) -> int:
            return n if limit is None or limit <= 0 else min(n, limit)

        def more(n: int) -> None:
            if limit and limit > 0 and n > limit:
                out.append(f"  ... and {n - limit:,} more (--limit 0 lists all)")

        for i in range(take(len(self.miswired_plan))):
            out.append(f"miswired  {self.miswire_text(i)}")
        more(len(self.miswired_plan))
        for i in range(take(len(self.missing))):
            out.append(f"missing   {self.cable_text(self.missing[i])}")
        more(len(self.missing))
        for i in range(take(len(self.extra))):
            out.append(f"extra     {self.cable_text(self.extra[i])}")
        more(len(self.extra))
        if self.devices_missing:
            shown = ", ".join(self.devices_missing[:20])
            rest = len(self.devices_missing) - 20
            out.append(
                f"devices in the plan but not found: {shown}"
                + (f" and {rest} more" if rest > 0 else "")
            )
        if self.devices_extra:
            shown = ", ".join(self.devices_extra[:20])
            rest = len(self.devices_extra) - 20
            out.append(
                f"devices found but not in the plan: {shown}"
                + (f" and {rest} more" if rest > 0 else "")
            )
        return out

    def problems(self, plan: Project, limit: int | None = 500) -> list[Problem]:
        """The differences as problems naming the plan's device ids, for the problems panel
        and for marking the canvas (at most ``limit`` of each kind; None: all)."""
        keys = device_keys(plan)
        id_of = {k: d.id for k, d in zip(keys, plan.fabric.devices, strict=True)}

        def ids(*rows: np.ndarray) -> tuple[str, ...]:
            names = [self.names[int(r[c])] for r in rows for c in (0, 2)]
            return tuple(dict.fromkeys(id_of[n] for n in names if n in id_of))

        def cap(n: int) -> int:
            return n if limit is None else min(n, limit)

        out: list[Problem] = []
        for i in range(cap(len(self.miswired_plan))):
            out.append(
                Problem(
                    Severity.ERROR,
                    "as-built-miswired",
                    "miswired: " + self.miswire_text(i),
                    ids(self.miswired_plan[i], self.miswired_built[i]),
                )
            )
        for i in range(cap(len(self.missing))):
            out.append(
                Problem(
                    Severity.ERROR,
                    "as-built-missing",
                    "missing: " + self.cable_text(self.missing[i]),
                    ids(self.missing[i]),
                )
            )
        for i in range(cap(len(self.extra))):
            out.append(
                Problem(
                    Severity.WARNING,
                    "as-built-extra",
                    "not in the plan: " + self.cable_text(self.extra[i]),
                    ids(self.extra[i]),
                )
            )
        if self.devices_missing:
            names = self.devices_missing
            out.append(
                Problem(
                    Severity.WARNING,
                    "as-built-device-missing",
                    f"{len(names):,} device(s) of the plan were not found",
                    tuple(id_of[n] for n in names[:MAX_NAMED_DEVICES]),
                )
            )
        return out

    def to_json(self) -> dict:
        return {
            "equal": self.equal,
            **self.counts,
            "miswired": [
                {
                    "kind": KIND_NAMES[int(k)],
                    "planned": self.cable_json(p),
                    "found": self.cable_json(b),
                }
                for p, b, k in zip(
                    self.miswired_plan, self.miswired_built, self.miswired_kind, strict=True
                )
            ],
            "missing": [self.cable_json(r) for r in self.missing],
            "extra": [self.cable_json(r) for r in self.extra],
            "devices_missing": list(self.devices_missing),
            "devices_extra": list(self.devices_extra),
        }


def _cables(project: Project, code: dict[str, int], keys: list[str]) -> np.ndarray:
    """(k, 4) rows a, a_port, b, b_port with the ends in canonical order."""
    dev_code = np.array([code[k] for k in keys], dtype=np.int64)
    e = project.fabric.links.expand()
    a = dev_code[e["a"]]
    b = dev_code[e["b"]]
    ap = e["a_port"].astype(np.int64)
    bp = e["b_port"].astype(np.int64)
    if not a.size:
        return np.empty((0, 4), np.int64)
    swap = (a > b) | ((a == b) & (ap > bp))
    cols = [
        np.where(swap, b, a),
        np.where(swap, bp, ap),
        np.where(swap, a, b),
        np.where(swap, ap, bp),
    ]
    return np.stack(cols, axis=1)


def _end_keys(rows: np.ndarray, side: int) -> np.ndarray:
    return (rows[:, 2 * side] << _PORT_BITS) | rows[:, 2 * side + 1]


def _cable_keys(rows: np.ndarray, ends: np.ndarray) -> np.ndarray:
    lo = np.searchsorted(ends, _end_keys(rows, 0))
    hi = np.searchsorted(ends, _end_keys(rows, 1))
    return lo * np.int64(ends.size + 1) + hi


def _per_cage(
    names: list[str], projects: list[tuple[Project, list[str]]], catalog: Catalog | None
) -> np.ndarray:
    """Per device name: 0 a server or appliance (ports are NICs), else ports per cage."""
    out = np.full(len(names), 1, np.int64)
    code = {n: i for i, n in enumerate(names)}
    for project, keys in reversed(projects):  # the plan (first) wins
        rows = np.array([code[k] for k in keys], dtype=np.int64)
        if catalog is not None:
            out[rows] = per_cage_of(project.fabric, project.catalog(catalog))
        switch = np.array([d.role.is_switch for d in project.fabric.devices], dtype=bool)
        out[rows[~switch]] = 0
    return out


def diff_projects(plan: Project, built: Project, catalog: Catalog | None = None) -> CableDiff:
    """Compare the cables of ``plan`` and ``built`` (matched by device name and port)."""
    plan_keys = device_keys(plan)
    built_keys = device_keys(built)
    names = list(dict.fromkeys(plan_keys + built_keys))
    code = {n: i for i, n in enumerate(names)}
    P = _cables(plan, code, plan_keys)
    B = _cables(built, code, built_keys)
    ends = _sorted_unique(
        np.concatenate([_end_keys(P, 0), _end_keys(P, 1), _end_keys(B, 0), _end_keys(B, 1)])
    )
    pk = _cable_keys(P, ends)
    bk = _cable_keys(B, ends)
    p_only = P[~_member(pk, bk)]
    b_only = B[~_member(bk, pk)]
    matched = len(P) - len(p_only)

    # Explanations, most specific first: (a) the same two devices with one end as planned,
    # (b) the same two devices at other ports, (c) one end as planned, the other elsewhere.
    used_p = np.zeros(len(p_only), bool)
    used_b = np.zeros(len(b_only), bool)
    cp, cb, p_side, b_side = _shared_ends(p_only, b_only)
    same_pair = (p_only[cp, 0] == b_only[cb, 0]) & (p_only[cp, 2] == b_only[cb, 2])
    a_sel = _greedy(cp[same_pair], cb[same_pair], used_p, used_b)
    mis_p = [p_only[cp[same_pair][a_sel]]]
    mis_b = [b_only[cb[same_pair][a_sel]]]
    mis_k = [np.full(a_sel.size, WRONG_PORTS, np.int8)]

    ip, ib = _pair_within_devices(p_only, b_only, used_p, used_b, len(names))
    used_p[ip] = True
    used_b[ib] = True
    mis_p.append(p_only[ip])
    mis_b.append(b_only[ib])
    mis_k.append(np.full(ip.size, WRONG_PORTS, np.int8))

    c_sel = _greedy(cp, cb, used_p, used_b)
    mis_p.append(_shared_first(p_only[cp[c_sel]], p_side[c_sel]))
    mis_b.append(_shared_first(b_only[cb[c_sel]], b_side[c_sel]))
    mis_k.append(np.full(c_sel.size, WRONG_DEVICE, np.int8))
    p_rest, b_rest = p_only[~used_p], b_only[~used_b]

    plan_set, built_set = set(plan_keys), set(built_keys)
    mp, mb, mk = (
        np.concatenate(mis_p).reshape(-1, 4),
        np.concatenate(mis_b).reshape(-1, 4),
        np.concatenate(mis_k),
    )
    order = _row_order(mp)
    return CableDiff(
        names=tuple(names),
        per_cage=_per_cage(names, [(plan, plan_keys), (built, built_keys)], catalog),
        planned=len(P),
        built=len(B),
        matched=matched,
        missing=p_rest[_row_order(p_rest)],
        extra=b_rest[_row_order(b_rest)],
        miswired_plan=mp[order],
        miswired_built=mb[order],
        miswired_kind=mk[order],
        devices_missing=tuple(k for k in plan_keys if k not in built_set),
        devices_extra=tuple(k for k in built_keys if k not in plan_set),
    )


def _sorted_unique(x: np.ndarray) -> np.ndarray:
    """Sorted distinct values (a plain sort: faster than np.unique's hashing on int64)."""
    s = np.sort(x)
    return s[np.r_[True, s[1:] != s[:-1]]] if s.size else s


def _member(x: np.ndarray, pool: np.ndarray) -> np.ndarray:
    """Which values of ``x`` are in ``pool`` (a sorted search, no hashing)."""
    if not pool.size:
        return np.zeros(x.size, bool)
    srt = np.sort(pool)
    at = np.minimum(np.searchsorted(srt, x), srt.size - 1)
    return srt[at] == x


def _row_order(rows: np.ndarray) -> np.ndarray:
    """Rows in device order (the plan's device order first), then by port."""
    return np.lexsort((rows[:, 3], rows[:, 2], rows[:, 1], rows[:, 0]))


def _shared_first(rows: np.ndarray, side: np.ndarray) -> np.ndarray:
    """Rows turned so the end shared with the other cable (``side``) comes first."""
    out = rows.copy()
    flip = side == 1
    out[flip] = rows[flip][:, [2, 3, 0, 1]]
    return out


def _shared_ends(p: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, ...]:
    """Pairs (planned cable, found cable) that share an end, with the side it is on."""
    if not len(p) or not len(b):
        e = np.empty(0, np.int64)
        return e, e, e, e
    pe = np.concatenate([_end_keys(p, 0), _end_keys(p, 1)])
    be = np.concatenate([_end_keys(b, 0), _end_keys(b, 1)])
    # a port holds one cable on each side, so every end key is unique per side
    _, cpi, cbi = np.intersect1d(pe, be, assume_unique=True, return_indices=True)
    return cpi % len(p), cbi % len(b), cpi // len(p), cbi // len(b)


def _greedy(cp: np.ndarray, cb: np.ndarray, used_p: np.ndarray, used_b: np.ndarray) -> np.ndarray:
    """Candidate indices chosen so each cable is used once (marks them used)."""
    chosen: list[np.ndarray] = []
    while cp.size:
        c = np.flatnonzero(~used_p[cp] & ~used_b[cb])
        if not c.size:
            break
        c = c[np.unique(cp[c], return_index=True)[1]]
        c = c[np.unique(cb[c], return_index=True)[1]]
        used_p[cp[c]] = True
        used_b[cb[c]] = True
        chosen.append(c)
    return np.concatenate(chosen) if chosen else np.empty(0, np.int64)


def _pair_within_devices(
    p: np.ndarray, b: np.ndarray, used_p: np.ndarray, used_b: np.ndarray, n_names: int
) -> tuple[np.ndarray, np.ndarray]:
    """Unused planned and found cables between the same two devices, paired in port order."""

    def ranked(rows: np.ndarray, free: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        idx = np.flatnonzero(free)
        r = rows[idx]
        order = np.lexsort((r[:, 3], r[:, 1], r[:, 2], r[:, 0]))
        idx, r = idx[order], r[order]
        pair = r[:, 0] * np.int64(n_names + 1) + r[:, 2]
        first = np.zeros(len(r), np.int64)
        if len(r):
            start = np.r_[0, np.flatnonzero(pair[1:] != pair[:-1]) + 1]
            first[start] = start
            first = np.maximum.accumulate(first)
        rank = np.arange(len(r)) - first
        return idx, pair * np.int64(1 << 20) + rank

    pi, pk = ranked(p, ~used_p)
    bi, bk = ranked(b, ~used_b)
    _, i, j = np.intersect1d(pk, bk, assume_unique=True, return_indices=True)
    return pi[i], bi[j]
