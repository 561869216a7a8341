"""What a sink is handed: rows and transactions of one table, DDLs, and the tables' schemas.

``Batch.txns`` holds ``SingleTableTxn``s of ``RowChangedEvent``s; a bare ``EventSink`` gets
``CallbackableEvent``s whose ``sink_state`` says whether the table is closing
(``TableSinkState.STOPPING``: acknowledge without writing).
"""

from tisink.eventsink.base import StateRef, TableSinkState
from tisink.model.events import (
    DDLEvent,
    DDLType,
    Image,
    ResolvedTs,
    RowChangedEvent,
    RowOp,
    SingleTableTxn,
)
from tisink.model.mysqltypes import TypeFamily
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo

__all__ = [
    "ColumnInfo",
    "DDLEvent",
    "DDLType",
    "Image",
    "IndexInfo",
    "ResolvedTs",
    "RowChangedEvent",
    "RowOp",
    "SingleTableTxn",
    "StateRef",
    "TableInfo",
    "TableSinkState",
    "TypeFamily",
]
