"""Table names that a database could confuse: names past PostgreSQL's 63 bytes (refused, naming
them) and schema or table names with dots (kept apart in every dialect, SQLite included)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.eventsink.sql.support import Database, opened, write_txns
from tisink.eventsink.errors import EventSinkError
from tisink.eventsink.sql import SQLiteDialect
from tisink.eventsink.sql.sqlite import split_table_name
from tisink.model.events import DDLEvent, DDLType, RowChangedEvent, SingleTableTxn
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo, make_table

PK = IndexInfo("primary", ("id",), unique=True, primary=True)
COLUMNS = [ColumnInfo("id", "int", nullable=False), ColumnInfo("v", "int")]


def table(schema: str, name: str, table_id: int, columns: list[ColumnInfo] = COLUMNS) -> TableInfo:
    return make_table(schema, name, table_id, 1, columns, [PK])


def txn(info: TableInfo, commit_ts: int, *values: int) -> SingleTableTxn:
    start = commit_ts - 1
    rest = {col.name: None for col in info.stored_columns if col.name not in ("id", "v")}
    images = [{"id": v, "v": v, **rest} for v in values]
    rows = [RowChangedEvent(start, commit_ts, info, after=image) for image in images]
    return SingleTableTxn(start, commit_ts, info, rows)


def ref(db: Database, schema: str, name: str) -> str:
    if db.kind == "sqlite":
        assert db.path is not None
        return SQLiteDialect(db.path).table_ref(schema, name)
    return db.ref(schema, name)


@pytest.mark.parametrize(
    "long",
    [
        lambda info: table("s", "x" * 63 + info, 1),  # two tables sharing 63 bytes
        lambda info: table("s" * 61 + "é" + info, "t", 1),  # 64 bytes of a schema
        lambda info: table("s", "t", 1, [*COLUMNS, ColumnInfo("中" * 21 + info, "int")]),
    ],
    ids=["table", "schema", "column"],
)
async def test_postgresql_refuses_names_it_would_cut(fresh_postgresql: str, long) -> None:
    db = Database("postgresql", fresh_postgresql)
    sink = await opened(db)
    first, second = long("a"), long("b")
    try:
        with pytest.raises(EventSinkError) as caught:
            await sink.write_ddl_event(DDLEvent(10, DDLType.CREATE, "", first))
        message = str(caught.value)
        assert "\n" not in message and "63 bytes" in message
        assert f"table {first.qualified_name}:" in message
    finally:
        await sink.close()
    sink = await opened(db)  # rows of a table no DDL created: refused the same way
    try:
        with pytest.raises(EventSinkError, match="63 bytes"):
            await write_txns(sink, [txn(second, 20, 1)])
    finally:
        await sink.close()
    made = db.query(
        "SELECT table_schema, table_name FROM information_schema.tables "
        "WHERE table_schema NOT IN ('pg_catalog', 'information_schema', 'tidb_cdc')"
    )
    assert made == []


async def test_postgresql_keeps_indexes_and_constraints_of_long_names_apart(
    fresh_postgresql: str,
) -> None:
    """Names of 60 bytes are kept; what PostgreSQL derives from them (``<table>_pkey``, each
    CHECK, ``table/index``) passes 63 bytes: the sink names indexes with a digest, PostgreSQL
    picks distinct constraint names itself, and two such tables keep their rows apart."""
    db = Database("postgresql", fresh_postgresql)
    columns = [*COLUMNS, ColumnInfo("w", "tinyint")]
    indexes = [PK, IndexInfo("by_v" + "x" * 40, ("v",)), IndexInfo("by_w" + "x" * 40, ("w",))]
    tables = [make_table("s", "t" * 59 + end, n, 1, columns, indexes) for n, end in ((1, "a"),
              (2, "b"))]  # fmt: skip
    sink = await opened(db)
    try:
        for info in tables:
            await sink.write_ddl_event(DDLEvent(10 + info.table_id, DDLType.CREATE, "", info))
        await write_txns(sink, [txn(tables[0], 20, 1), txn(tables[1], 21, 2, 3)])
    finally:
        await sink.close()
    found = db.query("SELECT indexname FROM pg_indexes WHERE schemaname = 's' "
                     "AND indexname LIKE '%/%'")  # fmt: skip
    assert len(set(found)) == 4 and all(len(name.encode()) <= 63 for (name,) in found)
    constraints = db.query("SELECT conname FROM pg_constraint c JOIN pg_namespace n "
                           "ON n.oid = c.connamespace WHERE n.nspname = 's'")  # fmt: skip
    assert len(constraints) == len(set(constraints)) >= 4  # two keys, two CHECKs at least
    assert [len(db.query(f"SELECT * FROM {db.ref('s', info.table)}")) for info in tables] == [
        1,
        2,
    ]


async def test_tables_named_with_dots_stay_apart(database: Database) -> None:
    one, other = table("s", "dot.ted", 1), table("s.dot", "ted", 2)
    sink = await opened(database)
    try:
        for info in (one, other):
            await sink.write_ddl_event(DDLEvent(10 + info.table_id, DDLType.CREATE, "", info))
        await write_txns(sink, [txn(one, 20, 1, 2), txn(other, 21, 7)])
    finally:
        await sink.close()
    assert database.query(f"SELECT id FROM {ref(database, 's', 'dot.ted')} ORDER BY id") == [
        (1,),
        (2,),
    ]
    assert database.query(f"SELECT id FROM {ref(database, 's.dot', 'ted')}") == [(7,)]


NAME = st.text(st.sampled_from("ab./%2E"), min_size=1, max_size=6)


@given(NAME, NAME, NAME, NAME)
def test_sqlite_table_names_never_collide(s1: str, t1: str, s2: str, t2: str) -> None:
    dialect = SQLiteDialect(Path("unused.db"))
    first, second = dialect.table_ref(s1, t1), dialect.table_ref(s2, t2)
    assert (first == second) == ((s1, t1) == (s2, t2))
    assert split_table_name(first[1:-1]) == (s1, t1)
    index = dialect.index_name(table(s1, t1, 1), IndexInfo("i", ("v",)))
    assert split_table_name(index) is None  # an index never reads as a table
