"""tisink's tablesink layer: TableSink, row and txn appenders, the progress tracker (DESIGN.md)."""

from tablesink.appender import Appender, RowAppender, TxnAppender
from tablesink.errors import EventOrderError, TableSinkClosedError, TableSinkError
from tablesink.progress import ProgressTracker
from tablesink.table_sink import TableSink

__all__ = [
    "Appender",
    "EventOrderError",
    "ProgressTracker",
    "RowAppender",
    "TableSink",
    "TableSinkClosedError",
    "TableSinkError",
    "TxnAppender",
]
