"""Decision analysis: workloads, collective and step-time estimates, money, TCO, compare and
the recommendation, all read from a solved design (no Qt, no recompiling).

The project model imports ``workload`` from here, so the package imports none of its modules
up front: the names below load on first use (``designer.core.faces``).
"""

from typing import TYPE_CHECKING

from designer.core.faces import lazy_names

# Loaded on first use (designer.core.faces): importing the package, or any module of it,
# stays as cheap as before.
_WHERE = {
    "best_design": "best",
    "ALGORITHMS": "collectives",
    "Comparison": "comparison",
    "FIGURES": "comparison",
    "MAX_DESIGNS": "comparison",
    "PROFILE_LABELS": "comparison",
    "TEXT_ROWS": "comparison",
    "compare": "comparison",
    "figure_text": "comparison",
    "ASSUMED": "constants",
    "SOURCE": "constants",
    "USER": "constants",
    "constant_notes": "constants",
    "economics_notes": "constants",
    "ring_under_ecmp": "ecmp",
    "runs_a_tree": "ecmp",
    "tree_under_ecmp": "ecmp",
    "CollectiveRequest": "estimates",
    "Estimate": "estimates",
    "busbw_curve": "estimates",
    "estimate": "estimates",
    "settings_of": "estimates",
    "fabric_view": "fabric",
    "fit_workload": "fit",
    "fittable": "fit",
    "load_workload": "inputs",
    "parse_bytes": "inputs",
    "validated": "inputs",
    "with_economics": "inputs",
    "price_sources_json": "price_sources",
    "price_sources_text": "price_sources",
    "ETH": "recommend",
    "IB": "recommend",
    "Recommendation": "recommend",
    "MODES": "routing",
    "MODE_ALIASES": "routing",
    "MAX_COLUMNS": "variants",
    "Spec": "variants",
    "build": "variants",
    "build_all": "variants",
    "profile_variant": "variants",
    "server_name": "variants",
    "specs": "variants",
    "DecisionSettings": "workload",
    "Economics": "workload",
    "PRESETS": "workload",
    "Workload": "workload",
    "WorkloadError": "workload",
}
__getattr__ = lazy_names(__name__, globals(), _WHERE)

if TYPE_CHECKING:
    from designer.core.analysis.best import best_design
    from designer.core.analysis.collectives import ALGORITHMS
    from designer.core.analysis.comparison import (
        FIGURES,
        MAX_DESIGNS,
        PROFILE_LABELS,
        TEXT_ROWS,
        Comparison,
        compare,
        figure_text,
    )
    from designer.core.analysis.constants import (
        ASSUMED,
        SOURCE,
        USER,
        constant_notes,
        economics_notes,
    )
    from designer.core.analysis.ecmp import ring_under_ecmp, runs_a_tree, tree_under_ecmp
    from designer.core.analysis.estimates import (
        CollectiveRequest,
        Estimate,
        busbw_curve,
        estimate,
        settings_of,
    )
    from designer.core.analysis.fabric import fabric_view
    from designer.core.analysis.fit import fit_workload, fittable
    from designer.core.analysis.inputs import load_workload, parse_bytes, validated, with_economics
    from designer.core.analysis.price_sources import price_sources_json, price_sources_text
    from designer.core.analysis.recommend import ETH, IB, Recommendation
    from designer.core.analysis.routing import MODE_ALIASES, MODES
    from designer.core.analysis.variants import (
        MAX_COLUMNS,
        Spec,
        build,
        build_all,
        profile_variant,
        server_name,
        specs,
    )
    from designer.core.analysis.workload import (
        PRESETS,
        DecisionSettings,
        Economics,
        Workload,
        WorkloadError,
    )

__all__ = [
    "ALGORITHMS",
    "ASSUMED",
    "ETH",
    "FIGURES",
    "IB",
    "MAX_COLUMNS",
    "MAX_DESIGNS",
    "MODES",
    "MODE_ALIASES",
    "PRESETS",
    "PROFILE_LABELS",
    "SOURCE",
    "TEXT_ROWS",
    "USER",
    "CollectiveRequest",
    "Comparison",
    "DecisionSettings",
    "Economics",
    "Estimate",
    "Recommendation",
    "Spec",
    "Workload",
    "WorkloadError",
    "best_design",
    "build",
    "build_all",
    "busbw_curve",
    "compare",
    "constant_notes",
    "economics_notes",
    "estimate",
    "fabric_view",
    "figure_text",
    "fit_workload",
    "fittable",
    "load_workload",
    "parse_bytes",
    "price_sources_json",
    "price_sources_text",
    "profile_variant",
    "ring_under_ecmp",
    "runs_a_tree",
    "server_name",
    "settings_of",
    "specs",
    "tree_under_ecmp",
    "validated",
    "with_economics",
]
