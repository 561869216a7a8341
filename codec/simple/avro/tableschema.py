"""The Avro ``TableSchema`` record of BOOTSTRAP and DDL messages (spec 3.2), following ticdc.

It differs from JSON's ``tableSchema``: the database key is ``database``; ``DataType.length`` is
always written; ``decimal`` is set for decimal and timestamp columns only (ticdc; tiflow sets it
for decimal only); ``unsigned``/``zerofill`` are set, possibly false, for the numeric types and
null otherwise; and a column default is TiDB's raw default string, BIT included.
"""

from __future__ import annotations

from tisink.codec.errors import CodecError
from tisink.codec.simple.avro.wire import (
    array_bytes,
    as_int64,
    bool_bytes,
    long_bytes,
    optional,
    raw_bytes,
    str_bytes,
)
from tisink.codec.simple.json_schema import schema_columns
from tisink.codec.values import bit_default_number, float64_text, json_text
from tisink.model.mysqltypes import TypeFamily
from tisink.model.table import ColumnInfo, TableInfo

FLAGGED_TYPES = frozenset(
    ("tinyint", "smallint", "mediumint", "int", "bigint", "float", "double", "decimal", "bit")
) | {"year"}
"""Types whose DataType carries ``unsigned`` and ``zerofill`` (possibly false)."""

SCALED_TYPES = frozenset(("decimal", "timestamp"))
"""Types whose DataType carries ``decimal`` in ticdc's Avro schema."""


def raw_default(column: ColumnInfo) -> bytes | None:
    """TiDB's stored default as the bytes goavro writes, or None for no default.

    The feed holds defaults the way Simple JSON shows them: strings, except BIT, which is the
    number JSON prints. TiDB keeps a BIT default as its big-endian bytes, ``(length + 7) // 8``
    of them, and ticdc writes those bytes raw into the Avro string (they need not be UTF-8), so
    a BIT default in any form ``bit_default_number`` reads is packed back into that form:
    ``bit(10) default b'1010101010'`` (JSON ``682``) is the two bytes ``02 aa``. Any other
    non-string default (a number or JSON value a hand-written feed may carry) is written as
    its text.
    """
    default = column.default
    if default is None:
        return None
    if column.family is TypeFamily.BIT:
        number = bit_default_number(default)
        assert number is not None  # the default is not None
        width = max(1, (column.length + 7) // 8)
        try:
            return number.to_bytes(width, "big")
        except OverflowError as err:
            raise CodecError(
                f"column {column.name!r}: BIT default {default!r} does not fit bit({column.length})"
            ) from err
    if isinstance(default, str):
        return default.encode()
    if isinstance(default, bool):
        return b"1" if default else b"0"
    if isinstance(default, int):
        return str(default).encode()
    if isinstance(default, float):
        return float64_text(default).encode()
    return json_text(default).encode()


def data_type_bytes(column: ColumnInfo, newarch: bool = True) -> bytes:
    """The ``DataType`` record of one column; tiflow (not ``newarch``) gives TIMESTAMP no
    ``decimal``."""
    mysql_type = column.mysql_type
    scaled = mysql_type in SCALED_TYPES if newarch else mysql_type == "decimal"
    decimal = long_bytes(column.decimal) if scaled else None
    elements = None
    if column.family in (TypeFamily.ENUM, TypeFamily.SET):
        elements = array_bytes([str_bytes(e) for e in column.elements])
    unsigned = zerofill = None
    if mysql_type in FLAGGED_TYPES:
        unsigned = bool_bytes(column.unsigned)
        zerofill = bool_bytes(column.zerofill)
    return b"".join(
        (
            str_bytes(mysql_type),
            str_bytes(column.charset),
            str_bytes(column.collate),
            long_bytes(column.length),
            optional(decimal),
            optional(elements),
            optional(unsigned),
            optional(zerofill),
        )
    )


def column_schema_bytes(column: ColumnInfo, newarch: bool = True) -> bytes:
    """The ``ColumnSchema`` record: name, dataType, nullable and the raw default."""
    default = raw_default(column)
    return b"".join(
        (
            str_bytes(column.name),
            data_type_bytes(column, newarch),
            bool_bytes(column.nullable),
            optional(None if default is None else raw_bytes(default)),
        )
    )


def table_schema_bytes(table: TableInfo, newarch: bool = True) -> bytes:
    """The ``TableSchema`` record; every column, virtual generated ones included (tiflow, not
    ``newarch``: sorted by column id, as in its JSON)."""
    try:
        columns = [column_schema_bytes(c, newarch) for c in schema_columns(table, newarch)]
    except CodecError as err:
        raise CodecError(f"table {table.qualified_name}: {err}") from err
    indexes = [
        b"".join(
            (
                str_bytes(index.name),
                bool_bytes(index.unique),
                bool_bytes(index.primary),
                bool_bytes(table.index_nullable(index)),
                array_bytes([str_bytes(name) for name in index.columns]),
            )
        )
        for index in table.indexes
    ]
    return b"".join(
        (
            str_bytes(table.schema),
            str_bytes(table.table),
            long_bytes(table.table_id),
            long_bytes(as_int64(table.version)),
            array_bytes(columns),
            array_bytes(indexes),
        )
    )
