"""The reader processes' one-walk chunks equal ``to_chunk`` of ``read_partition_file``'s lists,
whatever the lines (plain, with headers, JSON with other spacing), torn tail included."""

from __future__ import annotations

import tempfile
from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.eventsink.replay.test_records import records
from tisink.eventsink.replay.chunk_reader import read_chunks
from tisink.eventsink.replay.chunks import to_chunk
from tisink.eventsink.replay.errors import ReplayError
from tisink.eventsink.replay.records import ReplayRecord, read_partition_file, record_line


def _respaced(line: bytes) -> bytes:
    """The same record as JSON with spaces: the plain parser declines, JSON reads it."""
    return orjson.dumps(orjson.loads(line), option=orjson.OPT_INDENT_2).replace(b"\n", b" ")


sendable = records.filter(lambda record: record.value is not None)


@given(
    st.lists(st.tuples(sendable, st.booleans()), max_size=40),
    st.integers(1, 7),
    st.binary(max_size=30).filter(lambda torn: b"\n" not in torn),
)
def test_the_chunks_are_to_chunks_of_the_records(
    lines: list[tuple[ReplayRecord, bool]], size: int, torn: bytes
) -> None:
    data = b"".join(
        _respaced(record_line(record)) + b"\n" if spaced else record_line(record)
        for record, spaced in lines
    )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "partition-2.jsonl"
        path.write_bytes(data + torn)
        expected = [to_chunk(0, 2, part) for part in read_partition_file(path, size)]
        assert list(read_chunks(path, 2, size)) == expected


def test_a_tombstone_is_named_by_partition_and_offset(tmp_path: Path) -> None:
    path = tmp_path / "partition-1.jsonl"
    path.write_bytes(
        record_line(ReplayRecord(7, b"k", b"v", (), None))
        + record_line(ReplayRecord(8, b"k", None, (), None))
    )
    with pytest.raises(ReplayError, match=r"partition 1 offset 8 .* tombstone"):
        list(read_chunks(path, 1))
