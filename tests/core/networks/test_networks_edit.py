"""Editing an extra network by its parameters regenerates it (and the management network that
reaches its switches), keeping what else was asked."""

from __future__ import annotations

import pytest

from designer.core.catalog import builtin_catalog
from designer.core.errors import GeneratorError
from designer.core.generators import generate, params_from_dict
from designer.core.networks.edit import asked_params, parse_value, with_network_params
from designer.core.networks.generate import with_networks
from designer.core.networks.model import check_network_ends

CAT = builtin_catalog()


@pytest.fixture(scope="module")
def design():
    return with_networks(generate(params_from_dict("rail", {"sus": 1})),
                         ("frontend", "storage", "oob"), CAT,
                         {"storage": {"read_gbytes_s_per_gpu": 2.0}})


def _count(net, tier):
    return sum(d.tier == tier for d in net.devices)


def test_storage_node_count_changes_and_oob_follows(design):
    after = with_network_params(design, "storage", {"storage_nodes": 20}, CAT)
    st = after.networks["storage"]
    assert _count(st, "storage-node") == 20
    # what else was asked is kept
    assert asked_params(after, "storage")["read_gbytes_s_per_gpu"] == 2.0
    # the management network reaches every switch and node of the new storage network
    managed = set(after.networks["oob"].links.a)
    assert {d.id for d in st.devices} <= managed
    check_network_ends(after.networks, {d.id for d in after.fabric.devices})
    # the front-end is untouched
    assert after.networks["frontend"] == design.networks["frontend"]
    # emptied: automatic again (256 GPUs x 2 GB/s over a node's read rate)
    auto = with_network_params(after, "storage", {"storage_nodes": None}, CAT)
    assert _count(auto.networks["storage"], "storage-node") == \
        _count(design.networks["storage"], "storage-node")


def test_front_end_oversubscription_changes_its_spines(design):
    from designer.core.networks.solve import solve_networks

    after = with_network_params(design, "frontend", {"oversubscription": 4}, CAT)
    was = solve_networks(design, CAT)["frontend"]
    now = solve_networks(after, CAT)["frontend"]
    # uplinks sized for 4:1 instead of 2:1 on a leaf's down ports: fewer links up, more
    # oversubscribed, never past what was asked
    assert now.links < was.links
    assert was.oversubscription < now.oversubscription <= 4.0 + 1e-9
    assert asked_params(after, "frontend")["oversubscription"] == 4


def test_management_switch_model_can_be_the_aggregation_model(design):
    after = with_network_params(design, "oob", {"switch": None, "racks_per_switch": 2}, CAT)
    oob = after.networks["oob"]
    assert asked_params(after, "oob")["switch"] == "sn2201"  # emptied: its default
    assert _count(oob, "access") < _count(design.networks["oob"], "access")


def test_bad_edits_are_refused_with_the_parameter_named(design):
    with pytest.raises(GeneratorError, match="oversubscription"):
        with_network_params(design, "frontend", {"oversubscription": 0.5}, CAT)
    with pytest.raises(GeneratorError, match="unknown parameter 'colour'"):
        with_network_params(design, "frontend", {"colour": 1}, CAT)
    with pytest.raises(GeneratorError, match="unknown network gear"):
        with_network_params(design, "storage", {"switch": "no-such-switch"}, CAT)
    alone = generate(params_from_dict("rail", {"sus": 1}))
    with pytest.raises(GeneratorError, match="no Storage network"):
        with_network_params(alone, "storage", {"storage_nodes": 3}, CAT)


def test_form_values_parse():
    assert parse_value(" ") is None
    assert parse_value("12") == 12 and isinstance(parse_value("12"), int)
    assert parse_value("1.5") == 1.5
    assert parse_value("sn4600c") == "sn4600c"
