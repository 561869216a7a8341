"""The encoder interface every protocol implements (TiCDC's ``RowEventEncoder``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

from tisink.codec.message import EncodedRows, Message
from tisink.model.events import DDLEvent, RowChangedEvent
from tisink.model.table import TableInfo


class RowEventEncoder(Protocol):
    """Turns events into messages. Pure: no I/O, no shared state between instances.

    ``message_per_row`` True means ``encode_rows`` gives one record per row, in row order, so
    the MQ sink may encode a whole transaction and then split the records by partition. False
    means the protocol frames several rows into one message (or adds BEGIN/COMMIT records): the
    sink then routes first and calls ``encode_rows`` once per partition's share of a txn.
    """

    message_per_row: bool

    def encode_rows(self, rows: Sequence[RowChangedEvent]) -> EncodedRows:
        """The DML records of a run of rows of one transaction, in order; raises
        MessageTooLargeError when a row cannot fit and no fallback applies."""
        ...

    def encode_ddl(self, ddl: DDLEvent) -> Message | None:
        """A DDL message; None when the protocol does not send this DDL."""
        ...

    def encode_bootstrap(self, table: TableInfo) -> Message | None:
        """A BOOTSTRAP message announcing ``table``; None for protocols without bootstraps."""
        ...

    def encode_checkpoint(self, ts: int) -> Message | None:
        """A WATERMARK (checkpoint) message for ``ts``; None for protocols without one."""
        ...


@runtime_checkable
class FileHeaderEncoder(Protocol):
    """An encoder whose files start with a header line (CSV's ``output-field-header``)."""

    def header(self, table: TableInfo) -> bytes:
        """The first line of a file of ``table`` (b"" for none)."""
        ...


class HeartbeatEncoder(RowEventEncoder, Protocol):
    """The encoder of a protocol whose spec has ``sends_heartbeat``: the MQ sink asks it for a
    HEARTBEAT when a partition has been idle (DTS streams carry them, spec/dts-formats.md 2.4)."""

    def encode_heartbeat(self, ts: int) -> Message:
        """A HEARTBEAT placed after the rows committed at ``ts`` (the newest commit ts the sink
        wrote, 0 before any) and timed by the encoder's clock."""
        ...


@runtime_checkable
class TopicAwareEncoder(Protocol):
    """An encoder whose bytes depend on the topic a row goes to (Avro names its registry
    subjects after it): the sink hands it the router's ``topic_for_table``."""

    def use_topics(self, topic_for: Callable[[str, str], str]) -> None:
        """Name topics with ``topic_for(schema, table)`` from now on."""
        ...


def use_router_topics(encoder: RowEventEncoder, topic_for: Callable[[str, str], str]) -> None:
    """Give a ``TopicAwareEncoder`` the sink's topics; other encoders need none."""
    if isinstance(encoder, TopicAwareEncoder):
        encoder.use_topics(topic_for)
