"""Per table version, everything a DML entry repeats: the ``columns`` list, the header's table
names, and one renderer per column that turns a value into a finished ``Data`` field.

Built once per (table id, version, name), so the row path only converts values and glues
precomputed prefixes: the tag, length, ``dataType``, ``charset`` and the value's own tag and
length depend on the column and the value's length alone.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tisink.codec.dts.mysql_codes import original_type
from tisink.codec.dts.tencent.enums import SV_TYPES, DataType, DMLType
from tisink.codec.dts.tencent.values import ToBytes, data_kind
from tisink.codec.dts.tencent.wire import LEN, field_bytes, field_text, field_varint, tag, varint
from tisink.codec.errors import CodecError
from tisink.model.events import RowChangedEvent
from tisink.model.table import ColumnInfo, TableInfo

OLD_COLUMNS = 1
NEW_COLUMNS = 2
ROW = tag(3, LEN)
"""``DMLEvent.rows``."""
DML_TYPE = tuple(field_varint(1, t) for t in DMLType)
"""``DMLEvent.dmlEventType`` by DMLType, written even for INSERT (0)."""
_MISSING = object()

Slot = tuple[str, ToBytes, dict[int, bytes], Callable[[int], bytes], bytes, bytes]
"""(column name, value -> bytes, prefix by value length, prefix maker, NIL field, NA field)."""


def column_message(column: ColumnInfo, is_key: bool) -> bytes:
    """``Column{name, originalType, isKey}``."""
    out = field_text(1, column.name) + field_text(2, original_type(column))
    return out + field_varint(3, 1) if is_key else out


def _slot(column: ColumnInfo, outer: int, tz: datetime.tzinfo) -> Slot:
    data_type, charset, to_bytes = data_kind(column, tz)
    head = field_varint(1, data_type) + field_text(2, charset)
    head += tag(3 if data_type in SV_TYPES else 4, LEN)
    outer_tag = tag(outer, LEN)
    prefixes: dict[int, bytes] = {}

    def prefix(size: int) -> bytes:
        length = varint(size)
        made = outer_tag + varint(len(head) + len(length) + size) + head + length
        if size < 4096:
            prefixes[size] = made
        return made

    nil = field_bytes(outer, field_varint(1, DataType.NIL))
    na = field_bytes(outer, field_varint(1, DataType.NA))
    return (column.name, to_bytes, prefixes, prefix, nil, na)


class TableCodec:
    """One table version as DML entries need it."""

    def __init__(self, table: TableInfo, tz: datetime.tzinfo) -> None:
        self.table = table
        columns = table.stored_columns
        keys = set(table.handle_key)
        self.columns_field = b"".join(
            field_bytes(2, column_message(c, c.name in keys)) for c in columns
        )
        self.names_field = field_text(9, table.schema) + field_text(10, table.table)
        self._old = [_slot(c, OLD_COLUMNS, tz) for c in columns]
        self._new = [_slot(c, NEW_COLUMNS, tz) for c in columns]

    def old_columns(self, image: Mapping[str, Any]) -> list[bytes]:
        """The ``oldColumns`` fields of a before image, as parts to join."""
        return self._render(image, self._old)

    def new_columns(self, image: Mapping[str, Any]) -> list[bytes]:
        """The ``newColumns`` fields of an after image, as parts to join."""
        return self._render(image, self._new)

    def _render(self, image: Mapping[str, Any], slots: list[Slot]) -> list[bytes]:
        parts: list[bytes] = []
        append = parts.append
        get = image.get
        name = ""
        try:
            for name, to_bytes, prefixes, prefix, nil, na in slots:
                value = get(name, _MISSING)
                if value is None:
                    append(nil)
                elif value is _MISSING:
                    append(na)
                else:
                    raw = to_bytes(value)
                    append(prefixes.get(len(raw)) or prefix(len(raw)))
                    append(raw)
        except CodecError as err:
            raise CodecError(f"table {self.table.qualified_name}: {err}") from err
        except (ValueError, TypeError, AttributeError, OverflowError, UnicodeError) as err:
            raise CodecError(
                f"table {self.table.qualified_name}: column {name!r}: cannot encode "
                f"{get(name)!r}: {type(err).__name__}: {err}"
            ) from err
        return parts

    def dml_body(
        self, kind: DMLType, rows: Sequence[RowChangedEvent], start: int, end: int
    ) -> bytes:
        """``DMLEvent`` of ``rows[start:end]``, all of this table and of DML type ``kind``."""
        parts = [DML_TYPE[kind], self.columns_field]
        append = parts.append
        for index in range(start, end):
            row = rows[index]
            if kind is DMLType.INSERT:
                fields = self._render(row.after, self._new)  # type: ignore[arg-type]
            elif kind is DMLType.DELETE:
                fields = self._render(row.before, self._old)  # type: ignore[arg-type]
            else:
                fields = self._render(row.before, self._old) + self._render(row.after, self._new)  # type: ignore[arg-type]
            change = b"".join(fields)
            append(ROW + varint(len(change)))
            append(change)
        return b"".join(parts)
