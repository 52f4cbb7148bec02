"""How the analysis panels write numbers: units follow the value as shown, after rounding."""

from __future__ import annotations

import pytest

from designer.gui.panels import fmt


@pytest.mark.parametrize(("value", "text"), [
    (812, "$812"),
    (9_999, "$9,999"),
    (81_234, "$81.2k"),
    (999_949, "$999.9k"),
    (999_950, "$1.00M"),  # not "$1,000.0k"
    (12_345_678, "$12.35M"),
    (999_995_000, "$1.00B"),
])
def test_money(value, text):
    assert fmt.money(value) == text


@pytest.mark.parametrize(("value", "text"), [
    (812_000, "$812k"),
    (999_600, "$1.00M"),  # three significant figures, not "$1,000k"
    (6_324_000, "$6.32M"),
    (44_249_000, "$44.2M"),
    (123_600_000, "$124M"),
    (99_960, "$100k"),
])
def test_money_short_keeps_three_significant_figures(value, text):
    assert fmt.money_short(value) == text


def test_power_and_bandwidth_change_unit_where_the_rounded_value_does():
    assert fmt.power(999.6) == "1.0 kW" and fmt.power(999.4) == "999 W"
    assert fmt.power(999_960) == "1.00 MW" and fmt.power(46_400) == "46.4 kW"
    assert fmt.tbps(999.7) == "1.0 Tb/s" and fmt.tbps(999.4) == "999 Gb/s"
    assert fmt.gbps(9.999) == "10 Gb/s" and fmt.gbps(9.5) == "9.50 Gb/s"
