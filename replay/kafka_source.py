"""A range of a Kafka topic read with confluent-kafka (librdkafka), records with timestamps:
what ``tisink capture`` stores and ``tisink replay kafka://...`` sends again.

Each partition is read from its start (an offset, the first record at or after a timestamp,
or the beginning) to its end: an offset (exclusive), the first record at or after a
timestamp, or the end the partition had when the range was planned, whichever comes first, so
records written while it is read (a replay into its own source, a live topic) are left out.
That end is probed, not taken from the high watermark, which the embedded broker reports as
its last batch's base offset + 1: the consumer is placed at the watermark and the
end-of-partition event says where the partition ends. When the probe gets no answer in the
request timeout the watermark stays a lower bound and the first end-of-partition event past
it ends the range (as ``eventsink.kafka.reader`` does). No consumer group, no commits.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, cast

from confluent_kafka import Consumer, KafkaError, KafkaException, TopicPartition

from tisink.eventsink.kafka.config import KafkaConfig
from tisink.eventsink.kafka.reader import DebugLogger, consumer_settings
from tisink.eventsink.kafka.unreachable import (
    CONNECTION_ERRORS,
    ConnectionFailures,
    librdkafka_failure,
)
from tisink.eventsink.reading import StreamReadError
from tisink.replay.records import ReplayRecord

log = logging.getLogger(__name__)

_BATCH = 2000
_POLL_S = 0.2


@dataclass(frozen=True)
class Bound:
    """Where a partition's range starts or ends: an offset, or a timestamp (ms) whose first
    record at or after it is the bound; neither means the beginning (start) or end (end)."""

    offset: int | None = None
    timestamp_ms: int | None = None


@dataclass
class PartitionRange:
    partition: int
    start: int
    """First offset to read."""
    end: int | None
    """Offset to stop before; None: to the end of the partition."""
    high: int
    """The partition's end when the range was planned (exclusive): probed, or the high
    watermark, a lower bound, when the probe got no answer (``exact`` False)."""
    start_ms: int | None = None
    """Records before the first one at or after this timestamp are skipped (the broker's
    ListOffsets by time only says where to start looking: the embedded one answers 0)."""
    end_ms: int | None = None
    """The first record at or after this timestamp ends the range."""
    exact: bool = False
    """``high`` is the partition's end itself (a record at or past it ends the range)."""

    @property
    def stop(self) -> int:
        """An end-of-partition event at or past this offset ends the range."""
        return self.high if self.end is None else min(self.end, self.high)

    def beyond(self, offset: int) -> bool:
        """A record at ``offset`` is past the range's end (the end of the partition only
        when it is known)."""
        return offset >= self.stop if self.exact else self.end is not None and offset >= self.end

    @property
    def done(self) -> bool:
        """Nothing of the range is left to read."""
        return self.beyond(self.start)

    @property
    def short(self) -> bool:
        """The partition ended before the end offset asked for."""
        return self.end is not None and self.exact and self.high < self.end


