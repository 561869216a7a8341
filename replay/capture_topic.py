"""``tisink capture``: a Kafka topic (or a range of it) into a capture folder that ``tisink
replay`` sends again and ``tisink verify`` reads as a file-sink folder."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path

from tisink.replay.capture import CaptureStats, capture_topic
from tisink.replay.errors import ReplayFailed
from tisink.replay.kafka_source import Bound, KafkaTopicSource
from tisink.sink import SinkFactory


def parse_bound(offset: int | None, when: str | None, name: str) -> Bound:
    """``--start-offset`` / ``--start-time`` (or the end pair) as a Bound; a time is epoch
    milliseconds or an ISO 8601 date-time (UTC unless it names a zone)."""
    if offset is not None and when is not None:
        raise ReplayFailed(f"give --{name}-offset or --{name}-time, not both")
    if when is None:
        return Bound(offset=offset)
    if when.isdigit():
        return Bound(timestamp_ms=int(when))
    try:
        moment = datetime.fromisoformat(when)
    except ValueError as err:
        raise ReplayFailed(f"--{name}-time {when!r}: not epoch ms or ISO 8601 ({err})") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return Bound(timestamp_ms=int(moment.timestamp() * 1000))


def run_capture(
    source_uri: str,
    out: Path,
    *,
    partitions: Sequence[int] | None = None,
    start: Bound | None = None,
    end: Bound | None = None,
    timeout_s: float = 30.0,
    on_progress: Callable[[CaptureStats], None] | None = None,
) -> tuple[CaptureStats, float]:
    """Capture; returns what this run wrote and its seconds."""
    started = time.perf_counter()
    factory = SinkFactory(source_uri)
    uri = factory.uri
    if uri.scheme != "kafka":
        raise ReplayFailed(f"capture reads kafka:// topics, not {uri.scheme}://")
    kafka = factory.config.kafka.for_target(uri.hosts, uri.topic)
    source = KafkaTopicSource(kafka, timeout_s)
    try:
        stats = capture_topic(
            source, out, partitions=partitions, start=start, end=end, on_progress=on_progress
        )
    finally:
        source.close()
    return stats, time.perf_counter() - started
