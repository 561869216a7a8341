"""Capture lines: every record reads back as written; a torn tail is cut and resumed after."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from tisink.eventsink.file import read_file_topic_records
from tisink.replay.records import (
    ReplayRecord,
    _parse_json,
    last_offset,
    parse_line,
    plain_fields,
    read_partition_file,
    record_line,
)

records = st.builds(
    ReplayRecord,
    st.integers(0, 2**62),
    st.none() | st.binary(max_size=40),
    st.none() | st.binary(max_size=200),
    st.lists(st.tuples(st.text(max_size=8), st.binary(max_size=12)), max_size=3).map(tuple),
    st.none() | st.integers(0, 2**45),
)


@given(records)
def test_a_line_reads_back_as_the_record(record: ReplayRecord) -> None:
    line = record_line(record)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert parse_line(line, Path("p"), 1) == record


def test_the_file_sinks_reader_reads_a_capture(tmp_path: Path) -> None:
    """A capture folder is a file-sink folder: verify's reader takes it, timestamps ignored."""
    written = [
        ReplayRecord(5, b"k", b"v1", (("h", b"\x00"),), 1700000000000),
        ReplayRecord(6, None, b"v2", (), 1700000000001),
    ]
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "partition-0.jsonl").write_bytes(b"".join(map(record_line, written)))
    got = [(r.offset, r.key, r.value, r.headers) for r in read_file_topic_records(tmp_path, "t")]
    assert got == [(5, b"k", b"v1", (("h", b"\x00"),)), (6, None, b"v2", ())]


def test_a_torn_tail_is_cut_and_the_last_whole_record_named(tmp_path: Path) -> None:
    path = tmp_path / "partition-0.jsonl"
    whole = [ReplayRecord(i, b"k", b"x" * 70_000, (), i) for i in range(3)]  # lines > 64 KiB
    data = b"".join(map(record_line, whole))
    path.write_bytes(data + record_line(ReplayRecord(3, None, b"y", (), 3))[:20])
    assert [r for chunk in read_partition_file(path, chunk=2) for r in chunk] == whole
    assert last_offset(path) == 2
    assert path.read_bytes() == data
    assert last_offset(tmp_path / "missing.jsonl") is None
    path.write_bytes(b'{"offset":0')  # nothing whole
    assert last_offset(path) is None and path.read_bytes() == b""


@given(records, st.integers(0, 200), st.binary(min_size=1, max_size=3))
def test_the_plain_parser_agrees_with_json_or_declines(
    record: ReplayRecord, at: int, junk: bytes
) -> None:
    """Whatever the line (a written one, or one with bytes changed), the parser without JSON
    returns what the JSON parser reads, or leaves it to it."""
    line = record_line(record).rstrip(b"\n")
    for candidate in (line, line[:at] + junk + line[at + len(junk) :]):
        plain = plain_fields(candidate)
        if plain is None:
            continue
        assert ReplayRecord(*plain) == _parse_json(candidate, Path("p"), 1)


_CUT_WHILE_READING = """
import sys
from pathlib import Path
from tisink.replay.records import last_offset, line_blocks
path = Path(sys.argv[1])
blocks = line_blocks(path, 4096)
first = next(blocks)
last_offset(path)  # a capture resuming into the file: its torn tail is cut off
rest = b"".join(blocks)
print(len(first) + len(rest))
"""


def test_a_torn_tail_cut_off_while_the_file_is_read_does_not_kill_the_reader(
    tmp_path: Path,
) -> None:
    """The torn tail spans pages beyond the last whole line; a mapping that covered them would
    die (SIGBUS) once a resuming capture cuts them off. Run in a process of its own."""
    path = tmp_path / "partition-0.jsonl"
    whole = b"".join(record_line(ReplayRecord(n, None, b"v" * 200, (), None)) for n in range(300))
    path.write_bytes(whole + b'{"offset":300,"key":null,"value":"' + b"A" * 40_000)
    done = subprocess.run(
        [sys.executable, "-c", _CUT_WHILE_READING, str(path)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, (done.returncode, done.stderr[-1000:])
    assert int(done.stdout) == len(whole) == path.stat().st_size
