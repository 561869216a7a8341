"""The JSON ``tableSchema`` object of DDL and BOOTSTRAP messages (spec 1.2).

Key order follows TiCDC's ``TableSchema``/``columnSchema``/``dataType``/``IndexSchema`` structs.
Columns are in the TableInfo's order (ticdc: TiDB offset order) and include virtual generated
ones; indexes are as the TableInfo lists them, which for a feed already ends with TiDB's
synthetic ``primary`` index when the table has an int clustered key.
"""

from __future__ import annotations

from typing import Any

from tisink.codec.errors import CodecError
from tisink.codec.values import bit_default_number, float64_text
from tisink.model.mysqltypes import TypeFamily
from tisink.model.table import ColumnInfo, TableInfo

_NO_DECIMAL = frozenset((TypeFamily.FLOAT, TypeFamily.DOUBLE))


def drops_pre_table_schema(newarch: bool) -> bool:
    """Whether a DDL message under ``newarch`` goes without ``preTableSchema``: ticdc writes it
    only for a DDL event holding two table infos (b813e76f ``simple/message.go``
    ``newDDLMessage`` and ``avro.go``: EXCHANGE PARTITION, which tisink's model has not); a
    RENAME TABLE, ALTER, TRUNCATE or DROP has none, so a consumer finds a renamed table's old
    name by its ``tableID`` (examples/consumers/simple_consumer.py). tiflow writes the table
    before the DDL (``PreTableInfo``) for every DDL but CREATE."""
    return newarch


def schema_columns(table: TableInfo, newarch: bool = True) -> tuple[ColumnInfo, ...]:
    """The columns of a ``tableSchema``: ticdc (``newarch``) in table order; tiflow sorts them
    by column id first (``newTableSchema``'s ``sort.SliceStable``), which differs after an
    ``ADD COLUMN ... FIRST``/``AFTER`` or a reordering ``MODIFY``."""
    if newarch:
        return table.columns
    return tuple(sorted(table.columns, key=lambda c: c.id))


def table_schema(table: TableInfo, newarch: bool = True) -> dict[str, Any]:
    """``tableSchema`` as an insertion-ordered dict ready for ``go_dumps``."""
    return {
        "schema": table.schema,
        "table": table.table,
        "tableID": table.table_id,
        "version": table.version,
        "columns": [_column(table, c) for c in schema_columns(table, newarch)],
        "indexes": [
            {
                "name": index.name,
                "unique": index.unique,
                "primary": index.primary,
                "nullable": table.index_nullable(index),
                "columns": list(index.columns),
            }
            for index in table.indexes
        ],
    }


def _column(table: TableInfo, column: ColumnInfo) -> dict[str, Any]:
    data_type: dict[str, Any] = {
        "mysqlType": column.mysql_type,
        "charset": column.charset,
        "collate": column.collate,
    }
    if column.length:
        data_type["length"] = column.length
    # TiDB's Decimal is -1 for plain float/double, so TiCDC never writes it for them.
    if column.decimal and column.family not in _NO_DECIMAL:
        data_type["decimal"] = column.decimal
    if column.elements:
        data_type["elements"] = list(column.elements)
    if column.unsigned:
        data_type["unsigned"] = True
    if column.zerofill:
        data_type["zerofill"] = True
    return {
        "name": column.name,
        "dataType": data_type,
        "nullable": column.nullable,
        "default": _default(table, column),
    }


def _default(table: TableInfo, column: ColumnInfo) -> str | int | None:
    default = column.default
    try:
        if column.family is TypeFamily.BIT:
            return bit_default_number(default)
    except CodecError as err:
        raise CodecError(f"table {table.qualified_name}: column {column.name!r}: {err}") from err
    if default is None or isinstance(default, str):
        return default
    # A feed may give a numeric default as a number; TiDB stores it as its text.
    if isinstance(default, int) and not isinstance(default, bool):
        return str(default)
    if isinstance(default, float):
        return float64_text(default)
    raise CodecError(
        f"table {table.qualified_name}: column {column.name!r}: default {default!r} is not a "
        "string or number"
    )
