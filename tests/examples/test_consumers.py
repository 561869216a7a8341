"""The worked consumers of ``examples/consumers`` against ``tisink check``: both are right on
clean traffic; under every fault kind the correct one still is, and under ``restart-replay``
the naive one is not, with the table, key and column named."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.kafka_support.readback import unique_topic
from tisink.cli import app
from tisink.play.run import PlaySpec, run_play

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "consumers"
ROWS = 3000
PARTITIONS = 3


@pytest.fixture(scope="module")
def expected_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The demo workload applied by tisink's own SQL sink: the state the feed implies."""
    path = tmp_path_factory.mktemp("expected") / "expected.db"
    uri = f"sqlite:///{path}"
    run_play(PlaySpec(workload="demo", rows=ROWS, sink_uri=uri, engine="inline"))
    return uri


def _play(sink_uri: str, faults: str | None) -> dict:
    summary = run_play(
        PlaySpec(
            workload="demo",
            rows=ROWS,
            sink_uri=sink_uri,
            engine="inline",
            clock="feed",
            watermark_interval_s=0.5,
            faults=faults,
        )
    )
    assert summary.verified is True
    return summary.to_dict()


def _consume(consumer: str, source: str, database: Path) -> None:
    subprocess.run(
        [sys.executable, str(EXAMPLES / consumer), source, str(database)],
        cwd=EXAMPLES,
        check=True,
        timeout=300,
    )


def _check(expected: str, database: Path) -> tuple[int, str]:
    result = CliRunner().invoke(
        app, ["check", "--expected", expected, "--actual", f"sqlite:///{database}"]
    )
    return result.exit_code, result.output


def _files(tmp_path: Path, faults: str | None) -> str:
    out = tmp_path / "cdc"
    summary = _play(f"file://{out}?protocol=simple&partition-num={PARTITIONS}", faults)
    if faults is not None:
        assert summary["faults"], faults
    return f"file://{out}/tidb-cdc"


def test_both_consumers_are_right_on_clean_traffic(expected_db: str, tmp_path: Path) -> None:
    source = _files(tmp_path, None)
    for consumer in ("simple_consumer.py", "naive_consumer.py"):
        database = tmp_path / f"{consumer}.db"
        _consume(consumer, source, database)
        code, output = _check(expected_db, database)
        assert code == 0, output
        assert "EQUAL: 4 tables" in output


@pytest.mark.parametrize(
    "faults",
    [
        "restart-replay:every=1s",
        "bab:every=1s",
        "duplicate-ddl",
        "duplicate-watermark:every=1s",
        "stale-watermark:every=1s",
        "producer-retry:p=0.05",
        "skew:by=2s,partition=1",
        "restart-replay:every=1s;bab:p=0.05;duplicate-ddl;stale-watermark:every=1s;"
        "producer-retry:p=0.05;skew:by=1s",
    ],
)
def test_the_correct_consumer_survives_every_fault(
    expected_db: str, tmp_path: Path, faults: str
) -> None:
    database = tmp_path / "consumer.db"
    _consume("simple_consumer.py", _files(tmp_path, faults), database)
    code, output = _check(expected_db, database)
    assert code == 0, output


def test_the_naive_consumer_fails_under_restart_replay(expected_db: str, tmp_path: Path) -> None:
    database = tmp_path / "naive.db"
    _consume("naive_consumer.py", _files(tmp_path, "restart-replay:every=1s"), database)
    code, output = _check(expected_db, database)
    assert code == 1
    # e.g. "shop.products key (sku='k00000000073'): column stock: expected 2333924, actual
    # 4449171": a row whose replayed UPDATE the naive consumer applied twice
    differs = re.compile(r"^\s*\S+\.\S+ key \(.+\): column \S+: expected .+, actual .+$", re.M)
    assert differs.search(output), output


def test_the_correct_consumer_reads_kafka(
    expected_db: str, tmp_path: Path, apache_kafka_bootstrap: str
) -> None:
    """Against Apache Kafka: the consumer reads each partition until it is caught up, as it
    would in production."""
    topic = unique_topic("consumer")
    source = f"kafka://{apache_kafka_bootstrap}/{topic}"
    assert _play(
        f"{source}?protocol=simple&partition-num={PARTITIONS}",
        "restart-replay:every=1s;producer-retry:p=0.05",
    )["faults"]
    database = tmp_path / "consumer.db"
    _consume("simple_consumer.py", source, database)
    code, output = _check(expected_db, database)
    assert code == 0, output


def test_the_naive_consumer_names_a_kafka_topic_that_does_not_exist(
    tmp_path: Path, kafka_bootstrap: str
) -> None:
    source = f"kafka://{kafka_bootstrap}/{unique_topic('no-such-topic')}"
    run = subprocess.run(
        [sys.executable, str(EXAMPLES / "naive_consumer.py"), source, str(tmp_path / "n.db")],
        cwd=EXAMPLES,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode != 0
    assert run.stderr.startswith(f"naive_consumer.py: {source}: no such topic"), run.stderr
    assert run.stderr.count("\n") == 1, run.stderr
