"""A NIC that lists the same port shape once per technology can be wired to either."""

from designer.core.generators import generate, params_from_dict
from designer.core.model import Device, Role
from designer.core.ports import port_layout
from designer.core.problems import find_problems


def test_connectx7_server_runs_infiniband_and_ethernet(catalog):
    server = Device(id="n1", name="n1", model="dgx-h100", role=Role.GPU_SERVER)
    assert set(port_layout(server, catalog).techs) == {"ib-ndr", "eth"}


def test_generated_roce_design_has_no_technology_mismatch(catalog):
    project = generate(params_from_dict("rail", {"sus": 1, "gear": "roce-400"}), catalog)
    codes = {p.code for p in find_problems(project.fabric, catalog)}
    assert "technology-mismatch" not in codes
