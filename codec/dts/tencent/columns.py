"""Per table version, everything a DML entry repeats: the ``columns`` list, the header's table
names, and per column a converter and the ``Data`` prefix by value length.

Built once per (table id, version, name), so the row path only converts values and glues
precomputed prefixes: the tag, length, ``dataType``, ``charset`` and the value's own tag and
length depend on the column and the value's length alone. Rows go through renderers compiled
per DML type on first use (``render``); the column loop here is their fallback.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from tisink.codec.dts.mysql_codes import original_type
from tisink.codec.dts.tencent.enums import SV_TYPES, DataType, DMLType
from tisink.codec.dts.tencent.render import Prefixes, RowRenderer, compile_change
from tisink.codec.dts.tencent.values import ToBytes, data_kind
from tisink.codec.dts.tencent.wire import (
    LEN,
    field_bytes,
    field_text,
    field_varint,
    tag,
    varint,
)
from tisink.codec.errors import CodecError
from tisink.codec.values.varint import SHORT_LIMIT, SHORT_VARINTS
from tisink.model.events import RowChangedEvent
from tisink.model.table import ColumnInfo, TableInfo

OLD_COLUMNS = 1
NEW_COLUMNS = 2
ROW = tag(3, LEN)
"""``DMLEvent.rows``."""
DML_TYPE = tuple(field_varint(1, t) for t in DMLType)
"""``DMLEvent.dmlEventType`` by DMLType, written even for INSERT (0)."""
_MISSING = object()

Slot = tuple[str, ToBytes, Prefixes, bytes, bytes]
"""(column name, value -> bytes, Data prefix by value length, NIL field, NA field)."""
_CACHED_SIZES = 4096
"""Prefixes of values up to this length are kept; longer values are rare and vary."""


def column_message(column: ColumnInfo, is_key: bool) -> bytes:
    """``Column{name, originalType, isKey}``."""
    out = field_text(1, column.name) + field_text(2, original_type(column))
    return out + field_varint(3, 1) if is_key else out


def _slot(column: ColumnInfo, outer: int, tz: datetime.tzinfo) -> Slot:
    data_type, charset, to_bytes = data_kind(column, tz)
    head = field_varint(1, data_type) + field_text(2, charset)
    head += tag(3 if data_type in SV_TYPES else 4, LEN)
    outer_tag = tag(outer, LEN)

    def prefix(size: int) -> bytes:
        length = varint(size)
        made = outer_tag + varint(len(head) + len(length) + size) + head + length
        if size < _CACHED_SIZES:
            prefixes[size] = made
        return made

    prefixes = Prefixes(prefix)
    nil = field_bytes(outer, field_varint(1, DataType.NIL))
    na = field_bytes(outer, field_varint(1, DataType.NA))
    return (column.name, to_bytes, prefixes, nil, na)


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
        self.body_head = tuple(kind + self.columns_field for kind in DML_TYPE)
        """``dmlEventType`` and ``columns`` by DMLType: what every DMLEvent starts with."""
        self._old = [_slot(c, OLD_COLUMNS, tz) for c in columns]
        self._new = [_slot(c, NEW_COLUMNS, tz) for c in columns]
        self._compiled: list[RowRenderer] = [partial(self._compile, kind) for kind in DMLType]
        """By DMLType; each compiled on its first row (a table may never see a DELETE)."""

    def _compile(self, kind: DMLType, row: RowChangedEvent) -> bytes:
        """Compile ``kind``'s renderer in place (once: a caller may hold this stub for a
        whole run of rows), then render ``row`` with it."""
        render = self._compiled[kind]
        if isinstance(render, partial):
            old, new = [s[:4] for s in self._old], [s[:4] for s in self._new]
            render = self._compiled[kind] = compile_change(kind, old, new)
        return render(row)

    def _render(self, image: Mapping[str, Any], slots: list[Slot]) -> list[bytes]:
        parts: list[bytes] = []
        append = parts.append
        get = image.get
        name = ""
        try:
            for name, to_bytes, prefixes, nil, na in slots:
                value = get(name, _MISSING)
                if value is None:
                    append(nil)
                elif value is _MISSING:
                    append(na)
                else:
                    raw = to_bytes(value)
                    append(prefixes[len(raw)])
                    append(raw)
        except CodecError as err:
            raise CodecError(f"table {self.table.qualified_name}: {err}") from err
        except (ValueError, TypeError, AttributeError, OverflowError, UnicodeError) as err:
            raise CodecError(
                f"table {self.table.qualified_name}: column {name!r}: cannot encode "
                f"{get(name)!r}: {type(err).__name__}: {err}"
            ) from err
        return parts

    def change_by_loop(self, kind: DMLType, row: RowChangedEvent) -> bytes:
        """One ``RowChange`` by the column loop: the before image's fields (UPDATE, DELETE),
        then the after image's (INSERT, UPDATE). The compiled renderers' fallback for a
        missing column (``NA``) or a value that does not convert (the error names the column),
        and their reference in tests."""
        parts = [] if kind is _INSERT else self._render(row.before, self._old)  # type: ignore[arg-type]
        if kind is not _DELETE:
            parts += self._render(row.after, self._new)  # type: ignore[arg-type]
        return b"".join(parts)

    def run(self, kind: DMLType, rows: Sequence[RowChangedEvent]) -> tuple[list[bytes], int]:
        """``DMLEvent`` of ``rows`` (this table's, of DML type ``kind``) as parts, and its
        size: per row its ``RowChange`` by the compiled renderer, or by the column loop when
        that raises."""
        head = self.body_head[kind]
        if len(rows) == 1:  # the commonest share at one row per transaction: no loop
            try:
                fields = self._compiled[kind](rows[0])
            except Exception:
                fields = self.change_by_loop(kind, rows[0])
            length = len(fields)
            prefix = SHORT_VARINTS[length] if length < SHORT_LIMIT else varint(length)
            return [head, ROW, prefix, fields], len(head) + 1 + len(prefix) + length
        parts = [head]
        compiled = self._compiled[kind]
        for row in rows:
            try:
                fields = compiled(row)
            except Exception:
                fields = self.change_by_loop(kind, row)
            length = len(fields)
            parts += (
                ROW,
                SHORT_VARINTS[length] if length < SHORT_LIMIT else varint(length),
                fields,
            )
        return parts, sum(map(len, parts))


_INSERT, _DELETE = DMLType.INSERT, DMLType.DELETE
