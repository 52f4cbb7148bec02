"""Chakra execution traces of one collective, the workload ASTRA-sim runs: one file per NPU,
``PREFIX.RANK.et``, each a GlobalMetadata message then one COMM_COLL_NODE, every message
preceded by its length as a varint (Chakra's ``protolib.encodeMessage``).

The protobuf wire format is written here directly (field numbers from Chakra's
``schema/protobuf/et_def.proto``) so the designer needs neither the protobuf package nor
Chakra; the result is byte for byte what Chakra's own Python writes (a test compares it with
a trace ASTRA-sim ships).
"""

from __future__ import annotations

# et_def.proto: NodeType.COMM_COLL_NODE and CollectiveCommType
COMM_COLL_NODE = 7
COMM_TYPE = {"all-reduce": 0, "all-gather": 2, "all-to-all": 6, "reduce-scatter": 7}
# the schema version ASTRA-sim's bundled microbenchmark traces carry
ET_VERSION = "0.0.4"

# wire types
_VARINT, _LEN = 0, 2


def _varint(n: int) -> bytes:
    if n < 0:
        raise ValueError("a varint here is never negative")
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _key(field: int, wire: int) -> bytes:
    return _varint(field << 3 | wire)


def _len_field(field: int, data: bytes) -> bytes:
    return _key(field, _LEN) + _varint(len(data)) + data


def _int_field(field: int, value: int) -> bytes:
    return _key(field, _VARINT) + _varint(value)


def _attr_int(name: str, value: int) -> bytes:
    # AttributeProto: name = 1, int64_val = 9 (a oneof member: written even when 0)
    return _len_field(1, name.encode()) + _int_field(9, value)


def _attr_bool(name: str, value: bool) -> bytes:
    # AttributeProto: bool_val = 27
    return _len_field(1, name.encode()) + _int_field(27, int(value))


def _delimited(message: bytes) -> bytes:
    return _varint(len(message)) + message


def collective_trace(op: str, nbytes: int, name: str, node_id: int = 0) -> bytes:
    """One NPU's trace: the metadata, then one collective of ``nbytes`` over every NPU."""
    if op not in COMM_TYPE:
        raise ValueError(f"Chakra has no collective '{op}' here (one of "
                         f"{', '.join(COMM_TYPE)})")
    if nbytes <= 0:
        raise ValueError("a collective moves at least one byte")
    meta = _len_field(1, ET_VERSION.encode())  # GlobalMetadata.version
    node = b"".join([
        _int_field(1, node_id) if node_id else b"",  # Node.id (0 is protobuf's default)
        _len_field(2, name.encode()),  # Node.name
        _int_field(3, COMM_COLL_NODE),  # Node.type
        _len_field(10, _attr_bool("is_cpu_op", False)),  # Node.attr
        _len_field(10, _attr_int("comm_type", COMM_TYPE[op])),
        _len_field(10, _attr_int("comm_size", nbytes)),
    ])
    return _delimited(meta) + _delimited(node)


def read_trace(data: bytes) -> list[dict]:
    """The messages of a trace, decoded far enough to check one (each a dict of field number
    to value; length-delimited values stay bytes)."""
    pos = 0
    messages = []
    while pos < len(data):
        size, pos = _read_varint(data, pos)
        messages.append(read_message(data[pos:pos + size]))
        pos += size
    return messages


def attributes(node: dict[int, list]) -> dict[str, int]:
    """A decoded node's integer and boolean attributes by name."""
    out = {}
    for raw in node.get(10, []):
        attr = read_message(raw)
        value = attr.get(9, attr.get(27, [None]))[0]
        out[attr[1][0].decode()] = value
    return out


def _read_varint(data: bytes, pos: int) -> tuple[int, int]:
    shift = value = 0
    while True:
        if pos >= len(data):
            raise ValueError("the trace ends inside a varint")
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return value, pos


def read_message(msg: bytes) -> dict[int, list]:
    """One message's fields: field number to the values it carries."""
    out: dict[int, list] = {}
    pos = 0
    while pos < len(msg):
        key, pos = _read_varint(msg, pos)
        field, wire = key >> 3, key & 7
        if wire == _VARINT:
            value, pos = _read_varint(msg, pos)
        elif wire == _LEN:
            size, pos = _read_varint(msg, pos)
            value, pos = msg[pos:pos + size], pos + size
        else:
            raise ValueError(f"wire type {wire} is not used in these traces")
        out.setdefault(field, []).append(value)
    return out
