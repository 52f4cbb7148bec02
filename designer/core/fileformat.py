"""Project files (``*.fabric.json``): reading, migrating, checking and atomic saving.

Loading only parses JSON and validates data; nothing in a file is ever executed. Every way a
file can be bad ends in one ``ProjectFileError`` whose message names the place.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
from pydantic import TypeAdapter, ValidationError

from designer.core.catalog import Catalog, builtin_catalog
from designer.core.errors import CatalogError, DesignerError, FabricError, ProjectFileError
from designer.core.gcpause import collector_paused
from designer.core.limits import MAX_DEVICES, MAX_LINK_ROWS
from designer.core.model import SCHEMA_VERSION, Device, Project
from designer.core.ports import check_ports_exist, check_roles_match_gear
from designer.core.safe_io import FileRefused, read_bytes

# Saving moved to safe_io with the other writes; these names stay importable from here.
from designer.core.safe_io import atomic_write as atomic_write
from designer.core.safe_io import backup_path as backup_path
from designer.core.text import plain_error

SUFFIX = ".fabric.json"
MAX_FILE_BYTES = 256 * 1024 * 1024

# Migrations turn the raw data of version N into version N+1, before validation.
Migration = Callable[[dict[str, Any]], dict[str, Any]]
MIGRATIONS: dict[int, Migration] = {
    # Version 2 only adds optional sections, each with a default: nothing to rewrite.
    1: lambda raw: raw,
}


def migrate(raw: dict[str, Any], migrations: dict[int, Migration] | None = None) -> dict[str, Any]:
    steps = MIGRATIONS if migrations is None else migrations
    version = raw.get("schema_version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise ProjectFileError(
            "missing or non-integer 'schema_version'; this is not a Fabric Designer project",
            where="schema_version",
        )
    if version > SCHEMA_VERSION:
        raise ProjectFileError(
            f"the file is schema version {version}, newer than this app understands "
            f"(up to {SCHEMA_VERSION}); update Fabric Designer to open it",
            where="schema_version",
        )
    if version < 1:
        raise ProjectFileError(f"schema version {version} is not valid", where="schema_version")
    while version < SCHEMA_VERSION:
        step = steps.get(version)
        if step is None:
            raise ProjectFileError(f"no migration from schema version {version}")
        raw = step(dict(raw))
        version += 1
        raw["schema_version"] = version
    return raw


def _location(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif str(part).startswith(("function-", "tagged-union", "no-info")):
            continue
        else:
            out += ("." if out else "") + str(part)
    return out or "(top level)"


def _check_size(raw: dict[str, Any]) -> None:
    """Refuse a design past the limits before validating it item by item."""
    fabric = raw.get("fabric")
    if not isinstance(fabric, dict):
        return
    devices = fabric.get("devices")
    if isinstance(devices, list) and len(devices) > MAX_DEVICES:
        raise ProjectFileError(
            f"{len(devices):,} devices; a design holds at most {MAX_DEVICES:,}",
            where="fabric.devices",
        )
    links = fabric.get("links")
    if isinstance(links, dict):
        for name, column in links.items():
            if isinstance(column, list) and len(column) > MAX_LINK_ROWS:
                raise ProjectFileError(
                    f"{len(column):,} link bundles; a design holds at most {MAX_LINK_ROWS:,}",
                    where=f"fabric.links.{name}",
                )


ProgressFn = Callable[[float, str], None]
CancelledFn = Callable[[], bool]
# Devices validated per call: each call holds the interpreter briefly (about 0.1 s for 5,000),
# so a window reading a large file in a worker thread keeps drawing between calls.
DEVICE_CHUNK = 5_000
@functools.cache
def _devices_adapter() -> TypeAdapter:
    """Built on first use: building a validator at import costs every command's start."""
    return TypeAdapter(list[Device])


class LoadCancelled(DesignerError):
    """Reading a project was cancelled by the user."""

    def __init__(self) -> None:
        super().__init__("opening was cancelled")


