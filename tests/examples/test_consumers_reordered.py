"""Issue 47: the consumers of ``examples/consumers`` under ``split-table`` and ``ts-regression``,
where a table's commit ts goes back inside a partition: the correct consumer is EQUAL under
``tisink check``; the one that drops rows below its table's high-water mark is DIFFERENT, with
the table and the key of a row it lost named."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.examples.test_consumers import _check, _consume, _play, expected_db  # noqa: F401

PARTITIONS = 3
FAULTS = ["split-table:nth=10", "ts-regression:nth=40"]


def _files(tmp_path: Path, faults: str) -> str:
    out = tmp_path / "cdc"
    summary = _play(f"file://{out}?protocol=simple&partition-num={PARTITIONS}", faults)
    kinds = {item.split(":")[0] for item in faults.split(";")}
    assert {f["kind"] for f in summary["faults"]} == kinds, summary["faults"]
    return f"file://{out}/tidb-cdc"


@pytest.mark.parametrize(
    "faults",
    [*FAULTS, "split-table:p=0.1;ts-regression:p=0.03;restart-replay:every=1s;bab:p=0.05"],
)
def test_the_correct_consumer_is_equal(expected_db: str, tmp_path: Path, faults: str) -> None:  # noqa: F811
    database = tmp_path / "consumer.db"
    _consume("simple_consumer.py", _files(tmp_path, faults), database)
    code, output = _check(expected_db, database)
    assert code == 0, output
    assert "EQUAL: " in output, output


@pytest.mark.parametrize("faults", FAULTS)
def test_the_high_water_consumer_loses_rows(
    expected_db: str,  # noqa: F811
    tmp_path: Path,
    faults: str,
) -> None:
    database = tmp_path / "high_water.db"
    _consume("high_water_consumer.py", _files(tmp_path, faults), database)
    code, output = _check(expected_db, database)
    assert code == 1, output
    # e.g. "shop.orders key (id=1234): missing" or a column that kept an older value
    named = re.compile(r"^\s*\w+\.\w+ key \(.+\): ", re.M)
    assert named.search(output), output


@pytest.mark.parametrize("faults", [None, "restart-replay:every=1s", "producer-retry:p=0.05"])
def test_the_high_water_consumer_is_right_when_only_copies_go_back(
    expected_db: str,  # noqa: F811
    tmp_path: Path,
    faults: str | None,
) -> None:
    """What ``ts-regression`` adds over ``restart-replay``: there every record below a table's
    high-water mark is a copy of one delivered before, so dropping it loses nothing."""
    out = tmp_path / "cdc"
    _play(f"file://{out}?protocol=simple&partition-num={PARTITIONS}", faults)
    database = tmp_path / "high_water.db"
    _consume("high_water_consumer.py", f"file://{out}/tidb-cdc", database)
    code, output = _check(expected_db, database)
    assert code == 0, output
