"""FeedWriter: what it writes reads back as equal events, in the spec's line format."""

from __future__ import annotations

import io
from pathlib import Path

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.feed.feed_strategies import images, tables
from tisink.feed import FeedDDL, FeedResolved, FeedRow, FeedWriter, read_feed
from tisink.feed.format.reader import FeedParser
from tisink.feed.format.records import FeedRecord
from tisink.feed.format.samples import DEMO_FEED
from tisink.model.events import DDLEvent, DDLType, RowChangedEvent
from tisink.model.table import TableInfo


@st.composite
def feeds(draw: st.DrawFn) -> list[FeedRecord]:
    """CREATE a random table, then rows of every op at growing commitTs, a resolved ts and an
    ALTER that keeps the columns under a new version."""
    table = draw(tables())
    ts = draw(st.integers(1, 1 << 40))
    create = DDLEvent(ts, DDLType.CREATE, "c", table, start_ts=ts - 1)
    records: list[FeedRecord] = [FeedDDL(ts, ts - 1, create)]
    for _ in range(draw(st.integers(1, 6))):
        ts += draw(st.integers(0, 3))
        op = draw(st.sampled_from(["INSERT", "UPDATE", "DELETE"]))
        before = draw(images(table)) if op != "INSERT" else None
        after = draw(images(table)) if op != "DELETE" else None
        records.append(FeedRow(RowChangedEvent(ts - 1, ts, table, before, after)))
    ts += 1
    records.append(FeedResolved(ts))
    ts += 1
    altered = TableInfo(
        table.schema, table.table, table.table_id, ts - 1, table.columns, table.indexes
    )
    alter = DDLEvent(ts, DDLType.ALTER, "a", altered, table, start_ts=ts - 1)
    records.append(FeedDDL(ts, ts - 1, alter))
    records.append(FeedRow(RowChangedEvent(ts, ts + 1, altered, None, draw(images(altered)))))
    return records


def _same(written: FeedRecord, read: FeedRecord) -> bool:
    if isinstance(written, FeedRow):
        a, b = written.row, read.row
        return (a.start_ts, a.commit_ts, a.table, a.before, a.after) == (
            b.start_ts,
            b.commit_ts,
            b.table,
            b.before,
            b.after,
        )
    if isinstance(written, FeedDDL):
        return (written.commit_ts, written.start_ts, written.ddl) == (
            read.commit_ts,
            read.start_ts,
            read.ddl,
        )
    return written.ts == read.ts


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(feeds())
def test_written_feed_reads_back_equal(records: list[FeedRecord]) -> None:
    out = io.BytesIO()
    with FeedWriter(out) as writer:
        writer.write_all(records)
    lines = out.getvalue().splitlines(keepends=True)
    assert writer.lines == len(records) == len(lines)
    back = list(FeedParser().parse_lines(lines, "roundtrip.jsonl"))
    assert len(back) == len(records)
    for written, read in zip(records, back, strict=True):
        assert type(written) is type(read)
        assert _same(written, read)


def test_sample_feed_rewrites_byte_for_byte(tmp_path: Path) -> None:
    with FeedWriter(tmp_path / "copy.jsonl") as writer:
        writer.write_all(read_feed(DEMO_FEED))
    assert (tmp_path / "copy.jsonl").read_bytes() == DEMO_FEED.read_bytes()


def test_records_follow_the_spec_layout() -> None:
    table = TableInfo.from_dict(
        {
            "schema": "simple",
            "table": "user",
            "tableID": 148,
            "version": 7,
            "columns": [
                {"name": "id", "dataType": {"mysqlType": "int", "length": 11}, "nullable": False}
            ],
        }
    )
    out = io.StringIO()
    writer = FeedWriter(out)
    writer.write_ddl(DDLEvent(9, DDLType.QUERY, "CREATE DATABASE `simple`", start_ts=8))
    writer.write_row(RowChangedEvent(10, 11, table, {"id": 1}, {"id": 2}))
    writer.write_resolved(12)
    writer.close()
    assert not out.closed
    ddl, row, resolved = (orjson.loads(line) for line in out.getvalue().splitlines())
    assert list(ddl) == ["type", "commitTs", "startTs", "ddlType", "query"]
    assert list(row) == ["type", "commitTs", "startTs", "tableID", "op", "after", "before"]
    assert row["op"] == "UPDATE" and row["tableID"] == 148
    assert resolved == {"type": "resolved", "ts": 12}
    assert '"commitTs":11,' in out.getvalue()  # compact: no spaces
