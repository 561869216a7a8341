"""A row record's optional ``checksum`` (TiCDC's row checksum): read, computed when a key is
left out, marked corrupted as TiCDC marks it, written back, and carried by a generated feed."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from tisink.codec import checksum
from tisink.feed import FeedError, FeedRow, read_feed
from tisink.feed.format.checksums import with_checksums
from tisink.feed.format.samples import DEMO_FEED
from tisink.feed.format.writer import FeedWriter
from tisink.model.events import RowChecksum

TABLE = {
    "schema": "s",
    "table": "t",
    "tableID": 9,
    "version": 1,
    "columns": [
        {"name": "id", "dataType": {"mysqlType": "bigint"}, "nullable": False, "id": 1},
        {"name": "v", "dataType": {"mysqlType": "varchar", "charset": "utf8mb4"}, "id": 2},
    ],
    "indexes": [{"name": "primary", "unique": True, "primary": True, "columns": ["id"]}],
}
CREATE = {
    "type": "ddl",
    "commitTs": 100,
    "startTs": 99,
    "ddlType": "CREATE",
    "query": "",
    "table": TABLE,
}


def _feed(tmp_path: Path, *rows: dict[str, Any]) -> list[FeedRow]:
    path = tmp_path / "feed.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in (CREATE, *rows)) + "\n")
    return [r for r in read_feed(path) if isinstance(r, FeedRow)]


def _row(**extra: Any) -> dict[str, Any]:
    return {
        "type": "row",
        "commitTs": 200,
        "startTs": 199,
        "tableID": 9,
        "op": "UPDATE",
        "before": {"id": 1, "v": "a"},
        "after": {"id": 1, "v": "b"},
        **extra,
    }


def test_a_given_checksum_is_taken_as_it_is(tmp_path: Path) -> None:
    given = {"version": 0, "corrupted": False, "current": 5, "previous": 6}
    (row,) = _feed(tmp_path, _row(checksum=given))
    assert row.row.checksum == RowChecksum(0, False, 5, 6)


def test_left_out_keys_are_computed_and_corrupted_is_ticdcs(tmp_path: Path) -> None:
    plain, corrupted, v1 = _feed(
        tmp_path,
        _row(checksum={}),
        _row(checksum={"corrupted": True}),
        _row(checksum={"version": 0, "corrupted": True}),
    )
    table = plain.row.table
    current = checksum.column_checksum(table, {"id": 1, "v": "b"})
    previous = checksum.column_checksum(table, {"id": 1, "v": "a"})
    assert plain.row.checksum == RowChecksum(2, False, current, previous)
    # V2: TiCDC writes TiDB's stored (raw) checksum of the image it found corrupted
    raw = checksum.raw_checksum(table, {"id": 1, "v": "b"})
    assert corrupted.row.checksum == RowChecksum(2, True, raw, previous)
    assert checksum.mismatches(corrupted.row)[1].startswith(f"current checksum {raw} != ")
    # V1: TiCDC writes the checksum of the row as it received it; only the flag tells
    assert v1.row.checksum == RowChecksum(0, True, current, previous)
    assert checksum.mismatches(v1.row) == ["corrupted"]


@pytest.mark.parametrize(
    ("given", "named"),
    [
        ([], "checksum must be an object"),
        ({"crc": 1}, "unknown field 'crc'"),
        ({"version": 3}, "checksum version must be one of [0, 1, 2]"),
        ({"corrupted": 1}, "checksum corrupted must be true or false"),
        ({"current": -1}, "checksum current must be a uint32"),
        ({"previous": 1 << 32}, "checksum previous must be a uint32"),
    ],
)
def test_a_bad_checksum_names_what_is_wrong(tmp_path: Path, given: Any, named: str) -> None:
    with pytest.raises(FeedError, match=named.replace("[", r"\[").replace("]", r"\]")):
        _feed(tmp_path, _row(checksum=given))


def test_a_generated_feed_carries_checksums_through_the_writer(tmp_path: Path) -> None:
    records = list(with_checksums(read_feed(DEMO_FEED), version=2, corrupt_nth=7))
    rows = [r.row for r in records if isinstance(r, FeedRow)]
    assert all(r.checksum is not None and r.checksum.version == 2 for r in rows)
    flagged = [r for r in rows if r.checksum and r.checksum.corrupted]
    assert len(flagged) == len(rows) // 7
    out = io.BytesIO()
    with FeedWriter(out) as writer:
        writer.write_all(records)
    path = tmp_path / "again.jsonl"
    path.write_bytes(out.getvalue())
    again = [r.row for r in read_feed(path) if isinstance(r, FeedRow)]
    assert [r.checksum for r in again] == [r.checksum for r in rows]
    clean = [r for r in rows if r.checksum and not r.checksum.corrupted]
    assert all(checksum.mismatches(r) == [] for r in clean)
