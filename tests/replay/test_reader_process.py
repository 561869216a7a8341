"""A folder's later passes (``--loop``) are the first pass again, whether its chunks are held in
memory (a small folder) or read back from the frames kept in a temporary file."""

from __future__ import annotations

from pathlib import Path

import pytest

from tisink.replay import sources
from tisink.replay.chunk_reader import read_chunks
from tisink.replay.reader_process import ProcessStream
from tisink.replay.records import ReplayRecord, record_line
from tisink.replay.sources import FolderSource


def _folder(tmp_path: Path) -> Path:
    topic = tmp_path / "t"
    topic.mkdir()
    for partition, count in ((0, 7), (1, 0), (2, 12)):
        lines = (
            record_line(
                ReplayRecord(n, b"k%d" % n if n % 3 else None, b"v%d-%d" % (partition, n), (), None)
            )
            for n in range(count)
        )
        (topic / f"partition-{partition}.jsonl").write_bytes(b"".join(lines))
    return tmp_path


@pytest.mark.parametrize("hold", [True, False])
def test_every_pass_repeats_the_first(tmp_path: Path, hold: bool) -> None:
    folder = _folder(tmp_path)
    paths = [(p, folder / "t" / f"partition-{p}.jsonl") for p in (0, 1, 2)]
    first = [chunk for p, path in paths for chunk in read_chunks(path, p, 5)]
    stream = ProcessStream(paths, 3, 5, hold)
    try:
        got = list(stream)
    finally:
        stream.close()
    ordered = sorted(got, key=lambda chunk: (chunk.loop, chunk.partition, chunk.first_offset))
    expected = [chunk._replace(loop=loop) for loop in range(3) for chunk in first]
    assert ordered == sorted(expected, key=lambda c: (c.loop, c.partition, c.first_offset))
    assert [chunk.loop for chunk in got] == sorted(chunk.loop for chunk in got)


@pytest.mark.parametrize(("limit", "held"), [(1 << 30, True), (10, False)])
def test_a_folder_is_held_in_memory_only_when_small(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, limit: int, held: bool
) -> None:
    monkeypatch.setattr(sources, "HOLD_FILE_BYTES", limit)
    source = FolderSource(_folder(tmp_path))
    try:
        streams = source.streams(2)
        assert all(isinstance(s, ProcessStream) and s.holds() is held for s in streams)
        assert sum(len(c.records) for s in streams for c in s) == 2 * 19
    finally:
        source.close()


def test_start_spawns_the_readers_that_streams_hands_out(tmp_path: Path) -> None:
    """``tisink replay`` starts a folder's readers before the target opens; the streams it
    later sends from are those readers, whose first chunks are already in their pipes."""
    source = FolderSource(_folder(tmp_path))
    try:
        source.start(1)
        started = list(source._streams)
        assert 1 <= len(started) <= 3  # a reader per partition at most
        streams = source.streams(1)
        assert streams == started  # the same processes, not new ones
        assert sum(len(c.records) for s in streams for c in s) == 19
    finally:
        source.close()


@pytest.mark.parametrize("hold", [True, False])
def test_a_folder_is_read_ahead_of_the_sender(tmp_path: Path, hold: bool) -> None:
    """A thread receives the reader's frames as they come (a held folder's all of them, a
    larger one's ``READ_AHEAD_FRAMES``), so a folder larger than the pipe is read while the
    sender has not asked for a chunk yet (the target opening)."""
    topic = tmp_path / "t"
    topic.mkdir()
    value = bytes(range(256)) * 16  # 4 KiB a record, 4 MiB in all: four times a full pipe
    lines = (record_line(ReplayRecord(n, None, value, (), None)) for n in range(1024))
    path = topic / "partition-0.jsonl"
    path.write_bytes(b"".join(lines))
    stream = ProcessStream([(0, path)], 2, 100, hold)
    try:
        assert stream._process.wait(timeout=30) == 0  # the reader wrote everything and ended
        assert sum(len(chunk.records) for chunk in stream) == 2 * 1024
    finally:
        stream.close()
