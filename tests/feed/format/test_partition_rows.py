"""A feed's rows of a partitioned table (the TableSchema's ``partition`` object) are placed in
their partition when read: ``physical_table_id`` is the partition's id, the record's
``tableID`` the logical table's; an UPDATE that would move a row is refused, as TiDB writes
it as a DELETE and an INSERT."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from tisink.codec.checksum import row_checksum
from tisink.feed.errors import FeedError
from tisink.feed.format.reader import read_feed
from tisink.feed.format.records import FeedRow, split_moved
from tisink.feed.workload import generate_feed
from tisink.model.events import RowChangedEvent
from tisink.model.table import ColumnInfo, PartitionDef, PartitionInfo, TableInfo

TABLE = TableInfo(
    "s",
    "t",
    110,
    1,
    (ColumnInfo("id", "bigint", nullable=False, id=1), ColumnInfo("v", "int", id=2)),
    (),
    PartitionInfo(
        "RANGE",
        ("id",),
        (PartitionDef("p0", less_than=(10,)), PartitionDef("p1", less_than=(None,))),
    ).numbered(110),
)


def _feed(tmp_path: Path, *rows: dict[str, Any]) -> Path:
    create = {
        "type": "ddl",
        "commitTs": 1,
        "ddlType": "CREATE",
        "query": "CREATE TABLE s.t (...)",
        "table": TABLE.to_dict(),
    }
    lines = [create]
    for ts, row in enumerate(rows, start=2):
        lines.append({"type": "row", "commitTs": ts, "startTs": ts, "tableID": 110, **row})
    path = tmp_path / "feed.jsonl"
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    return path


def _rows(path: Path) -> list[RowChangedEvent]:
    return [r.row for r in read_feed(path) if isinstance(r, FeedRow)]


def test_rows_carry_their_partitions_id_on_both_reader_paths(tmp_path: Path) -> None:
    path = _feed(
        tmp_path,
        {"op": "INSERT", "after": {"id": 3, "v": 1}},
        {"op": "INSERT", "after": {"id": 30, "v": 1}},
        {"op": "UPDATE", "before": {"id": 30, "v": 1}, "after": {"id": 30, "v": 2}},
        {"op": "DELETE", "before": {"id": 3, "v": 1}},
        # a record naming its table takes the precise path, not the row builder
        {"op": "INSERT", "after": {"id": 4, "v": 1}, "schema": "s", "table": "t"},
    )
    rows = _rows(path)
    assert [r.physical_table_id for r in rows] == [111, 112, 112, 111, 111]
    assert {r.table.table_id for r in rows} == {110}


def test_an_update_moving_a_row_between_partitions_is_refused(tmp_path: Path) -> None:
    path = _feed(
        tmp_path,
        {"op": "INSERT", "after": {"id": 3, "v": 1}},
        {"op": "UPDATE", "before": {"id": 3, "v": 1}, "after": {"id": 13, "v": 1}},
    )
    with pytest.raises(FeedError, match="moves the row to another partition"):
        _rows(path)


def test_split_moved_gives_a_delete_in_the_old_partition_and_an_insert_in_the_new() -> None:
    update = RowChangedEvent(5, 6, TABLE, {"id": 3, "v": 1}, {"id": 13, "v": 1})
    delete, insert = split_moved(update, 40)
    assert (delete.before, delete.after, insert.before, insert.after) == (
        {"id": 3, "v": 1},
        None,
        None,
        {"id": 13, "v": 1},
    )
    assert [FeedRow(r).row.physical_table_id for r in (delete, insert)] == [111, 112]
    assert (delete.commit_ts, insert.start_ts) == (6, 5)
    staying = RowChangedEvent(5, 6, TABLE, {"id": 3, "v": 1}, {"id": 3, "v": 2})
    assert split_moved(staying, 40) == [staying]


SQL = """CREATE TABLE h (id int primary key, v int) PARTITION BY HASH(id) PARTITIONS 3;
CREATE TABLE plain (id int primary key, v int);
"""


@pytest.mark.parametrize("version", [0, 1, 2])
def test_checksums_of_partitioned_rows_read_back_as_written(tmp_path: Path, version: int) -> None:
    """v8.3's checksum (version 1) reads the row key, which holds the partition's id."""
    dump = tmp_path / "dump.sql"
    dump.write_text(SQL)
    path = tmp_path / "feed.jsonl"
    generate_feed(dump, 3, 80, path, checksum_version=version)
    rows = _rows(path)
    partitioned = [r for r in rows if r.table.table == "h"]
    assert {r.physical_table_id for r in partitioned} == {101, 102, 103}
    for row in rows:
        written = row.checksum
        assert written is not None
        assert row_checksum(row, version, None).current == written.current
