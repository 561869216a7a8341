"""FileProducer: "Kafka without a broker", one JSON Lines file per topic and partition.

Layout: ``DIR/<topic>/partition-<n>.jsonl`` (``topic_folder``: a topic that is no plain folder
name is refused, ``path_names``), one record per line,
``{"offset":<n>,"key":<base64 or null>,"value":<base64>}``, plus
``"headers":[[<name>,<base64 value>],...]`` when the record has Kafka headers. Offsets count
from 0 per partition, like Kafka's, and a producer opened on an existing directory continues
after the records already there. Each ``send`` is one unbuffered append, so a batch is
acknowledged only once it reached the operating system, and it is stored whole or not at all
(``file_tail.py``: a failed write is cut back; a torn tail a killed process left is cut by the
next producer). ``read_file_topic`` (and, with headers, ``read_file_topic_records``) reads the
files back for tests and ``tisink verify``.

Several processes (Spark tasks, the driver) may write one partition: each batch holds an
exclusive ``flock`` on the file, and the next offset travels in a hidden side file
(``.partition-<n>.next``: next offset and file size after the last acknowledged batch); when it
does not describe the file, the file is settled (``file_tail.settle``) and its records counted.
The side file is rewritten in place under the lock, before the batch is acknowledged: one
``pwrite`` of a fixed-width text on a descriptor the producer keeps open (a few microseconds,
where writing a temporary file and renaming it cost about 185 per send). Locks are local to one
machine; on a cluster use Kafka.
"""

from __future__ import annotations

import base64
import fcntl
import logging
import os
import re
from base64 import b64encode
from binascii import b2a_base64 as _b64
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

import orjson

from tisink.codec.message import Headers, Record, record_headers, with_sequence
from tisink.eventsink.errors import FileSinkError as FileSinkError  # callers import it here
from tisink.eventsink.file_tail import append_whole, settle
from tisink.eventsink.path_names import path_component

log = logging.getLogger(__name__)

_PARTITION_FILE = re.compile(r"^partition-(\d+)\.jsonl$")
_TOPIC_NAME = re.compile(r"^[A-Za-z0-9._-]+$")


def topic_folder(directory: Path, topic: str) -> Path:
    """``directory/<topic>``; PathNameError when the topic is no plain directory name (``..``,
    ``a/b``), so a topic never reaches outside ``directory``."""
    return Path(directory) / path_component(topic, "topic name", f"topic {topic!r}")


def partition_file(directory: Path, topic: str, partition: int) -> Path:
    return topic_folder(directory, topic) / f"partition-{partition}.jsonl"


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
        self._files: dict[tuple[str, int], _Partition] = {}
        """The open files of each partition written."""
        self._ends: dict[tuple[str, int], tuple[int, int]] = {}
        """(next offset, file size) after this producer's last write to each partition."""

    async def partition_count(self, topic: str) -> int:
        _check_topic(topic)
        return self.partition_num

    async def send(self, topic: str, partition: int, records: Sequence[Record]) -> None:
        self._write(topic, partition, records, None)

    async def send_sequenced(
        self, topic: str, partition: int, records: Sequence[Record], header: str
    ) -> None:
        """As ``send``, each record numbered offset + 1 in a leading header ``header`` (DTS's
        ``ps``): counted by the file under its lock, so the sequence stays continuous whichever
        process (Spark task, driver) writes the partition."""
        self._write(topic, partition, records, header)

    def _write(
        self, topic: str, partition: int, records: Sequence[Record], header: str | None
    ) -> None:
        if not 0 <= partition < self.partition_num:
            raise FileSinkError(
                f"topic {topic!r} partition {partition}: out of range "
                f"(partition-num {self.partition_num})"
            )
        if not records:
            return
        key = (topic, partition)
        opened = self._files.get(key)
        if opened is None:
            opened = self._open(topic, partition)
        fd, path = opened.fd, opened.path
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                offset, size = self._next_offset(key, path, fd)
                if header is not None:
                    records = with_sequence(records, header, offset + 1)
                data = _lines(records, offset)
                end = (offset + len(records), size + len(data))
                append_whole(fd, path, data, size)
                try:
                    opened.save_end(end)
                except BaseException:
                    os.ftruncate(fd, size)  # not acknowledged: not stored either
                    raise
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        except OSError as err:
            raise FileSinkError(
                f"topic {topic!r} partition {partition}: cannot write {path}: {err}"
            ) from err
        self._ends[key] = end

    def _next_offset(self, key: tuple[str, int], path: Path, fd: int) -> tuple[int, int]:
        """The offset after the file's last record and the file's size: ours if nobody else
        wrote since, else the side file's if it describes the file, else what settling the
        file's tail gives (FileSinkError for a file damaged before its end)."""
        size = os.fstat(fd).st_size
        known = self._ends.get(key)
        if known is not None and known[1] == size:
            return known
        side = _read_side_file(path)
        if side is not None and side[1] == size:
            return side
        return settle(fd, path, size, side)

    def acknowledged_offsets(self) -> dict[tuple[str, int], int]:
        """The end offset after this producer's last write to each partition (what it saw
        stored: verify's acknowledged-stored check, the fault list's offsets)."""
        return {key: end[0] for key, end in self._ends.items()}

    async def close(self) -> None:
        """Close the files; a later ``send`` opens them again and continues the offsets."""
        files, self._files = self._files, {}
        for opened in files.values():
            opened.close()

    def _open(self, topic: str, partition: int) -> _Partition:
        _check_topic(topic)
        path = partition_file(self.directory, topic, partition)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as err:
            raise FileSinkError(f"topic {topic!r} partition {partition}: {path}: {err}") from err
        opened = self._files[(topic, partition)] = _Partition(path, fd)
        return opened