class _Steps:
    """Progress and cancellation of one load (both optional)."""

    def __init__(self, progress: ProgressFn | None, cancelled: CancelledFn | None) -> None:
        self.progress, self.cancelled = progress, cancelled

    def at(self, fraction: float, stage: str) -> None:
        if self.cancelled is not None and self.cancelled():
            raise LoadCancelled
        if self.progress is not None:
            self.progress(fraction, stage)


def _validation_error(exc: ValidationError, source: str | None, prefix: tuple = ()) -> \
        ProjectFileError:
    err = exc.errors(include_url=False)[0]
    msg = plain_error(err)
    more = f" (and {exc.error_count() - 1} more problems)" if exc.error_count() > 1 else ""
    return ProjectFileError(msg + more, source, _location((*prefix, *err["loc"])))


def _validate_devices(raw: dict[str, Any], source: str | None, steps: _Steps) -> None:
    """Validate the device list in chunks and put the Device objects in its place, so the
    project's own validation takes them as they are."""
    fabric = raw.get("fabric")
    devices = fabric.get("devices") if isinstance(fabric, dict) else None
    if not isinstance(devices, list) or len(devices) <= DEVICE_CHUNK:
        return
    out: list[Device] = []
    for start in range(0, len(devices), DEVICE_CHUNK):
        steps.at(0.2 + 0.5 * start / len(devices), f"checking devices ({start:,} of "
                 f"{len(devices):,})")
        try:
            out.extend(_devices_adapter().validate_python(devices[start:start + DEVICE_CHUNK]))
        except ValidationError as exc:
            err = exc.errors(include_url=False)[0]
            index, *rest = err["loc"]
            loc = ("fabric", "devices", start + int(index), *rest)
            msg = plain_error(err)
            raise ProjectFileError(msg, source, _location(loc)) from None
    fabric["devices"] = out


def project_from_raw(
    raw: Any,
    catalog: Catalog | None = None,
    source: str | None = None,
    progress: ProgressFn | None = None,
    cancelled: CancelledFn | None = None,
) -> Project:
    """Validate already-parsed JSON data into a Project checked against the catalog."""
    steps = _Steps(progress, cancelled)
    if not isinstance(raw, dict):
        raise ProjectFileError(
            f"expected a JSON object at the top level, found {type(raw).__name__}", source
        )
    try:
        raw = migrate(raw)
        _check_size(raw)
    except ProjectFileError as exc:
        raise ProjectFileError(exc.detail, source, exc.where) from None
    _validate_devices(raw, source, steps)
    steps.at(0.7, "checking links")
    try:
        project = Project.model_validate(raw)
    except ValidationError as exc:
        raise _validation_error(exc, source) from None
    except (ValueError, TypeError) as exc:
        raise ProjectFileError(str(exc), source, "fabric.links") from None
    steps.at(0.9, "checking gear and ports")
    check_project_gear(project, catalog, source)
    return project


def check_project_gear(project: Project, catalog: Catalog | None = None,
                       source: str | None = None) -> None:
    """What a project file must meet beyond its own fields: its gear profile exists, every
    device's role fits its gear and every link's ports exist on it."""
    base = catalog if catalog is not None else builtin_catalog()
    try:
        cat = project.catalog(base)
        cat.profile(project.profile)
        check_roles_match_gear(project.fabric, cat)
        check_ports_exist(project.fabric, cat)
    except (CatalogError, FabricError) as exc:
        raise ProjectFileError(str(exc), source, "fabric") from None


