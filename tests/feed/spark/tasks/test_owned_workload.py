"""A workload on Spark is generated in its partition owners (one stage, no shuffle) and writes
the inline engine's bytes at one, two and three cores: several tables, a DDL of each kind,
BOOTSTRAPs by message count, UPDATEs that change a key (split into DELETE + INSERT), and tables
whose other owners' rows a task steps over (dispatched by their keys)."""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pyspark")

from tests.output_files import output_files
from tisink.core.clock import FeedClock
from tisink.eventsink.file import list_file_topics, read_file_topic_records
from tisink.feed.format.records import FeedRow
from tisink.feed.inline import play_with_factory
from tisink.feed.play_spec import PlaySpec
from tisink.feed.spark import run_spark_play
from tisink.feed.spark.driver.sources import WorkloadInput
from tisink.feed.spark.plan import PlayPlan
from tisink.feed.workload import generate_records, load_scenario
from tisink.sink.config import ChangefeedConfig
from tisink.sink.factory import SinkFactory
from tisink.tablesink.split import changes_unique_key

SEED = 5
PARTITIONS = 5
KEY_UPDATES = """
name = "key-updates"
rows = 2500
rate = 60
txn_size = [1, 6]
mix = { insert = 0.5, update = 0.4, delete = 0.1 }

[[tables]]
schema = "sbtest"
name = "sbtest1"
weight = 2
primary = ["id"]
key_updates = 0.3
columns = [
  { name = "id", type = "int", nullable = false },
  { name = "k", type = "int", nullable = false },
  { name = "c", type = "char(40)", nullable = false, size = [10, 40] },
]

[[tables]]
schema = "bank"
name = "accounts"
primary = ["id"]
columns = [
  { name = "id", type = "bigint", nullable = false },
  { name = "owner", type = "varchar(32)", nullable = false, size = [3, 32] },
]
"""
# index-value over the partitions, and TiCDC's cadence firing by message count at its ticks
CONFIG = (
    '[[sink.dispatchers]]\nmatcher = ["*.*"]\npartition = "index-value"\n'
    "[sink]\nsend-bootstrap-interval-in-sec = 600\nsend-bootstrap-in-msg-count = 40\n"
)
# No key changes and no DDL: a task steps over the rows of sbtest1 (index-value) and
# shop.items (columns on its unique key) that it does not own, and builds every row of
# shop.log (columns on a non-key column)
SELECTED = """
name = "selected"
rows = 3000
rate = 60
txn_size = [1, 5]
mix = { insert = 0.5, update = 0.4, delete = 0.1 }

[[tables]]
schema = "sbtest"
name = "sbtest1"
weight = 2
primary = ["id"]
columns = [
  { name = "id", type = "int", nullable = false },
  { name = "k", type = "int", nullable = false },
  { name = "c", type = "char(40)", nullable = false, size = [10, 40] },
]

[[tables]]
schema = "shop"
name = "items"
primary = ["id"]
indexes = [{ name = "u_code", columns = ["code"], unique = true }]
columns = [
  { name = "id", type = "bigint", nullable = false },
  { name = "code", type = "varchar(20)", nullable = false },
  { name = "price", type = "decimal(10,2)" },
]

[[tables]]
schema = "shop"
name = "log"
primary = ["id"]
columns = [
  { name = "id", type = "int", nullable = false },
  { name = "kind", type = "varchar(8)", nullable = false, size = [1, 2] },
  { name = "note", type = "varchar(40)" },
]
"""
SELECTED_CONFIG = (
    '[[sink.dispatchers]]\nmatcher = ["shop.items"]\npartition = "columns"\ncolumns = ["code"]\n'
    '[[sink.dispatchers]]\nmatcher = ["shop.log"]\npartition = "columns"\ncolumns = ["kind"]\n'
    + CONFIG
)


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("owned")
    (folder / "key-updates.toml").write_text(KEY_UPDATES, encoding="utf-8")
    (folder / "changefeed.toml").write_text(CONFIG, encoding="utf-8")
    (folder / "selected.toml").write_text(SELECTED, encoding="utf-8")
    (folder / "selected-changefeed.toml").write_text(SELECTED_CONFIG, encoding="utf-8")
    return folder


def _uri(out: Path) -> str:
    return f"file://{out}?protocol=simple&partition-num={PARTITIONS}"


