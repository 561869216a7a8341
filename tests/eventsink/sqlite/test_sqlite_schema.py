"""The SQLite sink on hand-made tables: storage types, idempotent row writes, every DDL kind,
DDL replays, and the sink URI."""

from __future__ import annotations

import base64
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest
from tisink_sqlite import SQLiteSink

from tisink.eventsink.base import CallbackableEvent, StateRef
from tisink.model.events import DDLEvent, DDLType, RowChangedEvent, SingleTableTxn
from tisink.model.table import ColumnInfo, IndexInfo, make_table
from tisink.sink import SinkFactory
from tisink.sink.errors import SinkURIError

PK = IndexInfo("primary", ("id",), unique=True, primary=True)
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
    [PK],
)  # fmt: skip


def rows_of(db: Path, name: str, order: str = "rowid") -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute(f'SELECT * FROM "{name}" ORDER BY {order}').fetchall()


async def opened(db: Path) -> SQLiteSink:
    sink = SQLiteSink(db)
    await sink.open()
    return sink


async def write(sink: SQLiteSink, *rows: RowChangedEvent) -> None:
    """One transaction of ``rows`` through the event sink, then wait until it is written."""
    first = rows[0]
    txn = SingleTableTxn(first.start_ts, first.commit_ts, first.table, list(rows))
    sink.write_events([CallbackableEvent(txn, lambda: None, StateRef())])
    await sink.flush()


async def test_values_are_stored_with_sqlite_types(tmp_path):
    db = tmp_path / "t.db"
    sink = await opened(db)
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
            'SELECT ' + ", ".join(f"typeof({c.name})" for c in TYPES.columns)
            + ' FROM "t.types" WHERE id = ?', (str(big),)
        ).fetchone()  # fmt: skip
    assert kinds == (
        "text", "integer", "real", "text", "text", "blob", "text", "text", "text", "text",
        "integer", "text", "text",
    )  # fmt: skip
    assert rows_of(db, "t.types", "id") == [
        ("1",) + (None,) * 12,
        (str(big), -7, 2.5, "3.50", "é<&>", b"\0\1", '{"k":[1,null]}', "a,c", "[0.5,-1.0]",
         str(big), 2024, "y", "2024-01-02 03:04:05.678"),
    ]  # fmt: skip


TWO = make_table("t", "kv", 2, 1, [ColumnInfo("id", "int", nullable=False), ColumnInfo("v", "int")],
                 [PK])  # fmt: skip


async def test_row_writes_are_idempotent_by_key(tmp_path):
    db = tmp_path / "t.db"
    sink = await opened(db)
    await sink.write_ddl_event(DDLEvent(1, DDLType.CREATE, "", TWO))
    changes = [
        RowChangedEvent(2, 3, TWO, after={"id": 1, "v": 10}),
        RowChangedEvent(2, 3, TWO, after={"id": 2, "v": 20}),
        # an unsplit UPDATE that changes the key, as a MySQL-compatible sink receives it
        RowChangedEvent(2, 3, TWO, before={"id": 1, "v": 10}, after={"id": 3, "v": 11}),
        RowChangedEvent(2, 3, TWO, before={"id": 2, "v": 20}),
    ]
    for _ in range(2):  # the same transaction delivered twice
        await write(sink, *changes)
        assert rows_of(db, "t.kv", "id") == [(3, 11)]
    await sink.close()


async def test_a_table_without_a_key_deletes_one_equal_row(tmp_path):
    db = tmp_path / "t.db"
    bag = make_table("t", "bag", 3, 1, [ColumnInfo("v", "int"), ColumnInfo("w", "varchar")])
    sink = await opened(db)
    await sink.write_ddl_event(DDLEvent(1, DDLType.CREATE, "", bag))
    same = {"v": 1, "w": None}
    twice = [RowChangedEvent(2, 3, bag, after=same) for _ in range(2)]
    await write(sink, *twice)
    await write(sink, RowChangedEvent(4, 5, bag, before=same))
    await sink.close()
    assert rows_of(db, "t.bag") == [(1, None)]


def index_names(db: Path) -> list[str]:
    with sqlite3.connect(db) as conn:
        found = conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
        )
        return sorted(name for (name,) in found)


def table_names(db: Path) -> list[str]:
    with sqlite3.connect(db) as conn:
        found = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        return sorted(name for (name,) in found if not name.startswith("tidb_cdc"))


