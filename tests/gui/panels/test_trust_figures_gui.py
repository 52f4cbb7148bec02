"""The window shows the figures a purchase rests on: physical cables, port utilisation with
the money unused ports represent, a dragonfly's global oversubscription, and the gear the
generator picked to fit (DGX SuperPOD H100 RA; B300 Spectrum-X RA; DOMAIN.md)."""

from __future__ import annotations

from designer.core.generators import generate, params_from_dict
from tests.gui.helpers import load


def test_roce_leaves_show_their_unused_ports_and_cost(window, qtbot):
    # SN5600 as 128 x 400G rail leaves with the NDR SU of 32 (the RoCE default is 64, which
    # fills them): 32 down + 32 up of 128 ports
    r = load(window, qtbot, generate(params_from_dict(
        "rail", {"sus": 1, "gear": "roce-400", "servers_per_su": 32})))
    m = window.analysis.metrics
    ports = m.values["ports"]
    assert ports.level == "poor"
    assert f"{r.ports.used:,} of {r.ports.total:,}" in ports.text.text()
    # 8 leaves x the SN5600's price x half their ports
    from designer.core.catalog import builtin_catalog
    from designer.gui.panels import fmt

    idle = 8 * builtin_catalog().price("sn5600") / 2
    assert ports.hint.text().endswith("of switch price idle")
    assert fmt.money(idle) in ports.hint.text()
    assert m.value("cables").text().startswith(f"{r.cables.total:,} cables · ")
    note = window.analysis.bom.note.text()
    assert "sn5600 leaf" in note and "of switch price unused" in note


def test_dragonfly_oversubscription_is_not_shown_as_non_blocking(window, qtbot):
    r = load(window, qtbot, generate(params_from_dict("dragonfly", {"a": 4, "p": 2, "h": 2})))
    m = window.analysis.metrics
    text = m.value("oversub").text()
    assert text == "1.8:1 · blocking" and r.oversubscription.global_cut is not None
    assert "global" in m.value("tiers").text()
    assert "balanced cut" in m.values["oversub"].toolTip()
    # a twin copper cable from each DGX node cage to its router: fewer cables than links
    assert r.cables.total < r.links.total
    assert f"{r.links.total:,} links" in m.value("cables").text()


def test_generate_preview_says_which_spine_switch_it_picked(window):
    dlg = window.show_generate("fat-tree")
    for name, value in {"gear": "roce-400", "gpus": 24576, "servers_per_leaf": 2,
                        "oversubscription": "1:1,7:1", "pod_gpus": 3072}.items():
        dlg.set_value(name, value)
    pl = dlg.plan()
    assert pl is not None, dlg.error_text()
    assert pl.gear.upper.model == "th6-102t"
    assert "cannot carry this tier" in dlg.preview.text()
    dlg.set_value("oversubscription", "1:1,2.8:1")
    assert dlg.plan() is not None and "2.8:1 asked" in dlg.preview.text()
    dlg.reject()


def test_generate_dialog_builds_an_undersubscribed_tor(window):
    """Meta's RTSW at 1:2 (twice the uplink, Gangidi et al., SIGCOMM 2024): the dialog takes
    the ratio, builds 32 uplinks for a 2-server ToR and its preview says so."""
    dlg = window.show_generate("fat-tree")
    for name, value in {"gear": "roce-400", "gpus": 3072, "servers_per_leaf": 2,
                        "oversubscription": "1:2", "tiers": 3}.items():
        dlg.set_value(name, value)
    pl = dlg.plan()
    assert pl is not None, dlg.error_text()
    assert pl.oversubscription["leaf"] == "1:2"
    assert "undersubscribed at 1:2: 32 up for 16 down" in dlg.preview.text()
    dlg.reject()
