"""Reading a written stream back: what ``tisink verify`` reads through, for any MQ-like sink.

A ``RecordSource`` lists the topics that exist and calls back once per record, partition by
partition in offset order. A sink scheme offers one through its provider
(``sink.capabilities.VerifiableProvider``); the file sink's is here, Kafka's in
``eventsink/kafka/reader.py``, a plugin brings its own.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from pathlib import Path
from typing import Protocol

from tisink.codec.message import Headers
from tisink.eventsink.errors import EventSinkError
from tisink.eventsink.file import (
    FileRecord,
    FileSinkError,
    list_file_topics,
    read_file_topic_records,
)

OnRecord = Callable[[str, int, int, bytes | None, bytes | None, Headers], None]
"""Called with (topic, partition, offset, value, key, headers) per record."""


class StreamReadError(EventSinkError):
    """The stream cannot be read: a missing folder or topic, an unreachable broker."""


class RecordSource(Protocol):
    """One reader of a sink's stream, from the beginning of every partition."""

    continuous_offsets: bool
    """True when offsets count 0, 1, 2... with no gap (files); Kafka's may skip."""

    def topics(self) -> Collection[str]:
        """The topics that exist."""
        ...

    def read(self, topics: Sequence[str], on_record: OnRecord) -> list[str]:
        """Call ``on_record`` for every record of ``topics``; returns the partitions it could
        not read to their end, described for a report (empty when all were read)."""
        ...

    def close(self) -> None: ...


class FileRecordSource:
    """The records of a ``file://`` sink folder."""

    continuous_offsets = True

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def topics(self) -> list[str]:
        if not self.directory.is_dir():
            raise StreamReadError(f"file sink folder {self.directory} does not exist")
        return list_file_topics(self.directory)

    def read(self, topics: Sequence[str], on_record: OnRecord) -> list[str]:
        for topic, (partition, offset, key, value, headers) in self.records(topics):
            on_record(topic, partition, offset, value, key, headers)
        return []

    def records(self, topics: Sequence[str]) -> Iterator[tuple[str, FileRecord]]:
        """Every record of ``topics`` with its topic, partition by partition in offset order."""
        for topic in topics:
            try:
                for record in read_file_topic_records(self.directory, topic):
                    yield topic, record
            except FileSinkError as err:
                raise StreamReadError(f"cannot read topic {topic!r}: {err}") from err

    def close(self) -> None:
        """Nothing to release: each partition file is closed once read."""
