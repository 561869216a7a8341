"""Captured records in the file sink's partition-file layout, plus each record's timestamp.

A capture folder is a file-sink folder (``DIR/<topic>/partition-<n>.jsonl``, read by ``tisink
verify`` and ``eventsink.file``): one JSON line per record with its Kafka ``offset``, ``key``
and ``value`` in base64 (``null`` for a null key, or a tombstone's null value) and
``headers`` when it has any. Capture adds ``"timestamp"`` (the record's Kafka timestamp, ms),
which the file sink's readers ignore and ``tisink replay --speed`` paces by. Offsets are the
source partition's, so a capture of a topic whose offsets skip (transaction markers,
compaction) keeps the gaps.
"""

from __future__ import annotations

import base64
import binascii
import mmap
import os
from base64 import b64encode
from binascii import a2b_base64
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, NamedTuple

import orjson

from tisink.eventsink.errors import FileSinkError

if TYPE_CHECKING:  # the codec package is not imported by reader processes
    from tisink.codec.message import Headers


class ReplayRecord(NamedTuple):
    """One record of a source partition, in the order it was written there."""

    offset: int
    key: bytes | None
    value: bytes | None
    headers: Headers
    timestamp_ms: int | None
    """The record's Kafka timestamp; None where the source has none (a file-sink folder)."""


def record_line(record: ReplayRecord) -> bytes:
    """The capture line of ``record`` (with its newline)."""
    key = b"null" if record.key is None else b'"%s"' % b64encode(record.key)
    value = b"null" if record.value is None else b'"%s"' % b64encode(record.value)
    line = b'{"offset":%d,"key":%s,"value":%s' % (record.offset, key, value)
    if record.headers:
        line += b',"headers":[%s]' % b",".join(
            b'[%s,"%s"]' % (orjson.dumps(name), b64encode(data)) for name, data in record.headers
        )
    if record.timestamp_ms is not None:
        line += b',"timestamp":%d' % record.timestamp_ms
    return line + b"}\n"


def parse_line(line: bytes, path: Path, number: int) -> ReplayRecord:
    """The record of one line; FileSinkError naming ``path:number`` when it is malformed."""
    fast = plain_fields(line)
    return ReplayRecord(*fast) if fast is not None else _parse_json(line, path, number)


_OFFSET, _KEY, _VALUE, _STAMP = b'{"offset":', b',"key":', b',"value":', b',"timestamp":'


PlainFields = tuple[int, bytes | None, bytes | None, tuple[()], int | None]
"""A plain line's offset, key, value, (no) headers and timestamp: a ReplayRecord's fields."""


def plain_fields(line: bytes) -> PlainFields | None:
    """The lines capture and the file sink write, without a JSON parser: offset, key, value
    and an optional timestamp in this order, base64 checked strictly; None for anything else
    (headers, other spacing), which the JSON parser then reads."""
    if not line.startswith(_OFFSET):
        return None
    at = line.find(_KEY, 10)
    digits = line[10:at]
    if at < 0 or not _is_number(digits):
        return None
    key, at = _base64_field(line, at + 7)
    if at < 0 or not line.startswith(_VALUE, at):
        return None
    value, at = _base64_field(line, at + 9)
    if at < 0:
        return None
    stamp: int | None = None
    if line.startswith(_STAMP, at):
        text = line[at + 13 : line.find(b"}", at)]
        if not _is_number(text):
            return None
        stamp = int(text)
        at += 13 + len(text)
    if line[at:].rstrip(b"\r\n") != b"}":
        return None
    return int(digits), key, value, (), stamp


def _is_number(text: bytes) -> bool:
    """A JSON non-negative integer: digits, no leading zero."""
    return text.isdigit() and (text[:1] != b"0" or len(text) == 1)


def _base64_field(line: bytes, at: int) -> tuple[bytes | None, int]:
    """The bytes of a ``null`` or base64 string at ``at`` and where it ends; -1 when it is
    neither (the JSON parser then decides)."""
    if line.startswith(b"null", at):
        return None, at + 4
    end = line.find(b'"', at + 1)
    if line[at : at + 1] != b'"' or end < 0:
        return None, -1
    try:
        return a2b_base64(line[at + 1 : end], strict_mode=True), end + 1
    except binascii.Error:
        return None, -1


