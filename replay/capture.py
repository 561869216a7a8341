"""``tisink capture``: a Kafka topic's records into a capture folder, resumable.

Each partition's records are appended to ``DIR/<topic>/partition-<n>.jsonl`` (``records.py``)
in offset order, one write per chunk read. Capturing into a folder that already holds some of
the topic continues each partition after its last whole record (a torn tail that a killed
capture left is cut first), so a capture stopped at any point is finished by running it again.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tisink.eventsink.errors import FileSinkError
from tisink.eventsink.file import partition_file, topic_folder
from tisink.replay.kafka_source import Bound, KafkaTopicSource, PartitionRange
from tisink.replay.records import last_offset, record_line


@dataclass
class CaptureStats:
    """What one capture run wrote (records already in the folder are not counted)."""

    topic: str = ""
    records: int = 0
    bytes: int = 0
    """Key, value and header bytes of the records written."""
    partitions: dict[int, int] = field(default_factory=dict)
    """Partition -> records written to it by this run."""
    resumed: dict[int, int] = field(default_factory=dict)
    """Partition -> offset this run continued from, where the folder already held records."""
    short: dict[int, int] = field(default_factory=dict)
    """Partition -> its end when the capture started, where that came before the end offset
    asked for (the capture stopped there)."""


def capture_topic(
    source: KafkaTopicSource,
    out: Path,
    *,
    partitions: Sequence[int] | None = None,
    start: Bound | None = None,
    end: Bound | None = None,
    on_progress: Callable[[CaptureStats], None] | None = None,
) -> CaptureStats:
    """Capture ``source``'s topic into ``out``; returns what this run wrote."""
    topic_folder(out, source.topic)  # a topic that is no plain directory name: refused first
    stats = CaptureStats(source.topic)
    ranges = source.plan(partitions, start, end)
    for span in ranges:
        _resume(out, source.topic, span, stats)
    files: dict[int, int] = {}
    try:
        for partition, records in source.read(ranges):
            fd = files.get(partition)
            if fd is None:
                fd = files[partition] = _open(out, source.topic, partition)
            data = b"".join(map(record_line, records))
            view = memoryview(data)
            try:
                while view:
                    view = view[os.write(fd, view) :]
            except OSError as err:
                where = partition_file(out, source.topic, partition)
                raise FileSinkError(f"cannot write {where}: {err}") from err
            stats.records += len(records)
            stats.partitions[partition] = stats.partitions.get(partition, 0) + len(records)
            stats.bytes += sum(_size(r.key) + _size(r.value) for r in records)
            if on_progress is not None:
                on_progress(stats)
    finally:
        for fd in files.values():
            os.close(fd)
    stats.short = {span.partition: span.high for span in ranges if span.short}
    return stats


def _size(part: bytes | None) -> int:
    return 0 if part is None else len(part)


def _resume(out: Path, topic: str, span: PartitionRange, stats: CaptureStats) -> None:
    """Start ``span`` after the last record already captured, if that is later."""
    try:
        last = last_offset(partition_file(out, topic, span.partition))
    except OSError as err:
        where = partition_file(out, topic, span.partition)
        raise FileSinkError(f"cannot read {where}: {err}") from err
    if last is not None and last + 1 > span.start:
        span.start = last + 1
        span.start_ms = None  # the records after a captured one are in the range
        stats.resumed[span.partition] = span.start


def _open(out: Path, topic: str, partition: int) -> int:
    path = partition_file(out, topic, partition)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as err:
        raise FileSinkError(f"cannot open {path}: {err}") from err
