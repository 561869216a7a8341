"""Both engines write the same storage folder: under ``--clock feed`` the inline engine and
Spark ``local[2]`` (which plays a layout without partitions in one task) write byte-identical
data files, indexes, schema files and ``metadata``, for csv and canal-json."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pyspark")

from tests.output_files import output_files
from tisink.core.clock import FeedClock
from tisink.feed.format.reader import read_feed
from tisink.feed.inline import play_with_factory
from tisink.feed.play_spec import PlaySpec
from tisink.feed.spark import run_spark_play
from tisink.feed.workload import generate_feed
from tisink.sink.factory import SinkFactory

SEED = 5
ROWS = 1500
CASES = {
    "csv": "protocol=csv&date-separator=day&include-commit-ts=true&file-size=8192",
    "canal-json": "protocol=canal-json&enable-tidb-extension=true&date-separator=month",
}


@pytest.fixture(scope="module")
def demo_feed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("feed") / "demo.jsonl"
    generate_feed("demo", SEED, ROWS, path)
    return path


@pytest.mark.parametrize("case", list(CASES))
def test_inline_and_spark_write_the_same_storage_files(
    spark: Any, demo_feed: Path, tmp_path: Path, case: str
) -> None:
    inline_uri = f"file://{tmp_path / 'inline'}?{CASES[case]}"
    factory = SinkFactory(inline_uri, clock=FeedClock())
    asyncio.run(play_with_factory(read_feed(demo_feed), factory))
    spark_uri = f"file://{tmp_path / 'spark'}?{CASES[case]}"
    run_spark_play(
        PlaySpec(feed=demo_feed, seed=SEED, sink_uri=spark_uri, master="local[2]", clock="feed")
    )
    inline, on_spark = output_files(tmp_path / "inline", "*"), output_files(tmp_path / "spark", "*")
    assert len(inline) > 20 and "metadata" in inline
    assert sorted(inline) == sorted(on_spark)
    for name, data in inline.items():
        assert data == on_spark[name], f"{case}: {name} differs"
