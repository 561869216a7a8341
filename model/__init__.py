"""The vocabulary of tisink: tables, columns, MySQL types, change events and TSOs."""

from tisink.core.errors import TisinkError
from tisink.model.errors import ModelError, SchemaError
from tisink.model.events import (
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
from tisink.model.mysqltypes import MYSQL_TYPES, TypeFamily, family_of
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo, make_table
from tisink.model.tso import compose_ts, logical, physical_ms

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
