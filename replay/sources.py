"""What ``tisink replay`` reads: a capture or file-sink folder, or a Kafka topic, as chunks of
one partition's records, each partition's in order.

A folder's partition files are read side by side by reader processes (``reader_process.py``),
one stream each, so every partition has records to send from the start, none waits on
another's, decoding runs beside sending, and memory holds a few chunks a partition. A Kafka
topic is read by one consumer (``kafka_source.py``) from the beginning to the end it had when
the replay started. ``--loop N`` reads the source N times.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol, runtime_checkable

from tisink.eventsink.file import list_file_topics, partition_file
from tisink.eventsink.reading import StreamReadError
from tisink.replay.chunks import Chunk, to_chunk
from tisink.replay.kafka_source import KafkaTopicSource
from tisink.replay.reader_process import ProcessStream
from tisink.replay.records import last_record, read_partition_file, torn_tail

log = logging.getLogger(__name__)

_PARTITION_FILE = re.compile(r"^partition-(\d+)\.jsonl$")


@runtime_checkable
class AtHand(Protocol):
    """A stream of a blocking source that can say its next chunk is at hand (in a local file
    of its own), so the sender reads it on the event loop instead of handing it to a thread."""

    def at_hand(self) -> bool: ...


class ReplaySource(Protocol):
    """A source of chunks; ``blocking`` when reading waits on the network (then the sender
    reads it in a thread, so the event loop keeps sending meanwhile)."""

    blocking: bool
    topic: str

    def partition_count(self) -> int: ...

    def start(self, loops: int) -> None:
        """Begin reading ahead, where reading costs a start-up (a folder's reader processes),
        so that it overlaps the target's opening."""
        ...

    def streams(self, loops: int) -> list[Iterator[Chunk]]:
        """Independent streams of chunks, each partition's records in one of them in order."""
        ...

    def time_range(self) -> tuple[int, int] | None:
        """The earliest and latest record timestamps when known before reading (--speed's
        origin and --loop's span); None when not (the sender then learns them in pass 0)."""
        ...

    def close(self) -> None: ...


MAX_READERS = 16
"""Reader processes of one folder replay at most: one fewer than this process may use cores
(at least one), since the sending process needs a core of its own and readers beyond the
other cores only share them (each costs an interpreter start, and on two cores three readers
took twice the CPU of one)."""
HOLD_FILE_BYTES = 96 << 20
"""A folder whose partition files add up to at most this (about 64 MiB of records once
decoded) is held in memory after its first pass for ``--loop``: the later passes send the
same record objects again, so the records in flight add nothing to it."""


def _cores() -> int:
    """The cores this process may run on."""
    if sys.platform == "linux":
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


class FolderSource:
    """The records of one topic of a capture or file-sink folder."""

    blocking = True
    """``next`` waits on a reader process."""

    def __init__(self, folder: Path, topic: str | None = None, chunk: int = 1000) -> None:
        topics = list_file_topics(folder) if folder.is_dir() else []
        if not folder.is_dir():
            raise StreamReadError(f"replay source {folder} is not a folder")
        if topic is None:
            if len(topics) != 1:
                found = ", ".join(topics) or "none"
                raise StreamReadError(
                    f"replay source {folder} holds topics {found}; name one with --topic"
                )
            topic = topics[0]
        elif topic not in topics:
            raise StreamReadError(f"replay source {folder} holds no topic {topic!r}")
        self.folder = folder
        self.topic = topic
        self._chunk = chunk
        self._streams: list[ProcessStream] = []
        self.partitions = sorted(
            int(m.group(1))
            for f in (folder / topic).iterdir()
            if (m := _PARTITION_FILE.match(f.name))
        )
        self._warn_torn()

    def _warn_torn(self) -> None:
        """Say which partition files end in a torn line (a capture or play killed mid-write),
        whose record is not replayed, as ``--append`` says what it cuts."""
        for partition in self.partitions:
            path = partition_file(self.folder, self.topic, partition)
            torn = torn_tail(path)
            if torn is not None:
                log.warning(
                    "%s:%d: a torn last line (%d bytes without a newline, a write cut short) "
                    "is not replayed",
                    path,
                    *torn,
                )

    def partition_count(self) -> int:
        return self.partitions[-1] + 1 if self.partitions else 0

    def start(self, loops: int) -> None:
        """Start the reader processes (``streams`` then hands them out)."""
        if not self._streams:
            self._streams = self._spawn(loops)

    def streams(self, loops: int) -> list[Iterator[Chunk]]:
        self.start(loops)
        return list(self._streams)

    def _spawn(self, loops: int) -> list[ProcessStream]:
        """One reader process per partition, up to one fewer than the cores (``MAX_READERS``;
        beyond, partitions share them round-robin); a small folder is held for the later
        passes (``HOLD_FILE_BYTES``)."""
        count = min(len(self.partitions), MAX_READERS, max(1, _cores() - 1))
        groups = [self.partitions[i::count] for i in range(count)]
        files = {p: partition_file(self.folder, self.topic, p) for p in self.partitions}
        hold = sum(path.stat().st_size for path in files.values()) <= HOLD_FILE_BYTES
        return [
            ProcessStream([(p, files[p]) for p in group], loops, self._chunk, hold)
            for group in groups
        ]

    def time_range(self) -> tuple[int, int] | None:
        """From each partition file's first and last records (a capture's timestamps grow
        within a partition as Kafka's CreateTime usually does; None without timestamps)."""
        stamps: list[int] = []
        for partition in self.partitions:
            path = partition_file(self.folder, self.topic, partition)
            first = next(read_partition_file(path, 1), [])
            last = last_record(path)
            for record in [*first, *([last] if last is not None else [])]:
                if record.timestamp_ms is None:
                    return None
                stamps.append(record.timestamp_ms)
        return (min(stamps), max(stamps)) if stamps else None

    def close(self) -> None:
        for stream in self._streams:
            stream.close()


class KafkaSource:
    """The records of a Kafka topic, from the beginning to its end when the replay started."""

    blocking = True

    def __init__(self, source: KafkaTopicSource) -> None:
        self._source = source
        self.topic = source.topic

    def partition_count(self) -> int:
        return self._source.partition_count()

    def start(self, loops: int) -> None:
        """Nothing: the consumer reads as the sender asks."""

    def streams(self, loops: int) -> list[Iterator[Chunk]]:
        return [self._chunks(loops)]

    def _chunks(self, loops: int) -> Iterator[Chunk]:
        """Every pass reads the ranges planned at the start (reading moves their starts, so
        each pass gets copies): what the replay itself writes into a topic on the same
        cluster is never read back."""
        planned = self._source.plan()
        for loop in range(loops):
            ranges = [dataclasses.replace(span) for span in planned]
            for partition, records in self._source.read(ranges):
                yield to_chunk(loop, partition, records)

    def time_range(self) -> tuple[int, int] | None:
        return None

    def close(self) -> None:
        self._source.close()
