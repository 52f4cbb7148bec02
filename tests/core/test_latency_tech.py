"""InfiniBand and RoCE differ through the gear data: a ConnectX-7 under an Ethernet leaf takes
the NIC's RoCE latency (catalog: 2.5 us per end vs 0.3 us for InfiniBand; the seed articles put
RoCEv2 at 7-10 us end to end and InfiniBand at 1-2 us)."""

from __future__ import annotations

import pytest

from designer.core.generators import generate, params_from_dict
from designer.core.solver import solve


@pytest.fixture(scope="module")
def results():
    return {
        gear: solve(generate(params_from_dict("rail", {"sus": 2, "gear": gear})))
        for gear in ("ib-ndr", "roce-400")
    }


def test_infiniband_end_to_end_is_one_to_two_microseconds(results):
    lat = results["ib-ndr"].to_json()["latency_us"]
    assert 0.6 <= lat["min"] <= 1.0  # one switch: 2 x 0.3 us NIC + 130 ns + cables
    assert 1.0 <= lat["max"] <= 2.0


def test_roce_pays_the_ethernet_nic_and_switch_latency(results):
    ib = results["ib-ndr"].to_json()["latency_us"]
    roce = results["roce-400"].to_json()["latency_us"]
    # same hops and cables: the gap is 2 x (2.5 - 0.3) us of NIC plus switch differences
    assert roce["min"] - ib["min"] == pytest.approx(2 * 2.2 + (0.5 - 0.13), abs=0.01)
    assert 5.0 <= roce["max"] <= 10.0
