"""What only SQLite shows: its storage classes, a database busy with another writer (retried
with backoff, nothing lost or written twice), a refusing trigger, and the file paths of
``sqlite://`` URIs."""

from __future__ import annotations

import asyncio
import base64
import sqlite3

import pytest

from tests.eventsink.sql.expected import assert_database_holds
from tests.eventsink.sql.support import boundary, play_records, sqlite_database
from tests.eventsink.sql.test_schema import write
from tisink.eventsink.batching import RetryPolicy
from tisink.eventsink.sql import SQLiteDialect, SQLSink
from tisink.feed import play_inline
from tisink.feed.errors import PlayError
from tisink.feed.format.records import FeedRow
from tisink.feed.workload import generate_records
from tisink.model.events import DDLEvent, DDLType, RowChangedEvent
from tisink.model.table import ColumnInfo, IndexInfo, make_table
from tisink.sink import SinkFactory
from tisink.tablesink import TableSink

TYPES = make_table(
    "t", "types", 1, 1,
    [
        ColumnInfo("id", "bigint", unsigned=True, nullable=False),
        ColumnInfo("i", "int"),
        ColumnInfo("f", "double"),
        ColumnInfo("d", "decimal", length=10, decimal=2),
        ColumnInfo("s", "varchar", charset="utf8mb4", collate="utf8mb4_bin", length=20),
        ColumnInfo("b", "varbinary", length=8),
        ColumnInfo("j", "json"),
        ColumnInfo("st", "set", elements=("a", "b", "c")),
        ColumnInfo("v", "vector", length=2),
        ColumnInfo("bits", "bit", length=64),
        ColumnInfo("y", "year", unsigned=True),
        ColumnInfo("e", "enum", elements=("x", "y")),
        ColumnInfo("dt", "datetime", decimal=3),
    ],
    [IndexInfo("primary", ("id",), unique=True, primary=True)],
)  # fmt: skip


async def test_values_are_stored_with_sqlite_types(tmp_path):
    db = tmp_path / "t.db"
    sink = SQLSink(SQLiteDialect(db))
    await sink.open()
    await sink.write_ddl_event(DDLEvent(1, DDLType.CREATE, "", TYPES))
    big = (1 << 64) - 1
    image = {
        "id": big, "i": -7, "f": 2.5, "d": "3.50", "s": "é<&>",
        "b": base64.b64encode(b"\0\1").decode(), "j": {"k": [1, None]}, "st": ["a", "c"],
        "v": [0.5, -1.0], "bits": big, "y": 2024, "e": "y", "dt": "2024-01-02 03:04:05.678",
    }  # fmt: skip
    await write(sink, RowChangedEvent(2, 3, TYPES, after=image))
    await write(sink, RowChangedEvent(4, 5, TYPES, after={**dict.fromkeys(image), "id": 1}))
    await sink.close()
    with sqlite3.connect(db) as conn:
        kinds = conn.execute(
            "SELECT " + ", ".join(f"typeof({c.name})" for c in TYPES.columns)
            + ' FROM "t.types" WHERE id = ?', (str(big),)
        ).fetchone()  # fmt: skip
        rows = conn.execute('SELECT * FROM "t.types" ORDER BY id').fetchall()
    assert kinds == (
        "text", "integer", "real", "text", "text", "blob", "text", "text", "text", "text",
        "integer", "text", "text",
    )  # fmt: skip
    assert rows == [
        ("1",) + (None,) * 12,
        (str(big), -7, 2.5, "3.50", "é<&>", b"\0\1", '{"k":[1,null]}', "a,c", "[0.5,-1]",
         str(big), 2024, "y", "2024-01-02 03:04:05.678"),
    ]  # fmt: skip


async def test_a_busy_database_is_retried_and_nothing_is_lost(tmp_path):
    records = list(generate_records("demo", 13, 3000))
    split = boundary(records, 0.5)
    db = sqlite_database(tmp_path / "cdc.db")
    await play_records(db.url, records[:split])

    patient = RetryPolicy(max_attempts=100, initial_backoff_s=0.005, max_backoff_s=0.02)
    sink = SQLSink(SQLiteDialect(tmp_path / "cdc.db", busy_timeout_s=0.005), retry=patient)
    await sink.open()
    other = sqlite3.connect(tmp_path / "cdc.db", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process writing: the database is busy
    play = asyncio.ensure_future(
        play_inline(records[split:], sink, sink, lambda tid: TableSink(tid, sink))
    )
    try:
        while sink.stats().retries < 2:
            assert not play.done(), "the play ended while the database was busy"
            await asyncio.sleep(0.005)
        other.execute("COMMIT")
        await asyncio.wait_for(play, 60)
    finally:
        other.close()
        await sink.close()
    assert sink.error is None
    assert sink.stats().retries >= 2
    assert_database_holds(db, records)


async def test_a_fatal_error_stops_the_play_naming_the_table(tmp_path):
    records = list(generate_records("demo", 9, 6000))
    split = boundary(records, 0.5)
    db = sqlite_database(tmp_path / "cdc.db")
    await play_records(db.url, records[:split])
    # a constraint in the database refuses the first order inserted after the split
    refused = next(
        r.row
        for r in records[split:]
        if type(r) is FeedRow and r.row.table.table == "orders" and r.row.is_insert
    )
    order_id = str(refused.after["id"])  # bigint unsigned: stored as text
    db.query(
        f"CREATE TRIGGER refuse BEFORE INSERT ON \"shop.orders\" WHEN NEW.id = '{order_id}' "
        f"BEGIN SELECT RAISE(ABORT, 'order {order_id} refused'); END"
    )
    with pytest.raises(PlayError) as caught:
        await play_records(db.url, records[split:])
    message = str(caught.value)
    assert "shop.orders" in message and f"order {order_id} refused" in message
    assert caught.value.last_checkpoint_ts < refused.commit_ts
    assert db.checkpoint() < refused.commit_ts
    assert db.query('SELECT 1 FROM "shop.orders" WHERE id = ?', (order_id,)) == []
    db.query("DROP TRIGGER refuse")
    # with the constraint gone, the same play resumes after the stored checkpoint and completes
    await play_records(db.url, records[split:])
    assert_database_holds(db, records)


async def test_relative_and_absolute_paths(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    relative = SinkFactory("sqlite:///sub/rel.db?busy-timeout-ms=100&synchronous=full")
    sink = await relative.create_event_sink()
    assert sink is await relative.create_ddl_sink()  # one object serves both roles
    await sink.close()
    assert (tmp_path / "sub" / "rel.db").is_file()
    absolute = SinkFactory(f"sqlite:///{tmp_path}/abs.db")
    await (await absolute.create_event_sink()).close()
    assert (tmp_path / "abs.db").is_file()
