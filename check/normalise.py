"""Values normalised by their column's MySQL type, so that equal values compare equal in any
representation a consumer chose: ``"1"`` and ``1``, ``1.50`` and ``1.5`` (DECIMAL as Decimal),
FLOAT rounded to float32, date and time values as canonical text (``timetext``), BIT as an
integer (from bytes too), ENUM as its member (from its 1-based index too), SET as its members
in definition order, JSON parsed and written canonically, VECTOR as TiDB prints it (float32
elements), binary strings as bytes. NULL is
never passed in: NULL equals only NULL. A value that does not read as its type (``"abc"`` in an
INT column) becomes ``Unreadable``, equal only to the same unreadable text."""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from tisink.check.mysqltype import ColumnType
from tisink.check.timetext import date_text, datetime_text, time_text
from tisink.codec.values import to_float32, vector_text
from tisink.model.mysqltypes import TypeFamily

Normalise = Callable[[Any], Any]


@dataclass(frozen=True)
class Unreadable:
    """A value that is no value of its column's type, kept as text to be reported."""

    text: str


@dataclass(frozen=True)
class NotUTF8:
    """A SQLite TEXT value whose bytes are no UTF-8 (a consumer stored binary data as TEXT),
    read as this marker instead of failing the read: it normalises to itself, so it equals
    only the same marker and is otherwise a difference of its table, key and column."""

    raw: bytes

    def __str__(self) -> str:
        return f"text that is not UTF-8: 0x{self.raw.hex()}"


def _text(value: Any) -> str:
    if type(value) is str:
        return value
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).decode("utf-8", errors="replace")
    return str(value)


def _integer(value: Any) -> int:
    kind = type(value)
    if kind is int:
        return value
    if kind is str:
        try:
            return int(value)
        except ValueError:
            pass  # "7.0", "1e3": read as a number below
    elif isinstance(value, int):
        return int(value)
    elif isinstance(value, bytes | bytearray | memoryview):  # BIT as bytes (MySQL drivers)
        return int.from_bytes(bytes(value), "big")
    number = value if isinstance(value, float) else Decimal(_text(value).strip())
    if number != int(number):
        raise ValueError(f"{value!r} is not an integer")
    return int(number)


def _decimal(value: Any) -> Decimal:
    number = Decimal(repr(value)) if isinstance(value, float) else Decimal(_text(value).strip())
    if not number.is_finite():
        raise ValueError(f"{value!r} is not a finite number")
    return number.normalize() if number else Decimal(0)


def _double(value: Any) -> float:
    return float(value) if not isinstance(value, bytes) else float(_text(value))


def _float32(value: Any) -> float:
    return float(struct.unpack("f", struct.pack("f", _double(value)))[0])


