"""The MQ DML sink's pipeline: route, encode and queue transactions to partition senders, in
order, and account for what the destination acknowledges.

Routing and encoding go through a ``TxnEncoder`` (in process, or in encoder processes with
``encoder-concurrency``): runs of txns go out as requests, at most ``window`` at a time, and are
queued, cadence first, in the order they were taken. A txn's callback fires once every segment
of it is acknowledged. Consecutive txns of one table in a request are one delivery (unless the
producer marks each txn): their callbacks fire, in order, once the run is acknowledged. Bytes
in flight (encoded, not yet acknowledged) are bounded by ``max_inflight_bytes``, exceeded by
one txn at most. The first fatal error stops the pipeline; ``on_fail`` tells the sink.
"""

from __future__ import annotations

import asyncio
import pickle
from collections import deque
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from tisink.codec.encoder import RowEventEncoder
from tisink.codec.message import MessageType, Record
from tisink.eventsink.base import CallbackableEvent, TableSinkState
from tisink.eventsink.errors import EventSinkError
from tisink.eventsink.mq.claim_check import store_claim_check
from tisink.eventsink.mq.heartbeats import IdlePartitions
from tisink.eventsink.mq.partition_sender import Delivery, Segment
from tisink.eventsink.mq.producer import Producer, SendsMarked
from tisink.eventsink.mq.senders import TopicSenders
from tisink.eventsink.mq.stats import MQStats
from tisink.eventsink.mq.timers import MQTimers
from tisink.eventsink.mq.txn_encoding import EncodedTxn, FailedTxn, Result, TxnEncoder
from tisink.eventsink.router import EventRouter
from tisink.model.events import RowChangedEvent, SingleTableTxn

if TYPE_CHECKING:
    from tisink.codec.bootstrap import BootstrapCadence, BootstrapSend

_DML = MessageType.DML

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


def _calling(callbacks: list[Callable[[], None]]) -> Callable[[], None]:
    """One callback that fires ``callbacks`` in order (a run's txns, oldest first)."""

    def call_each() -> None:
        for callback in callbacks:
            callback()

    return call_each


