"""The MQ DML sink (TiCDC ``cdc/sink/dmlsink/mq/mq_dml_sink.go`` and its worker).

``write_events`` only queues transactions. One worker task takes them in order, a transaction
at a time: route its rows (topic, partitions), let the bootstrap cadence put a BOOTSTRAP ahead of
a table's first row, encode the rows and queue one segment per partition the transaction
touches. A txn's callback fires once every segment is acknowledged, which is what lets the
table sink's checkpoint move (spec 7.2). Routing and encoding go through a ``TxnEncoder``: in
process, or with ``encoder-concurrency`` in encoder processes (``encoder_group``); either way
runs of txns go out as requests and are queued, cadence first, in the order they were taken.

Memory is bounded by bytes in flight (encoded, not yet acknowledged): the worker pauses between
transactions once they pass ``max_inflight_bytes`` (so the bound may be exceeded by one
transaction), and callers that feed the sink await ``wait_for_capacity()`` before handing it
more, which is how back-pressure reaches the player.

For protocols that send heartbeats, ``heartbeats`` times each partition's last DML message; the
worker writes a HEARTBEAT to every partition idle for the interval after each batch and on its
idle tick.
"""

from __future__ import annotations

import asyncio
import logging
import pickle
from collections import deque
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, cast

from tisink.codec.encoder import HeartbeatEncoder, RowEventEncoder
from tisink.codec.message import MessageType
from tisink.eventsink.base import CallbackableEvent, TableSinkState
from tisink.eventsink.capabilities import acknowledged_ends
from tisink.eventsink.errors import EventSinkError, SinkDeadError
from tisink.eventsink.mq.claim_check import store_claim_check
from tisink.eventsink.mq.heartbeats import IdlePartitions
from tisink.eventsink.mq.partition_sender import Delivery, Segment
from tisink.eventsink.mq.producer import Producer
from tisink.eventsink.mq.senders import TopicSenders
from tisink.eventsink.mq.stats import MQStats
from tisink.eventsink.mq.txn_encoding import (
    EncodedTxn,
    FailedTxn,
    InlineEncoder,
    Result,
    TxnEncoder,
)
from tisink.eventsink.stats import AckedSeconds, AcknowledgedEnds, SinkStats
from tisink.model.events import RowChangedEvent, SingleTableTxn

if TYPE_CHECKING:
    from tisink.codec.bootstrap import BootstrapCadence, BootstrapSend
    from tisink.eventsink.router import EventRouter

log = logging.getLogger(__name__)

_DML = MessageType.DML

IDLE_TICK_SECONDS = 1.0
"""How often an idle worker still asks the cadence for due bootstraps (TiCDC ticks every 5 s
whether or not rows arrive, so idle tables keep getting bootstraps) and for due heartbeats."""

_Pending = tuple[SingleTableTxn, Callable[[], None], str, int]
"""A txn waiting for its encoding: txn, callback, topic, partition count."""


def _failing_row(encoder: RowEventEncoder, rows: Sequence[RowChangedEvent]) -> RowChangedEvent:
    """The first row that fails alone, to name it; the first row when none does."""
    for row in rows:
        try:
            encoder.encode_rows([row])
        except Exception:
            return row
    return rows[0]


def _picklable(rows: Sequence[RowChangedEvent]) -> bool:
    try:
        pickle.dumps(rows)
    except Exception:
        return False
    return True