def _plain_numbers(value: Any) -> Any:
    """JSON data with integral floats as integers: ``1.0`` and ``1`` are one JSON number."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: _plain_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain_numbers(item) for item in value]
    return value


def _json(value: Any) -> str:
    data = json.loads(_text(value)) if isinstance(value, str | bytes) else value
    return json.dumps(_plain_numbers(data), sort_keys=True, separators=(",", ":"))


def _vector_items(value: Any) -> Any:
    """The elements of a VECTOR as a consumer may store it: TiDB's text ``[1,0.5]`` (also a
    JSON array, jsonb, pgvector's text), PostgreSQL's array text ``{1,0.5}`` or an array
    (``real[]``), or MariaDB's and MySQL's binary VECTOR (little-endian float32s)."""
    if isinstance(value, bytes | bytearray | memoryview):
        raw = bytes(value)
        if not raw.lstrip().startswith((b"[", b"{")) and raw and len(raw) % 4 == 0:
            return struct.unpack(f"<{len(raw) // 4}f", raw)
        value = _text(raw)
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("{") and text.endswith("}"):
            inner = text[1:-1].strip()
            return [float(item) for item in inner.split(",")] if inner else []
        return json.loads(text)
    return value


def _vector(value: Any) -> str:
    """A VECTOR as TiDB prints it: each element rounded to float32 and written in Go's
    shortest form, ``[1,0.5,-2]``; so ``[1.0, 0.5]``, ``{1,0.5}`` and ``0.50000001`` (the
    same float32) are one value. NaN, infinities and non-numbers are no VECTOR: unreadable."""
    items = _vector_items(value)
    if not isinstance(items, list | tuple):
        raise TypeError(f"a VECTOR is a list of numbers, got {value!r}")
    floats = []
    for item in items:
        if type(item) not in (int, float):
            raise TypeError(f"a VECTOR element is a number, got {item!r}")
        single = to_float32(item)
        if not math.isfinite(single):
            raise ValueError(f"a VECTOR element is a finite float32, got {item!r}")
        floats.append(single)
    return vector_text(floats)


def _enum(col: ColumnType) -> Normalise:
    def normalise(value: Any) -> str:
        if isinstance(value, int) and col.elements and 0 < value <= len(col.elements):
            return col.elements[value - 1]
        return _text(value)

    return normalise


def _set(col: ColumnType) -> Normalise:
    order = {name: index for index, name in enumerate(col.elements)}

    def normalise(value: Any) -> tuple[str, ...]:
        if isinstance(value, int) and col.elements:  # the bitmask
            return tuple(n for i, n in enumerate(col.elements) if value >> i & 1)
        if isinstance(value, list | tuple | set | frozenset):  # an array column
            members = [str(item) for item in value]
        else:
            text = _text(value)
            members = text.split(",") if text else []
        return tuple(sorted(set(members), key=lambda m: (order.get(m, len(order)), m)))

    return normalise


def _binary(value: Any) -> bytes:
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    return str(value).encode("utf-8")


def _string(col: ColumnType) -> Normalise:
    if col.name == "char":  # MySQL returns CHAR values without trailing spaces
        return lambda value: _text(value).rstrip(" ")
    return _text


def normaliser(col: ColumnType) -> Normalise:
    """The function that turns a non-NULL value of ``col`` into its canonical form."""
    family = col.family
    simple: dict[TypeFamily, Normalise] = {
        TypeFamily.INT: _integer,
        TypeFamily.BIGINT: _integer,
        TypeFamily.YEAR: _integer,
        TypeFamily.BIT: _integer,
        TypeFamily.DECIMAL: _decimal,
        TypeFamily.DOUBLE: _double,
        TypeFamily.FLOAT: _float32,
        TypeFamily.BINARY: _binary,
        TypeFamily.JSON: _json,
        TypeFamily.VECTOR: _vector,
        TypeFamily.DATE: date_text,
    }
    convert: Normalise
    if family in simple:
        convert = simple[family]
    elif family in (TypeFamily.DATETIME, TypeFamily.TIMESTAMP):
        convert = lambda value: datetime_text(value, col.scale)  # noqa: E731
    elif family is TypeFamily.TIME:
        convert = lambda value: time_text(value, col.scale)  # noqa: E731
    elif family is TypeFamily.ENUM:
        convert = _enum(col)
    elif family is TypeFamily.SET:
        convert = _set(col)
    else:
        convert = _string(col)
    return _guarded(convert)


def _guarded(convert: Normalise) -> Normalise:
    def normalise(value: Any) -> Any:
        if type(value) is NotUTF8:
            return value
        try:
            return convert(value)
        except (ValueError, TypeError, InvalidOperation, OverflowError, struct.error):
            return Unreadable(_text(value))

    return normalise


def binary_equal(expected: Any, actual: Any) -> bool:
    """Bytes against text that a consumer decoded as Latin-1 rather than UTF-8."""
    pairs = ((expected, actual), (actual, expected))
    return any(
        isinstance(raw, bytes | bytearray | memoryview)
        and isinstance(text, str)
        and bytes(raw).decode("latin-1") == text
        for raw, text in pairs
    )
