"""tisink's tablesink layer: TableSink, row and txn appenders, the progress tracker (DESIGN.md)."""

from tisink.tablesink.ack_latency import AckLatency
from tisink.tablesink.appender import Appender, RowAppender, TxnAppender
from tisink.tablesink.errors import (
    CorruptedRowError,
    EventOrderError,
    TableSinkClosedError,
    TableSinkError,
)
from tisink.tablesink.latency_report import LatencyReport, merge_reports
from tisink.tablesink.progress import ProgressTracker
from tisink.tablesink.table_sink import TableSink

__all__ = [
    "AckLatency",
    "Appender",
    "CorruptedRowError",
    "EventOrderError",
    "LatencyReport",
    "ProgressTracker",
    "RowAppender",
    "TableSink",
    "TableSinkClosedError",
    "TableSinkError",
    "TxnAppender",
    "merge_reports",
]
