"""Add or remove a project's price books and latency measurements (one new Project each).

Each edit is checked against the catalog before it is kept, so a project never carries a
measurement the solver cannot use.
"""

from __future__ import annotations

from designer.core.catalog import Catalog
from designer.core.sources.apply import SourcesError, apply_sources
from designer.core.sources.model import LatencyMeasurement, PriceBook, Sources


def _checked(project, sources: Sources, base: Catalog):
    cat = base.with_items(project.overrides.gear) if project.overrides.gear else base
    apply_sources(cat, sources, project.profile, project.analysis.propagation_ns_per_m)
    return project.model_copy(update={"sources": sources})


def with_price_book(project, book: PriceBook, base: Catalog):
    return _checked(project, project.sources.with_book(book), base)


def without_price_book(project, name: str):
    if name not in {b.name for b in project.sources.price_books}:
        known = ", ".join(b.name for b in project.sources.price_books) or "none"
        raise SourcesError(f"no price book named '{name}' (books: {known})")
    return project.model_copy(update={"sources": project.sources.without_book(name)})


def with_latency(project, m: LatencyMeasurement, base: Catalog):
    return _checked(project, project.sources.with_latency(m), base)


def without_latency(project, tech: str):
    if tech not in {m.tech for m in project.sources.latency}:
        raise SourcesError(f"no latency measurement for '{tech}'")
    return project.model_copy(update={"sources": project.sources.without_latency(tech)})