def _inline(workload: str, rows: int, out: Path, config: Path) -> dict[str, bytes]:
    factory = SinkFactory(_uri(out), ChangefeedConfig.from_toml(config), clock=FeedClock())
    asyncio.run(play_with_factory(generate_records(workload, SEED, rows), factory))
    return output_files(out)


def _cli(master: str, workload: str, rows: int, out: Path, config: Path) -> dict[str, bytes]:
    tisink = Path(sys.executable).with_name("tisink")
    done = subprocess.run(
        [
            *(str(tisink), "play", "--workload", workload, "--rows", str(rows)),
            *("--seed", str(SEED), "--master", master, "--clock", "feed", "--no-verify"),
            *("--config", str(config), "--sink-uri", _uri(out)),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return output_files(out)


def _bootstraps(folder: Path) -> int:
    """The BOOTSTRAP messages a play wrote, every partition's."""
    topics = list_file_topics(folder)
    records = [r for topic in topics for r in read_file_topic_records(folder, topic)]
    return sum(b'"type":"BOOTSTRAP"' in r.value for r in records)


def test_a_workload_is_generated_in_the_owners_and_writes_the_inline_bytes(
    spark: Any, setup: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    workload, config = str(setup / "key-updates.toml"), setup / "changefeed.toml"
    inline = _inline(workload, 2500, tmp_path / "inline", config)
    with caplog.at_level(logging.INFO, logger="tisink.feed.spark.driver.run"):
        run = run_spark_play(
            PlaySpec(
                workload=workload,
                seed=SEED,
                rows=2500,
                sink_uri=_uri(tmp_path / "spark"),
                config_path=config,
                master="local[2]",
                clock="feed",
            )
        )
    assert "2 tasks generate the workload" in caplog.text
    assert run.rows == 2500 and run.partitions == PARTITIONS
    assert len(inline) == PARTITIONS
    assert output_files(tmp_path / "spark") == inline
    # what the bytes hold: split UPDATEs (their halves routed each on its own key) and
    # BOOTSTRAPs sent again by message count, beyond each partition's first-row one
    splits = sum(
        type(r) is FeedRow and changes_unique_key(r.row)
        for r in generate_records(workload, SEED, 2500)
    )
    assert splits > 20
    assert _bootstraps(tmp_path / "inline") > 4 * PARTITIONS


@pytest.mark.parametrize("master", ["local[1]", "local[3]"])
@pytest.mark.parametrize("workload", ["key-updates", "demo"])
def test_the_same_bytes_at_one_and_three_cores(
    setup: Path, tmp_path: Path, master: str, workload: str
) -> None:
    """local[2] is the test above; the demo has several tables and a DDL of each kind."""
    path = str(setup / "key-updates.toml") if workload == "key-updates" else workload
    config = setup / "changefeed.toml"
    inline = _inline(path, 2500, tmp_path / "inline", config)
    assert _cli(master, path, 2500, tmp_path / "spark", config) == inline


@pytest.mark.parametrize("master", ["local[1]", "local[2]", "local[3]", "local[4]"])
def test_rows_stepped_over_leave_the_same_bytes(setup: Path, tmp_path: Path, master: str) -> None:
    path, config = str(setup / "selected.toml"), setup / "selected-changefeed.toml"
    inline = _inline(path, 3000, tmp_path / "inline", config)
    assert len(inline) == PARTITIONS
    assert _bootstraps(tmp_path / "inline") > 4 * PARTITIONS
    assert _cli(master, path, 3000, tmp_path / "spark", config) == inline


def test_the_owners_are_dealt_round_robin_to_the_cores() -> None:
    source = WorkloadInput(load_scenario("demo"), SEED, 100)
    assert source.owned_tasks(6, 2) == 2
    assert source.owned_tasks(6, 4) == 3  # as fast as four (``plan.owner_tasks``)
    assert source.owned_tasks(1, 8) == 1
    assert source.owned_tasks(2, 16) == 2
    assert source.owned_tasks(12, 16) == 12  # any number of cores: no shuffle
    plan: Any = type("Plan", (), {"tasks": 6})()
    assert [PlayPlan.owners_of_task(plan, t, 2) for t in range(2)] == [[0, 2, 4], [1, 3, 5]]
    dealt = [o for t in range(4) for o in PlayPlan.owners_of_task(plan, t, 4)]
    assert sorted(dealt) == list(range(6))
