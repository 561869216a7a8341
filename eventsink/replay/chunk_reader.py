"""A partition file read straight into chunks: the hot loop of replay's reader processes.

A replay's first pass is bound by these readers, so a block of lines as capture and the file
sink write them (offset, key, value and an optional timestamp, in this order, no headers) is
matched by one regular expression in C and its base64 decoded by ``pybase64`` (SIMD):
about 3 us of CPU a line where a line-by-line parse took 7. A block holding any other line
(headers, other spacing, bad base64, a tombstone) is read line by line through
``plain_fields`` / ``parse_line``, which name a bad line's file and number. The chunks are
the ones ``to_chunk`` makes of ``read_partition_file``'s lists.
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pybase64 import b64decode

from tisink.eventsink.replay.chunks import Chunk, ChunkBuilder
from tisink.eventsink.replay.records import line_blocks, parse_line, plain_fields

_PLAIN = re.compile(
    rb'^\{"offset":(0|[1-9][0-9]*),"key":(null|"[^"]*"),"value":"([^"]*)"'
    rb'(?:,"timestamp":(0|[1-9][0-9]*))?\}\r*$',
    re.MULTILINE,
)
"""A plain line: its offset digits, key (``null`` or quoted base64), value and timestamp. A
match that runs over a newline (``[^"]`` is much faster than ``[^"\\n]``) makes fewer matches
than lines, and base64 never holds one, so the block is then read line by line."""

Plain = tuple[list[bytes], list[tuple[bytes | None, bytes]], list[int | None]]
"""A block's offsets (digits), producer records and timestamps."""


def read_chunks(
    path: Path, partition: int, size: int = 1000, block_bytes: int = 1 << 18
) -> Iterator[Chunk]:
    """The chunks (pass 0) of ``path``, ``size`` records each; a torn last line (a capture
    killed mid-write) is left out, a tombstone is a ReplayError naming its offset."""
    builder = ChunkBuilder(partition)
    add = builder.add
    for before, lines, block in line_blocks(path, block_bytes):
        plain = _plain_block(block, lines)
        if plain is None:
            for number, line in enumerate(block.split(b"\n")[:-1], before + 1):
                if line:
                    fields: Any = plain_fields(line) or parse_line(line, path, number)
                    if add(*fields) == size:
                        yield builder.take(0)
            continue
        offsets, records, stamps = plain
        at = 0
        while at < len(records):
            at = builder.extend(offsets, records, stamps, at, size)
            if len(builder.records) == size:
                yield builder.take(0)
    if builder.records:
        yield builder.take(0)


def _plain_block(block: bytes, lines: int) -> Plain | None:
    """The records of a block of ``lines`` lines when every line of it is plain; None
    otherwise."""
    rows = _PLAIN.findall(block)
    if len(rows) != lines:  # a line that is not plain, or an empty one
        return None
    try:
        records = [
            (
                None if key == b"null" else b64decode(key[1:-1], validate=True),
                b64decode(value, validate=True),
            )
            for _, key, value, _ in rows
        ]
    except binascii.Error:
        return None
    stamps = [int(stamp) if stamp else None for _, _, _, stamp in rows]
    return [row[0] for row in rows], records, stamps
