"""InfraGraph ("infrastructure as a graph", Keysight, MIT): the design written as the schema
describes it, and an InfraGraph file read back as a project."""

from typing import TYPE_CHECKING

from designer.core.faces import lazy_names

# Loaded on first use (designer.core.faces): importing the package, or any module of it,
# stays as cheap as before.
_WHERE = {
    "write_infragraph": "export",
    "project_from_infragraph": "importer",
}
__getattr__ = lazy_names(__name__, globals(), _WHERE)

if TYPE_CHECKING:
    from designer.core.infragraph.export import write_infragraph
    from designer.core.infragraph.importer import project_from_infragraph

__all__ = [
    "project_from_infragraph",
    "write_infragraph",
]
