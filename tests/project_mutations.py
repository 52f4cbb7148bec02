"""A seeded mutator that turns the bundled example projects into hostile or odd project files.

Shared by the fuzz test in the suite (a few hundred cases) and ``scripts/fuzz_projects.py`` (a
larger run). Each mutation is one class of damage a real file meets: truncation, a value of the
wrong type, extreme or negative numbers, huge link counts, references to ports or devices that do
not exist, duplicate keys, odd unicode and control characters, gear of the project's own with
unbounded figures, a design with nothing cabled.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable

import orjson

from tests._paths import PROJECTS

EXAMPLES = PROJECTS
# Small examples keep each case fast; the large ones are exercised by the script.
SMALL_EXAMPLES = (
    "k-ary-fat-tree-k8.fabric.json",
    "dgx-superpod-4su-ib-ndr.fabric.json",
    "dgx-superpod-4su-roce-400.fabric.json",
    "dragonfly-1056-gpus.fabric.json",
    "dgx-h100-superpod-3su-ufm.fabric.json",
    "b300-2-plane-roce-800.fabric.json",
)

EXTREME_NUMBERS = (
    0, -1, -(2**31), 2**31, 2**31 - 1, 2**32, 2**53, 2**63, -(2**63), 10**30, 1e308, -1e308,
    1e-308, 0.5, -0.0, 1_000_000, 999_999_999,
)
ODD_TEXT = (
    "", " ", "\n", "x\nSwitch 64 \"evil\"", "=1+1", "+cmd", "-2", "@SUM(A1)", "x;=1+1", "x\t=1+1",
    "\u202eevil", "\x00", "\x1b[31mred", "ü" * 300, "𝔉" * 50, "a" * 10_000, "\ufeffbom",
)
ODD_VALUES = (None, True, False, [], {}, "100", "1e308", [1, 2], {"a": 1}, 1.5, -3)


def _leaves(node: object, path: tuple = ()) -> list[tuple]:
    """Paths to every scalar or small container in ``node``, link columns included."""
    out: list[tuple] = []
    if isinstance(node, dict):
        for k, v in node.items():
            out.append((*path, k))
            out.extend(_leaves(v, (*path, k)))
    elif isinstance(node, list) and node:
        # a few members of a long list stand for all of them
        picks = range(len(node)) if len(node) <= 4 else (0, 1, len(node) // 2, len(node) - 1)
        for i in picks:
            out.append((*path, i))
            out.extend(_leaves(node[i], (*path, i)))
    return out


def _set(raw: dict, path: tuple, value: object) -> None:
    node = raw
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = value


def _link_columns(raw: dict) -> dict:
    return raw.get("fabric", {}).get("links", {}) or {}


def _swap_value(raw: dict, rng: random.Random) -> dict:
    path = rng.choice(_leaves(raw))
    _set(raw, path, rng.choice(ODD_VALUES + EXTREME_NUMBERS + ODD_TEXT[:8]))
    return raw


def _extreme_number(raw: dict, rng: random.Random) -> dict:
    paths = [p for p in _leaves(raw) if isinstance(_get(raw, p), int | float)
             and not isinstance(_get(raw, p), bool)]
    if paths:
        _set(raw, rng.choice(paths), rng.choice(EXTREME_NUMBERS))
    return raw


def _get(raw: object, path: tuple) -> object:
    for p in path:
        raw = raw[p]  # type: ignore[index]
    return raw


def _huge_counts(raw: dict, rng: random.Random) -> dict:
    cols = _link_columns(raw)
    if cols.get("count"):
        n = len(cols["count"])
        for i in rng.sample(range(n), min(n, rng.choice((1, 5, 400)))):
            cols["count"][i] = rng.choice((1_000_000, 65_536, 10**9, 2**31 - 1))
    return raw


def _bad_reference(raw: dict, rng: random.Random) -> dict:
    cols = _link_columns(raw)
    key = rng.choice(("a", "b", "a_port", "b_port"))
    if cols.get(key):
        i = rng.randrange(len(cols[key]))
        cols[key][i] = rng.choice((-1, 0, 10**6, 2**31, len(raw["fabric"]["devices"]), 65))
    return raw


def _odd_text(raw: dict, rng: random.Random) -> dict:
    text = rng.choice(ODD_TEXT)
    target = rng.choice(("name", "device-name", "device-id", "notes", "gear-name"))
    if target == "name":
        raw["name"] = text
    elif target == "notes":
        raw["notes"] = text
    elif target == "gear-name" and raw.get("overrides", {}).get("gear"):
        raw["overrides"]["gear"][0]["name"] = text
    elif raw["fabric"]["devices"]:
        dev = rng.choice(raw["fabric"]["devices"])
        dev["name" if target == "device-name" else "id"] = text
    return raw


def _own_gear(raw: dict, rng: random.Random) -> dict:
    """The project's own gear with an unbounded or mistyped figure."""
    gear = raw.setdefault("overrides", {}).setdefault("gear", [])
    item = {
        "id": "own-switch", "name": "Own switch", "kind": "switch", "price_usd": 20000.0,
        "power_w": 500.0, "rack_units": 1.0, "cages": 32, "latency_ns": 200.0,
        "modes": [{"ports": 64, "speed_gbps": 400, "techs": ["ib-ndr"]}],
    }
    field = rng.choice(("price_usd", "power_w", "latency_ns", "rack_units", "cages"))
    item[field] = rng.choice((1e308, -1.0, "100", 10**30, 1e20, None))
    gear.append(item)
    if raw["fabric"]["devices"] and rng.random() < 0.7:
        for dev in raw["fabric"]["devices"]:
            if dev.get("role") in ("leaf", "spine", "core", "router"):
                dev["model"] = "own-switch"
    prices = raw["overrides"].setdefault("prices", {})
    if rng.random() < 0.3:
        prices["qm9700"] = rng.choice((1e308, "100", -5, 1e9))
    return raw


