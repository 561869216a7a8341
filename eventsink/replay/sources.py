"""What ``tisink replay`` reads: a capture or file-sink folder, or a Kafka topic, as chunks of
one partition's records, each partition's in order.

A folder is read round-robin, one chunk of every partition file in turn, so every partition
has records to send from the start and memory holds a few chunks, not the stream. A Kafka
topic is read by one consumer (``kafka_source.py``) from the beginning to the end it had when
the pass started. ``--loop N`` reads the source N times.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple, Protocol

from tisink.eventsink.file import list_file_topics, partition_file
from tisink.eventsink.reading import StreamReadError
from tisink.eventsink.replay.kafka_source import KafkaTopicSource
from tisink.eventsink.replay.records import ReplayRecord, read_partition_file

_PARTITION_FILE = re.compile(r"^partition-(\d+)\.jsonl$")


class Chunk(NamedTuple):
    """Records of one source partition, in order; ``loop`` counts the passes from 0."""

    loop: int
    partition: int
    records: list[ReplayRecord]


class ReplaySource(Protocol):
    """A source of chunks; ``blocking`` when reading waits on the network (then the sender
    reads it in a thread, so the event loop keeps sending meanwhile)."""

    blocking: bool
    topic: str

    def partition_count(self) -> int: ...

    def chunks(self, loops: int) -> Iterator[Chunk]: ...

    def close(self) -> None: ...


class FolderSource:
    """The records of one topic of a capture or file-sink folder."""

    blocking = False

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
        self.partitions = sorted(
            int(m.group(1))
            for f in (folder / topic).iterdir()
            if (m := _PARTITION_FILE.match(f.name))
        )

    def partition_count(self) -> int:
        return self.partitions[-1] + 1 if self.partitions else 0

    def chunks(self, loops: int) -> Iterator[Chunk]:
        for loop in range(loops):
            readers = {
                p: read_partition_file(partition_file(self.folder, self.topic, p), self._chunk)
                for p in self.partitions
            }
            while readers:
                for partition, reader in list(readers.items()):
                    records = next(reader, None)
                    if records is None:
                        del readers[partition]
                    else:
                        yield Chunk(loop, partition, records)

    def close(self) -> None:
        """Nothing held open between chunks."""


class KafkaSource:
    """The records of a Kafka topic, from the beginning to its end when each pass starts."""

    blocking = True

    def __init__(self, source: KafkaTopicSource) -> None:
        self._source = source
        self.topic = source.topic

    def partition_count(self) -> int:
        return self._source.partition_count()

    def chunks(self, loops: int) -> Iterator[Chunk]:
        for loop in range(loops):
            for partition, records in self._source.read(self._source.plan()):
                yield Chunk(loop, partition, records)

    def close(self) -> None:
        self._source.close()
