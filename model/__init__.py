"""The vocabulary of tisink: tables, columns, MySQL types, change events and TSOs."""

from model.errors import ModelError, SchemaError, TisinkError
from model.events import (
    DDLEvent,
    DDLType,
    Image,
    ResolvedMode,
    ResolvedTs,
    RowChangedEvent,
    RowChecksum,
    RowOp,
    SingleTableTxn,
)
from model.mysqltypes import MYSQL_TYPES, TypeFamily, family_of
from model.table import ColumnInfo, IndexInfo, TableInfo, make_table
from model.tso import compose_ts, logical, physical_ms

__all__ = [
    "MYSQL_TYPES",
    "ColumnInfo",
    "DDLEvent",
    "DDLType",
    "Image",
    "IndexInfo",
    "ModelError",
    "ResolvedMode",
    "ResolvedTs",
    "RowChangedEvent",
    "RowChecksum",
    "RowOp",
    "SchemaError",
    "SingleTableTxn",
    "TableInfo",
    "TisinkError",
    "TypeFamily",
    "compose_ts",
    "family_of",
    "logical",
    "make_table",
    "physical_ms",
]
