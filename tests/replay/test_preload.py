"""``--preload``: the source is read whole before the first send, then every pass comes from
memory; what reaches the target is what a streamed replay sends; the memory budget is a clear
error; a load stopped by ``close`` ends instead of waiting for a reader that was stopped."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tisink.replay.chunks import Chunk, to_chunk
from tisink.replay.errors import ReplayError, ReplayStopped
from tisink.replay.preload import PreloadedSource, available_bytes
from tisink.replay.reader_process import ProcessStream
from tisink.replay.records import ReplayRecord, read_partition_file, record_line
from tisink.replay.run import ReplayOptions, replay_progress, run_replay
from tisink.replay.sender import ReplayStats


class _Listed:
    """Two streams of chunks from lists, counting how often they were read."""

    blocking = True
    topic = "t"

    def __init__(self, streams: list[list[Chunk]]) -> None:
        self._streams = streams
        self.reads = 0
        self.started: list[int] = []
        self.closed = False

    def partition_count(self) -> int:
        return 3

    def start(self, loops: int) -> None:
        self.started.append(loops)

    def streams(self, loops: int) -> list[Iterator[Chunk]]:
        assert loops == 1
        self.reads += 1
        return [iter(chunks) for chunks in self._streams]

    def time_range(self) -> tuple[int, int] | None:
        return None

    def close(self) -> None:
        self.closed = True


def _chunk(partition: int, offsets: range, stamp: int | None = 5) -> Chunk:
    records = [
        ReplayRecord(o, b"k%d" % o, b"v%d" % o, (), None if stamp is None else stamp + o)
        for o in offsets
    ]
    return to_chunk(0, partition, records)


def test_every_pass_comes_from_the_one_read() -> None:
    streams = [[_chunk(0, range(3)), _chunk(2, range(2))], [_chunk(1, range(4, 9))]]
    inner = _Listed(streams)
    source = PreloadedSource(inner)
    with pytest.raises(ReplayError, match="not loaded"):
        source.streams(1)
    source.start(3)
    assert inner.started == [1]
    source.load()
    held = [chunk for chunks in streams for chunk in chunks]
    assert source.loaded == (sum(len(c.records) for c in held), sum(c.size for c in held))
    got = [list(stream) for stream in source.streams(3)]
    assert inner.reads == 1 and source.blocking is False and source.partition_count() == 3
    for held, passes in zip(streams, got, strict=True):
        assert [c.loop for c in passes] == [n for n in range(3) for _ in held]
        assert [c._replace(loop=0) for c in passes] == held * 3
    assert source.time_range() == (5, 13)
    source.close()
    assert inner.closed


def test_a_record_without_a_timestamp_gives_no_time_range() -> None:
    source = PreloadedSource(_Listed([[_chunk(0, range(2)), _chunk(0, range(2, 3), None)]]))
    assert source.time_range() is None  # not loaded
    source.load()
    assert source.time_range() is None


def test_the_memory_budget_is_a_clear_error() -> None:
    chunks = [_chunk(0, range(n, n + 10)) for n in range(0, 100, 10)]
    size = sum(c.size for c in chunks)
    PreloadedSource(_Listed([chunks]), budget_bytes=size).load()
    with pytest.raises(ReplayError, match=r"--preload: the source t holds more than .* MB"):
        PreloadedSource(_Listed([chunks]), budget_bytes=size - 1).load()


def test_the_default_budget_is_half_the_available_memory() -> None:
    available = available_bytes()
    assert available is not None and available > 0  # Linux: MemAvailable
    source = PreloadedSource(_Listed([]))
    assert source._budget is not None
    assert abs(source._budget - available // 2) < available // 10


def _capture(folder: Path, counts: dict[int, int]) -> Path:
    (folder / "t").mkdir(parents=True)
    for partition, count in counts.items():
        lines = (
            record_line(ReplayRecord(n, b"k%d" % n, b"%d:%d" % (partition, n), (), 1000 + n))
            for n in range(count)
        )
        (folder / "t" / f"partition-{partition}.jsonl").write_bytes(b"".join(lines))
    return folder


def _sent(folder: Path, partition: int) -> list[tuple[bytes | None, bytes | None]]:
    path = folder / "tidb-cdc" / f"partition-{partition}.jsonl"
    if not path.exists():  # the file sink writes no file for a partition without records
        return []
    return [(r.key, r.value) for chunk in read_partition_file(path) for r in chunk]


def test_a_preloaded_replay_sends_what_a_streamed_one_does(tmp_path: Path) -> None:
    source = str(_capture(tmp_path / "cap", {0: 2500, 1: 0, 2: 1200}))
    summaries = {}
    for preload in (False, True):
        out = tmp_path / f"out-{preload}"
        options = ReplayOptions(
            source=source, sink_uri=f"file://{out}?partition-num=3", loops=3, preload=preload
        )
        summaries[preload] = run_replay(options)
    assert summaries[True].rows == summaries[False].rows == 3 * 3700
    for partition in range(3):
        streamed = _sent(tmp_path / "out-False", partition)
        assert _sent(tmp_path / "out-True", partition) == streamed
        assert len(streamed) == 3 * (2500, 0, 1200)[partition]


def test_a_bad_last_line_sends_nothing_when_preloaded(tmp_path: Path) -> None:
    folder = _capture(tmp_path / "cap", {0: 3000})
    path = folder / "t" / "partition-0.jsonl"
    path.write_bytes(path.read_bytes() + b'{"offset":3000,"key":null,"value":"!!"}\n')
    out = tmp_path / "out"
    options = ReplayOptions(
        source=str(folder), sink_uri=f"file://{out}?partition-num=1", preload=True
    )
    with pytest.raises(ReplayStopped, match=r"partition-0\.jsonl:3001: bad record") as failed:
        run_replay(options)
    assert isinstance(failed.value.__cause__, ReplayError) and failed.value.summary.rows == 0
    files = list(out.rglob("partition-*.jsonl"))
    assert all(f.stat().st_size == 0 for f in files)


def test_close_ends_a_next_waiting_on_a_stopped_reader(tmp_path: Path) -> None:
    fifo = tmp_path / "partition-0.jsonl"
    os.mkfifo(fifo)  # nobody writes: the reader waits on it for ever
    stream = ProcessStream([(0, fifo)], 1, 10)
    failed: list[BaseException] = []

    def wait() -> None:
        try:
            next(stream)
        except BaseException as err:
            failed.append(err)

    waiting = threading.Thread(target=wait)
    waiting.start()
    waiting.join(0.3)
    assert waiting.is_alive()
    stream.close()
    waiting.join(10)
    assert not waiting.is_alive()
    assert isinstance(failed[0], ReplayError) and "closed" in str(failed[0])


def test_the_progress_line_tells_the_load_from_the_sending(tmp_path: Path) -> None:
    source = str(_capture(tmp_path / "cap", {0: 100_000, 1: 100_000}))
    lines: list[str] = []
    options = ReplayOptions(
        source=source, sink_uri=f"file://{tmp_path / 'out'}?partition-num=2", preload=True
    )
    summary = run_replay(options, lambda stats: lines.append(replay_progress(stats)))
    assert summary.rows == 200_000 and summary.startup_s > 0.25  # ticks come every 0.25 s
    loading = [line for line in lines if line.startswith("loading the source: ")]
    assert loading == lines[: len(loading)]  # nothing said loading once sending began
    counts = [int(line.split()[3].replace(",", "")) for line in loading]
    assert counts and counts == sorted(counts) and counts[-1] <= 200_000
    assert replay_progress(ReplayStats(records=12_345, bytes=2_000_000)) == (
        "replayed 12,345 records, 2.0 MB"
    )