class MQDMLSink:
    """An EventSink of single-table txns over any Producer (Kafka, files)."""

    wants_txn = True

    def __init__(
        self,
        producer: Producer,
        encoder: RowEventEncoder,
        router: EventRouter,
        cadence: BootstrapCadence | None,
        *,
        scheme: str,
        max_inflight_bytes: int = 64 << 20,
        txn_encoder: TxnEncoder | None = None,
        heartbeats: IdlePartitions | None = None,
    ) -> None:
        if max_inflight_bytes <= 0:
            raise EventSinkError(f"max_inflight_bytes must be positive, got {max_inflight_bytes}")
        if heartbeats is not None and not hasattr(encoder, "encode_heartbeat"):
            raise EventSinkError(f"{type(encoder).__name__} cannot encode heartbeats")
        self._heartbeats = heartbeats
        self.scheme = scheme
        self._producer = producer
        self._encoder = encoder
        self._router = router
        self._cadence = cadence if cadence is not None and cadence.enabled else None
        self._max_inflight = max_inflight_bytes
        self._txn_encoder = txn_encoder or InlineEncoder(encoder, router)
        self._window: deque[tuple[list[_Pending], asyncio.Future[Result]]] = deque()
        self._backlog: list[CallbackableEvent[SingleTableTxn]] = []
        self._topics: dict[tuple[str, str], str] = {}
        self._partition_counts: dict[str, int] = {}
        self._senders = TopicSenders(producer, self._acked, self._fail)
        self._inflight_bytes = 0
        self._stats = MQStats()
        self._error: EventSinkError | None = None
        self._closed = False
        self._worker: asyncio.Task[None] | None = None
        self._input_ready: asyncio.Event | None = None
        self._changed: asyncio.Event | None = None

    # --- the EventSink protocol ----------------------------------------------------------

    def write_events(self, events: Sequence[CallbackableEvent[SingleTableTxn]]) -> None:
        """Queue txns and return at once; an empty call is a health check."""
        if self._error is not None:
            raise SinkDeadError(f"{self.scheme} sink is dead: {self._error}") from self._error
        if self._closed:
            raise EventSinkError(f"{self.scheme} sink is closed")
        if not events:
            return
        self._ensure_started()
        self._backlog.extend(events)
        assert self._input_ready is not None
        self._input_ready.set()

    @property
    def error(self) -> BaseException | None:
        return self._error

    async def close(self) -> None:
        """Deliver everything queued (unless dead), stop the tasks and close the producer."""
        if self._closed:
            return
        self._closed = True
        if self._worker is not None:
            assert self._input_ready is not None
            self._input_ready.set()
            await self._worker
        for _, future in self._window:
            future.cancel()
        await self._txn_encoder.close()
        for sender in self._senders:
            if self._error is not None:
                sender.stop()
            await sender.close()
        await self._producer.close()
        log.info("%s sink closed: %s", self.scheme, self._stats.snapshot().to_dict())

    # --- back-pressure and observability -------------------------------------------------

    async def start(self) -> None:
        """Start the worker (and the encoder processes, if any) now rather than at the first
        ``write_events``; raises SinkDeadError if the processes cannot start."""
        self._ensure_started()
        try:
            await self._txn_encoder.start()
        except EventSinkError as err:
            self._fail(err)
            raise SinkDeadError(f"{self.scheme} sink is dead: {err}") from err

    async def wait_for_capacity(self) -> None:
        """Return once the sink can take more: queued txns are picked up and the bytes in
        flight are below ``max_inflight_bytes``. Raises SinkDeadError if the sink died."""
        self._ensure_started()
        assert self._changed is not None
        while not self._has_capacity():
            self._changed.clear()
            await self._changed.wait()
        if self._error is not None:
            raise SinkDeadError(f"{self.scheme} sink is dead: {self._error}") from self._error

    @property
    def inflight_bytes(self) -> int:
        return self._inflight_bytes

    def stats(self) -> SinkStats:
        """Counters of delivered messages (by type), bytes, txns; plus the bytes in flight."""
        return self._stats.snapshot(self._inflight_bytes)

    def acked_seconds(self) -> AckedSeconds:
        """Messages and bytes acknowledged per epoch second."""
        return self._stats.per_second()

    def acknowledged_offsets(self) -> AcknowledgedEnds:
        """The producer's acknowledged ends per partition (empty if it does not track them)."""
        return acknowledged_ends(self._producer)

    # --- the worker ----------------------------------------------------------------------

    def _ensure_started(self) -> None:
        if self._worker is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError as err:
            raise EventSinkError(
                f"{self.scheme} sink needs a running asyncio loop to start its worker"
            ) from err
        self._input_ready = asyncio.Event()
        self._changed = asyncio.Event()
        self._worker = loop.create_task(self._run(), name=f"{self.scheme}-dml-worker")

    def _has_capacity(self) -> bool:
        if self._error is not None:
            return True
        return not self._backlog and self._inflight_bytes < self._max_inflight

    def _notify(self) -> None:
        if self._changed is not None:
            self._changed.set()

    async def _run(self) -> None:
        assert self._input_ready is not None
        try:
            await self._txn_encoder.start()
            while self._error is None:
                if not self._backlog:
                    if self._closed:
                        return
                    self._input_ready.clear()
                    await self._wait_input()
                    continue
                batch, self._backlog = self._backlog, []
                self._notify()
                await self._write(batch)
                if self._error is not None:
                    return
                self._emit_due_bootstraps()
                self._emit_due_heartbeats()
        except asyncio.CancelledError:
            raise
        except EventSinkError as err:
            self._fail(err)
        except Exception as err:
            failure = EventSinkError(f"{self.scheme} sink worker failed: {err!r}")
            failure.__cause__ = err
            self._fail(failure)

    async def _wait_input(self) -> None:
        assert self._input_ready is not None
        if self._cadence is None and self._heartbeats is None:
            await self._input_ready.wait()
            return
        try:
            await asyncio.wait_for(self._input_ready.wait(), IDLE_TICK_SECONDS)
        except TimeoutError:
            self._emit_due_bootstraps()
            self._emit_due_heartbeats()

    def _skip(self, event: CallbackableEvent[SingleTableTxn]) -> None:
        if event.sink_state.state is not TableSinkState.NORMAL:
            # TiCDC drops rows of a stopping table but still fires the callback, so the
            # table sink can finish closing.
            self._stats.skipped_txns += 1
        event.callback()

    async def _write(self, batch: list[CallbackableEvent[SingleTableTxn]]) -> None:
        """Route, encode and queue ``batch`` in order: runs of txns go to the TxnEncoder and
        are queued as they come back; the requests are all drained once no more txns wait."""
        chunk_rows = self._txn_encoder.chunk_rows
        pending: list[_Pending] = []
        rows = 0
        for event in batch:
            txn = event.event
            if event.sink_state.state is not TableSinkState.NORMAL or not txn.rows:
                self._skip(event)
                continue
            table = txn.table
            topic = self._topic_for(table.schema, table.table)
            partitions = self._partition_counts.get(topic) or await self._partition_count(topic)
            pending.append((txn, event.callback, topic, partitions))
            rows += len(txn.rows)
            if rows >= chunk_rows:
                await self._submit(pending)
                pending, rows = [], 0
            if self._error is not None:
                return
        if pending:
            await self._submit(pending)
        while self._window and not self._backlog and self._error is None:
            await self._complete_oldest()

    def _encoding_error(
        self, rows: Sequence[RowChangedEvent], topic: str, reason: str
    ) -> EventSinkError:
        row = _failing_row(self._encoder, rows)
        return EventSinkError(f"encoding {row.describe()} for topic {topic!r} failed: {reason}")

    async def _submit(self, pending: list[_Pending]) -> None:
        """Hand a run of txns to the TxnEncoder, once fewer than its window are out."""
        while len(self._window) >= self._txn_encoder.window and self._error is None:
            await self._complete_oldest()
        try:
            future = self._txn_encoder.submit([(txn.rows, p) for txn, _, _, p in pending])
        except EventSinkError:
            raise
        except Exception as err:  # a row pickle cannot carry
            txn, _, topic, _ = next((p for p in pending if not _picklable(p[0].rows)), pending[0])
            raise self._encoding_error(
                txn.rows, topic, f"cannot pass the rows to an encoder process: {err}"
            ) from err
        self._window.append((pending, future))

    async def _complete_oldest(self) -> None:
        pending, future = self._window[0]
        result = await future
        self._window.popleft()
        if isinstance(result, FailedTxn):
            txn, _, topic, _ = pending[result.index]
            raise self._encoding_error(txn.rows, topic, result.reason)
        for (txn, callback, topic, partitions), encoded in zip(pending, result, strict=True):
            # the bound on bytes in flight is checked per txn, not per request
            if self._inflight_bytes >= self._max_inflight:
                await self._wait_below_limit()
                if self._error is not None:
                    return
            self._queue(txn, callback, topic, partitions, encoded)

    def _queue(
        self,
        txn: SingleTableTxn,
        callback: Callable[[], None],
        topic: str,
        partitions: int,
        encoded: EncodedTxn,
    ) -> None:
        """Queue the encoded ``txn``, one segment per partition it touches, after the
        BOOTSTRAP the cadence asks for: a few calls per transaction, and no awaits."""
        rows = txn.rows
        senders = self._senders.slots(topic, partitions)
        if self._cadence is not None:
            send = self._cadence.add_event(rows[0].table, topic, partitions, len(rows))
            if send is not None:
                self._emit_bootstrap(send)
        groups, size, claim_checks = encoded
        for location, payload in claim_checks:
            store_claim_check(location, payload)
            self._stats.claim_checks += 1
        delivery = Delivery(len(groups), callback, size=size, rows=len(rows))
        self._inflight_bytes += size
        table = txn.table.qualified_name
        for partition, segment_records in groups:
            sender = senders[partition]
            if sender is None:
                sender = self._senders.start(topic, partition)
            sender.put(Segment(segment_records, _DML, table, delivery))
        if self._heartbeats is not None:
            self._heartbeats.written(topic, [p for p, _ in groups], rows[0].commit_ts)
        self._stats.txns += 1

    def _topic_for(self, schema: str, table: str) -> str:
        key = (schema, table)
        topic = self._topics.get(key)
        if topic is None:
            topic = self._topics[key] = self._router.topic_for_table(schema, table)
        return topic

    async def _partition_count(self, topic: str) -> int:
        try:
            count = await self._producer.partition_count(topic)
        except EventSinkError:
            raise
        except Exception as err:
            raise EventSinkError(f"partition count of topic {topic!r}: {err}") from err
        if count <= 0:
            raise EventSinkError(f"topic {topic!r} has {count} partitions")
        self._partition_counts[topic] = count
        if self._heartbeats is not None:
            self._heartbeats.watch(topic, count)
        return count

    def _emit_due_bootstraps(self) -> None:
        if self._cadence is None or self._error is not None:
            return
        try:
            for send in self._cadence.tick():
                self._emit_bootstrap(send)
        except EventSinkError as err:
            self._fail(err)

    def _emit_bootstrap(self, send: BootstrapSend) -> None:
        """One encoding, the same bytes to each partition."""
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
            segment = Segment.of_message(message)
            self._inflight_bytes += segment.delivery.size
            self._senders.put(send.topic, partition, segment)

    def _emit_due_heartbeats(self) -> None:
        """One HEARTBEAT, the same bytes to every partition idle for the interval."""
        if self._heartbeats is None or self._error is not None:
            return
        due = self._heartbeats.due()
        if not due:
            return
        encoder = cast(HeartbeatEncoder, self._encoder)
        try:
            message = encoder.encode_heartbeat(self._heartbeats.newest_ts)
        except Exception as err:
            self._fail(EventSinkError(f"encoding a heartbeat failed: {err}"))
            return
        for topic, partitions in due.items():
            for partition in partitions:
                segment = Segment.of_message(message)
                self._inflight_bytes += segment.delivery.size
                self._senders.put(topic, partition, segment)

    async def _wait_below_limit(self) -> None:
        assert self._changed is not None
        while self._error is None and self._inflight_bytes >= self._max_inflight:
            self._changed.clear()
            await self._changed.wait()

    # --- sender callbacks ----------------------------------------------------------------

    def _acked(self, batch: list[Segment]) -> None:
        counts = self._stats.messages
        size = rows = messages = 0
        for segment in batch:
            sent = len(segment.records)
            counts[segment.type] += sent
            messages += sent
            delivery = segment.delivery
            if delivery.acked():
                size += delivery.size
                rows += delivery.rows
        self._inflight_bytes -= size
        self._stats.bytes += size
        self._stats.rows += rows
        self._stats.count_second(messages, size)
        self._notify()

    def _fail(self, err: EventSinkError) -> None:
        if self._error is None:
            self._error = err
            log.error("%s sink is dead: %s", self.scheme, err)
            for sender in self._senders:
                sender.stop()
        self._notify()
        if self._input_ready is not None:
            self._input_ready.set()
