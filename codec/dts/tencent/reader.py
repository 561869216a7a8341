"""Parse ``subscribe.proto`` messages from bytes into plain objects, for ``tisink verify``.

Unknown fields are skipped, as any protobuf reader would; proto3 defaults apply to fields left
out. Raises ValueError (wrapped by the decoder) on bytes that are not the message.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tisink.codec.dts.charsets import python_codec
from tisink.codec.dts.tencent.enums import SV_TYPES, DataType, DMLType, MessageType
from tisink.codec.dts.tencent.wire import LEN, VARINT, Reader, signed64

EVENT_FIELD: dict[int, int] = {
    MessageType.BEGIN: 1,
    MessageType.DML: 2,
    MessageType.COMMIT: 3,
    MessageType.DDL: 4,
    MessageType.ROLLBACK: 5,
    MessageType.HEARTBEAT: 6,
    MessageType.CHECKPOINT: 7,
}
"""``Header.messageType`` -> the ``Event`` member it sets."""
_DML_EVENT = EVENT_FIELD[MessageType.DML]

NOT_AVAILABLE = object()
"""A value of type NA: the column is not in the image."""


@dataclass(slots=True)
class Envelope:
    version: int = 0
    total: int = 0
    index: int = 0
    data: bytes = b""


@dataclass(slots=True)
class Header:
    version: int = 0
    message_type: int = MessageType.BEGIN
    timestamp: int = 0
    file_name: str = ""
    position: int = 0
    gtid: str = ""
    schema_name: str = ""
    table_name: str = ""
    seq_id: int = 0


@dataclass(slots=True)
class Column:
    name: str = ""
    original_type: str = ""
    is_key: bool = False


@dataclass(slots=True)
class Entry:
    """One entry; ``event`` is the set ``Event`` member's number (0 when none is), ``body`` its
    fields, ``columns`` and ``rows`` a DML's, each row ``(old values, new values)``."""

    header: Header
    event: int = 0
    body: dict[int, Any] = field(default_factory=dict)
    dml_type: int = DMLType.INSERT
    columns: list[Column] = field(default_factory=list)
    rows: list[tuple[list[Any], list[Any]]] = field(default_factory=list)


def _expect(wire_type: int, wanted: int, what: str) -> None:
    if wire_type != wanted:
        raise ValueError(f"{what}: wire type {wire_type}, expected {wanted}")


def envelope(data: bytes) -> Envelope:
    out = Envelope()
    for number, wire_type, value in Reader(data):
        if number == 1:
            _expect(wire_type, VARINT, "Envelope.version")
            out.version = signed64(value)  # type: ignore[arg-type]
        elif number == 2:
            _expect(wire_type, VARINT, "Envelope.total")
            out.total = value  # type: ignore[assignment]
        elif number == 3:
            _expect(wire_type, VARINT, "Envelope.index")
            out.index = value  # type: ignore[assignment]
        elif number == 4:
            _expect(wire_type, LEN, "Envelope.data")
            out.data = value  # type: ignore[assignment]
    return out


def entries(data: bytes) -> list[Entry]:
    out = []
    for number, wire_type, value in Reader(data):
        if number == 1:
            _expect(wire_type, LEN, "Entries.items")
            out.append(_entry(value))  # type: ignore[arg-type]
    return out


_HEADER_TEXT = {6: "file_name", 8: "gtid", 9: "schema_name", 10: "table_name"}
_HEADER_NUMBER = {1: "version", 3: "message_type", 4: "timestamp", 7: "position", 11: "seq_id"}


def _header(data: bytes) -> Header:
    out = Header()
    for number, wire_type, value in Reader(data):
        if number in _HEADER_TEXT:
            _expect(wire_type, LEN, f"Header field {number}")
            setattr(out, _HEADER_TEXT[number], value.decode())  # type: ignore[union-attr]
        elif number in _HEADER_NUMBER:
            _expect(wire_type, VARINT, f"Header field {number}")
            setattr(out, _HEADER_NUMBER[number], value)
    return out


def _entry(data: bytes) -> Entry:
    header = Header()
    event = b""
    for number, wire_type, value in Reader(data):
        if number == 1:
            _expect(wire_type, LEN, "Entry.header")
            header = _header(value)  # type: ignore[arg-type]
        elif number == 2:
            _expect(wire_type, LEN, "Entry.event")
            event = value  # type: ignore[assignment]
    out = Entry(header)
    for number, wire_type, value in Reader(event):
        if 1 <= number <= 7:
            _expect(wire_type, LEN, f"Event field {number}")
            out.event = number
            if number == _DML_EVENT:
                _dml(value, out)  # type: ignore[arg-type]
            else:
                out.body = {n: v for n, _w, v in Reader(value)}  # type: ignore[arg-type]
    return out


def _dml(data: bytes, out: Entry) -> None:
    for number, wire_type, value in Reader(data):
        if number == 1:
            _expect(wire_type, VARINT, "DMLEvent.dmlEventType")
            out.dml_type = value  # type: ignore[assignment]
        elif number == 2:
            _expect(wire_type, LEN, "DMLEvent.columns")
            out.columns.append(_column(value))  # type: ignore[arg-type]
        elif number == 3:
            _expect(wire_type, LEN, "DMLEvent.rows")
            old: list[Any] = []
            new: list[Any] = []
            for side, side_wire, data_bytes in Reader(value):  # type: ignore[arg-type]
                if side in (1, 2):
                    _expect(side_wire, LEN, "RowChange columns")
                    (old if side == 1 else new).append(_data(data_bytes))  # type: ignore[arg-type]
            out.rows.append((old, new))


def _column(data: bytes) -> Column:
    out = Column()
    for number, _wire_type, value in Reader(data):
        if number == 1:
            out.name = value.decode()  # type: ignore[union-attr]
        elif number == 2:
            out.original_type = value.decode()  # type: ignore[union-attr]
        elif number == 3:
            out.is_key = bool(value)
    return out


def _data(data: bytes) -> Any:
    """A value as a consumer reads it: None for NIL, NOT_AVAILABLE for NA, ``sv`` text for
    numbers, STRING decoded with its charset, BYTES as bytes."""
    data_type, charset, sv, bv = DataType.NIL, "", "", b""
    for number, _wire_type, value in Reader(data):
        if number == 1:
            data_type = value  # type: ignore[assignment]
        elif number == 2:
            charset = value.decode()  # type: ignore[union-attr]
        elif number == 3:
            sv = value.decode()  # type: ignore[union-attr]
        elif number == 4:
            bv = value  # type: ignore[assignment]
    if data_type == DataType.NIL:
        return None
    if data_type == DataType.NA:
        return NOT_AVAILABLE
    if data_type in SV_TYPES:
        return sv
    if data_type == DataType.STRING:
        return bv.decode(python_codec(charset) if charset else "utf-8")
    if data_type == DataType.BYTES:
        return bytes(bv)
    raise ValueError(f"unknown dataType {data_type}")
