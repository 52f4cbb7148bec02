"""Generator invariants over many sizes and every kind (hypothesis)."""

from __future__ import annotations

import math

from hypothesis import assume, given
from hypothesis import strategies as st

from designer.core.errors import GeneratorError
from designer.core.generators import generate, params_from_dict, plan
from designer.core.generators.clos import smallest_divisor_count
from tests.core.fabric_checks import assert_wiring_invariants, links_by_layer, switches_by_role


def _build(kind, values):
    try:
        pl = plan(params_from_dict(kind, values))
    except GeneratorError:
        assume(False)
    return pl, generate(params_from_dict(kind, values))


@given(sus=st.integers(1, 24), spsu=st.sampled_from([4, 8, 16, 32]),
       gear=st.sampled_from(["ib-ndr", "roce-400", "ib-xdr", "roce-800"]),
       partial=st.integers(0, 3), reserve=st.integers(0, 6))
def test_rail(catalog, sus, spsu, gear, partial, reserve):
    servers = max(1, sus * spsu - partial - math.ceil(reserve / 8))
    pl, p = _build("rail", {"sus": sus, "servers_per_su": spsu, "gear": gear,
                            "servers": servers, "reserve_leaf_ports": reserve})
    assert_wiring_invariants(p, catalog)
    P = pl.planes
    radix = catalog.switch(catalog.profile(gear).switch).mode(
        catalog.profile(gear).switch_speed_gbps).ports
    sw = switches_by_role(p)
    leaves = sus * 8
    assert sw["leaf"] == leaves * P
    layers = links_by_layer(p)
    assert layers["endpoint-leaf"] == (servers * 8 + reserve) * P
    assert layers["leaf-spine"] == leaves * spsu * P  # 1:1: one uplink per server slot
    published = pl.details[0].startswith("layout: published")  # the vendor's own counts
    if "core" not in sw:
        # the fewest spines that hold the uplinks (balanced striping), or the divisor rule's
        # count when it is no larger (uniform striping) or the size is a published row
        uniform = smallest_divisor_count(spsu, leaves * spsu, radix)
        fewest = math.ceil(leaves * spsu / radix)
        assert sw["spine"] == (uniform if published else min(uniform, fewest)) * P
    elif not published:
        # uniform: pods of as many whole SUs as a spine's down ports take, core groups
        # dividing the spine uplinks; balanced: per pod the fewest spines that hold its
        # leaves' uplinks, the fewest cores that hold every spine's; whichever needs fewer
        lp = (radix // 2) // 8 * 8
        sp = smallest_divisor_count(spsu, lp * spsu, radix // 2)
        pods = math.ceil(leaves / lp)
        u2 = lp * spsu // sp
        uni = (pods * sp, sp * smallest_divisor_count(u2, pods * u2, radix))
        sizes = [lp] * (pods - 1) + [leaves - (pods - 1) * lp]
        bal_sp = sum(math.ceil(n * spsu / (radix // 2)) for n in sizes)
        bal = (bal_sp, math.ceil(leaves * spsu / radix))
        want = uni if sum(uni) <= sum(bal) else bal
        assert (sw["spine"], sw["core"]) == (want[0] * P, want[1] * P)
        links_up = sw["spine"] * u2 if want is uni else leaves * spsu * P
        assert layers["spine-core"] == links_up
    assert pl.switches == sw
    assert pl.links == {k: v for k, v in layers.items()}


@given(k=st.sampled_from([4, 6, 8, 10, 12, 16]))
def test_k_ary_closed_forms(catalog, k):
    _pl, p = _build("fat-tree", {"k_ary": k})
    sw = switches_by_role(p)
    assert sum(sw.values()) == 5 * k * k // 4
    assert sw["core"] == (k // 2) ** 2
    hosts = k**3 // 4
    assert links_by_layer(p) == {"endpoint-leaf": hosts, "leaf-spine": hosts, "spine-core": hosts}
    assert_wiring_invariants(p, catalog)


@given(gpus=st.integers(1, 600).map(lambda n: n * 8),
       ratio=st.sampled_from(["1:1", "2:1", "3:1"]),
       spine_ratio=st.sampled_from([None, "1:1", "3:1"]),
       placement=st.sampled_from(["tor", "rail"]),
       radix=st.sampled_from([16, 32, 64]))
def test_fat_tree(catalog, gpus, ratio, spine_ratio, placement, radix):
    os_ = ratio if spine_ratio is None else f"{ratio},{spine_ratio}"
    pl, p = _build("fat-tree", {"gpus": gpus, "oversubscription": os_, "placement": placement,
                                "radix": radix})
    assert_wiring_invariants(p, catalog)
    layers = links_by_layer(p)
    assert layers["endpoint-leaf"] == gpus
    sw = switches_by_role(p)
    # oversubscription is what was asked: exactly when the ports divide, else the next
    # whole uplink (never more oversubscribed than asked)
    down, up = (int(x) for x in ratio.split(":"))
    d1 = down * (radix // (down + up))
    if placement == "tor":
        d1 = d1 // 8 * 8
    u1 = math.ceil(d1 * up / down)
    realized = float(pl.oversubscription["leaf"].split(":")[0])
    assert abs(realized - d1 / u1) < 0.01
    assert realized <= down / up + 1e-9
    if (d1 * up) % down == 0:
        assert realized == down / up
    assert layers["leaf-spine"] == sw["leaf"] * u1
    if "core" in sw:
        assert layers["spine-core"] >= sw["core"]  # every core is used
    # each leaf sends as many links to every spine of its pod as the ports allow: the same
    # number where uniform striping needs no more switches, else counts differing by at most
    # one (balanced striping, test_balanced_striping)
    f = p.fabric
    roles = f.roles
    per_pair = {}
    for a, b, c in zip(f.links.a.tolist(), f.links.b.tolist(), f.links.count.tolist(),
                       strict=True):
        if roles[a] == "leaf" and roles[b] == "spine":
            per_pair.setdefault(a, []).append(c)
    assert all(max(v) - min(v) <= 1 for v in per_pair.values())


@given(p_=st.integers(1, 6), a=st.integers(2, 10), h=st.integers(1, 6),
       groups=st.one_of(st.none(), st.integers(2, 30)),
       arrangement=st.sampled_from(["absolute", "relative", "circulant"]),
       gps=st.sampled_from([1, 2, 4]))
def test_dragonfly(catalog, p_, a, h, groups, arrangement, gps):
    assume(p_ + a - 1 + h <= 64)
    values = {"p": p_, "a": a, "h": h, "groups": groups, "arrangement": arrangement,
              "gpus_per_server": gps}
    _pl, p = _build("dragonfly", values)
    g = groups or a * h + 1
    m = (a * h) // (g - 1)
    assert_wiring_invariants(p, catalog)
    layers = links_by_layer(p)
    assert layers["endpoint-router"] == a * p_ * g
    assert layers.get("local", 0) == g * a * (a - 1) // 2
    assert layers["global"] == g * (g - 1) // 2 * m
    # every pair of groups is joined by exactly m global links
    f = p.fabric
    grp = [d.groups.get("group") for d in f.devices]
    roles = f.roles
    pairs: dict[frozenset, int] = {}
    for x, y in zip(f.links.a.tolist(), f.links.b.tolist(), strict=True):
        if roles[x] == roles[y] == "router" and grp[x] != grp[y]:
            key = frozenset((grp[x], grp[y]))
            pairs[key] = pairs.get(key, 0) + 1
    assert len(pairs) == g * (g - 1) // 2
    assert set(pairs.values()) == {m}


@given(planes=st.integers(2, 4), kind=st.sampled_from(["rail", "fat-tree", "dragonfly"]))
def test_multi_plane_every_gpu_reaches_every_plane(catalog, planes, kind):
    values = {"rail": {"sus": 2}, "fat-tree": {"gpus": 256},
              "dragonfly": {"a": 4, "p": 2, "h": 2}}[kind]
    values = values | {"planes": planes, "server": "gpu-server-8"}
    pl, p = _build(kind, values)
    assert_wiring_invariants(p, catalog)
    f = p.fabric
    # per server, GPU i's P ports land on switches of P different planes
    plane_of = {i: d.groups.get("plane") for i, d in enumerate(f.devices)}
    seen: dict[tuple[int, int], set] = {}
    for a, ap, b in zip(f.links.a.tolist(), f.links.a_port.tolist(), f.links.b.tolist(),
                        strict=True):
        if f.devices[a].role.value == "gpu-server":
            gpu = (ap - 1) // planes
            seen.setdefault((a, gpu), set()).add(plane_of[b])
    assert seen and all(v == set(range(1, planes + 1)) for v in seen.values())
    single = plan(params_from_dict(kind, values | {"planes": 1}))
    assert pl.total_switches == single.total_switches * planes
