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
from typing import TYPE_CHECKING, Any

from tisink.eventsink.replay.chunks import Chunk
from tisink.eventsink.replay.errors import ReplayError
from tisink.eventsink.replay.records import BLOCK_BYTES, parse_line, plain_fields

if TYPE_CHECKING:  # the codec package is not imported by reader processes
    from tisink.codec.message import Record


def read_chunks(path: Path, partition: int, size: int = 1000) -> Iterator[Chunk]:
    """The chunks (pass 0) of ``path``, ``size`` records each; a torn last line (a capture
    killed mid-write) is left out, a tombstone is a ReplayError naming its offset."""
    records: list[Record] = []
    stamps: list[int | None] = []
    first = total = largest = number = 0
    with path.open("rb") as fh:
        rest = b""
        while block := fh.read(BLOCK_BYTES):
            lines = (rest + block).split(b"\n")
            rest = lines.pop()  # the part after the last newline: torn, or the next block's
            for line in lines:
                number += 1
                if not line:
                    continue
                fields: Any = plain_fields(line) or parse_line(line, path, number)
                offset, key, value, headers, stamp = fields
                if value is None:
                    raise ReplayError(
                        f"partition {partition} offset {offset} of the source is a tombstone "
                        "(null value), which replay cannot send"
                    )
                if not records:
                    first = offset
                bare = len(value) if key is None else len(value) + len(key)
                total += bare
                if bare > largest:
                    largest = bare
                if headers:
                    total += sum(len(name) + len(data) for name, data in headers)
                    records.append((key, value, headers))
                else:
                    records.append((key, value))
                stamps.append(stamp)
                if len(records) == size:
                    yield Chunk(0, partition, records, stamps, first, total, largest)
                    records, stamps = [], []
                    total = largest = 0
    if records:
        yield Chunk(0, partition, records, stamps, first, total, largest)