async def test_every_ddl_kind_follows_the_schemas(tmp_path):
    db = tmp_path / "t.db"
    sink = await opened(db)
    t1 = TWO
    await sink.write_ddl_event(DDLEvent(1, DDLType.CREATE, "", t1))
    await write(sink, RowChangedEvent(2, 3, t1, after={"id": 1, "v": 10}))
    # ADD COLUMN with a default: the existing row takes it
    note = ColumnInfo("note", "varchar", default="n/a", id=3)
    t2 = replace(t1, version=4, columns=(*t1.columns, note))
    await sink.write_ddl_event(DDLEvent(4, DDLType.ALTER, "", t2, t1))
    assert rows_of(db, "t.kv") == [(1, 10, "n/a")]
    # CHANGE COLUMN v -> value (same column id) and MODIFY it to decimal: values kept
    value = ColumnInfo("value", "decimal", length=8, decimal=2, id=2)
    t3 = replace(t2, version=5, columns=(t2.columns[0], value, t2.columns[2]))
    await sink.write_ddl_event(DDLEvent(5, DDLType.ALTER, "", t3, t2))
    assert rows_of(db, "t.kv") == [(1, "10", "n/a")]
    # CINDEX / DINDEX
    t4 = replace(t3, version=6, indexes=(PK, IndexInfo("idx_note", ("note",))))
    await sink.write_ddl_event(DDLEvent(6, DDLType.CINDEX, "", t4, t3))
    assert index_names(db) == ["t.kv/idx_note"]
    # RENAME: rows and indexes follow
    t5 = replace(t4, table="kv2")
    await sink.write_ddl_event(DDLEvent(7, DDLType.RENAME, "", t5, t4))
    assert table_names(db) == ["t.kv2"] and index_names(db) == ["t.kv2/idx_note"]
    t6 = replace(t5, version=8, indexes=(PK,))
    await sink.write_ddl_event(DDLEvent(8, DDLType.DINDEX, "", t6, t5))
    assert index_names(db) == []
    # TRUNCATE (a new table id) empties it; ERASE drops it
    t7 = replace(t6, table_id=9, version=9)
    await sink.write_ddl_event(DDLEvent(9, DDLType.TRUNCATE, "", t7, t6))
    assert rows_of(db, "t.kv2") == []
    await sink.write_ddl_event(DDLEvent(10, DDLType.ERASE, "", t7, t7))
    assert table_names(db) == []
    await sink.close()
    with sqlite3.connect(db) as conn:
        assert dict(conn.execute("SELECT table_id, ddl_ts FROM tidb_cdc_ddl_ts")) == {2: 9, 9: 10}


async def test_a_restarted_sink_skips_what_the_database_has(tmp_path):
    db = tmp_path / "t.db"
    sink = await opened(db)
    create = DDLEvent(1, DDLType.CREATE, "", TWO)
    await sink.write_ddl_event(create)
    await write(sink, RowChangedEvent(2, 3, TWO, after={"id": 1, "v": 10}))
    await sink.write_checkpoint_ts(3, [TWO])
    await sink.close()
    with sqlite3.connect(db) as conn:
        conn.execute('UPDATE "t.kv" SET v = 99')  # changed downstream after the checkpoint
    again = await opened(db)
    assert again.checkpoint_ts == 3
    await again.write_ddl_event(create)  # CREATE IF NOT EXISTS would keep it anyway; skipped
    await write(again, RowChangedEvent(2, 3, TWO, after={"id": 1, "v": 10}))
    await write(again, RowChangedEvent(4, 5, TWO, after={"id": 2, "v": 20}))
    await again.close()
    assert again.replayed_txns == 1
    assert rows_of(db, "t.kv", "id") == [(1, 99), (2, 20)]


@pytest.mark.parametrize(
    ("uri", "message"),
    [
        ("sqlite://data/cdc.db", "no host"),
        ("sqlite:///", "names no database file"),
        ("sqlite:///x.db?batch-rows=0", "batch-rows must be an integer >= 1"),
        ("sqlite:///x.db?synchronous=sometimes", "synchronous must be one of"),
    ],
)
async def test_bad_sink_uris_are_refused(tmp_path, monkeypatch, uri, message):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SinkURIError, match=message):
        await SinkFactory(uri).create_event_sink()


async def test_relative_and_absolute_paths(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    relative = SinkFactory("sqlite:///sub/rel.db?busy-timeout-ms=100")
    sink = await relative.create_event_sink()
    assert sink is await relative.create_ddl_sink()  # one object serves both roles
    await sink.close()
    assert (tmp_path / "sub" / "rel.db").is_file()
    absolute = SinkFactory(f"sqlite:///{tmp_path}/abs.db")
    await (await absolute.create_event_sink()).close()
    assert (tmp_path / "abs.db").is_file()
