"""The SQL applier on hand-made tables, in every dialect: idempotent row writes, tables without
a key, every DDL kind, DDL replays, a restarted sink, the ``columns`` metadata."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from tests.eventsink.sql.support import Database, index_names, opened
from tisink.eventsink.base import CallbackableEvent, StateRef
from tisink.eventsink.sql import SQLSink
from tisink.model.events import DDLEvent, DDLType, RowChangedEvent, SingleTableTxn
from tisink.model.table import ColumnInfo, IndexInfo, make_table

PK = IndexInfo("primary", ("id",), unique=True, primary=True)
TWO = make_table("t", "kv", 2, 1, [ColumnInfo("id", "int", nullable=False), ColumnInfo("v", "int")],
                 [PK])  # fmt: skip


def rows_of(db: Database, table: str, order: str = "id") -> list[tuple]:
    return [tuple(r) for r in db.query(f"SELECT * FROM {db.ref('t', table)} ORDER BY {order}")]


async def write(sink: SQLSink, *rows: RowChangedEvent) -> None:
    """One transaction of ``rows`` through the event sink, then wait until it is written."""
    first = rows[0]
    txn = SingleTableTxn(first.start_ts, first.commit_ts, first.table, list(rows))
    sink.write_events([CallbackableEvent(txn, lambda: None, StateRef())])
    await sink.flush()


async def test_row_writes_are_idempotent_by_key(database):
    sink = await opened(database)
    await sink.write_ddl_event(DDLEvent(1, DDLType.CREATE, "", TWO))
    changes = [
        RowChangedEvent(2, 3, TWO, after={"id": 1, "v": 10}),
        RowChangedEvent(2, 3, TWO, after={"id": 2, "v": 20}),
        # an unsplit UPDATE that changes the key, as a MySQL-compatible sink receives it
        RowChangedEvent(2, 3, TWO, before={"id": 1, "v": 10}, after={"id": 3, "v": 11}),
        RowChangedEvent(2, 3, TWO, before={"id": 2, "v": 20}),
        RowChangedEvent(2, 3, TWO, after={"id": 3, "v": 12}),  # the same key twice in a run
    ]
    for _ in range(2):  # the same transaction delivered twice
        await write(sink, *changes)
        assert rows_of(database, "kv") == [(3, 12)]
    await sink.close()


async def test_a_table_without_a_key_deletes_one_equal_row(database):
    bag = make_table(
        "t", "bag", 3, 1, [ColumnInfo("v", "int"), ColumnInfo("w", "varchar", length=8)]
    )
    sink = await opened(database)
    await sink.write_ddl_event(DDLEvent(1, DDLType.CREATE, "", bag))
    same = {"v": 1, "w": None}
    await write(sink, *[RowChangedEvent(2, 3, bag, after=same) for _ in range(2)])
    await write(sink, RowChangedEvent(4, 5, bag, before=same))
    await sink.close()
    assert rows_of(database, "bag", "v") == [(1, None)]


async def test_every_ddl_kind_follows_the_schemas(database):
    prefix = {"sqlite": "t.kv", "mysql": "", "postgresql": "kv"}[database.kind]
    renamed = {"sqlite": "t.kv2", "mysql": "", "postgresql": "kv2"}[database.kind]
    sink = await opened(database)
    t1 = TWO
    await sink.write_ddl_event(DDLEvent(1, DDLType.CREATE, "", t1))
    await write(sink, RowChangedEvent(2, 3, t1, after={"id": 1, "v": 10}))
    # ADD COLUMN with a default: the existing row takes it
    note = ColumnInfo("note", "varchar", length=16, default="n/a", id=3)
    t2 = replace(t1, version=4, columns=(*t1.columns, note))
    await sink.write_ddl_event(DDLEvent(4, DDLType.ALTER, "", t2, t1))
    assert rows_of(database, "kv") == [(1, 10, "n/a")]
    assert database.columns("t", "kv") == [(0, "id", "int(11)", 1), (1, "v", "int(11)", 0),
                                           (2, "note", "varchar(16)", 0)]  # fmt: skip
    # CHANGE COLUMN v -> value (same column id) and MODIFY it to decimal: values kept
    value = ColumnInfo("value", "decimal", length=8, decimal=2, id=2)
    t3 = replace(t2, version=5, columns=(t2.columns[0], value, t2.columns[2]))
    await sink.write_ddl_event(DDLEvent(5, DDLType.ALTER, "", t3, t2))
    ((key, kept, text),) = rows_of(database, "kv")
    assert (key, Decimal(str(kept)), text) == (1, Decimal(10), "n/a")
    assert database.columns("t", "kv")[1] == (1, "value", "decimal(8,2)", 0)
    # CINDEX / DINDEX
    t4 = replace(t3, version=6, indexes=(PK, IndexInfo("idx_note", ("note",))))
    await sink.write_ddl_event(DDLEvent(6, DDLType.CINDEX, "", t4, t3))
    assert index_names(database) == [f"{prefix}/idx_note".lstrip("/")]
    # RENAME: rows, indexes and metadata follow
    t5 = replace(t4, table="kv2")
    await sink.write_ddl_event(DDLEvent(7, DDLType.RENAME, "", t5, t4))
    assert database.tables() == {"t.kv2"}
    assert index_names(database) == [f"{renamed}/idx_note".lstrip("/")]
    assert database.columns("t", "kv") == [] and len(database.columns("t", "kv2")) == 3
    t6 = replace(t5, version=8, indexes=(PK,))
    await sink.write_ddl_event(DDLEvent(8, DDLType.DINDEX, "", t6, t5))
    assert index_names(database) == []
    # TRUNCATE (a new table id) empties it; ERASE drops it
    t7 = replace(t6, table_id=9, version=9)
    await sink.write_ddl_event(DDLEvent(9, DDLType.TRUNCATE, "", t7, t6))
    assert rows_of(database, "kv2") == []
    await sink.write_ddl_event(DDLEvent(10, DDLType.ERASE, "", t7, t7))
    assert database.tables() == set()
    await sink.close()
    assert database.ddl_ts() == {2: 9, 9: 10}
    assert database.columns("t", "kv2") == []


async def test_a_restarted_sink_skips_what_the_database_has(database):
    sink = await opened(database)
    create = DDLEvent(1, DDLType.CREATE, "", TWO)
    await sink.write_ddl_event(create)
    await write(sink, RowChangedEvent(2, 3, TWO, after={"id": 1, "v": 10}))
    await sink.write_checkpoint_ts(3, [TWO])
    await sink.close()
    database.query(f"UPDATE {database.ref('t', 'kv')} SET v = 99")  # changed downstream
    again = await opened(database)
    assert again.checkpoint_ts == 3 == database.checkpoint()
    await again.write_ddl_event(create)  # CREATE IF NOT EXISTS would keep it anyway; skipped
    await write(again, RowChangedEvent(2, 3, TWO, after={"id": 1, "v": 10}))
    await write(again, RowChangedEvent(4, 5, TWO, after={"id": 2, "v": 20}))
    await again.close()
    assert again.replayed_txns == 1
    assert rows_of(database, "kv") == [(1, 99), (2, 20)]


async def test_a_table_first_seen_in_its_rows_is_created_with_its_metadata(database):
    types = make_table(
        "t", "typed", 5, 1,
        [ColumnInfo("id", "int", unsigned=True, nullable=False, length=10),
         ColumnInfo("price", "decimal", length=10, decimal=2),
         ColumnInfo("n", "int", length=11, unsigned=True),
         ColumnInfo("s", "varchar", length=64, charset="utf8mb4"),
         ColumnInfo("e", "enum", elements=("a", "b")),
         ColumnInfo("at", "datetime", decimal=3),
         ColumnInfo("j", "json"),
         ColumnInfo("bits", "bit", length=8),
         ColumnInfo("virt", "int", generated="virtual")],
        [PK],
    )  # fmt: skip
    sink = await opened(database)
    image = {"id": 1, "price": "1.50", "n": 7, "s": "x", "e": "b",
             "at": "2024-01-02 03:04:05.678", "j": {"a": 1}, "bits": 5}  # fmt: skip
    await write(sink, RowChangedEvent(2, 3, types, after=image))
    await sink.close()
    assert database.columns("t", "typed") == [
        (0, "id", "int(10) unsigned", 1), (1, "price", "decimal(10,2)", 0),
        (2, "n", "int(11) unsigned", 0), (3, "s", "varchar(64)", 0),
        (4, "e", "enum('a','b')", 0), (5, "at", "datetime(3)", 0), (6, "j", "json", 0),
        (7, "bits", "bit(8)", 0),
    ]  # fmt: skip