class KafkaTopicSource:
    """One consumer over the partitions of one topic."""

    def __init__(self, config: KafkaConfig, timeout_s: float = 30.0) -> None:
        self.topic = config.topic
        self.timeout_s = timeout_s
        """How long reading may go without a record before the partitions not done are given up."""
        self._request_s = config.request_timeout_s
        self._servers = config.bootstrap_servers
        self._where = f"Kafka {self._servers} topic {self.topic}"
        self.records = 0
        """Records read so far (every pass)."""
        self._failures = ConnectionFailures()
        """Each broker's last connection failure, for a metadata request that fails."""
        self._lost: str | None = None
        """The client's last connection error (records fetched ahead may still arrive after
        it, so they do not clear it)."""
        settings: dict[str, Any] = {
            **consumer_settings(config),
            "group.id": f"tisink-capture-{uuid.uuid4().hex}",
            "enable.auto.commit": False,
            "enable.partition.eof": True,
            "auto.offset.reset": "earliest",
            "queued.max.messages.kbytes": 8192,
            "logger": DebugLogger(log),
            "error_cb": self._on_error,
        }
        try:
            self._consumer = Consumer(settings)
        except KafkaException as err:
            raise StreamReadError(f"{self._where}: bad consumer settings: {err}") from err

    def close(self) -> None:
        self._consumer.close()

    def _on_error(self, error: KafkaError) -> None:
        """librdkafka's client-level errors (it retries them): a lost connection is what a
        reading that stalls is told by."""
        self._failures.add_librdkafka(error)
        if error.code() in CONNECTION_ERRORS:
            log.debug("%s: %s", self._where, error.str())
            self._lost = error.str()

    def partition_count(self) -> int:
        started = time.monotonic()
        try:
            metadata = self._consumer.list_topics(self.topic, timeout=self._request_s)
        except KafkaException as err:
            raise StreamReadError(
                librdkafka_failure(
                    self._consumer,
                    err,
                    f"topic {self.topic}: cannot read metadata",
                    servers=self._servers,
                    failures=self._failures,
                    seconds=time.monotonic() - started,
                )
            ) from err
        found = metadata.topics.get(self.topic)
        if found is None or found.error is not None or not found.partitions:
            raise StreamReadError(f"{self._where}: no such topic")
        return len(found.partitions)

    def plan(
        self,
        partitions: Sequence[int] | None = None,
        start: Bound | None = None,
        end: Bound | None = None,
    ) -> list[PartitionRange]:
        """The range of each partition (every one when ``partitions`` is None)."""
        start, end = start or Bound(), end or Bound()
        count = self.partition_count()
        chosen = list(range(count)) if partitions is None else sorted(set(partitions))
        missing = [p for p in chosen if not 0 <= p < count]
        if missing:
            raise StreamReadError(
                f"{self._where} has {count} partitions; no partition {missing[0]}"
            )
        ranges = []
        for partition in chosen:
            low, high = self._watermarks(partition)
            first = self._resolve(partition, start, low, high)
            ranges.append(
                PartitionRange(
                    partition,
                    max(first, low),
                    end.offset,
                    high,
                    start.timestamp_ms,
                    end.timestamp_ms,
                )
            )
        self._probe_ends(ranges)
        return ranges

    def _probe_ends(self, ranges: Sequence[PartitionRange]) -> None:
        """Set each range's ``high`` to where its partition ends now: the end-of-partition
        event of a consumer placed at the high watermark (a real broker's is the end; the
        embedded one's falls in the last batch, read up to its end). A partition whose event
        does not come in the request timeout keeps the watermark as a lower bound."""
        if not ranges:
            return
        by_partition = {r.partition: r for r in ranges}
        self._consumer.assign(
            [TopicPartition(self.topic, r.partition, r.high) for r in by_partition.values()]
        )
        try:
            deadline = time.monotonic() + self._request_s
            waiting = set(by_partition)
            while waiting and time.monotonic() < deadline:
                for message in self._consumer.consume(_BATCH, _POLL_S):
                    error, partition = message.error(), message.partition()
                    if error is None or error.code() != KafkaError._PARTITION_EOF:
                        continue
                    span = by_partition.get(cast(int, partition))
                    if span is not None and partition in waiting:
                        span.high = max(span.high, cast(int, message.offset()))
                        span.exact = True
                        waiting.discard(cast(int, partition))
        finally:
            self._consumer.unassign()

    def _watermarks(self, partition: int) -> tuple[int, int]:
        try:
            return cast(
                tuple[int, int],
                self._consumer.get_watermark_offsets(
                    TopicPartition(self.topic, partition), timeout=self._request_s
                ),
            )
        except KafkaException as err:
            raise StreamReadError(
                f"{self._where} partition {partition}: cannot read offsets: {err}"
            ) from err

    def _resolve(self, partition: int, bound: Bound, low: int, high: int) -> int:
        """Where reading starts: the offset, or the broker's answer for the timestamp."""
        if bound.offset is not None:
            return bound.offset
        if bound.timestamp_ms is None:
            return low
        try:
            (found,) = self._consumer.offsets_for_times(
                [TopicPartition(self.topic, partition, bound.timestamp_ms)],
                timeout=self._request_s,
            )
        except KafkaException as err:
            raise StreamReadError(
                f"{self._where} partition {partition}: cannot look up a timestamp: {err}"
            ) from err
        return found.offset if found.offset >= 0 else high

    def read(self, ranges: Sequence[PartitionRange]) -> Iterator[tuple[int, list[ReplayRecord]]]:
        """``(partition, records)`` chunks, each partition's in offset order, until every range
        is read; StreamReadError naming the partitions still owed when nothing arrived for
        ``timeout_s``."""
        pending = {r.partition: r for r in ranges if not r.done}
        if not pending:
            return
        self._lost = None
        self._consumer.assign(
            [TopicPartition(self.topic, r.partition, r.start) for r in pending.values()]
        )
        try:
            yield from self._consume(pending)
        finally:
            self._consumer.unassign()

    def _consume(
        self, pending: dict[int, PartitionRange]
    ) -> Iterator[tuple[int, list[ReplayRecord]]]:
        deadline = time.monotonic() + self.timeout_s
        while pending:
            if time.monotonic() > deadline:
                raise StreamReadError(self._stalled(pending))
            messages = self._consumer.consume(_BATCH, _POLL_S)
            if messages:
                deadline = time.monotonic() + self.timeout_s
            chunks: dict[int, list[ReplayRecord]] = {}
            for message in messages:
                partition, offset = message.partition(), message.offset()
                if partition is None or offset is None:
                    continue
                error = message.error()
                span = pending.get(partition)
                if error is not None:
                    if error.code() == KafkaError._PARTITION_EOF:
                        if span is not None and offset >= span.stop:
                            if not span.exact:  # the end, found where the probe found none
                                span.high, span.exact = max(span.high, offset), True
                            del pending[partition]
                        continue
                    raise StreamReadError(f"{self._where} partition {partition}: {error.str()}")
                if span is None or span.beyond(offset):
                    pending.pop(partition, None)
                    continue
                kind, stamp = message.timestamp()
                span.start = offset + 1
                if span.start_ms is not None:
                    if stamp < span.start_ms:
                        continue
                    span.start_ms = None  # from here on every record belongs to the range
                if span.end_ms is not None and stamp >= span.end_ms:
                    del pending[partition]
                    continue
                headers = cast(list[tuple[str, bytes]], message.headers() or [])
                chunks.setdefault(partition, []).append(
                    ReplayRecord(
                        offset,
                        cast(bytes | None, message.key()),
                        cast(bytes | None, message.value()),
                        tuple(headers),
                        stamp if kind != 0 else None,  # TIMESTAMP_NOT_AVAILABLE
                    )
                )
                self.records += 1
                if span.done:
                    del pending[partition]
            yield from chunks.items()

    def _stalled(self, pending: dict[int, PartitionRange]) -> str:
        """Why reading stopped with ``pending`` owed: the connection lost, or else nothing
        arriving, with where each partition got to."""
        owed = ", ".join(
            f"{p} at offset {r.start} of {r.high}"
            if r.exact
            else f"{p} at offset {r.start} (its end unconfirmed)"
            for p, r in sorted(pending.items())
        )
        if self._lost is not None:
            return (
                f"{self._where}: the connection was lost after {self.records} records "
                f"({self._lost}) and nothing arrived for {self.timeout_s:g}s; partitions "
                f"stopped: {owed}"
            )
        return (
            f"{self._where}: nothing arrived for {self.timeout_s:g}s; partitions not read "
            f"to their end: {owed}"
        )