class TxnPipeline:
    """One sink's route-encode-queue path; its owner (the DML sink's worker) calls ``write``
    with batches in order and ``drain`` before anything must come after all of them."""

    def __init__(
        self,
        producer: Producer,
        encoder: RowEventEncoder,
        router: EventRouter,
        txn_encoder: TxnEncoder,
        cadence: BootstrapCadence | None,
        heartbeats: IdlePartitions | None,
        *,
        max_inflight_bytes: int,
        on_fail: Callable[[EventSinkError], None],
    ) -> None:
        self._producer = producer
        self._encoder = encoder
        self._router = router
        self.txn_encoder = txn_encoder
        self.timers = MQTimers(encoder, cadence, heartbeats, self.put)
        self.max_inflight = max_inflight_bytes
        self._on_fail = on_fail
        self._window: deque[tuple[list[_Pending], asyncio.Future[Result]]] = deque()
        self._topics: dict[tuple[str, str], str] = {}
        self._partition_counts: dict[str, int] = {}
        self.senders = TopicSenders(producer, self._acked, self.fail)
        self._merge_runs = not isinstance(producer, SendsMarked)
        """Whether a run of one table's txns can go as one delivery: not when the producer
        marks each txn's records."""
        self.inflight_bytes = 0
        self.stats = MQStats()
        self.error: EventSinkError | None = None
        self.changed = asyncio.Event()
        """Set whenever bytes were acknowledged or the pipeline failed."""
        self.ack_listeners: list[Callable[[], None]] = []
        """Called after each batch of acknowledgements and on failure (a draining player)."""

    async def write(
        self, batch: Sequence[CallbackableEvent[SingleTableTxn]], more_waiting: Callable[[], bool]
    ) -> None:
        """Route, encode and queue ``batch`` in order; the requests out are drained unless
        ``more_waiting()`` says more txns wait (they then keep the encoders busy)."""
        chunk_rows = self.txn_encoder.chunk_rows
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
            if self.error is not None:
                return
        if pending:
            await self._submit(pending)
        while self._window and not more_waiting() and self.error is None:
            await self._complete_oldest()

    async def drain(self) -> None:
        """Queue every txn submitted so far."""
        while self._window and self.error is None:
            await self._complete_oldest()

    def put(self, topic: str, partition: int, segment: Segment) -> None:
        """Queue a timer's message (BOOTSTRAP, HEARTBEAT): in flight until acknowledged."""
        self.inflight_bytes += segment.delivery.size
        self.senders.put(topic, partition, segment)

    def run_due_timers(self) -> None:
        if self.error is not None:
            return
        try:
            self.timers.run_due()
        except EventSinkError as err:
            self.fail(err)

    def write_bootstrap(self, send: BootstrapSend) -> None:
        """Queue a BOOTSTRAP a caller planned (a Spark owner's share of the feed's cadence)."""
        if self.error is not None:
            return
        try:
            self.timers.emit_bootstrap(send)
        except EventSinkError as err:
            self.fail(err)

    def fail(self, err: EventSinkError) -> None:
        if self.error is None:
            self.error = err
            for sender in self.senders:
                sender.stop()
        self.changed.set()
        for listener in self.ack_listeners:
            listener()
        self._on_fail(err)

    async def close(self) -> None:
        """Stop encoding, deliver what the senders hold (unless failed), close the producer."""
        for _, future in self._window:
            future.cancel()
        await self.txn_encoder.close()
        for sender in self.senders:
            if self.error is not None:
                sender.stop()
            await sender.close()
        await self._producer.close()

    # --- internals -----------------------------------------------------------------------

    def _skip(self, event: CallbackableEvent[SingleTableTxn]) -> None:
        if event.sink_state.state is not TableSinkState.NORMAL:
            # TiCDC drops rows of a stopping table but still fires the callback, so the
            # table sink can finish closing.
            self.stats.skipped_txns += 1
        event.callback()

    def _encoding_error(
        self, rows: Sequence[RowChangedEvent], topic: str, reason: str
    ) -> EventSinkError:
        row = _failing_row(self._encoder, rows)
        return EventSinkError(f"encoding {row.describe()} for topic {topic!r} failed: {reason}")

    async def _submit(self, pending: list[_Pending]) -> None:
        """Hand a run of txns to the TxnEncoder, once fewer than its window are out."""
        while len(self._window) >= self.txn_encoder.window and self.error is None:
            await self._complete_oldest()
        try:
            future = self.txn_encoder.submit([(txn.rows, p) for txn, _, _, p in pending])
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
        await self._queue_runs(pending, result)

    async def _queue_runs(self, pending: list[_Pending], result: list[EncodedTxn]) -> None:
        """Queue a request's txns in order, each run of consecutive txns of one table as one
        delivery (a segment per partition it touches): a partition owner sees about one row a
        transaction, so per-delivery steps would otherwise run for nearly every row. A txn's
        callback fires once every record of it is acknowledged, with the rest of its run and
        never before. A run is cut where the cadence puts a BOOTSTRAP ahead of a txn and where
        the bytes in flight would reach the bound, so both are kept as txn by txn (the bound
        exceeded by one txn at most). A producer that marks each txn's records (the fault
        injector) gets every txn as a delivery of its own."""
        timers = self.timers
        merge = self._merge_runs
        start, size, table = 0, 0, pending[0][0].table
        for index, (txn, _, topic, partitions) in enumerate(pending):
            if index > start and (
                not merge
                or txn.table is not table
                or self.inflight_bytes + size >= self.max_inflight
            ):
                self._queue_run(pending[start:index], result[start:index])
                start, size, table = index, 0, txn.table
            if index == start and not await self._below_limit():
                return
            if timers.enabled:
                send = timers.bootstrap_before(txn.table, topic, partitions, len(txn.rows))
                if send is not None:
                    if index > start:
                        self._queue_run(pending[start:index], result[start:index])
                        start, size, table = index, 0, txn.table
                        if not await self._below_limit():
                            return
                    timers.emit_bootstrap(send)
            size += result[index].size
        self._queue_run(pending[start:], result[start:])

    async def _below_limit(self) -> bool:
        """Wait while the bytes in flight are at the bound; False if the pipeline failed."""
        if self.inflight_bytes >= self.max_inflight:
            await self._wait_below_limit()
        return self.error is None

    def _queue_run(self, run: list[_Pending], encoded: list[EncodedTxn]) -> None:
        """Queue a run of one table's txns (often one) as one delivery: each partition's
        records of the run, in txn order, as one segment, after storing its claim-check
        payloads. A few calls per run, and no awaits."""
        timers = self.timers
        first, _, topic, partitions = run[0]
        by_partition: dict[int, list[Record]] = {}
        joined: set[int] = set()
        size = rows = 0
        for (txn, _, _, _), (groups, txn_size, claim_checks) in zip(run, encoded, strict=True):
            for location, payload in claim_checks:
                store_claim_check(location, payload)
                self.stats.claim_checks += 1
            size += txn_size
            rows += len(txn.rows)
            for partition, records in groups:
                held = by_partition.get(partition)
                if held is None:
                    by_partition[partition] = records
                elif partition in joined:
                    held += records
                else:  # the encoder's list is not ours to extend
                    by_partition[partition] = held + records
                    joined.add(partition)
            if timers.enabled:
                timers.written(topic, [p for p, _ in groups], txn.rows[0].commit_ts)
        callback = run[0][1] if len(run) == 1 else _calling([c for _, c, _, _ in run])
        delivery = Delivery(len(by_partition), callback, size=size, rows=rows)
        self.inflight_bytes += size
        senders = self.senders.slots(topic, partitions)
        table = first.table.qualified_name
        commit_ts = run[-1][0].rows[0].commit_ts
        for partition, records in by_partition.items():
            sender = senders[partition]
            if sender is None:
                sender = self.senders.start(topic, partition)
            sender.put(Segment(records, _DML, table, delivery, commit_ts))
        self.stats.txns += len(run)

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
        self.timers.watch(topic, count)
        return count

    async def _wait_below_limit(self) -> None:
        while self.error is None and self.inflight_bytes >= self.max_inflight:
            self.changed.clear()
            await self.changed.wait()

    def _acked(self, batch: list[Segment]) -> None:
        counts = self.stats.messages
        size = rows = messages = 0
        for segment in batch:
            sent = len(segment.records)
            counts[segment.type] += sent
            messages += sent
            delivery = segment.delivery
            if delivery.acked():
                size += delivery.size
                rows += delivery.rows
        self.inflight_bytes -= size
        self.stats.bytes += size
        self.stats.rows += rows
        self.stats.count_second(messages, size)
        self.changed.set()
        for listener in self.ack_listeners:
            listener()
