"""The ``file://`` sink when several Spark tasks (processes) append to the same partitions.

The file sink's own FileProducer counts a partition's offsets once, when it opens the file, so
two processes writing one partition would repeat offsets. SharedFileProducer takes an
exclusive ``flock`` on the partition file for each batch and reads the next offset from a
hidden side file (``.partition-<n>.next``: next offset and the data file's size; recounted
when the size does not match). Lines keep FileProducer's format, so ``read_file_topic`` and
``tisink verify`` read them unchanged. Locks are local to one machine: on a cluster a
``file://`` path is each executor's own disk, so use Kafka there.
"""

from __future__ import annotations

import fcntl
import os
from base64 import b64encode
from collections.abc import Sequence
from pathlib import Path

from codec.message import Message
from eventsink.file import FileSinkError, partition_file
from sink.config import ChangefeedConfig
from sink.providers import DEFAULT_FILE_PARTITION_NUM, FileProvider
from sink.uri import SinkURI


class SharedFileProducer:
    """A Producer writing the file sink's layout, safe across processes on one machine."""

    def __init__(self, directory: Path, partition_num: int) -> None:
        if partition_num <= 0:
            raise FileSinkError(f"partition-num must be positive, got {partition_num}")
        self.directory = Path(directory)
        self.partition_num = partition_num

    async def partition_count(self, topic: str) -> int:
        return self.partition_num

    async def send(self, topic: str, partition: int, messages: Sequence[Message]) -> None:
        if not 0 <= partition < self.partition_num:
            raise FileSinkError(
                f"topic {topic!r} partition {partition}: out of range "
                f"(partition-num {self.partition_num})"
            )
        if not messages:
            return
        path = partition_file(self.directory, topic, partition)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("ab") as handle:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
                offset = _next_offset(path, handle.tell())
                data = _lines(messages, offset)
                handle.write(data)
                handle.flush()
                _save_next(path, offset + len(messages), handle.tell())
        except OSError as err:
            raise FileSinkError(f"topic {topic!r} partition {partition}: {path}: {err}") from err

    async def close(self) -> None:
        """Nothing stays open between batches."""


def _lines(messages: Sequence[Message], offset: int) -> bytes:
    out = []
    for message in messages:
        key = b"null" if message.key is None else b'"%s"' % b64encode(message.key)
        out.append(
            b'{"offset":%d,"key":%s,"value":"%s"}\n' % (offset, key, b64encode(message.value))
        )
        offset += 1
    return b"".join(out)


def _side_file(path: Path) -> Path:
    return path.with_name(f".{path.stem}.next")


def _next_offset(path: Path, size: int) -> int:
    """The offset after the last line of ``path`` (``size`` bytes), from the side file when it
    describes this size, else by counting lines."""
    try:
        offset, known_size = (int(x) for x in _side_file(path).read_text().split())
        if known_size == size:
            return offset
    except (OSError, ValueError):
        pass
    with path.open("rb") as fh:
        return sum(1 for line in fh if line.strip())


def _save_next(path: Path, offset: int, size: int) -> None:
    side = _side_file(path)
    temp = side.with_name(side.name + f".{os.getpid()}")
    temp.write_text(f"{offset} {size}")
    temp.replace(side)


class SharedFileProvider(FileProvider):
    """FileProvider whose event and DDL sinks share one SharedFileProducer per directory."""

    def __init__(self) -> None:
        super().__init__()
        self._shared: dict[Path, SharedFileProducer] = {}

    def _producer(self, uri: SinkURI, config: ChangefeedConfig) -> SharedFileProducer:  # type: ignore[override]
        directory = Path(uri.path)
        if directory.exists() and not directory.is_dir():
            raise FileSinkError(f"sink URI {uri.redacted()}: {directory} is not a directory")
        key = directory.resolve()
        producer = self._shared.get(key)
        if producer is None:
            partitions = config.partition_num or DEFAULT_FILE_PARTITION_NUM
            producer = self._shared[key] = SharedFileProducer(directory, partitions)
        return producer
