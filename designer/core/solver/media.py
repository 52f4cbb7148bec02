"""Which cable or optics every physical link uses: the cheapest medium class that reaches.

Public API (the cabling plan reuses it): ``choose_media(project, catalog)`` returns a
``MediaPlan`` whose arrays follow ``fabric.links.expand()`` order, one entry per cable:

* ``medium_class``: code into ``links.MEDIA`` (1 dac, 2 acc, 3 mmf, 4 smf; 0 none found);
* ``length_m``: the length used (the link's own, else the default for its layer);
* ``a_module`` / ``b_module``: transceiver plugged into the a / b end's port (index into
  ``items``, -1 for none; a switch-side twin-port module serves two ports of one cage);
* ``cable``: the copper cable (DAC or active; a twin or splitter cable serves two links);
* ``fibre``: the fibre of an optical link (one per link);
* ``reach_ok``: the chosen medium reaches the length; ``forced``: the link's ``medium`` column
  named the class (not "auto"); ``forced_ok``: that class exists for the link's technology.

Rules: copper between switches is a twin cable; copper from a switch to NICs is a splitter
(one switch cage to two NIC ports on single-port cages); optics need a module at each end and
a fibre. A module fits a cage that has as many ports as the module serves (a server's twin-port
OSFP cage takes a twin-port module; a single-port NIC cage a single-port one); a server's
twin-port cage takes copper only as a straight cage-to-cage cable whose lanes all land on one
cage of the other end ("paired"). InfiniBand XDR has no DAC and no multimode optics. A
co-packaged-optics switch's end takes no module (its port is single-mode fibre already), so
its links are single-mode fibre with a module at the other end only. Parts of a media
ecosystem (third-party optics) are open only to designs whose gear profile names it. The cost
of a choice is per link: an item serving two links counts half.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.core.catalog import Catalog, MediumSpec, SwitchSpec, builtin_catalog
from designer.core.links import MEDIA
from designer.core.model import Project
from designer.core.solver.compile import TECHS, Compiled, compile_project

CLASSES = ("dac", "acc", "mmf", "smf")
CLASS_CODE = {m: MEDIA.index(m) for m in CLASSES}
NOT_FOR_TECH = {"ib-xdr": {"dac", "mmf"}}  # XDR: single-mode optics or active copper only
JOINS = ("switch-switch", "switch-nic", "nic-nic")
# a co-packaged-optics port is a single-mode fibre port (DR-type optics on the package); its
# reach without a module at the far end is the DR optics' 500 m
CPO_CLASS = "smf"
CPO_REACH_M = 500.0


@dataclass(frozen=True)
class Option:
    cls: str
    reach_m: float
    cost: float  # per link
    end1: str | None  # module at the switch end (first end for switch-switch and nic-nic)
    end2: str | None  # module at the other end
    cable: str | None
    fibre: str | None


@dataclass(frozen=True, eq=False)
class MediaPlan:
    items: tuple[str, ...]
    medium_class: np.ndarray
    length_m: np.ndarray
    layer: np.ndarray
    layers: tuple[str, ...]
    a_module: np.ndarray
    b_module: np.ndarray
    cable: np.ndarray
    fibre: np.ndarray
    reach_ok: np.ndarray
    forced: np.ndarray
    forced_ok: np.ndarray

    def __len__(self) -> int:
        return int(self.medium_class.shape[0])

    def item(self, code: int) -> str | None:
        return self.items[code] if code >= 0 else None

    def row(self, i: int) -> dict:
        """One cable's choice as plain values."""
        return {
            "medium": MEDIA[int(self.medium_class[i])] if self.medium_class[i] else None,
            "length_m": float(self.length_m[i]),
            "layer": self.layers[int(self.layer[i])] if self.layers else "",
            "a_module": self.item(int(self.a_module[i])),
            "b_module": self.item(int(self.b_module[i])),
            "cable": self.item(int(self.cable[i])),
            "fibre": self.item(int(self.fibre[i])),
            "reach_ok": bool(self.reach_ok[i]),
        }


def _fits(m: MediumSpec, tech: str, speed: int, cls: str) -> bool:
    return m.medium_class == cls and tech in m.techs and m.link_speed_gbps == speed


def _cage_fit(mods: list[MediumSpec], cage: int | None) -> list[MediumSpec]:
    """Modules that fit a cage of ``cage`` ports (all of them when none does, or the cage is
    not known), so gear without a matching module is still costed."""
    if not cage:
        return mods
    fit = [m for m in mods if m.links_per_item == cage]
    return fit or mods


