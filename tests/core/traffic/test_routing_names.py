"""The routings' names: packet spraying is ``spray`` (it was called ``adaptive``, which is still
read, as ``spray``, wherever a routing is given), ECMP hashing ``ecmp``."""

from __future__ import annotations

import pytest

from designer.cli.main import main
from designer.core.analysis.routing import MODES, resolve
from designer.core.catalog import builtin_catalog
from designer.core.fileformat import load_project
from designer.core.solver.compile import compile_project
from designer.core.traffic.load import run_load
from designer.core.traffic.routing import ROUTING_LABELS, ROUTINGS, canonical_routing
from tests._paths import PROJECTS

POD = PROJECTS / "dgx-superpod-4su-roce-400.fabric.json"


def test_the_former_name_reads_as_spray() -> None:
    assert "spray" in ROUTINGS and "adaptive" not in ROUTINGS
    assert canonical_routing("adaptive") == "spray" and canonical_routing("ecmp") == "ecmp"
    assert ROUTING_LABELS["spray"] == "packet spraying"
    assert ROUTING_LABELS["ecmp"] == "ECMP hashing"
    assert "spray" in MODES and "adaptive" not in MODES
    p = load_project(POD)
    assert resolve("adaptive", p) == "spray"


def test_old_and_new_names_answer_alike(capsys) -> None:
    p = load_project(POD)
    c = compile_project(p, p.catalog(builtin_catalog()))
    old = run_load(c, "ring", "adaptive")
    new = run_load(c, "ring", "spray")
    assert old.routing == new.routing == "spray"
    assert old.throughput == new.throughput
    assert main(["load", str(POD), "--pattern", "ring", "--routing", "adaptive"]) == 0
    assert "under spray routing" in capsys.readouterr().out
    with pytest.raises(SystemExit) as e:
        main(["load", str(POD), "--routing", "flowlet"])
    assert e.value.code == 2
