"""The reader processes' one-walk chunks equal ``to_chunk`` of ``read_partition_file``'s lists,
whatever the lines (plain, with headers, JSON with other spacing), torn tail included."""

from __future__ import annotations

import base64
import binascii
import tempfile
from pathlib import Path

import orjson
import pybase64
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.replay.test_records import records
from tisink.eventsink.errors import FileSinkError
from tisink.replay.chunk_reader import read_chunks
from tisink.replay.chunks import to_chunk
from tisink.replay.records import ReplayRecord, read_partition_file, record_line


def _respaced(line: bytes) -> bytes:
    """The same record as JSON with spaces: the plain parser declines, JSON reads it."""
    return orjson.dumps(orjson.loads(line), option=orjson.OPT_INDENT_2).replace(b"\n", b" ")


sendable = records.filter(lambda record: record.value is not None)


@given(
    st.lists(st.tuples(sendable, st.booleans()), max_size=40),
    st.integers(1, 7),
    st.binary(max_size=30).filter(lambda torn: b"\n" not in torn),
    st.integers(1, 600),
)
def test_the_chunks_are_to_chunks_of_the_records(
    lines: list[tuple[ReplayRecord, bool]], size: int, torn: bytes, block_bytes: int
) -> None:
    data = b"".join(
        _respaced(record_line(record)) + b"\n" if spaced else record_line(record)
        for record, spaced in lines
    )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "partition-2.jsonl"
        path.write_bytes(data + torn)
        expected = [to_chunk(0, 2, part) for part in read_partition_file(path, size)]
        assert list(read_chunks(path, 2, size, block_bytes)) == expected


def test_a_tombstone_is_a_record_with_no_value(tmp_path: Path) -> None:
    """TiCDC's avro DELETE: a key and a null value, sent as one."""
    path = tmp_path / "partition-1.jsonl"
    path.write_bytes(
        record_line(ReplayRecord(7, b"k", b"v", (), None))
        + record_line(ReplayRecord(8, b"key", None, (), None))
    )
    (chunk,) = read_chunks(path, 1)
    assert chunk.records == [(b"k", b"v"), (b"key", None)]
    assert (chunk.size, chunk.largest) == (5, 3)


@pytest.mark.parametrize("block_bytes", [1, 64, 1 << 18])
def test_a_bad_line_after_plain_blocks_is_named_by_file_and_line(
    tmp_path: Path, block_bytes: int
) -> None:
    path = tmp_path / "partition-0.jsonl"
    plain = b"".join(record_line(ReplayRecord(n, None, b"v%d" % n, (), None)) for n in range(5))
    path.write_bytes(plain + b'{"offset":5,"key":null,"value":"!!"}\n')
    with pytest.raises(FileSinkError, match=r"partition-0\.jsonl:6: bad record"):
        list(read_chunks(path, 0, 2, block_bytes))


@given(
    st.binary(max_size=12).map(lambda raw: base64.b64encode(raw))
    | st.text("AB+/= a\n").map(str.encode)
)
def test_the_block_decoder_accepts_no_base64_the_json_path_refuses(text: bytes) -> None:
    """A plain block is decoded by pybase64, any other line by ``base64.b64decode``: the
    first may refuse more (its block is then read line by line), never accept more."""
    try:
        fast = pybase64.b64decode(text, validate=True)
    except binascii.Error:
        return
    assert base64.b64decode(text, validate=True) == fast