def _nothing_cabled(raw: dict, rng: random.Random) -> dict:
    devices = raw["fabric"]["devices"]
    choice = rng.random()
    if choice < 0.4:
        raw["fabric"]["links"] = {}
    elif choice < 0.7:
        # keep only links that do not touch a server
        servers = {i for i, d in enumerate(devices) if d.get("role") == "gpu-server"}
        cols = _link_columns(raw)
        if cols.get("a"):
            keep = [i for i in range(len(cols["a"]))
                    if cols["a"][i] not in servers and cols["b"][i] not in servers]
            raw["fabric"]["links"] = {k: [v[i] for i in keep] for k, v in cols.items()}
    else:
        # a switch model given the server role
        for dev in devices:
            if dev.get("role") == "gpu-server":
                dev["role"] = rng.choice(("leaf", "appliance"))
            elif dev.get("role") in ("leaf", "spine", "router"):
                dev["role"] = "gpu-server"
    return raw


def _group_labels(raw: dict, rng: random.Random) -> dict:
    if raw["fabric"]["devices"]:
        dev = rng.choice(raw["fabric"]["devices"])
        dev["groups"] = {rng.choice(("su", "pod", "plane", "group", "rail", "x")):
                         rng.choice((2**31, 2**63, -(2**31) - 1, -1, 10**20, 0))}
    return raw


def _analysis(raw: dict, rng: random.Random) -> dict:
    a = raw.setdefault("analysis", {})
    key = rng.choice(("message_bytes", "propagation_ns_per_m", "default_length_m"))
    a[key] = rng.choice(EXTREME_NUMBERS + ODD_VALUES) if key != "default_length_m" else {
        "leaf-spine": rng.choice(EXTREME_NUMBERS)}
    return raw


JsonMutation = Callable[[dict, random.Random], dict]
JSON_MUTATIONS: dict[str, JsonMutation] = {
    "swap-value": _swap_value,
    "extreme-number": _extreme_number,
    "huge-counts": _huge_counts,
    "bad-reference": _bad_reference,
    "odd-text": _odd_text,
    "own-gear": _own_gear,
    "nothing-cabled": _nothing_cabled,
    "group-labels": _group_labels,
    "analysis": _analysis,
}
BYTE_MUTATIONS = ("truncate", "duplicate-key", "flip-bytes")


def _bytes_mutation(kind: str, data: bytes, rng: random.Random) -> bytes:
    if kind == "truncate":
        return data[: rng.randrange(len(data))]
    if kind == "duplicate-key":
        return data.replace(b'"name": ', b'"name": "first", "name": ', 1)
    out = bytearray(data)
    for _ in range(rng.choice((1, 3, 20))):
        out[rng.randrange(len(out))] = rng.randrange(256)
    return bytes(out)


def mutate(data: bytes, rng: random.Random) -> tuple[str, bytes]:
    """One mutation of a project's bytes: its kind and the new bytes."""
    kinds = list(JSON_MUTATIONS) + list(BYTE_MUTATIONS)
    kind = rng.choice(kinds)
    if kind in BYTE_MUTATIONS:
        return kind, _bytes_mutation(kind, data, rng)
    raw = orjson.loads(data)
    raw = JSON_MUTATIONS[kind](raw, rng)
    # the standard library writes out-of-range floats and big ints as a real file could hold them
    return kind, json.dumps(raw).encode()


def cases(count: int, seed: int, examples: tuple[str, ...] = SMALL_EXAMPLES):
    """``count`` (name, kind, bytes) cases, the same for the same seed."""
    rng = random.Random(seed)
    sources = {name: (EXAMPLES / name).read_bytes() for name in examples}
    for i in range(count):
        name = rng.choice(examples)
        kind, data = mutate(sources[name], rng)
        yield f"{i:05d}-{kind}-{name}", kind, data
