"""A folder source says which partition file ends in a torn line (a write cut short), whose
record it leaves out, naming the file and line as ``--append`` names what it cuts."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tisink.replay.records import ReplayRecord, record_line, torn_tail
from tisink.replay.run import ReplayOptions, run_replay


def _write(path: Path, count: int, tail: bytes = b"") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = (record_line(ReplayRecord(i, None, b"v%d" % i, (), None)) for i in range(count))
    path.write_bytes(b"".join(lines) + tail)


def test_a_torn_last_line_is_named_by_file_and_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder = tmp_path / "cap"
    _write(folder / "t" / "partition-0.jsonl", 5, b'{"offset":5,"key":null,"val')
    _write(folder / "t" / "partition-1.jsonl", 4)
    with caplog.at_level(logging.WARNING):
        summary = run_replay(
            ReplayOptions(source=str(folder), sink_uri=f"file://{tmp_path / 'out'}?partition-num=2")
        )
    assert summary.rows == 9
    torn = [r.getMessage() for r in caplog.records if "torn" in r.getMessage()]
    assert len(torn) == 1, torn
    assert "partition-0.jsonl:6: a torn last line (27 bytes" in torn[0]
    assert "not replayed" in torn[0]


@given(
    lines=st.lists(st.binary(max_size=20).map(lambda b: b.replace(b"\n", b"")), max_size=20),
    tail=st.binary(max_size=20).map(lambda b: b.replace(b"\n", b"")),
)
def test_torn_tail_counts_the_lines_before_it(
    tmp_path_factory: pytest.TempPathFactory, lines: list[bytes], tail: bytes
) -> None:
    path = tmp_path_factory.mktemp("torn") / "partition-0.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in lines) + tail)
    assert torn_tail(path) == ((len(lines) + 1, len(tail)) if tail else None)
