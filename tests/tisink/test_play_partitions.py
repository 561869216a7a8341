"""Plays of a ``--schema-sql`` dump with a RANGE- and a HASH-partitioned table: each DML
message carries the id of its row's partition (Simple's ``tableID``, Open Protocol's ``ptn``,
the storage sink's partition folders), DDLs and BOOTSTRAPs the logical table's, and the play
verifies; both engines write the same bytes."""

from __future__ import annotations

import base64
import csv
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from tisink.play.run import PlaySpec, run_play

DUMP = """CREATE TABLE `orders` (
  `id` bigint NOT NULL,
  `amount` int DEFAULT NULL,
  PRIMARY KEY (`id`)
) PARTITION BY RANGE (`id`)
(PARTITION `p0` VALUES LESS THAN (20),
 PARTITION `p1` VALUES LESS THAN (50),
 PARTITION `pmax` VALUES LESS THAN (MAXVALUE));
CREATE TABLE `events` (
  `id` int NOT NULL,
  `kind` varchar(16),
  PRIMARY KEY (`id`)
) /*!50100 PARTITION BY HASH (`id`) PARTITIONS 4 */;
CREATE TABLE `plain` (`id` int PRIMARY KEY, `v` int);
"""
ROWS = 300
ORDERS, EVENTS, PLAIN = 100, 104, 109
"""Table ids: each partitioned table's partitions take the ids right after its own."""
ORDER_PARTS, EVENT_PARTS = {101, 102, 103}, {105, 106, 107, 108}


@pytest.fixture
def dump(tmp_path: Path) -> str:
    path = tmp_path / "dump.sql"
    path.write_text(DUMP)
    return str(path)


def _play(
    dump: str, out: Path, params: str, engine: str = "inline", master: str = "local[1]"
) -> Any:
    uri = f"file://{out}?{params}"
    spec = PlaySpec(
        workload=dump, rows=ROWS, sink_uri=uri, engine=engine, master=master, clock="feed"
    )  # type: ignore[arg-type]
    summary = run_play(spec)
    assert summary.verified is True
    return summary


def _messages(out: Path) -> Iterator[tuple[bytes | None, bytes]]:
    for path in sorted(out.rglob("partition-*.jsonl")):
        for line in path.read_bytes().splitlines():
            record = orjson.loads(line)
            key = record.get("key")
            yield (
                (None if key is None else base64.b64decode(key)),
                base64.b64decode(record["value"]),
            )


def _expected(table: str, row: dict[str, Any]) -> int:
    if table == "orders":
        return 101 if row["id"] < 20 else 102 if row["id"] < 50 else 103
    if table == "events":
        return 105 + abs(row["id"]) % 4
    return PLAIN


def test_simple_dml_carries_the_partition_id_and_ddl_the_tables(dump: str, tmp_path: Path) -> None:
    _play(dump, tmp_path / "out", "protocol=simple&partition-num=2")
    dml: dict[str, set[int]] = {}
    schemas: dict[str, set[int]] = {}
    for _, value in _messages(tmp_path / "out"):
        message = orjson.loads(value)
        kind = message["type"]
        if kind in ("INSERT", "UPDATE", "DELETE"):
            image = message.get("data") or message["old"]
            key = {"id": int(image["id"])}
            assert message["tableID"] == _expected(message["table"], key)
            dml.setdefault(message["table"], set()).add(message["tableID"])
        elif "tableSchema" in message:
            schema = message["tableSchema"]
            schemas.setdefault(schema["table"], set()).add(schema["tableID"])
    assert dml["orders"] <= ORDER_PARTS and len(dml["orders"]) >= 2
    assert dml["events"] == EVENT_PARTS
    assert dml["plain"] == {PLAIN}
    assert schemas == {"orders": {ORDERS}, "events": {EVENTS}, "plain": {PLAIN}}


def test_open_protocol_keys_carry_ptn_for_partitioned_rows_only(dump: str, tmp_path: Path) -> None:
    _play(dump, tmp_path / "out", "protocol=open&partition-num=1")
    ptn: dict[str, set[int]] = {}
    for key, _ in _messages(tmp_path / "out"):
        assert key is not None
        at = 8  # the batch version, then each key: an 8-byte length and the JSON
        while at < len(key):
            size = int.from_bytes(key[at : at + 8], "big")
            event = orjson.loads(key[at + 8 : at + 8 + size])
            at += 8 + size
            if event.get("t") == 1:  # a row change
                ptn.setdefault(event["tbl"], set()).add(event.get("ptn", 0))
    assert ptn["orders"] <= ORDER_PARTS and len(ptn["orders"]) >= 2
    assert ptn["events"] == EVENT_PARTS
    assert ptn["plain"] == {0}  # no ptn: the row's table is not partitioned


def test_the_storage_sink_writes_a_folder_per_partition(dump: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    _play(dump, out, "protocol=csv")
    folders = {
        (p.parts[-5], p.parts[-3])
        for p in out.rglob("*.csv")
        if p.relative_to(out).parts[0] == "test"
    }
    events = {int(part) for table, part in folders if table == "events"}
    assert events == EVENT_PARTS
    assert {int(part) for table, part in folders if table == "orders"} <= ORDER_PARTS
    plain = [p.relative_to(out).parts for p in out.rglob("*.csv") if "plain" in p.parts]
    assert plain and all(len(parts) == 5 for parts in plain)  # test/plain/version/date/file


def test_each_partition_folder_holds_only_its_rows(dump: str, tmp_path: Path) -> None:
    """A transaction touching two partitions is two of TiCDC's table transactions, one per
    partition's table sink (``tablesink/appender.py``), so each folder holds its own rows."""
    out = tmp_path / "out"
    _play(dump, out, "protocol=csv")
    for path in out.rglob("*.csv"):
        parts = path.relative_to(out).parts
        if parts[1] != "events":
            continue
        partition = int(parts[3])
        with path.open(newline="") as rows:
            for row in csv.reader(rows):
                assert 105 + abs(int(row[3])) % 4 == partition, (path, row)


@pytest.mark.parametrize("params", ["protocol=simple&partition-num=3", "protocol=csv"])
def test_spark_writes_the_inline_bytes(dump: str, tmp_path: Path, params: str) -> None:
    pytest.importorskip("pyspark")
    from tests.output_files import output_files

    outputs = {}
    for engine in ("inline", "spark"):
        out = tmp_path / engine
        _play(dump, out, params, engine=engine, master="local[1]")
        outputs[engine] = output_files(out, "*")
    assert outputs["inline"]
    assert outputs["spark"] == outputs["inline"]