def options(catalog: Catalog, tech: str, speed: int, joins: str,
            cage1: int | None = None, cage2: int | None = None,
            paired: bool = False, cpo1: bool = False, cpo2: bool = False,
            ecosystem: str = "") -> list[Option]:
    """Every way the catalog can make one link of this kind, cheapest first. ``cage1`` /
    ``cage2``: ports behind the cage at each end (the switch end first); ``paired``: all
    lanes of the second end's cage land on one cage of the first end. ``cpo1`` / ``cpo2``:
    that end is a co-packaged-optics switch: its port is single-mode fibre already, so the
    link is optical, single-mode, with no transceiver at that end. ``ecosystem``: the media
    ecosystem the design's gear profile opens (third-party optics), besides the common parts."""
    media = [m for m in catalog.of_kind("transceiver", "cable", "fiber")
             if isinstance(m, MediumSpec) and m.ecosystem in ("", ecosystem)]
    out: list[Option] = []
    twin_nic = joins == "switch-nic" and (cage2 or 1) > 1
    for cls in CLASSES:
        if cls in NOT_FOR_TECH.get(tech, ()):
            continue
        if (cpo1 or cpo2) and cls != CPO_CLASS:
            continue
        if cls in ("dac", "acc"):
            for m in media:
                if m.kind != "cable" or not _fits(m, tech, speed, cls):
                    continue
                if twin_nic:  # a straight cage-to-cage cable, only when the lanes pair up
                    ok = (paired and m.joins in ("any", "switch-switch")
                          and m.links_per_item == cage2)
                else:
                    ok = m.joins in ("any", joins)
                if ok:
                    out.append(Option(cls, m.reach_m, m.price_usd / m.links_per_item,
                                      None, None, m.id, None))
            continue
        sw_host = ("switch", "any")
        nic_host = ("nic", "any")
        end1_host = nic_host if joins == "nic-nic" else sw_host
        end2_host = sw_host if joins == "switch-switch" else nic_host
        mods = [m for m in media if m.kind == "transceiver" and _fits(m, tech, speed, cls)
                and m.joins in ("any", joins)]
        fibres = [m for m in media if m.kind == "fiber" and m.medium_class == cls
                  and tech in m.techs]
        same = [f for f in fibres if f.link_speed_gbps == speed]
        fibres = same or [f for f in fibres if f.link_speed_gbps >= speed] or fibres
        ends1 = [None] if cpo1 else _cage_fit([m for m in mods if m.host in end1_host], cage1)
        ends2 = [None] if cpo2 else _cage_fit([m for m in mods if m.host in end2_host], cage2)
        for e1 in ends1:
            for e2 in ends2:
                for f in fibres or [None]:
                    reach = min(_reach(e1), _reach(e2), f.reach_m if f else np.inf)
                    if not np.isfinite(reach):
                        continue  # two co-packaged ends and no fibre: nothing to cost
                    cost = _per_link(e1) + _per_link(e2) + _per_link(f)
                    out.append(Option(cls, reach, cost, e1.id if e1 else None,
                                      e2.id if e2 else None, None, f.id if f else None))
    out.sort(key=lambda o: (o.cost, -o.reach_m))
    # drop options that are both dearer and shorter than a cheaper one
    kept: list[Option] = []
    for o in out:
        if not any(k.cls == o.cls and k.reach_m >= o.reach_m for k in kept):
            kept.append(o)
    return kept


def _reach(m: MediumSpec | None) -> float:
    return m.reach_m if m is not None else float(CPO_REACH_M)


def _per_link(m: MediumSpec | None) -> float:
    return m.price_usd / m.links_per_item if m is not None else 0.0


def cpo_devices(c: Compiled) -> np.ndarray:
    """Per device: a co-packaged-optics switch (its ports take fibre, no transceiver)."""
    t = c.table
    by_choice = np.zeros(len(t.choices), bool)
    for g, (model, *_) in enumerate(t.choices):
        spec = c.catalog.get(model) if model in c.catalog else None
        by_choice[g] = isinstance(spec, SwitchSpec) and spec.cpo
    return by_choice[t.gear] if t.gear.size else np.zeros(0, bool)


