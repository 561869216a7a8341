"""Errors of table sinks: bad event order from the source, use after close, a dead event sink."""

from tisink.core.errors import TisinkError


class TableSinkError(TisinkError):
    """A table sink failed; the message names the table and the events involved."""


class EventOrderError(TableSinkError):
    """Rows reached a table sink out of commit order, or one transaction carried two commitTs.

    TiCDC panics here (``TxnEventAppender.Append``); a malformed feed is the usual cause, so we
    raise instead and name both rows so the feed line can be found.
    """


class CorruptedRowError(TableSinkError):
    """A row marked corrupted (its data did not match TiDB's checksum) reached a changefeed
    with ``[integrity] corruption-handle-level = "error"``: TiCDC stops there."""


class TableSinkClosedError(TableSinkError):
    """Rows or a resolved ts were handed to a table sink that is closing or closed."""
