"""Reading workloads, economics overrides and byte sizes from text (the CLI, the GUI, files),
each failure one message naming the field."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from designer.core.analysis.workload import PRESETS, Economics, Workload, WorkloadError
from designer.core.safe_io import FileRefused, read_text

_UNITS = {"": 1, "b": 1, "k": 1e3, "kb": 1e3, "kib": 2**10, "m": 1e6, "mb": 1e6, "mib": 2**20,
          "g": 1e9, "gb": 1e9, "gib": 2**30, "t": 1e12, "tb": 1e12, "tib": 2**40}


def parse_bytes(text: str) -> int:
    """``1048576``, ``1MiB``, ``16 GiB``, ``4k`` -> bytes."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([a-zA-Z]*)\s*", str(text))
    unit = m.group(2).lower() if m else ""
    if not m or unit not in _UNITS:
        raise WorkloadError(f"--bytes: '{text}' is not a size (e.g. 1048576, 64KiB, 1GiB)")
    value = int(float(m.group(1)) * _UNITS[unit])
    if value < 1 or value > 2**40:
        raise WorkloadError(f"--bytes: {text} is outside 1 B to 1 TiB")
    return value


def validated(model: type[BaseModel], data: dict[str, Any], prefix: str) -> Any:
    """``model(**data)`` or a WorkloadError naming the first bad field."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(x) for x in err["loc"])
        msg = err["msg"]
        raise WorkloadError(f"{prefix}.{field}: {msg[:1].lower()}{msg[1:]}") from None


def load_workload(spec: str) -> Workload:
    """A preset name or a JSON file (a workload object, or ``{"workload": {...}}``)."""
    if spec in PRESETS:
        return PRESETS[spec]
    path = Path(spec)
    if not path.is_file():
        raise WorkloadError(f"--workload: '{spec}' is neither a preset ({', '.join(PRESETS)}) "
                            f"nor a file")
    try:  # a workload is a page of JSON: a regular file of at most 1 MiB
        data = json.loads(read_text(path, limit=1 << 20, what="workload"))
    except FileRefused as exc:
        raise WorkloadError(f"--workload: {exc}") from None
    except (RecursionError, json.JSONDecodeError) as exc:
        raise WorkloadError(f"--workload: {spec}: not a JSON file ({exc})") from None
    if isinstance(data, dict) and isinstance(data.get("workload"), dict):
        data = data["workload"]
    if not isinstance(data, dict):
        raise WorkloadError(f"--workload: {spec}: expected a JSON object")
    return validated(Workload, data, "workload")


def with_economics(base: Economics, **changes: Any) -> Economics:
    data = base.model_dump() | {k: v for k, v in changes.items() if v is not None}
    return validated(Economics, data, "economics")
