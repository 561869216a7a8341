"""A bad feed on the Spark engine: the first bad line is named as the inline engine names it,
and nothing is written (the lines reach the tasks as bytes, in Arrow batches)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pyspark")

from tisink.feed.errors import FeedError
from tisink.feed.format.reader import read_feed
from tisink.feed.play_spec import PlaySpec
from tisink.feed.spark import SparkPlayError, run_spark_play
from tisink.feed.workload import generate_feed

SINK = "file://{}?protocol=simple&partition-num=3"


def _lines(tmp_path: Path) -> list[bytes]:
    feed = tmp_path / "whole.jsonl"
    generate_feed("demo", 4, 300, feed)
    return feed.read_bytes().splitlines(keepends=True)


def _fails_as_inline(feed: Path, out: Path) -> str:
    """The Spark play's error, which must be the inline reader's; nothing written."""
    with pytest.raises(FeedError) as inline:
        list(read_feed(feed))
    with pytest.raises(SparkPlayError) as caught:
        run_spark_play(
            PlaySpec(feed=feed, sink_uri=SINK.format(out), master="local[2]", clock="feed")
        )
    assert str(caught.value.cause) == str(inline.value)
    assert caught.value.last_checkpoint_ts == 0
    assert not out.exists() or not any(p.is_file() for p in out.rglob("*"))
    return str(inline.value)


def test_a_bad_ddl_or_an_earlier_bad_row_is_the_feeds_first_problem(
    spark: Any, tmp_path: Path
) -> None:
    lines = _lines(tmp_path)
    ddls = [i for i, line in enumerate(lines) if b'"type":"ddl"' in line and i > 100]
    lines[ddls[1]] = lines[ddls[1]].replace(b'"ddlType":"', b'"ddlType":"NO', 1)
    feed = tmp_path / "feed.jsonl"
    feed.write_bytes(b"".join(lines))
    assert f"feed.jsonl:{ddls[1] + 1}: unknown ddlType" in _fails_as_inline(feed, tmp_path / "a")
    row = next(i for i in range(ddls[0], ddls[1]) if b'"op":"INSERT"' in lines[i])
    lines[row] = lines[row].replace(b'"commitTs":', b'"commitTs":"', 1)
    feed.write_bytes(b"".join(lines))
    assert f"feed.jsonl:{row + 1}: invalid JSON" in _fails_as_inline(feed, tmp_path / "b")


def test_a_line_that_is_not_utf8_is_named_as_the_inline_engine_names_it(
    spark: Any, tmp_path: Path
) -> None:
    lines = _lines(tmp_path)
    bad = next(i for i, line in enumerate(lines) if i > 100 and b'"op":"INSERT"' in line)
    lines[bad] = lines[bad].replace(b'"after":{', b'"after":{"\xff":1,', 1)
    feed = tmp_path / "feed.jsonl"
    feed.write_bytes(b"".join(lines))
    assert f"feed.jsonl:{bad + 1}:" in _fails_as_inline(feed, tmp_path / "out")
