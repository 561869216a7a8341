"""A partition file read straight into chunks: the hot loop of replay's reader processes.

``read_partition_file`` then ``to_chunk`` builds a ReplayRecord per line and walks the records
twice; a replay's first pass is bound by these readers (about 6 us of CPU a line), so this
reads a file's plain lines (``plain_fields``, as capture and the file sink write them) into
the producers' record tuples in one walk. Any other line goes through ``parse_line``; the
chunks are the ones ``to_chunk`` makes of ``read_partition_file``'s lists.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tisink.eventsink.replay.chunks import Chunk, ChunkBuilder
from tisink.eventsink.replay.records import numbered_lines, parse_line, plain_fields


def read_chunks(path: Path, partition: int, size: int = 1000) -> Iterator[Chunk]:
    """The chunks (pass 0) of ``path``, ``size`` records each; a torn last line (a capture
    killed mid-write) is left out, a tombstone is a ReplayError naming its offset."""
    builder = ChunkBuilder(partition)
    add = builder.add
    for number, line in numbered_lines(path):
        fields: Any = plain_fields(line) or parse_line(line, path, number)
        if add(*fields) == size:
            yield builder.take(0)
    if builder.records:
        yield builder.take(0)