def loads_project(
    data: bytes,
    source: str | None = None,
    catalog: Catalog | None = None,
    progress: ProgressFn | None = None,
    cancelled: CancelledFn | None = None,
) -> Project:
    if len(data) > MAX_FILE_BYTES:
        raise ProjectFileError(
            f"{len(data):,} bytes is too large to be a project (limit {MAX_FILE_BYTES:,})", source
        )
    if not data.strip():
        raise ProjectFileError("the file is empty", source)
    _Steps(progress, cancelled).at(0.05, "reading JSON")
    # a file's hundreds of thousands of new objects hold no cycles: the collector's full
    # passes over them while they are made held the interpreter 0.1-0.15 s each, three times
    # for a 131,040-GPU NVL72 design, and froze the window that reads it in a worker thread
    with collector_paused():
        return _parse_and_check(data, source, catalog, progress, cancelled)


def _parse_and_check(data: bytes, source: str | None, catalog: Catalog | None,
                     progress: ProgressFn | None, cancelled: CancelledFn | None) -> Project:
    try:
        raw = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        # an object or array that breaks off where the data ends was cut short
        if exc.pos >= len(data.rstrip()) - 1 and data.lstrip()[:1] in (b"{", b"["):
            msg = "the file ends too early (truncated?)"
        else:
            msg = f"not valid JSON: {exc.msg}"
        raise ProjectFileError(msg, source, f"line {exc.lineno}, column {exc.colno}") from None
    except RecursionError:
        raise ProjectFileError("JSON nested too deeply", source) from None
    return project_from_raw(raw, catalog, source, progress, cancelled)


def load_project(
    path: str | os.PathLike[str],
    catalog: Catalog | None = None,
    progress: ProgressFn | None = None,
    cancelled: CancelledFn | None = None,
) -> Project:
    """Read, parse and validate a project file. ``progress(fraction, stage)`` is called as the
    stages advance; when ``cancelled()`` turns true the load stops with ``LoadCancelled``."""
    p = Path(path)
    try:
        size = p.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ProjectFileError(
                f"{size:,} bytes is too large to be a project (limit {MAX_FILE_BYTES:,})", str(p)
            )
    except FileNotFoundError:
        raise ProjectFileError("no such file", str(p)) from None
    except OSError as exc:
        raise ProjectFileError(f"cannot read: {exc.strerror or exc}", str(p)) from None
    try:
        data = read_bytes(p, limit=MAX_FILE_BYTES, what="project")
    except FileRefused as exc:
        raise ProjectFileError(str(exc)) from None
    return loads_project(data, str(p), catalog, progress, cancelled)


def dumps_project(project: Project) -> bytes:
    """The file's bytes: one device per line and one link column per line, so diffs read."""
    # a design without extra networks is written without the key, byte for byte as before
    skip = {"fabric"} | ({"networks"} if project.networks is None else set())
    head = project.model_dump(mode="json", exclude=skip)
    head["schema_version"] = SCHEMA_VERSION
    device_lines = [
        orjson.dumps(
            d.model_dump(mode="json", exclude_defaults=True, exclude={"groups"})
            | ({"groups": d.groups} if d.groups else {})
        )
        for d in project.fabric.devices
    ]
    columns = project.fabric.links.to_json_columns()
    link_lines = [
        orjson.dumps(name) + b": " + orjson.dumps(values, option=orjson.OPT_SERIALIZE_NUMPY)
        for name, values in columns.items()
    ]
    parts = [b"{"]
    for key, value in head.items():
        parts.append(b"  " + orjson.dumps(key) + b": " + orjson.dumps(value) + b",")
    parts.append(b'  "fabric": {')
    parts.append(b'    "devices": [')
    parts.append(b",\n".join(b"      " + line for line in device_lines))
    parts.append(b"    ],")
    parts.append(b'    "links": {')
    parts.append(b",\n".join(b"      " + line for line in link_lines))
    parts.append(b"    }")
    parts.append(b"  }")
    parts.append(b"}\n")
    return b"\n".join(p for p in parts if p)


def save_project(project: Project, path: str | os.PathLike[str], keep_backup: bool = True) -> None:
    try:
        atomic_write(path, dumps_project(project), keep_backup)
    except FileRefused:
        raise
    except OSError as exc:
        raise DesignerError(f"cannot save {path}: {exc.strerror or exc}") from None
