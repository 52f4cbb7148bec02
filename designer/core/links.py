"""Link bundles held as columns.

One row is a bundle: ``count`` parallel cables joining ports ``a_port .. a_port+count-1`` of
device ``a`` to ports ``b_port .. b_port+count-1`` of device ``b`` (device indices into the
fabric's device list, ports numbered from 1). A 65,536-GPU fabric has about 200,000 links, far
too many for one pydantic object each, so the table keeps numpy columns, is immutable, and is
validated in bulk.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from pydantic_core import core_schema

# What a link's medium column may name; "auto" lets the BOM pick the cheapest that reaches.
MEDIA: tuple[str, ...] = ("auto", "dac", "acc", "mmf", "smf")
MEDIUM_CODE: dict[str, int] = {m: i for i, m in enumerate(MEDIA)}

COLUMNS: tuple[str, ...] = (
    "a",
    "a_port",
    "b",
    "b_port",
    "count",
    "speed_gbps",
    "medium",
    "length_m",
)
_INT_COLUMNS = ("a", "a_port", "b", "b_port", "count", "speed_gbps")
MAX_PORT = 1_000_000
MAX_SPEED = 3200


def _frozen(arr: np.ndarray) -> np.ndarray:
    arr.flags.writeable = False
    return arr


class LinkTable:
    """Immutable columns of link bundles. Build new tables with ``concat``, ``take``..."""

    __slots__ = ("a", "a_port", "b", "b_port", "count", "length_m", "medium", "speed_gbps")

    def __init__(
        self,
        a: Any,
        a_port: Any,
        b: Any,
        b_port: Any,
        count: Any = None,
        speed_gbps: Any = 400,
        medium: Any = 0,
        length_m: Any = np.nan,
    ) -> None:
        self.a = _frozen(np.array(a, dtype=np.int32, copy=True).reshape(-1))
        n = self.a.shape[0]

        def col(value: Any, dtype: type) -> np.ndarray:
            arr = np.asarray(value, dtype=dtype)
            arr = np.full(n, arr, dtype=dtype) if arr.ndim == 0 else arr.astype(dtype, copy=True)
            if arr.shape != (n,):
                raise ValueError(f"link columns differ in length ({arr.shape[0]} vs {n})")
            return _frozen(arr)

        self.a_port = col(a_port, np.int32)
        self.b = col(b, np.int32)
        self.b_port = col(b_port, np.int32)
        self.count = col(1 if count is None else count, np.int32)
        self.speed_gbps = col(speed_gbps, np.int32)
        self.medium = col(medium, np.int8)
        self.length_m = col(length_m, np.float32)

    # construction -------------------------------------------------------------------------
    @classmethod
    def empty(cls) -> LinkTable:
        return cls(np.empty(0, np.int32), [], [], [])

    @classmethod
    def concat(cls, tables: Sequence[LinkTable]) -> LinkTable:
        tables = [t for t in tables if len(t)]
        if not tables:
            return cls.empty()
        if len(tables) == 1:
            return tables[0]
        return cls._adopt({c: np.concatenate([getattr(t, c) for t in tables]) for c in COLUMNS})

    @classmethod
    def _adopt(cls, cols: dict[str, np.ndarray]) -> LinkTable:
        """A table over columns just cut from valid tables (their dtypes and lengths already
        right): frozen in place, not copied again (a 397,152-row table is ten columns, and
        every delete renumbers them)."""
        out = cls.__new__(cls)
        for c in COLUMNS:
            setattr(out, c, _frozen(cols[c]))
        return out

    @classmethod
    def from_columns(cls, data: Mapping[str, Any]) -> LinkTable:
        """Build from plain lists (a project file), checking every column in bulk."""
        if not isinstance(data, Mapping):
            raise ValueError("links must be an object of columns")
        if not data:  # a design with nothing cabled yet
            return cls.empty()
        unknown = set(data) - set(COLUMNS)
        if unknown:
            raise ValueError(f"unknown link column(s): {', '.join(sorted(map(str, unknown)))}")
        missing = [c for c in ("a", "a_port", "b", "b_port") if c not in data]
        if missing:
            raise ValueError(f"missing link column(s): {', '.join(missing)}")
        n = None
        arrays: dict[str, np.ndarray] = {}
        for name in COLUMNS:
            if name not in data:
                continue
            values = data[name]
            if not isinstance(values, list):
                raise ValueError(f"link column '{name}' must be a list")
            if n is None:
                n = len(values)
            elif len(values) != n:
                raise ValueError(f"link column '{name}' has {len(values)} values, expected {n}")
            arrays[name] = _column_array(name, values)
        return cls(
            arrays["a"],
            arrays["a_port"],
            arrays["b"],
            arrays["b_port"],
            arrays.get("count"),
            arrays.get("speed_gbps", 400),
            arrays.get("medium", 0),
            arrays.get("length_m", np.nan),
        )

    # views ----------------------------------------------------------------------------------
    def __len__(self) -> int:
        return int(self.a.shape[0])

    @property
    def n_cables(self) -> int:
        return int(self.count.sum(dtype=np.int64))

    def take(self, index: Any) -> LinkTable:
        return LinkTable._adopt(
            {c: np.asarray(getattr(self, c)[index]).reshape(-1) for c in COLUMNS})

    def replace(self, index: Any, **columns: Any) -> LinkTable:
        """A copy with ``columns`` set at rows ``index`` (numpy indexing)."""
        cols = {c: getattr(self, c).copy() for c in COLUMNS}
        for name, value in columns.items():
            if name not in cols:
                raise KeyError(name)
            cols[name][index] = value
        return LinkTable(**cols)

    def remap_devices(self, new_index: np.ndarray) -> LinkTable:
        """Renumber device references; rows whose device maps to -1 are dropped."""
        a = new_index[self.a]
        b = new_index[self.b]
        keep = (a >= 0) & (b >= 0)
        if keep.all():  # nothing dropped (a device appended or moved to the end)
            cols = {c: getattr(self, c) for c in COLUMNS}
        else:
            cols = {c: getattr(self, c)[keep] for c in COLUMNS if c not in ("a", "b")}
            a, b = a[keep], b[keep]
        cols["a"] = a.astype(np.int32, copy=False)
        cols["b"] = b.astype(np.int32, copy=False)
        return LinkTable._adopt(cols)

    def expand(self) -> dict[str, np.ndarray]:
        """One entry per physical port-to-port cable, with ``row`` naming its bundle."""
        counts = self.count.astype(np.int64)
        total = int(counts.sum())
        row = np.repeat(np.arange(len(self), dtype=np.int64), counts)
        start = np.cumsum(counts) - counts
        offset = (np.arange(total, dtype=np.int64) - np.repeat(start, counts)).astype(np.int32)
        return {
            "row": row,
            "a": self.a[row],
            "a_port": self.a_port[row] + offset,
            "b": self.b[row],
            "b_port": self.b_port[row] + offset,
            "speed_gbps": self.speed_gbps[row],
            "medium": self.medium[row],
            "length_m": self.length_m[row],
        }

    def port_ends(self) -> tuple[np.ndarray, np.ndarray]:
        """(device, port) of every cable end, both sides, as two int64 arrays."""
        e = self.expand()
        dev = np.concatenate([e["a"], e["b"]]).astype(np.int64)
        port = np.concatenate([e["a_port"], e["b_port"]]).astype(np.int64)
        return dev, port

    def lengths_as_list(self) -> list[float | None]:
        """Cable lengths for JSON: metres rounded to millimetres, None for the layer default."""
        lengths = np.round(self.length_m.astype(np.float64), 3).astype(object)
        lengths[np.isnan(self.length_m)] = None
        return lengths.tolist()

    def to_columns(self) -> dict[str, list]:
        out: dict[str, list] = {name: getattr(self, name).tolist() for name in _INT_COLUMNS}
        out["medium"] = self.medium.tolist()
        out["length_m"] = self.lengths_as_list()
        return out

    def to_json_columns(self) -> dict[str, np.ndarray | list]:
        """Columns ready for orjson (numpy arrays serialise natively and fast)."""
        out: dict[str, np.ndarray | list] = {c: getattr(self, c) for c in _INT_COLUMNS}
        out["medium"] = self.medium
        out["length_m"] = self.lengths_as_list()
        return out

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LinkTable):
            return NotImplemented
        return all(
            np.array_equal(getattr(self, c), getattr(other, c), equal_nan=(c == "length_m"))
            for c in COLUMNS
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"LinkTable({len(self)} bundles, {self.n_cables} cables)"

    # pydantic integration ---------------------------------------------------------------------
    @classmethod
    def __get_pydantic_core_schema__(cls, _source: Any, _handler: Any) -> core_schema.CoreSchema:
        def validate(value: Any) -> LinkTable:
            if isinstance(value, LinkTable):
                return value
            return cls.from_columns(value)

        return core_schema.no_info_plain_validator_function(
            validate,
            serialization=core_schema.plain_serializer_function_ser_schema(
                lambda t: t.to_columns()
            ),
        )

    @classmethod
    def __get_pydantic_json_schema__(cls, _core: Any, _handler: Any) -> dict[str, Any]:
        """The file's form of the table, for the documentation's JSON Schema: one array per
        column, all of the same length, one entry per bundle of parallel cables; the bounds are
        the ones ``_column_array`` enforces."""
        def ints(low: int, high: int, what: str) -> dict[str, Any]:
            return {"type": "array", "description": what,
                    "items": {"type": "integer", "minimum": low, "maximum": high}}

        codes = ", ".join(f"{i} {m}" for i, m in enumerate(MEDIA))
        return {
            "type": "object",
            "description": "link bundles as columns of equal length",
            "required": ["a", "a_port", "b", "b_port"],
            "additionalProperties": False,
            "properties": {
                "a": ints(0, 2**31 - 1, "position of one end in the device list"),
                "a_port": ints(1, MAX_PORT, "its first port (ports are numbered from 1)"),
                "b": ints(0, 2**31 - 1, "position of the other end in the device list"),
                "b_port": ints(1, MAX_PORT, "its first port"),
                "count": ints(1, MAX_PORT, "parallel cables in the bundle"),
                "speed_gbps": ints(1, MAX_SPEED, "link speed"),
                "medium": ints(0, len(MEDIA) - 1, f"medium code: {codes}"),
                "length_m": {"type": "array", "description": "metres, or null for the layer's "
                             "default", "items": {"type": ["number", "null"], "minimum": 0,
                                                  "maximum": 100_000}},
            },
        }


def _column_array(name: str, values: list) -> np.ndarray:
    if name == "length_m":
        try:
            arr = np.array(values, dtype=np.float64)  # None reads as NaN
        except (TypeError, ValueError):
            raise ValueError("link column 'length_m' must hold numbers or null") from None
        bad = ~np.isnan(arr) & ((arr < 0) | (arr > 100_000) | ~np.isfinite(arr))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"link {i}: length {values[i]!r} m is not between 0 and 100 km")
        return arr.astype(np.float32)
    # the distinct types over the column in C (a loop over a 131,072-GPU design's two
    # million values in Python took over a second of its reading); bool is an int to numpy
    if set(map(type, values)) - {int}:
        i = next(i for i, v in enumerate(values) if type(v) is not int)
        raise ValueError(f"link {i}: column '{name}' must hold whole numbers, found {values[i]!r}")
    try:
        arr = np.array(values, dtype=np.int64)
    except OverflowError:
        raise ValueError(f"link column '{name}' holds a number too large") from None
    low, high = {
        "a": (0, 2**31 - 1),
        "b": (0, 2**31 - 1),
        "a_port": (1, MAX_PORT),
        "b_port": (1, MAX_PORT),
        "count": (1, MAX_PORT),
        "speed_gbps": (1, MAX_SPEED),
        "medium": (0, len(MEDIA) - 1),
    }[name]
    bad = (arr < low) | (arr > high)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"link {i}: {name} {values[i]} is out of range {low}..{high}")
    return arr
