"""A DDL storm on one table, rows between every DDL, in every dialect: ADD COLUMN with a default,
DROP COLUMN, CHANGE (rename) and MODIFY (widen, narrow) a column, CINDEX and DINDEX, RENAME
within and across schemas, TRUNCATE, DROP and CREATE again under the same name; a second table
written throughout. The database must end in the feed's final state, with the ``columns``
metadata of the last schemas, and a replay of the whole storm must change nothing."""

from __future__ import annotations

from dataclasses import replace

from tests.eventsink.sql.expected import assert_database_holds, final_state
from tests.eventsink.sql.storm import FeedBuilder
from tests.eventsink.sql.support import Database, last_commit_ts, play_records
from tisink.feed.format.records import FeedRecord
from tisink.model.events import DDLType
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo, make_table

PK = IndexInfo("primary", ("id",), unique=True, primary=True)


def storm() -> list[FeedRecord]:
    feed = FeedBuilder()
    key = ColumnInfo("id", "int", nullable=False)
    other = make_table("s1", "other", 300, 1, [key, ColumnInfo("v", "varchar", length=8)], [PK])
    feed.ddl(DDLType.CREATE, other)
    t = make_table(
        "s1", "items", 200, 1,
        [ColumnInfo("id", "int", nullable=False), ColumnInfo("name", "varchar", length=32),
         ColumnInfo("qty", "smallint"), ColumnInfo("price", "double")],
        [PK],
    )  # fmt: skip
    feed.ddl(DDLType.CREATE, t)
    n = 0

    def rows(table: TableInfo, count: int, **extra: object) -> None:
        nonlocal n
        images = []
        for _ in range(count):
            n += 1
            image = {c.name: None for c in table.stored_columns}
            image.update({"id": n, **extra})
            if "name" in image:
                image["name"] = f"item {n}"
            if "title" in image:
                image["title"] = f"title {n} 'quoted' \\ back"
            images.append((None, image))
        feed.txn(table, *images)
        feed.txn(other, (None, {"id": n, "v": f"o{n}"}))

    rows(t, 10, qty=7, price=1234.5)
    feed.txn(t, ({"id": 1}, {"id": 1, "name": "one", "qty": 1, "price": 0.5}), ({"id": 2}, None))
    add = replace(t, version=2, columns=(*t.columns, ColumnInfo("note", "varchar", length=16,
                                                                default="n/a", id=5)))  # fmt: skip
    feed.ddl(DDLType.ALTER, add, t)
    rows(add, 5, qty=3, price=2.25, note="x")
    drop = replace(add, version=3, columns=tuple(c for c in add.columns if c.name != "qty"))
    feed.ddl(DDLType.ALTER, drop, add)
    rows(drop, 5, price=-1.0)
    title = ColumnInfo("title", "varchar", length=64, id=2)  # CHANGE name -> title, widened
    price = ColumnInfo("price", "decimal", length=6, decimal=1, id=4)  # MODIFY: 1234.5 fits
    changed = replace(drop, version=4, columns=(drop.columns[0], title, price, drop.columns[3]))
    feed.ddl(DDLType.ALTER, changed, drop)
    rows(changed, 5, price="99.5")
    indexed = replace(changed, version=5, indexes=(PK, IndexInfo("by_title", ("title",))))
    feed.ddl(DDLType.CINDEX, indexed, changed)
    renamed = replace(indexed, table="goods")
    feed.ddl(DDLType.RENAME, renamed, indexed)
    rows(renamed, 5, price="1.5", note="renamed")
    moved = replace(renamed, schema="s2")
    feed.ddl(DDLType.RENAME, moved, renamed)
    unindexed = replace(moved, version=6, indexes=(PK,))
    feed.ddl(DDLType.DINDEX, unindexed, moved)
    rows(unindexed, 5, price="2.5")
    truncated = replace(unindexed, table_id=201, version=7)
    feed.ddl(DDLType.TRUNCATE, truncated, unindexed)
    rows(truncated, 5, price="3.5")
    feed.ddl(DDLType.ERASE, truncated, truncated)
    again = make_table("s2", "goods", 202, 8,
                       [ColumnInfo("id", "bigint", nullable=False), ColumnInfo("flag", "tinyint")],
                       [PK])  # fmt: skip
    feed.ddl(DDLType.CREATE, again)
    rows(again, 5, flag=1)
    return feed.records


async def test_a_ddl_storm_is_applied_and_replays_change_nothing(database: Database) -> None:
    records = storm()
    await play_records(database.url, records)
    counts = assert_database_holds(database, records)
    assert counts == {"s1.other": 8, "s2.goods": 5}
    assert database.checkpoint() == last_commit_ts(records)
    for state in final_state(records).values():
        info = state.info
        assert [c[1] for c in database.columns(info.schema, info.table)] == [
            c.name for c in info.stored_columns
        ]
    assert database.columns("s1", "items") == [] and database.columns("s1", "goods") == []
    again = await play_records(database.url, records)
    assert again.replayed_txns == again.stats().txns > 0
    assert_database_holds(database, records)
