"""Measured latencies (perftest ib_send_lat / ib_write_lat, or per component) override the
catalog's for one project. perftest reports half the round trip as the one-way latency, and
its t_typical is the median (perftest README)."""

from __future__ import annotations

import pytest

from designer.cli.main import main
from designer.core.catalog import builtin_catalog
from designer.core.fileformat import load_project
from designer.core.generators import generate, params_from_dict
from designer.core.solver import solve
from designer.core.sources import LatencyMeasurement
from designer.core.sources.apply import SourcesError, nic_per_end_ns
from designer.core.sources.edit import with_latency, without_latency
from designer.core.sources.perftest import parse_perftest

CAT = builtin_catalog()

PERFTEST = "\n".join([
    '---------------------------------------------------------------------------------------',
    '                    Send Latency Test',
    ' Dual-port       : OFF          Device         : mlx5_0',
    ' Link type       : IB',
    '---------------------------------------------------------------------------------------',
    ' #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec'
    ']    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]',
    ' 2       1000          1.01           4.31         1.04                1.06     '
    '        0.08            1.30                    4.31',
    ' 4096    1000          2.01           5.31         2.25                2.26     '
    '        0.08            2.30                    5.31',
    '---------------------------------------------------------------------------------------',
    '',
]) + "\n"


@pytest.fixture(scope="module")
def pod():
    return generate(params_from_dict("rail", {"sus": 2}))


def test_perftest_output_gives_the_median_and_size():
    row = parse_perftest(PERFTEST)
    assert (row.message_bytes, row.typical_us, row.link_type) == (4096, 2.25, "IB")
    assert parse_perftest(PERFTEST, size=2).typical_us == 1.04
    with pytest.raises(SourcesError, match="no result for 64 bytes"):
        parse_perftest(PERFTEST, size=64)
    with pytest.raises(SourcesError, match="no result table"):
        parse_perftest("hello")


def test_end_to_end_figure_is_split_back_to_a_per_end_nic(pod):
    # 1.04 us one way across one QM9700 (300 ns), 6 m of cable (30 ns) and 2 bytes at 400G
    m = LatencyMeasurement(tech="ib-ndr", end_to_end_us=1.04, switches=1, cable_m=6)
    per_end = nic_per_end_ns(CAT, m, "ib-ndr")
    assert per_end == pytest.approx((1040 - 300 - 30 - 2 * 8 / 400) / 2)
    p = with_latency(pod, m, CAT)
    r0, r = solve(pod), solve(p)
    # every path has two NIC ends: the whole distribution moves by 2 x the change
    assert r.latency.min_us - r0.latency.min_us == pytest.approx(2 * (per_end - 400) / 1000,
                                                                abs=1e-6)
    figs = {(f["gear"], f["tech"]): f for f in r.latency.assumptions["figures"]}
    nic = figs[("connectx-7", "ib-ndr")]
    assert nic["origin"]["kind"] == "measured" and not nic["assumption"]
    assert without_latency(p, "ib-ndr").sources.latency == ()


def test_measured_switch_and_nic_figures(pod):
    roce = generate(params_from_dict("rail", {"sus": 2, "gear": "roce-400"}))
    m = LatencyMeasurement(tech="eth", nic_ns=900, switch_ns={"sn5600": 700})
    r = solve(with_latency(roce, m, CAT))
    assert r.latency.min_us == pytest.approx((2 * 900 + 700 + 2 * 10 * 5 + 4096 * 8 / 400)
                                             / 1000, abs=1e-6)
    assert all(not f["assumption"] for f in r.latency.assumptions["figures"])


def test_a_measurement_faster_than_its_switches_is_refused(pod):
    m = LatencyMeasurement(tech="ib-ndr", end_to_end_us=0.1, switches=1)
    with pytest.raises(SourcesError, match="end_to_end_us"):
        with_latency(pod, m, CAT)


def test_cli_import_perftest_output(tmp_path, capsys):
    f = tmp_path / "pod.fabric.json"
    main(["generate", "rail", "--sus", "1", "-o", str(f)])
    out = tmp_path / "lat.txt"
    out.write_text(PERFTEST)
    assert main(["latency", "import", str(f), str(out), "--tech", "ib-ndr", "--switches",
                 "1", "--size", "2", "--date", "2026-11-20"]) == 0
    assert "NIC" in capsys.readouterr().out
    m = load_project(f, CAT).sources.latency[0]
    assert m.end_to_end_us == 1.04 and m.message_bytes == 2 and m.tool == "Send Latency Test"
    with pytest.raises(SystemExit) as exc:
        main(["latency", "set", str(f), "--tech", "eth", "--nic-ns", "x"])
    assert exc.value.code == 2
    assert main(["latency", "set", str(f), "--tech", "ib-ndr", "--end-to-end-us", "0.05",
                 "--switches", "2"]) == 2
    assert "designer: end_to_end_us" in capsys.readouterr().err
