"""A range of a Kafka topic read with confluent-kafka (librdkafka), records with timestamps:
what ``tisink capture`` stores and ``tisink replay kafka://...`` sends again.

Each partition is read from its start (an offset, the first record at or after a timestamp,
or the beginning) to its end: an offset (exclusive), the first record at or after a
timestamp, or else the end of the partition when reading reached it (the end-of-partition
event at or past the high watermark seen at start, as ``eventsink.kafka.reader`` does, since
the embedded broker's watermark is only a lower bound). No consumer group, no commits.
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
from tisink.eventsink.reading import StreamReadError
from tisink.eventsink.replay.records import ReplayRecord

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
    """The high watermark when the range was planned."""
    start_ms: int | None = None
    """Records before the first one at or after this timestamp are skipped (the broker's
    ListOffsets by time only says where to start looking: the embedded one answers 0)."""
    end_ms: int | None = None
    """The first record at or after this timestamp ends the range."""

    @property
    def stop(self) -> int:
        """An end-of-partition event at or past this offset ends the range."""
        return self.high if self.end is None else min(self.end, self.high)


class KafkaTopicSource:
    """One consumer over the partitions of one topic."""

    def __init__(self, config: KafkaConfig, timeout_s: float = 30.0) -> None:
        self.topic = config.topic
        self.timeout_s = timeout_s
        """How long reading may go without a record before the partitions not done are given up."""
        self._request_s = config.request_timeout_s
        self._where = f"Kafka {config.bootstrap_servers} topic {self.topic}"
        settings: dict[str, Any] = {
            **consumer_settings(config),
            "group.id": f"tisink-capture-{uuid.uuid4().hex}",
            "enable.auto.commit": False,
            "enable.partition.eof": True,
            "auto.offset.reset": "earliest",
            "queued.max.messages.kbytes": 8192,
            "logger": DebugLogger(log),
        }
        try:
            self._consumer = Consumer(settings)
        except KafkaException as err:
            raise StreamReadError(f"{self._where}: bad consumer settings: {err}") from err

    def close(self) -> None:
        self._consumer.close()

    def partition_count(self) -> int:
        try:
            metadata = self._consumer.list_topics(self.topic, timeout=self._request_s)
        except KafkaException as err:
            raise StreamReadError(f"{self._where}: cannot read metadata: {err}") from err
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
        return ranges

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
        pending = {r.partition: r for r in ranges if r.end is None or r.start < r.end}
        if not pending:
            return
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
                owed = ", ".join(f"{p} (from offset {r.start})" for p, r in sorted(pending.items()))
                raise StreamReadError(
                    f"{self._where}: nothing arrived for {self.timeout_s}s; partitions not "
                    f"read to their end: {owed}"
                )
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
                            del pending[partition]
                        continue
                    raise StreamReadError(f"{self._where} partition {partition}: {error.str()}")
                if span is None or (span.end is not None and offset >= span.end):
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
                if span.end is not None and span.start >= span.end:
                    del pending[partition]
            yield from chunks.items()
