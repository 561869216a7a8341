"""A partition file read straight into chunks: the hot loop of replay's reader processes.

A replay's first pass is bound by these readers, so a block of lines as capture and the file
sink write them is parsed whole (``plain_block``: split at its quotes, checked by list slices,
its base64 decoded by pybase64): about 3 us of CPU a demo line, where a regular expression
over the block took 4-5 and a line-by-line parse takes 7.
A block holding any other line (headers, other spacing, bad base64, a tombstone) is read line
by line through ``plain_fields`` / ``parse_line``, which name a bad line's file and number.
The chunks are the ones ``to_chunk`` makes of ``read_partition_file``'s lists.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tisink.replay.chunks import Chunk, ChunkBuilder
from tisink.replay.plain_block import plain_block
from tisink.replay.records import line_blocks, parse_line, plain_fields


def read_chunks(
    path: Path, partition: int, size: int = 1000, block_bytes: int = 1 << 18
) -> Iterator[Chunk]:
    """The chunks (pass 0) of ``path``, ``size`` records each; a torn last line (a capture
    killed mid-write) is left out."""
    builder = ChunkBuilder(partition)
    add = builder.add
    before = 0  # lines before the block, for a bad line's number
    for block in line_blocks(path, block_bytes):
        plain = plain_block(block)
        if plain is None:
            lines = block.split(b"\n")[:-1]
            for number, line in enumerate(lines, before + 1):
                if line:
                    fields: Any = plain_fields(line) or parse_line(line, path, number)
                    if add(*fields) == size:
                        yield builder.take(0)
            before += len(lines)
            continue
        before += len(plain.records)
        at = 0
        while at < len(plain.records):
            at = builder.extend(plain, at, size)
            if len(builder.records) == size:
                yield builder.take(0)
    if builder.records:
        yield builder.take(0)
