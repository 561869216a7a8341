"""A feed's splits and lines as the tasks read them (``feed/spark/feed_lines.py``), without
Spark: every line in exactly one split, as Python reads the file, and read back by its
place."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tisink.feed.errors import FeedError
from tisink.feed.spark.feed_lines import (
    MAX_SPLIT_BYTES,
    MIN_SPLIT_BYTES,
    FeedLines,
    FeedSplit,
    feed_splits,
    split_bytes,
    split_runs,
    split_tasks,
)

_TEXT = st.lists(st.sampled_from([b"a", b"bc", b"\n", b"\r", b"\r\n", b" ", b"\xff"]), max_size=60)


@settings(max_examples=200, deadline=None)
@given(
    files=st.lists(_TEXT.map(b"".join), min_size=1, max_size=3),
    size=st.integers(1, 40),
    run_bytes=st.integers(1, 12),
)
def test_the_splits_hold_every_line_once_as_python_reads_the_files(
    tmp_path_factory: pytest.TempPathFactory, files: list[bytes], size: int, run_bytes: int
) -> None:
    folder = tmp_path_factory.mktemp("feed")
    paths = []
    for rank, data in enumerate(files):
        paths.append(folder / f"{rank}.jsonl")
        paths[-1].write_bytes(data)
    splits = feed_splits(paths, 1, size)
    assert all(0 < s.end - s.start <= size for s in splits)
    mixed: list[tuple[int, int, int, bytes]] = []
    with FeedLines([str(p) for p in paths]) as reader:
        for rank, data in enumerate(files):
            expected = list(io.BytesIO(data))  # lines as Python iterates a file
            got: list[bytes] = []
            places: list[tuple[int, int]] = []
            for split in (s for s in splits if s.rank == rank):
                for run in split_runs(split, run_bytes):
                    got += run.lines.to_pylist()
                    assert run.texts() == run.lines.to_pylist()
                    assert [run.text(i) for i in range(len(run.lines))] == run.texts()
                    assert run.texts(len(run.lines) // 2) == run.texts()[: len(run.lines) // 2]
                    places += zip(run.at.tolist(), run.sizes.tolist(), strict=True)
            assert got == expected
            starts = [sum(map(len, expected[:i])) for i in range(len(expected))]
            assert [at for at, _ in places] == starts
            bare = [line.removesuffix(b"\n") for line in expected]
            ats, sizes = [at for at, _ in places], [size for _, size in places]
            assert reader.lines_at([rank] * len(ats), ats, sizes) == bare  # one read
            share = list(range(rank % 3, len(ats), 3))[::-1]  # an owner's share, any order
            picked = reader.lines_at(
                [rank] * len(share), [ats[i] for i in share], [sizes[i] for i in share]
            )
            assert picked == [bare[i] for i in share]
            mixed += [
                (rank, at, size, line) for at, size, line in zip(ats, sizes, bare, strict=True)
            ]
        # rows of several files: a read a line
        ranks = [rank for rank, *_ in mixed]
        assert reader.lines_at(ranks, [m[1] for m in mixed], [m[2] for m in mixed]) == [
            m[3] for m in mixed
        ]


def test_a_split_starting_inside_a_line_leaves_it_to_the_split_before(tmp_path: Path) -> None:
    path = tmp_path / "f.jsonl"
    path.write_bytes(b"first\nsecond line\nthird\n")
    before, after = feed_splits([path], 1, 9)[:2]  # [0, 9) and [9, 18)
    assert [run.lines.to_pylist() for run in split_runs(before)] == [[b"first\n", b"second line\n"]]
    assert [run.lines.to_pylist() for run in split_runs(after)] == []


def test_a_line_that_changed_since_stage_one_read_it_is_named(tmp_path: Path) -> None:
    path = tmp_path / "f.jsonl"
    path.write_bytes(b"one\ntwo\n")
    other = tmp_path / "g.jsonl"
    other.write_bytes(b"three\n")
    with FeedLines([str(path), str(other)]) as lines:
        assert lines.lines_at([0], [4], [3]) == [b"two"]
        assert lines.lines_at([0, 1], [4, 0], [3, 5]) == [b"two", b"three"]
        path.write_bytes(b"one\n")
        for batch in ([0], [4], [3]), ([1, 0], [0, 4], [5, 3]):  # one read, a read a line
            with pytest.raises(FeedError, match=f"{path} changed while it was played"):
                lines.lines_at(*batch)


def test_splits_are_spread_over_the_cores_between_spark_s_bounds() -> None:
    assert split_bytes(10 << 30, 4) == MAX_SPLIT_BYTES
    assert split_bytes(1 << 20, 4) == MIN_SPLIT_BYTES
    assert split_bytes(200 << 20, 4) == 50 << 20


def test_many_small_files_share_tasks_and_a_large_one_has_one_a_split(tmp_path: Path) -> None:
    small = []
    for rank in range(50):
        small.append(tmp_path / f"{rank:02}.jsonl")
        small[-1].write_bytes(b"{}\n" * 10)
    assert split_tasks(feed_splits(small, 4), 4) == 4
    assert split_tasks(feed_splits(small, 64), 64) == 50
    large = [FeedSplit(0, "f", start, start + MAX_SPLIT_BYTES) for start in range(0, 10)]
    assert split_tasks(large, 2) == 10