def choose_media(project: Project, catalog: Catalog | None = None,
                 compiled: Compiled | None = None) -> MediaPlan:
    """The medium of every cable of ``project`` (see the module docstring). ``catalog`` is
    the resolved catalog, as ``solve`` takes it (default: the built-in one with the project's
    overrides); ``compiled``: the solver's compiled project, when there is one."""
    if compiled is None:
        cat = catalog if catalog is not None else project.catalog(builtin_catalog())
        compiled = compile_project(project, cat)
    c = compiled
    cab = c.cables
    n = int(cab["a"].shape[0])
    a = cab["a"].astype(np.int64)
    b = cab["b"].astype(np.int64)
    sa, sb = c.is_switch[a], c.is_switch[b]
    joins = np.where(sa & sb, 0, np.where(sa | sb, 1, 2))
    # the switch end first for switch-nic links
    swap = (joins == 1) & ~sa
    speed = cab["speed_gbps"].astype(np.int64)
    tech = c.cable_tech.astype(np.int64)
    forced_cls = cab["medium"].astype(np.int64)
    length = c.cable_length_m

    items: list[str] = []
    index: dict[str, int] = {}

    def code(item: str | None) -> int:
        if item is None:
            return -1
        if item not in index:
            index[item] = len(items)
            items.append(item)
        return index[item]

    cls_out = np.zeros(n, np.int8)
    end1 = np.full(n, -1, np.int32)
    end2 = np.full(n, -1, np.int32)
    cable = np.full(n, -1, np.int32)
    fibre = np.full(n, -1, np.int32)
    reach_ok = np.zeros(n, bool)
    forced_ok = np.ones(n, bool)
    cage_ports = c.table.cage_ports
    cage1 = np.where(swap, cage_ports[b], cage_ports[a])
    cage2 = np.where(swap, cage_ports[a], cage_ports[b])
    paired = _paired(c, swap, (joins == 1) & (cage2 > 1))
    cpo = cpo_devices(c)
    cpo1 = np.where(swap, cpo[b], cpo[a]).astype(np.int64)
    cpo2 = np.where(swap, cpo[a], cpo[b]).astype(np.int64)
    profile = c.catalog.profiles.get(project.profile)
    ecosystem = profile.media_ecosystem if profile is not None else ""
    # one integer per kind of link (1-D unique is an order of magnitude faster than rows)
    cols = (tech, joins, speed, cage1, cage2, paired.astype(np.int64), cpo1, cpo2)
    spans = [int(x.max(initial=0)) + 1 for x in cols]
    combo = np.zeros(n, np.int64)
    for x, span in zip(cols, spans, strict=True):
        combo = combo * span + x
    for key in np.unique(combo).tolist():  # a handful of kinds: no inverse (a sort) needed
        sel = np.flatnonzero(combo == key)
        parts = []
        for span in reversed(spans):
            key, part = divmod(key, span)
            parts.append(part)
        t_code, j_code, sp, c1, c2, pr, o1, o2 = reversed(parts)
        opts = options(c.catalog, TECHS[t_code], sp, JOINS[j_code], c1, c2, bool(pr),
                       bool(o1), bool(o2), ecosystem)
        if not opts:
            continue
        for want in np.unique(forced_cls[sel]).tolist():
            rows = sel[forced_cls[sel] == want]
            pool = opts
            if want:
                pool = [o for o in opts if o.cls == MEDIA[want]]
                if not pool:
                    forced_ok[rows] = False
                    pool = opts
            todo = np.ones(rows.size, bool)
            for o in pool:  # cheapest first
                hit = todo & (length[rows] <= o.reach_m + 1e-9)
                _assign(rows[hit], o, code, cls_out, end1, end2, cable, fibre)
                reach_ok[rows[hit]] = True
                todo &= ~hit
                if not todo.any():
                    break
            if todo.any():  # nothing reaches: the longest reach, flagged
                far = max(pool, key=lambda o: (o.reach_m, -o.cost))
                _assign(rows[todo], far, code, cls_out, end1, end2, cable, fibre)
    a_mod = np.where(swap, end2, end1)
    b_mod = np.where(swap, end1, end2)
    return MediaPlan(
        items=tuple(items),
        medium_class=cls_out,
        length_m=length.copy(),
        layer=c.cable_layer,
        layers=c.layers,
        a_module=a_mod,
        b_module=b_mod,
        cable=cable,
        fibre=fibre,
        reach_ok=reach_ok,
        forced=forced_cls > 0,
        forced_ok=forced_ok,
    )


def _paired(c: Compiled, swap: np.ndarray, need: np.ndarray) -> np.ndarray:
    """Per cable: every lane of the second end's cage (the NIC end of switch-NIC links) runs
    to one and the same cage of the first end, so one straight cage-to-cage cable can carry
    them all. Asked only for the cables of ``need`` (twin-port server cages); grouped by
    one sort, no loop over cables."""
    cab = c.cables
    out = np.zeros(int(cab["a"].shape[0]), bool)
    rows = np.flatnonzero(need)
    if rows.size == 0:
        return out
    cp = c.table.cage_ports.astype(np.int64)
    sw = swap[rows]
    a, b = cab["a"][rows].astype(np.int64), cab["b"][rows].astype(np.int64)
    ap = cab["a_port"][rows].astype(np.int64) - 1
    bp = cab["b_port"][rows].astype(np.int64) - 1
    d2, p2 = np.where(sw, a, b), np.where(sw, ap, bp)
    d1, p1 = np.where(sw, b, a), np.where(sw, bp, ap)
    cage2 = p2 // cp[d2]
    key = d2 * (int(cage2.max()) + 1) + cage2  # the second end's cage, one integer
    far = d1 * (int(p1.max()) + 1) + p1 // cp[d1]  # the first end's cage
    order = np.lexsort((far, key))
    ks, fs = key[order], far[order]
    start = np.r_[0, np.flatnonzero(np.diff(ks)) + 1]
    end = np.r_[start[1:], ks.size]
    ok = ((end - start) == cp[d2[order[start]]]) & (fs[start] == fs[end - 1])
    out[rows[order]] = np.repeat(ok, end - start)
    return out


def _assign(rows, o: Option, code, cls_out, end1, end2, cable, fibre) -> None:
    if rows.size == 0:
        return
    cls_out[rows] = CLASS_CODE[o.cls]
    end1[rows] = code(o.end1)
    end2[rows] = code(o.end2)
    cable[rows] = code(o.cable)
    fibre[rows] = code(o.fibre)
