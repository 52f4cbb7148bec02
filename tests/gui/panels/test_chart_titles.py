"""Every chart's title is whole in the window's default size (1728 x 972 on a 1920 x 1080
screen: the four charts stand in a row in a bottom dock about 680 px wide, each narrower than
"Oversubscription" over its plot area alone)."""

from __future__ import annotations

from tests.gui.helpers import WAIT_MS, load


def _title_box(plot):
    """The title text's box in the chart widget's own pixels."""
    label = plot.getPlotItem().titleLabel
    return plot.mapFromScene(label.item.mapToScene(label.item.boundingRect())).boundingRect()


def test_chart_titles_are_whole_at_the_default_window_size(window, qtbot, su4):
    window.resize(1728, 972)
    charts = window.analysis.charts
    with qtbot.waitSignal(charts.drawn, timeout=WAIT_MS):
        load(window, qtbot, su4)
    qtbot.wait(50)
    assert charts.columns == 4
    for plot in charts.charts:
        box = _title_box(plot)
        assert box.width() > 40  # the title is drawn (a check of nothing proves nothing)
        assert box.left() >= 0 and box.right() <= plot.viewport().width(), (
            plot.toolTip(), box, plot.viewport().width())
