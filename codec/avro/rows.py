"""A table version's Avro records: the key and value columns with their converters, and the
schema texts (tiflow ``columns2AvroData``, ``nativeValueWithExtension``).

Built once per table version; ``key`` and ``value`` turn a row image into the dict fastavro
writes, named by the sanitized column names. A NULL stays None (the union's ``null``).
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tisink.codec.avro import columns, schema
from tisink.codec.avro.options import AvroOptions
from tisink.codec.checksum import row_checksum as checksum_of
from tisink.codec.errors import CodecError
from tisink.codec.names import sanitize_name
from tisink.codec.values.checks import VALUE_ERRORS
from tisink.model.events import RowChangedEvent
from tisink.model.table import ColumnInfo, TableInfo

INSERT_OP = "c"
UPDATE_OP = "u"
PHYSICAL_SHIFT = 18
"""A TSO's logical bits: ``commit_ts >> 18`` is its physical time in ms (``oracle``)."""

_Field = tuple[str, str, columns.Converter]


def _fields(
    table: TableInfo, cols: tuple[ColumnInfo, ...], options: AvroOptions, tz: datetime.tzinfo
) -> tuple[_Field, ...]:
    return tuple((c.name, sanitize_name(c.name), columns.converter(c, options, tz)) for c in cols)


@dataclass(frozen=True, slots=True)
class TableRecords:
    """The key and value records of one table version."""

    table: TableInfo
    key_schema: str | None
    value_schema: str
    key_fields: tuple[_Field, ...]
    value_fields: tuple[_Field, ...]

    @classmethod
    def build(
        cls,
        table: TableInfo,
        options: AvroOptions,
        tz: datetime.tzinfo,
        row_checksum: bool,
        namespace: str = schema.DEFAULT_NAMESPACE,
    ) -> TableRecords:
        keys = schema.key_columns(table, options.newarch)
        values = schema.value_columns(table, row_checksum, options.newarch)
        for column in values:
            if column.virtual and not column.nullable:
                # ticdc's goavro cannot write the NULL its chunk row holds for it
                raise CodecError(
                    f"table {table.qualified_name}: virtual generated column {column.name!r} "
                    "is NOT NULL: TiCDC's Avro value writes it as NULL, which its type refuses"
                )
        return cls(
            table,
            schema.key_schema(table, options, namespace) if keys else None,
            schema.value_schema(table, options, row_checksum, namespace),
            _fields(table, keys, options, tz),
            _fields(table, values, options, tz),
        )

    def key(self, image: Mapping[str, Any]) -> dict[str, Any]:
        return self._native(self.key_fields, image)

    def value(self, image: Mapping[str, Any]) -> dict[str, Any]:
        return self._native(self.value_fields, image)

    def _virtual(self, name: str) -> bool:
        """A virtual generated column: rows do not carry it, ticdc writes NULL."""
        column = self.table.column_by_name.get(name)
        return column is not None and column.virtual

    def _native(self, fields: tuple[_Field, ...], image: Mapping[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, avro_name, convert in fields:
            try:
                value = image[name] if name in image or not self._virtual(name) else None
                out[avro_name] = None if value is None else convert(value)
            except VALUE_ERRORS as err:
                raise CodecError(
                    f"table {self.table.qualified_name}: column {name!r}: "
                    f"cannot write {image.get(name)!r} as Avro: {err}"
                    if name in image
                    else f"table {self.table.qualified_name}: column {name!r}: "
                    "missing from the row image"
                ) from err
        return out


def extension(row: RowChangedEvent, row_checksum: bool) -> dict[str, Any]:
    """The TiDB extension fields of a row's value (and the checksum fields, when on)."""
    out: dict[str, Any] = {
        schema.TIDB_OP: INSERT_OP if row.is_insert else UPDATE_OP if row.is_update else "",
        schema.TIDB_COMMIT_TS: row.commit_ts,
        schema.TIDB_PHYSICAL_TIME: row.commit_ts >> PHYSICAL_SHIFT,
    }
    if row_checksum:
        # The row's own checksum (a feed's, a fault's), else TiDB's V2 one (codec/checksum.py).
        checksum = row.checksum or checksum_of(row)
        out[schema.TIDB_ROW_CHECKSUM] = str(checksum.current)
        out[schema.TIDB_CORRUPTED] = checksum.corrupted
        out[schema.TIDB_CHECKSUM_VERSION] = checksum.version
    return out