def _parse_json(line: bytes, path: Path, number: int) -> ReplayRecord:
    try:
        item = orjson.loads(line)
        offset, key, value = item["offset"], item["key"], item["value"]
        timestamp = item.get("timestamp")
        if not isinstance(offset, int) or isinstance(offset, bool):
            raise ValueError(f"offset {offset!r} is not an integer")
        if timestamp is not None and (
            not isinstance(timestamp, int) or isinstance(timestamp, bool)
        ):
            raise ValueError(f"timestamp {timestamp!r} is not an integer")
        headers: Headers = tuple(
            (str(name), base64.b64decode(data, validate=True))
            for name, data in item.get("headers") or ()
        )
        return ReplayRecord(
            offset,
            None if key is None else base64.b64decode(key, validate=True),
            None if value is None else base64.b64decode(value, validate=True),
            headers,
            timestamp,
        )
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError) as err:
        raise FileSinkError(f"{path}:{number}: bad record: {err}") from err


def read_partition_file(path: Path, chunk: int = 1000) -> Iterator[list[ReplayRecord]]:
    """The records of one partition file in order, ``chunk`` at a time (a file of millions is
    never held whole); a torn last line (a capture killed mid-write) is left out."""
    out: list[ReplayRecord] = []
    for number, line in numbered_lines(path):
        out.append(parse_line(line, path, number))
        if len(out) == chunk:
            yield out
            out = []
    if out:
        yield out


def numbered_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """The non-empty whole lines of ``path`` with their line numbers, read by blocks; a torn
    last line (no newline after it) is left out."""
    number = 0
    for block in line_blocks(path):
        for line in block.split(b"\n")[:-1]:
            number += 1
            if line:
                yield number, line


def line_blocks(path: Path, size: int = 1 << 18) -> Iterator[bytes]:
    """``path`` in blocks of whole lines (each ending with its newline), about ``size`` bytes
    each; a torn last line is left out. The file is mapped, so a block is copied once (out of
    the page cache), not read and then joined to the last block's rest. Only the whole lines
    are mapped: a capture resuming into the file cuts its torn tail off (``last_offset``), and
    a page of the mapping beyond the file's new end would kill this process (SIGBUS)."""
    with path.open("rb") as fh:
        end = _after_last_newline(fh, os.fstat(fh.fileno()).st_size)
        if end == 0:
            return
        with mmap.mmap(fh.fileno(), end, access=mmap.ACCESS_READ) as mapped:
            start = 0
            while start < end:
                cut = mapped.rfind(b"\n", start, start + size) + 1
                if cut == 0:  # a line longer than the block size
                    cut = mapped.find(b"\n", start + size) + 1
                yield mapped[start:cut]
                start = cut


def last_offset(path: Path) -> int | None:
    """The offset of the last whole record of ``path``, after cutting off a torn tail (part of
    a line a killed capture left); None for a missing or empty file."""
    if not path.exists():
        return None
    with path.open("r+b") as fh:
        size = fh.seek(0, os.SEEK_END)
        whole = _after_last_newline(fh, size)
        if whole < size:
            fh.truncate(whole)
    record = last_record(path)
    return None if record is None else record.offset


def torn_tail(path: Path) -> tuple[int, int] | None:
    """The line number and size of ``path``'s torn last line (bytes after its last newline:
    a write cut short), which reading leaves out; None when the file ends with a newline."""
    with path.open("rb") as fh:
        size = fh.seek(0, os.SEEK_END)
        whole = _after_last_newline(fh, size)
        if whole == size:
            return None
        lines = 0
        if whole:
            with mmap.mmap(fh.fileno(), whole, access=mmap.ACCESS_READ) as mapped:
                for at in range(0, whole, 1 << 24):
                    lines += mapped[at : at + (1 << 24)].count(b"\n")
    return lines + 1, size - whole


def last_record(path: Path) -> ReplayRecord | None:
    """The last whole record of ``path`` (None when it has none), read from its end."""
    with path.open("rb") as fh:
        whole = _after_last_newline(fh, fh.seek(0, os.SEEK_END))
        if whole == 0:
            return None
        start = _after_last_newline(fh, whole - 1)
        fh.seek(start)
        line = fh.read(whole - start)
    return parse_line(line, path, 0)


def _after_last_newline(fh: BinaryIO, end: int) -> int:
    """The position after the last newline before ``end``; 0 when there is none."""
    block = 1 << 16
    while end > 0:
        start = max(0, end - block)
        fh.seek(start)
        found = fh.read(end - start).rfind(b"\n")
        if found >= 0:
            return start + found + 1
        end = start
    return 0
