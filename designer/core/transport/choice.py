"""Which transport a project runs: its own choice, else its gear profile's, else the
technology's usual one (InfiniBand on IB gear, RoCEv2 on Ethernet)."""

from __future__ import annotations

from designer.core.catalog import Catalog, builtin_catalog
from designer.core.errors import DesignerError
from designer.core.model import Project
from designer.core.transport.profiles import (
    Transport,
    check_fits,
    default_transport,
    get_transport,
)


def project_tech(project: Project, catalog: Catalog | None = None) -> str:
    cat = catalog if catalog is not None else builtin_catalog()
    try:
        return cat.profile(project.profile).tech
    except DesignerError:  # a profile the catalog lacks: Ethernet, as the estimates assume
        return "eth"


def profile_transport(profile_id: str, catalog: Catalog | None = None) -> Transport:
    """The transport a gear profile's designs run unless they choose another."""
    cat = catalog if catalog is not None else builtin_catalog()
    try:
        prof = cat.profile(profile_id)
    except DesignerError:
        return default_transport("eth")
    if prof.transport:
        t = get_transport(prof.transport, f"profile '{prof.id}' transport")
        if t.runs_on(prof.tech):
            return t
    return default_transport(prof.tech)


def transport_of(project: Project, catalog: Catalog | None = None) -> Transport:
    """The project's transport. A choice that no longer fits its gear (the design was
    switched to the other technology) gives way to the profile's."""
    if project.transport:
        t = get_transport(project.transport)
        if t.runs_on(project_tech(project, catalog)):
            return t
    return profile_transport(project.profile, catalog)


def with_transport(project: Project, transport_id: str | None,
                   catalog: Catalog | None = None) -> Project:
    """``project`` running ``transport_id`` (None: its profile's); refuses one that cannot
    run on the design's gear."""
    if transport_id is not None:
        check_fits(get_transport(transport_id), project_tech(project, catalog))
    return project.evolve(transport=transport_id)
