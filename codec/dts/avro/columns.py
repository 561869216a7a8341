"""Row images as Avro bytes, compiled once per table version (the fast path).

An image is ``array<[null, Integer, Character, Decimal, Float, ...]>``: for each column we
precompute the union branch plus the value record's leading constant fields (``prefix``) and a
writer for the rest, so a row costs one dict lookup and one writer call per column.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tisink.codec.dts.avro.convert import integer_text
from tisink.codec.dts.avro.mapping import BRANCH, ValueMapping, ValueType
from tisink.codec.dts.avro.temporal import DateTimeParts
from tisink.codec.dts.avro.wire import blob_bytes, double_bytes, long_bytes, str_bytes, text_bytes
from tisink.codec.errors import CodecError
from tisink.codec.values.checks import VALUE_ERRORS
from tisink.model.events import RowChangedEvent

ValueWriter = Callable[[Any], bytes]
ColumnWriter = tuple[str, bytes, ValueWriter]
"""(column name, union branch + leading constants, value -> the record's remaining bytes)."""

NULL = b"\x00"
"""The union's null branch: SQL NULL, and also the whole of an absent optional field."""
END_OF_BLOCKS = b"\x00"


def _datetime(parts: DateTimeParts) -> bytes:
    return b"".join([NULL if p is None else b"\x02" + long_bytes(p) for p in parts])


def _integer(value: int) -> bytes:
    """Integer.value: the decimal text (``mapping.integer_text``, inlined for speed)."""
    if type(value) is not int:
        raise TypeError(f"expected an integer, got {value!r}")
    return blob_bytes(b"%d" % value)


_MEMO_LIMIT = 1 << 12


def _plain(write: ValueWriter) -> ValueWriter:
    return write


class Memoised:
    """``write`` remembering its last few thousand results: temporal and ENUM values repeat
    from row to row (one second, one day, a few members), their parsing is the costly part.
    Only for columns whose feed values are hashable (text, int). ``memo`` is public so that
    compiled images can look a value up before calling."""

    __slots__ = ("_write", "memo")

    def __init__(self, write: ValueWriter) -> None:
        self._write = write
        self.memo: dict[Any, bytes] = {}

    def __call__(self, value: Any) -> bytes:
        found = self.memo.get(value)
        if found is None:
            found = self._write(value)
            if len(self.memo) >= _MEMO_LIMIT:
                self.memo.clear()
            self.memo[value] = found
        return found


def _value_writer(mapping: ValueMapping) -> tuple[bytes, ValueWriter]:
    """The prefix and the writer of one column, each specialised to its value record."""
    convert = mapping.convert
    branch = long_bytes(BRANCH[mapping.value_type.value])
    kind = mapping.value_type
    if kind is ValueType.INTEGER:
        write = _integer if convert is integer_text else lambda v: text_bytes(convert(v))
        return branch + long_bytes(mapping.constants[0]), write
    if kind in (ValueType.CHARACTER, ValueType.BINARY_OBJECT):
        # Character: charset then bytes; BinaryObject: type label then bytes
        return branch + str_bytes(mapping.constants[0]), lambda v: blob_bytes(convert(v))
    if kind is ValueType.TEXT_OBJECT:
        text = Memoised if mapping.constants[0] == "ENUM" else _plain
        return branch + str_bytes(mapping.constants[0]), text(lambda v: text_bytes(convert(v)))
    if kind in (ValueType.DECIMAL, ValueType.FLOAT):
        precision, scale = mapping.constants
        suffix = long_bytes(precision) + long_bytes(scale)
        if kind is ValueType.DECIMAL:
            return branch, lambda v: text_bytes(convert(v)) + suffix
        return branch, lambda v: double_bytes(convert(v)) + suffix
    if kind is ValueType.TIMESTAMP:

        def timestamp(value: Any) -> bytes:
            seconds, micros = convert(value)
            return long_bytes(seconds) + long_bytes(micros)

        return branch, Memoised(timestamp)
    if kind is ValueType.DATETIME:
        return branch, Memoised(lambda v: _datetime(convert(v)))
    raise AssertionError(f"unhandled value type {kind}")  # every ValueType is listed above


def column_writers(names: Sequence[str], mappings: Sequence[ValueMapping]) -> list[ColumnWriter]:
    """The writers of a table's stored columns, in column order."""
    writers: list[ColumnWriter] = []
    for name, mapping in zip(names, mappings, strict=True):
        prefix, write = _value_writer(mapping)
        writers.append((name, prefix, write))
    return writers


def image_bytes(image: dict[str, Any], writers: list[ColumnWriter]) -> bytes:
    """One image array (one block, then the end marker), without the enclosing union branch.

    KeyError, TypeError, ValueError or OverflowError when a column is missing or its value does
    not fit; the record writer turns that into a CodecError naming the column.
    """
    if not writers:
        return END_OF_BLOCKS
    parts: list[bytes] = [long_bytes(len(writers))]
    append = parts.append
    for name, prefix, write in writers:
        value = image[name]
        if value is None:
            append(NULL)
        else:
            append(prefix)
            append(write(value))
    append(END_OF_BLOCKS)
    return b"".join(parts)


"""What a writer raises on a value that does not fit its column (UnicodeError is a ValueError)."""


def encode_image(row: RowChangedEvent, image: dict[str, Any], writers: list[ColumnWriter]) -> bytes:
    """``image_bytes``, with any failure turned into a CodecError naming table and column."""
    try:
        return image_bytes(image, writers)
    except VALUE_ERRORS as err:
        raise diagnose(row, image, writers, err) from err


def diagnose(
    row: RowChangedEvent, image: dict[str, Any], writers: list[ColumnWriter], err: Exception
) -> CodecError:
    """Find the column that failed, so the error names the table, the column and the value."""
    for name, _prefix, write in writers:
        if name not in image:
            return CodecError(f"{row.describe()}: image lacks column {name!r}")
        value = image[name]
        if value is None:
            continue
        try:
            write(value)
        except VALUE_ERRORS as cause:
            column = row.table.column_by_name[name]
            return CodecError(
                f"{row.describe()}: column {name!r} value {value!r} cannot be encoded as "
                f"{column.mysql_type}: {cause}"
            )
    return CodecError(f"{row.describe()}: cannot encode row image: {err!r}")
