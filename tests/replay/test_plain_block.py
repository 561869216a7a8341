"""A whole block parsed at its quotes: every block of plain lines is taken, and whatever it
takes is what the line-by-line parser reads (it never accepts a line that parser refuses or
reads differently)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tisink.eventsink.errors import FileSinkError
from tisink.replay.plain_block import plain_block
from tisink.replay.records import ReplayRecord, parse_line, record_line

plain_records = st.builds(
    ReplayRecord,
    st.integers(0, 2**62),
    st.none() | st.binary(max_size=40),
    st.binary(max_size=200),
    st.just(()),
    st.none(),
)


def _stamped(stamp: int | None) -> st.SearchStrategy[list[ReplayRecord]]:
    return st.lists(plain_records.map(lambda r: r._replace(timestamp_ms=stamp)), min_size=1)


@given(st.sampled_from([None, 0, 1700000000123]).flatmap(_stamped))
def test_a_block_of_plain_lines_is_taken_whole(lines: list[ReplayRecord]) -> None:
    """Null and quoted keys mixed; all lines stamped or none."""
    plain = plain_block(b"".join(map(record_line, lines)))
    assert plain is not None
    assert [int(piece[1:-1]) for piece in plain.offsets] == [r.offset for r in lines]
    assert plain.records == [(r.key, r.value) for r in lines]
    assert plain.stamps == [r.timestamp_ms for r in lines]
    assert plain.sizes == [len(r.key or b"") + len(r.value or b"") for r in lines]


def _read_line_by_line(block: bytes) -> list[ReplayRecord] | None:
    try:
        return [parse_line(line, Path("p"), 1) for line in block.split(b"\n")[:-1]]
    except FileSinkError:
        return None


@given(
    st.lists(plain_records, min_size=1, max_size=6),
    st.integers(0, 10_000),
    st.sampled_from([b'"', b"\n", b"!", b"0", b"=", b"\r", b" ", b"a", b"{", b":", b",", b"\\"]),
    st.booleans(),
)
def test_what_it_takes_the_line_parser_reads_the_same(
    lines: list[ReplayRecord], at: int, byte: bytes, replace: bool
) -> None:
    """One byte put in or replaced anywhere: either the block is refused (then read line by
    line), or it gives exactly what the line-by-line parser gives."""
    block = b"".join(map(record_line, lines))
    at %= len(block) - 1  # never the last newline: a block is whole lines
    block = block[:at] + byte + block[at + replace :]
    plain = plain_block(block)
    if plain is None:
        return
    expected = _read_line_by_line(block)
    assert expected is not None, block
    offsets, records, stamps, _ = plain
    assert [
        (int(o[1:-1]), k, v, s) for o, (k, v), s in zip(offsets, records, stamps, strict=True)
    ] == [(r.offset, r.key, r.value, r.timestamp_ms) for r in expected]


@pytest.mark.parametrize(
    "line",
    [
        b'{"offset":1,"key":"!","value":"dg=="}\n',  # the null mark itself, literally
        b'{"offset":01,"key":null,"value":"dg=="}\n',  # a leading zero
        b'{"offset":1,"key":null,"value":"dg=="}\r\n',  # a carriage return
        b'{"offset":1,"key":null,"value":null}\n',  # a tombstone
        b'{"offset":1,"key":null,"value":"dg==","timestamp":1_0}\n',
        b'{"offset":1,"key":null,"value":"dg==","headers":[]}\n',
    ],
)
def test_a_block_with_a_line_that_is_not_plain_is_refused(line: bytes) -> None:
    plain = record_line(ReplayRecord(0, b"k", b"v", (), None))
    assert plain_block(plain + line) is None
    assert plain_block(plain + plain) is not None


def test_stamped_and_unstamped_lines_make_a_block_not_plain() -> None:
    lines = [ReplayRecord(n, b"k", b"v", (), stamp) for n, stamp in enumerate((None, 5))]
    assert plain_block(b"".join(map(record_line, lines))) is None
