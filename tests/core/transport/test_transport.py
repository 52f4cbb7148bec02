"""Transports as design inputs: the profiles and their sources, the incast fluid model, the
hashing-versus-spraying all-to-all factor, and a project's transport in its file.

Sources: Ultra Ethernet Specification 1.0 overview (UEC, June 2025) and Hoefler et al.,
arXiv 2508.08906 (spraying, trimming, link-level retry, PFC not required); NVIDIA's Spectrum-X
platform whitepaper (adaptive routing with SuperNICs; 95% against about 60% effective
bandwidth); Araujo et al., arXiv 2605.04333 (MRC: 8 x 100G planes, spraying, trimming, no PFC,
SRv6); Zhu et al., SIGCOMM 2015 (DCQCN) with NVIDIA's DCQCN parameters (4 us between rate
reductions, at most halving); Gran et al., IPDPS 2010 (InfiniBand hot spots without congestion
control collapse victim flows); Raab and Steger, RANDOM 1998 (balls into bins)."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.core.catalog import builtin_catalog
from designer.core.errors import DesignerError
from designer.core.fileformat import load_project, save_project
from designer.core.generators import generate, params_from_dict
from designer.core.transport.choice import profile_transport, transport_of, with_transport
from designer.core.transport.fabric import all_to_all_spread, hash_spread
from designer.core.transport.incast import IncastInputs, incast, threshold_bytes
from designer.core.transport.profiles import TRANSPORTS, TransportError, get_transport


@pytest.fixture(scope="module")
def cat():
    return builtin_catalog()


def test_each_transport_states_its_sources():
    for t in TRANSPORTS.values():
        assert t.sources and t.reasoning and t.tuning_why
    assert any("Ultra Ethernet Specification 1.0" in s for s in TRANSPORTS["uec"].sources)
    assert any("Spectrum-X" in s and "95%" in s for s in TRANSPORTS["spectrum-x"].sources)
    assert any("2605.04333" in s for s in TRANSPORTS["mrc"].sources)
    # UE 1.0: PFC not required, trimming, link-level retry, spraying (no hashing)
    uec = TRANSPORTS["uec"]
    assert (uec.flow_control, uec.trims, uec.link_retry, uec.hashed) == ("none", True, True,
                                                                         False)
    # MRC: best-effort Ethernet with trimming, sprayed over every plane (arXiv 2605.04333)
    mrc = TRANSPORTS["mrc"]
    assert (mrc.flow_control, mrc.trims, mrc.hashed) == ("none", True, False)
    # RoCEv2: PFC + DCQCN, each queue pair hashed onto one ECMP path; lossless QoS in configs
    roce = TRANSPORTS["roce"]
    assert (roce.flow_control, roce.reaction, roce.hashed, roce.qos_profile) == (
        "pfc", "dcqcn", True, "roce-lossless")
    assert TRANSPORTS["uec"].qos_profile == "uec-trim"


def test_profiles_choose_their_transport(cat):
    expect = {"ib-ndr": "infiniband", "gb300-ib-xdr": "infiniband", "roce-400": "roce",
              "roce-800": "roce", "amd-roce-400": "roce", "gb300-spectrum-x": "spectrum-x",
              "vr-spectrum-x": "spectrum-x", "spectrum-x-800": "spectrum-x", "uec-800": "uec"}
    for pid, tid in expect.items():
        assert profile_transport(pid, cat).id == tid
    # Spectrum-X 800G: ConnectX-8 as 2 x 400G planes on SN5610 (NVIDIA's B300 Spectrum-X RA);
    # Ultra Ethernet 800G: Thor Ultra (UEC 1.0) on Tomahawk 6 as 128 x 800G
    sx, ue = cat.profile("spectrum-x-800"), cat.profile("uec-800")
    assert (sx.switch, sx.nic, sx.planes, sx.nic_speed_gbps) == ("sn5610", "connectx-8", 2, 400)
    assert (ue.switch, ue.nic, ue.switch_speed_gbps) == ("th6-102t", "thor-ultra", 800)


def test_a_transport_must_fit_the_gear(cat):
    ib = generate(params_from_dict("fat-tree", {"gpus": 128, "gear": "ib-ndr"}), cat)
    with pytest.raises(TransportError, match="does not run on InfiniBand gear"):
        with_transport(ib, "uec", cat)
    with pytest.raises(TransportError, match="unknown transport 'tcp'"):
        get_transport("tcp")
    roce = generate(params_from_dict("fat-tree", {"gpus": 128, "gear": "roce-400"}), cat)
    assert transport_of(with_transport(roce, "mrc", cat), cat).id == "mrc"


def test_old_files_read_without_a_transport_and_new_ones_keep_it(cat, tmp_path):
    p = generate(params_from_dict("fat-tree", {"gpus": 128, "gear": "roce-400"}), cat)
    f = tmp_path / "a.fabric.json"
    save_project(p, f)
    raw = json.loads(f.read_text())
    raw.pop("transport", None)  # a file written before transports
    f.write_text(json.dumps(raw))
    old = load_project(f, cat)
    assert old.transport is None and transport_of(old, cat).id == "roce"
    save_project(old.evolve(transport="spectrum-x"), f)
    assert load_project(f, cat).transport == "spectrum-x"
    raw = json.loads(f.read_text())
    raw["transport"] = "tcp"
    f.write_text(json.dumps(raw))
    with pytest.raises(DesignerError, match="unknown transport 'tcp'"):
        load_project(f, cat)


def test_switching_the_gear_drops_a_transport_of_the_old_gear(cat):
    from designer.core.convert import convert_profile

    p = generate(params_from_dict("fat-tree", {"gpus": 128, "gear": "roce-400"}), cat)
    out = convert_profile(p.evolve(transport="uec"), "ib-ndr", cat).project
    assert out.transport is None and transport_of(out, cat).id == "infiniband"


def test_hash_spread_is_balls_into_bins():
    # n + sqrt(2 n ln L) over n (Raab and Steger): one flow per link on 64 links
    assert hash_spread(1, 64) == pytest.approx(1 + math.sqrt(2 * math.log(64)))
    assert hash_spread(0, 64) == 1.0 and hash_spread(10, 1) == 1.0
    # spraying or a group under one leaf: no factor
    assert all_to_all_spread(False, 64, 8, 1.0, 1, 1024)[0] == 1.0
    assert all_to_all_spread(True, 8, 8, 1.0, 1, 1024)[0] == 1.0
    # more queue pairs per connection (Llama 3's 16) give the hash more, smaller flows
    one = all_to_all_spread(True, 64, 8, 1.0, 1, 1024)[0]
    sixteen = all_to_all_spread(True, 64, 8, 1.0, 16, 1024)[0]
    assert 1.0 < sixteen < one


@settings(max_examples=40, deadline=None)
@given(st.floats(0.5, 1e4), st.integers(2, 100_000))
def test_hash_spread_falls_with_flows_and_rises_with_links(n, links):
    s = hash_spread(n, links)
    assert s > 1.0
    assert hash_spread(n * 2, links) < s
    assert hash_spread(n, links * 2) > s


def _run(tid: str, fan_in: int, mib: float = 1.0, gbps: float = 400, rtt: float = 6.0):
    return incast(TRANSPORTS[tid], IncastInputs(fan_in, mib * 2**20, gbps, rtt))


def test_dcqcn_halves_down_to_the_fair_share():
    # each cut halves at most (rpg_min_dec_fac 50%): a fan-in of 16 needs log2 16 = 4 cuts
    assert _run("roce", 16).rate_cuts == 4
    assert _run("roce", 256, 4).rate_cuts == 8
    # telemetry (Spectrum-X) sets the share at once, after one round trip: a smaller queue
    assert _run("spectrum-x", 16).rate_cuts == 1
    assert _run("spectrum-x", 16).queue_peak_bytes < _run("roce", 16).queue_peak_bytes


def test_pfc_spreads_only_past_its_threshold():
    small, large = _run("roce", 16), _run("roce", 1024, 4)
    assert small.paused_us == 0 and small.victim_throughput == 1.0
    assert large.paused_us > 0 and large.victim_throughput < 1.0
    assert large.queue_peak_bytes <= threshold_bytes(TRANSPORTS["roce"],
                                                     IncastInputs(1024, 1, 400, 6)) * 1.001


def test_credits_without_congestion_control_hold_victims_for_the_burst():
    # Gran et al. (IPDPS 2010): a hot spot's back-pressure collapses victim flows; with the
    # burst far larger than a port's buffer, an innocent flow keeps about 1/F
    r = _run("infiniband", 16, 64)
    assert r.victim_throughput == pytest.approx(1 / 16, abs=0.02)
    assert r.retransmit_share == 0


def test_trimming_bounds_the_queue_and_never_pauses():
    for tid in ("uec", "mrc"):
        r = _run(tid, 256)
        limit = threshold_bytes(TRANSPORTS[tid], IncastInputs(256, 1, 400, 6))
        assert r.paused_us == 0 and r.victim_throughput == 1.0
        assert 0 < r.queue_peak_bytes <= limit * 1.001 and r.retransmit_share > 0
    # receiver credits (UEC RCCC) cut after one round trip, MRC's senders after two
    assert _run("uec", 256).retransmit_share < _run("mrc", 256).retransmit_share


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(sorted(TRANSPORTS)), st.integers(1, 2048),
       st.floats(0.01, 64.0), st.sampled_from([100, 400, 800]), st.floats(1.0, 30.0))
def test_incast_invariants(tid, fan_in, mib, gbps, rtt):
    r = _run(tid, fan_in, mib, gbps, rtt)
    assert r.completion_us >= r.ideal_us * (1 - 1e-9)
    assert 0.0 <= r.victim_throughput <= 1.0
    if TRANSPORTS[tid].flow_control == "none":
        assert r.paused_us == 0
    if not TRANSPORTS[tid].trims:
        assert r.retransmit_share == 0
    if fan_in == 1:
        assert r.queue_peak_bytes == pytest.approx(0, abs=1)