_SIDE_WIDTH = 48
"""Bytes of the side file's text: two 20-digit numbers, a space, padding; always written
whole, so a shorter text never leaves the tail of a longer one behind."""


class _Partition:
    """A partition file open for appending and its side file, open once it is first saved."""

    __slots__ = ("fd", "path", "side_fd")

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self.fd = fd
        self.side_fd = -1

    def save_end(self, end: tuple[int, int]) -> None:
        """Record ``end`` (next offset, size) in the side file: one ``pwrite`` of the whole
        text at its start, which a killed process makes whole or not at all; reopened if
        somebody removed the file meanwhile."""
        side_fd = self.side_fd
        if side_fd < 0 or os.fstat(side_fd).st_nlink == 0:
            if side_fd >= 0:
                os.close(side_fd)
                self.side_fd = -1
            side = _side_file(self.path)
            side_fd = self.side_fd = os.open(side, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        if os.pwrite(side_fd, (b"%d %d" % end).ljust(_SIDE_WIDTH), 0) != _SIDE_WIDTH:
            raise OSError(f"{_side_file(self.path)}: a short write")

    def close(self) -> None:
        os.close(self.fd)
        if self.side_fd >= 0:
            os.close(self.side_fd)
            self.side_fd = -1


def _lines(records: Sequence[Record], offset: int) -> bytes:
    lines: list[bytes] = []
    append = lines.append
    for record in records:
        key, value = record[0], record[1]
        # base64 needs no JSON escaping, so the record is formatted directly; binascii's
        # encoder is base64.b64encode without its Python wrapper (two calls a record).
        key_text = b"null" if key is None else b'"%s"' % _b64(key, newline=False)
        if value is None:  # a tombstone: rare, off the fast path's two formats
            append(_tombstone_line(offset, key_text, record_headers(record)))
        elif len(record) == 3 and record[2]:
            append(
                b'{"offset":%d,"key":%s,"value":"%s","headers":%s}\n'
                % (offset, key_text, _b64(value, newline=False), _headers_json(record[2]))
            )
        else:
            append(
                b'{"offset":%d,"key":%s,"value":"%s"}\n'
                % (offset, key_text, _b64(value, newline=False))
            )
        offset += 1
    return b"".join(lines)


def _tombstone_line(offset: int, key_text: bytes, headers: Headers) -> bytes:
    if headers:
        return b'{"offset":%d,"key":%s,"value":null,"headers":%s}\n' % (
            offset,
            key_text,
            _headers_json(headers),
        )
    return b'{"offset":%d,"key":%s,"value":null}\n' % (offset, key_text)


def _headers_json(headers: Headers) -> bytes:
    return b"[%s]" % b",".join(
        b'[%s,"%s"]' % (orjson.dumps(name), b64encode(value)) for name, value in headers
    )


def _side_file(path: Path) -> Path:
    return path.with_name(f".{path.stem}.next")


def _read_side_file(path: Path) -> tuple[int, int] | None:
    """(next offset, size) after the last acknowledged batch, if the side file says."""
    try:
        offset, size = (int(x) for x in _side_file(path).read_text().split())
    except (OSError, ValueError):
        return None
    return offset, size


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


class FileRecord(NamedTuple):
    """One record read back; ``headers`` is () when the line has none."""

    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    """None: a tombstone."""
    headers: Headers


def read_file_topic(
    directory: Path, topic: str
) -> Iterator[tuple[int, int, bytes | None, bytes | None]]:
    """Yield ``(partition, offset, key, value)`` for every record of ``topic``, partition by
    partition in offset order; a malformed line raises FileSinkError naming file and line."""
    for record in read_file_topic_records(directory, topic):
        yield record.partition, record.offset, record.key, record.value


def read_file_topic_records(directory: Path, topic: str) -> Iterator[FileRecord]:
    """As ``read_file_topic``, with each record's headers."""
    folder = topic_folder(directory, topic)
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
                offset, key, value, headers = _parse_record(line, path, number)
                yield FileRecord(partition, offset, key, value, headers)


def _parse_record(
    line: bytes, path: Path, number: int
) -> tuple[int, bytes | None, bytes | None, Headers]:
    try:
        record = orjson.loads(line)
        offset = record["offset"]
        key = record["key"]
        value = record["value"]
        if not isinstance(offset, int) or isinstance(offset, bool):
            raise ValueError(f"offset {offset!r} is not an integer")
        headers: Headers = tuple(
            (str(name), base64.b64decode(value, validate=True))
            for name, value in record.get("headers") or ()
        )
        return (
            offset,
            None if key is None else base64.b64decode(key, validate=True),
            None if value is None else base64.b64decode(value, validate=True),
            headers,
        )
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError) as err:
        raise FileSinkError(f"{path}:{number}: bad record: {err}") from err
