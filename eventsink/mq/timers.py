"""The MQ DML sink's own timers: the BOOTSTRAP cadence and idle-partition HEARTBEATs.

Both decide by the encoder's clock, so under ``--clock feed`` they fire at commit-time points.
The sink asks them before each transaction (a table's first row, the message-count trigger),
after each batch and on its idle tick; a player whose clock just moved asks them through the
sink's ``run_timers`` (``eventsink.capabilities.RunsTimers``), so what they write lands at that
place in the stream. Whatever they emit goes through ``put`` (the sink counts the bytes in
flight and queues the segment to the partition's sender).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from tisink.codec.encoder import RowEventEncoder
from tisink.codec.message import Message
from tisink.eventsink.errors import EventSinkError
from tisink.eventsink.mq.heartbeats import IdlePartitions
from tisink.eventsink.mq.partition_sender import Segment
from tisink.model.table import TableInfo

if TYPE_CHECKING:
    from tisink.codec.bootstrap import BootstrapCadence, BootstrapSend

Put = Callable[[str, int, Segment], None]
"""Queue a segment to (topic, partition)."""


@runtime_checkable
class EncodesHeartbeats(Protocol):
    """The heartbeat half of ``codec.encoder.HeartbeatEncoder``, checkable at run time."""

    def encode_heartbeat(self, ts: int) -> Message: ...


class MQTimers:
    """The cadence and the heartbeats of one DML sink; either may be absent."""

    def __init__(
        self,
        encoder: RowEventEncoder,
        cadence: BootstrapCadence | None,
        heartbeats: IdlePartitions | None,
        put: Put,
    ) -> None:
        self._heartbeat_encoder: EncodesHeartbeats | None = None
        if heartbeats is not None:
            if not isinstance(encoder, EncodesHeartbeats):
                raise EventSinkError(f"{type(encoder).__name__} cannot encode heartbeats")
            self._heartbeat_encoder = encoder
        self._encoder = encoder
        self._cadence = cadence if cadence is not None and cadence.enabled else None
        self._heartbeats = heartbeats
        self._put = put
        self.enabled = self._cadence is not None or heartbeats is not None
        """False when neither is set: the sink skips asking them for every transaction."""

    def bootstrap_before(
        self, table: TableInfo, topic: str, partitions: int, rows: int
    ) -> BootstrapSend | None:
        """Count a transaction of ``table`` for the cadence: the BOOTSTRAP to queue ahead of
        it (``emit_bootstrap``), if one is due."""
        if self._cadence is None:
            return None
        return self._cadence.add_event(table, topic, partitions, rows)

    def watch(self, topic: str, partitions: int) -> None:
        """Time the partitions of a topic the sink just learnt about."""
        if self._heartbeats is not None:
            self._heartbeats.watch(topic, partitions)

    def written(self, topic: str, partitions: list[int], commit_ts: int) -> None:
        """Rows committed at ``commit_ts`` went to ``partitions`` of ``topic``."""
        if self._heartbeats is not None:
            self._heartbeats.written(topic, partitions, commit_ts)

    def run_due(self) -> None:
        """Emit the BOOTSTRAPs and HEARTBEATs due now; raises EventSinkError."""
        if self._cadence is not None:
            for send in self._cadence.tick():
                self.emit_bootstrap(send)
        self._emit_due_heartbeats()

    def emit_bootstrap(self, send: BootstrapSend) -> None:
        """One encoding, the same bytes to each partition (also a caller's planned send)."""
        try:
            message = self._encoder.encode_bootstrap(send.table)
        except Exception as err:
            raise EventSinkError(
                f"encoding the bootstrap of {send.table.qualified_name} for topic "
                f"{send.topic!r} failed: {err}"
            ) from err
        if message is None:
            return
        for partition in send.partitions:
            self._put(send.topic, partition, Segment.of_message(message))

    def _emit_due_heartbeats(self) -> None:
        """One HEARTBEAT, the same bytes to every partition idle for the interval."""
        heartbeats, encoder = self._heartbeats, self._heartbeat_encoder
        if heartbeats is None or encoder is None:
            return
        due = heartbeats.due()
        if not due:
            return
        try:
            message = encoder.encode_heartbeat(heartbeats.newest_ts)
        except Exception as err:
            raise EventSinkError(f"encoding a heartbeat failed: {err}") from err
        for topic, partitions in due.items():
            for partition in partitions:
                self._put(topic, partition, Segment.of_message(message))
