"""FileProducer: "Kafka without a broker", one JSON Lines file per topic and partition.

Layout: ``DIR/<topic>/partition-<n>.jsonl``, one record per line,
``{"offset":<n>,"key":<base64 or null>,"value":<base64>}``. Offsets count from 0 per partition,
like Kafka's, and a producer opened on an existing directory continues after the lines already
there. Each ``send`` is one write plus a flush, so a batch is acknowledged only once it reached
the operating system. ``read_file_topic`` reads the files back for tests and ``tisink verify``.
"""

from __future__ import annotations

import base64
import logging
import re
from base64 import b64encode
from collections.abc import Iterator, Sequence
from io import BufferedWriter
from pathlib import Path

import orjson

from codec.message import Message
from eventsink.errors import EventSinkError

log = logging.getLogger(__name__)

_PARTITION_FILE = re.compile(r"^partition-(\d+)\.jsonl$")
_TOPIC_NAME = re.compile(r"^[A-Za-z0-9._-]+$")


class FileSinkError(EventSinkError):
    """A topic file cannot be written or read; the message names the file (and line)."""


def partition_file(directory: Path, topic: str, partition: int) -> Path:
    return directory / topic / f"partition-{partition}.jsonl"


def _check_topic(topic: str) -> None:
    # The topic becomes a directory name: keep it to Kafka's legal characters.
    if not _TOPIC_NAME.match(topic) or topic in (".", ".."):
        raise FileSinkError(f"topic {topic!r} is not a valid topic name for the file sink")


class FileProducer:
    """A Producer writing to files; every topic has ``partition_num`` partitions."""

    def __init__(self, directory: Path, partition_num: int) -> None:
        if partition_num <= 0:
            raise FileSinkError(f"partition-num must be positive, got {partition_num}")
        self.directory = Path(directory)
        self.partition_num = partition_num
        self._files: dict[tuple[str, int], BufferedWriter] = {}
        self._offsets: dict[tuple[str, int], int] = {}

    async def partition_count(self, topic: str) -> int:
        _check_topic(topic)
        return self.partition_num

    async def send(self, topic: str, partition: int, messages: Sequence[Message]) -> None:
        if not 0 <= partition < self.partition_num:
            raise FileSinkError(
                f"topic {topic!r} partition {partition}: out of range "
                f"(partition-num {self.partition_num})"
            )
        if not messages:
            return
        key = (topic, partition)
        handle = self._files.get(key) or self._open(topic, partition)
        offset = self._offsets[key]
        lines = []
        for message in messages:
            # base64 needs no JSON escaping, so the record is formatted directly.
            key_field = b"null" if message.key is None else b'"%s"' % b64encode(message.key)
            lines.append(
                b'{"offset":%d,"key":%s,"value":"%s"}'
                % (offset, key_field, b64encode(message.value))
            )
            offset += 1
        lines.append(b"")
        try:
            handle.write(b"\n".join(lines))
            handle.flush()
        except OSError as err:
            raise FileSinkError(
                f"topic {topic!r} partition {partition}: cannot write "
                f"{partition_file(self.directory, topic, partition)}: {err}"
            ) from err
        self._offsets[key] = offset

    async def close(self) -> None:
        """Close the files; a later ``send`` opens them again and continues the offsets."""
        files, self._files = self._files, {}
        for handle in files.values():
            handle.close()

    def _open(self, topic: str, partition: int) -> BufferedWriter:
        _check_topic(topic)
        path = partition_file(self.directory, topic, partition)
        key = (topic, partition)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if key not in self._offsets:
                self._offsets[key] = _count_lines(path)
            handle = path.open("ab")
        except OSError as err:
            raise FileSinkError(f"topic {topic!r} partition {partition}: {path}: {err}") from err
        self._files[key] = handle
        return handle


def _count_lines(path: Path) -> int:
    if not path.exists():
        return 0
    with path.open("rb") as fh:
        return sum(1 for line in fh if line.strip())


def list_file_topics(directory: Path) -> list[str]:
    """Topics that have at least one partition file under ``directory``, sorted."""
    directory = Path(directory)
    if not directory.is_dir():
        return []
    return sorted(
        child.name
        for child in directory.iterdir()
        if child.is_dir() and any(_PARTITION_FILE.match(f.name) for f in child.iterdir())
    )


def read_file_topic(directory: Path, topic: str) -> Iterator[tuple[int, int, bytes | None, bytes]]:
    """Yield ``(partition, offset, key, value)`` for every record of ``topic``, partition by
    partition in offset order; a malformed line raises FileSinkError naming file and line."""
    folder = Path(directory) / topic
    if not folder.is_dir():
        raise FileSinkError(f"topic {topic!r}: no folder {folder}")
    partitions = sorted(
        int(m.group(1)) for f in folder.iterdir() if (m := _PARTITION_FILE.match(f.name))
    )
    for partition in partitions:
        path = partition_file(Path(directory), topic, partition)
        with path.open("rb") as fh:
            for number, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                offset, key, value = _parse_record(line, path, number)
                yield partition, offset, key, value


def _parse_record(line: bytes, path: Path, number: int) -> tuple[int, bytes | None, bytes]:
    try:
        record = orjson.loads(line)
        offset = record["offset"]
        key = record["key"]
        if not isinstance(offset, int) or isinstance(offset, bool):
            raise ValueError(f"offset {offset!r} is not an integer")
        return (
            offset,
            None if key is None else base64.b64decode(key, validate=True),
            base64.b64decode(record["value"], validate=True),
        )
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError) as err:
        raise FileSinkError(f"{path}:{number}: bad record: {err}") from err
