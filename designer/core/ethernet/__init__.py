"""Ethernet (RoCE) fabrics on a real routing stack: switch configs, the live check in
network namespaces, and the LLDP as-built."""

from typing import TYPE_CHECKING

from designer.core.faces import lazy_names

# Loaded on first use (designer.core.faces): importing the package, or any module of it,
# stays as cheap as before.
_WHERE = {
    "write_addressing": "addressing",
    "write_configs": "configs",
    "missing_reason": "lab",
    "as_built_source": "lldp",
    "project_from_lldp": "lldp",
    "write_lldp_view": "lldp",
    "check_roce": "netns",
    "build_underlay": "plan",
    "profile_problem": "plan",
    "HOSTS_PER_LEAF": "slicing",
    "MAX_SESSIONS": "slicing",
    "MAX_SWITCHES": "slicing",
}
__getattr__ = lazy_names(__name__, globals(), _WHERE)

if TYPE_CHECKING:
    from designer.core.ethernet.addressing import write_addressing
    from designer.core.ethernet.configs import write_configs
    from designer.core.ethernet.lab import missing_reason
    from designer.core.ethernet.lldp import as_built_source, project_from_lldp, write_lldp_view
    from designer.core.ethernet.netns import check_roce
    from designer.core.ethernet.plan import build_underlay, profile_problem
    from designer.core.ethernet.slicing import HOSTS_PER_LEAF, MAX_SESSIONS, MAX_SWITCHES

__all__ = [
    "HOSTS_PER_LEAF",
    "MAX_SESSIONS",
    "MAX_SWITCHES",
    "as_built_source",
    "build_underlay",
    "check_roce",
    "missing_reason",
    "profile_problem",
    "project_from_lldp",
    "write_addressing",
    "write_configs",
    "write_lldp_view",
]
