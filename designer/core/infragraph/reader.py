"""Reading an InfraGraph Infrastructure (JSON or YAML) into plain, checked structures, and
expanding its edges' slice notation into cables.

Bounded: the file is read whole only up to ``MAX_BYTES``, and the expansion stops with a
clear message past ``MAX_CABLES`` device-to-device edges, so a hostile file (a ``many2many``
between two huge slices) cannot exhaust memory.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from designer.core import structured
from designer.core.errors import DesignerError
from designer.core.safe_io import read_text
from designer.core.text import shown

MAX_BYTES = 512 * 1024 * 1024
MAX_CABLES = 4_000_000
MAX_COUNT = 10_000_000
_SEGMENT = re.compile(r"^\s*([^\[\]\s.]+)\s*(?:\[\s*([^\]]*)\])?\s*$")


class InfraGraphError(DesignerError):
    """An InfraGraph file cannot be read or expanded; the message names the place."""


@dataclass(frozen=True)
class Component:
    name: str
    choice: str
    count: int
    description: str = ""
    custom_type: str = ""


@dataclass
class DeviceDef:
    name: str
    description: str
    components: dict[str, Component] = field(default_factory=dict)


@dataclass(frozen=True)
class Instance:
    name: str
    device: str
    count: int


@dataclass(frozen=True)
class Infrastructure:
    name: str
    description: str
    devices: dict[str, DeviceDef]
    instances: dict[str, Instance]
    link_gbps: dict[str, float]
    edges: tuple[dict, ...]


def _where(kind: str, i: int, name: object = None) -> str:
    return f"{kind}[{i}]" + (f" '{shown(name, 80)}'" if isinstance(name, str) and name else "")


def _text(obj: dict, key: str, where: str, required: bool = True) -> str:
    v = obj.get(key)
    if v is None and not required:
        return ""
    if not isinstance(v, str) or (required and not v.strip()):
        raise InfraGraphError(f"{where}: '{key}' must be a non-empty string")
    return v


def _count(obj: dict, where: str) -> int:
    v = obj.get("count")
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= MAX_COUNT:
        raise InfraGraphError(f"{where}: 'count' must be a whole number from 0 to {MAX_COUNT:,}")
    return v


def _list(obj: dict, key: str, where: str) -> list:
    v = obj.get(key, [])
    if v is None:
        return []
    if not isinstance(v, list):
        raise InfraGraphError(f"{where}: '{key}' must be a list")
    return v


def _gbps(link: dict) -> float:
    phys = link.get("physical") or {}
    bw = phys.get("bandwidth") if isinstance(phys, dict) else None
    if not isinstance(bw, dict):
        return 0.0
    for key, scale in (("gigabits_per_second", 1.0), ("gigabytes_per_second", 8.0),
                       ("gigatransfers_per_second", 1.0)):
        v = bw.get(key)
        if isinstance(v, int | float) and not isinstance(v, bool) and v > 0:
            return float(v) * scale
    return 0.0


def parse(data: object, source: str = "InfraGraph file") -> Infrastructure:
    """The checked structure of a decoded Infrastructure."""
    if not isinstance(data, dict):
        raise InfraGraphError(f"{source}: not an InfraGraph Infrastructure (expected an object "
                              "with devices, instances and edges)")
    if "infrastructure" in data and isinstance(data["infrastructure"], dict):
        data = data["infrastructure"]  # a get_graph response wraps it
    if not any(k in data for k in ("devices", "instances", "edges")):
        raise InfraGraphError(f"{source}: not an InfraGraph Infrastructure (no devices, "
                              "instances or edges)")
    devices: dict[str, DeviceDef] = {}
    for i, d in enumerate(_list(data, "devices", source)):
        if not isinstance(d, dict):
            raise InfraGraphError(f"{source}: devices[{i}] must be an object")
        w = _where("devices", i, d.get("name"))
        dev = DeviceDef(_text(d, "name", w), _text(d, "description", w, False))
        for j, c in enumerate(_list(d, "components", w)):
            if not isinstance(c, dict):
                raise InfraGraphError(f"{w}: components[{j}] must be an object")
            cw = f"{w} components[{j}]"
            choice = _text(c, "choice", cw)
            custom = c.get("custom") if isinstance(c.get("custom"), dict) else {}
            ctype = custom.get("type") if custom else None
            if ctype is not None and not isinstance(ctype, str):  # never str() a structure
                raise InfraGraphError(f"{cw}: 'custom.type' must be a string")
            comp = Component(_text(c, "name", cw), choice, _count(c, cw),
                             _text(c, "description", cw, False), ctype or "")
            dev.components[comp.name] = comp
        if dev.name in devices:
            raise InfraGraphError(f"{w}: a device named '{dev.name}' is defined twice")
        devices[dev.name] = dev
    instances: dict[str, Instance] = {}
    for i, x in enumerate(_list(data, "instances", source)):
        if not isinstance(x, dict):
            raise InfraGraphError(f"{source}: instances[{i}] must be an object")
        w = _where("instances", i, x.get("name"))
        inst = Instance(_text(x, "name", w), _text(x, "device", w), _count(x, w))
        if inst.device not in devices:
            raise InfraGraphError(f"{w}: device '{inst.device}' is not defined in devices")
        instances[inst.name] = inst
    links: dict[str, float] = {}
    for i, ln in enumerate(_list(data, "links", source)):
        if not isinstance(ln, dict):
            raise InfraGraphError(f"{source}: links[{i}] must be an object")
        links[_text(ln, "name", _where("links", i))] = _gbps(ln)
    edges = _list(data, "edges", source)
    for i, e in enumerate(edges):
        if not isinstance(e, dict) or not isinstance(e.get("ep1"), dict) \
                or not isinstance(e.get("ep2"), dict):
            raise InfraGraphError(f"{source}: edges[{i}] must have 'ep1' and 'ep2' objects")
    name = data.get("name") if isinstance(data.get("name"), str) else ""
    desc = data.get("description") if isinstance(data.get("description"), str) else ""
    return Infrastructure(name, desc, devices, instances, links, tuple(edges))


def load(path: str | Path) -> Infrastructure:
    """Read and check an InfraGraph file (JSON or YAML, by its content)."""
    p = Path(path)
    text = read_text(p, limit=MAX_BYTES, what="InfraGraph file", fallback="utf-8")
    try:
        data = structured.loads(text, shown(str(p), 300))
    except structured.StructuredError as exc:
        raise InfraGraphError(str(exc)) from None
    return parse(data, shown(str(p), 300))


# -- slice notation ------------------------------------------------------------------------
def _indices(spec: str | None, count: int, where: str) -> range:
    """Python index or slice ``spec`` over ``range(count)`` (None: all of them), as a range:
    its length is known before any index is listed."""
    if spec is None or spec.strip() == "":
        return range(count)
    parts = spec.split(":")
    try:
        nums = [int(p) if p.strip() else None for p in parts]
    except ValueError:
        raise InfraGraphError(f"{where}: '[{shown(spec, 80)}]' is not an index or a slice") \
            from None
    if len(nums) == 1:
        k = nums[0]
        assert k is not None
        if k < 0:
            k += count
        if not 0 <= k < count:
            raise InfraGraphError(f"{where}: index {nums[0]} is outside 0..{count - 1}")
        return range(k, k + 1)
    if len(nums) > 3 or nums[2:] == [0]:
        raise InfraGraphError(f"{where}: '[{shown(spec, 80)}]' is not a slice")
    return range(*slice(*nums).indices(count))


def _arange(r: range) -> np.ndarray:
    return np.arange(r.start, r.stop, r.step, dtype=np.int64)


def split_segment(text: str, where: str) -> tuple[str, str | None]:
    m = _SEGMENT.match(text)
    if not m:
        raise InfraGraphError(f"{where}: '{shown(text, 80)}' is not a name with an optional "
                              "[index]")
    return m.group(1), m.group(2)


def expand_component(inf: Infrastructure, device: str, text: str, where: str,
                     limit: int = MAX_CABLES) -> list[tuple[tuple[str, int], ...]]:
    """Every component ``text`` names inside ``device``: a path of (name, index) pairs,
    descending into composed devices (``cx5[0].port[1]``). The number of paths is checked
    against ``limit`` before any is listed."""
    segments = []
    total = 1
    dev = inf.devices[device]
    for seg in text.split("."):
        name, spec = split_segment(seg, where)
        comp = dev.components.get(name)
        if comp is None:
            raise InfraGraphError(f"{where}: device '{shown(dev.name, 80)}' has no component "
                                  f"'{shown(name, 80)}'")
        idx = _indices(spec, comp.count, f"{where} {shown(name, 80)}")
        total *= len(idx)
        if total > limit:
            raise InfraGraphError(f"{where}: '{shown(text, 80)}' expands to more than "
                                  f"{MAX_CABLES:,} endpoints")
        segments.append((name, idx))
        if comp.choice == "device":
            nested = inf.devices.get(name)
            if nested is None:
                raise InfraGraphError(f"{where}: composed device '{shown(name, 80)}' is not "
                                      "defined")
            dev = nested
    return [tuple((name, k) for (name, _), k in zip(segments, ks, strict=True))
            for ks in itertools.product(*(idx for _, idx in segments))]


def simple_edge(inf: Infrastructure, i: int):
    """Edge ``i`` as index arrays when both components are one segment (``port[0:4]``, the
    common case): (instance a, instance indices a, component indices a, the same for b,
    scheme, link); None when a component path is deeper (the general expansion)."""
    e = inf.edges[i]
    out = []
    for side in ("ep1", "ep2"):
        ep = e[side]
        w = f"edges[{i}] {side}"
        inst_text, comp_text = ep.get("instance"), ep.get("component")
        if not isinstance(inst_text, str) or not isinstance(comp_text, str):
            raise InfraGraphError(f"{w}: needs 'instance' and 'component' strings")
        if "." in comp_text:
            return None
        iname, ispec = split_segment(inst_text, w)
        inst = inf.instances.get(iname)
        if inst is None:
            raise InfraGraphError(f"{w}: instance '{iname}' is not defined in instances")
        cname, cspec = split_segment(comp_text, w)
        comp = inf.devices[inst.device].components.get(cname)
        if comp is None:
            raise InfraGraphError(f"{w}: device '{inst.device}' has no component '{cname}'")
        if comp.choice == "device":
            return None
        ir = _indices(ispec, inst.count, f"{w} {iname}")
        cr = _indices(cspec, comp.count, f"{w} {cname}")
        if len(ir) * len(cr) > MAX_CABLES:  # checked before any index is listed
            raise InfraGraphError(f"{w}: expands to more than {MAX_CABLES:,} endpoints")
        out.append((iname, _arange(ir), _arange(cr)))
    scheme = e.get("scheme", "one2one")
    if scheme not in ("one2one", "many2many"):
        raise InfraGraphError(f"edges[{i}]: scheme '{scheme}' is not one2one or many2many "
                              "(ring is not expanded by InfraGraph itself either)")
    link = e.get("link") if isinstance(e.get("link"), str) else ""
    return out[0], out[1], scheme, link


def expand_edge(inf: Infrastructure, i: int) -> tuple[list, list, str]:
    """Both ends of edge ``i`` expanded and paired by its scheme: two equal-length lists of
    (instance, index, component path), and the edge's link name."""
    e = inf.edges[i]
    ends = []
    for side in ("ep1", "ep2"):
        ep = e[side]
        w = f"edges[{i}] {side}"
        inst_text, comp_text = ep.get("instance"), ep.get("component")
        if not isinstance(inst_text, str) or not isinstance(comp_text, str):
            raise InfraGraphError(f"{w}: needs 'instance' and 'component' strings")
        iname, ispec = split_segment(inst_text, w)
        inst = inf.instances.get(iname)
        if inst is None:
            raise InfraGraphError(f"{w}: instance '{iname}' is not defined in instances")
        idx = _indices(ispec, inst.count, f"{w} {iname}")
        if len(idx) > MAX_CABLES:
            raise InfraGraphError(f"{w}: expands to more than {MAX_CABLES:,} endpoints")
        comps = expand_component(inf, inst.device, comp_text, w,
                                 limit=MAX_CABLES // max(len(idx), 1))
        ends.append([(iname, k, c) for k in idx for c in comps])
    scheme = e.get("scheme", "one2one")
    a, b = ends
    if scheme == "many2many":
        if len(a) * len(b) > MAX_CABLES:
            raise InfraGraphError(f"edges[{i}]: many2many expands to more than "
                                  f"{MAX_CABLES:,} links")
        pairs = list(itertools.product(a, b))
        a, b = [p[0] for p in pairs], [p[1] for p in pairs]
    elif scheme == "one2one":
        n = min(len(a), len(b))
        a, b = a[:n], b[:n]
    else:
        raise InfraGraphError(f"edges[{i}]: scheme '{scheme}' is not one2one or many2many "
                              "(ring is not expanded by InfraGraph itself either)")
    link = e.get("link") if isinstance(e.get("link"), str) else ""
    return a, b, link
