"""Values at the edges, in every dialect: texts and bytes that need escaping arrive whole, and a
value a column cannot hold stops the sink with an error naming the table and the column."""

from __future__ import annotations

import base64

import pytest

from tests.eventsink.sql.support import Database, opened, write_txns
from tisink.eventsink.errors import SinkDeadError
from tisink.model.events import DDLEvent, DDLType, RowChangedEvent, SingleTableTxn
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo, make_table

PK = IndexInfo("primary", ("id",), unique=True, primary=True)
EDGES = make_table(
    "v", "edges", 1, 1,
    [ColumnInfo("id", "int", nullable=False), ColumnInfo("s", "varchar", length=64),
     ColumnInfo("t", "text"), ColumnInfo("b", "blob"), ColumnInfo("j", "json")],
    [PK],
)  # fmt: skip
TEXTS = ["it's", 'say "hi"', "back\\slash \\' \\\\", "new\nline\r\ttab", "\x1a ctrl-z",
         "émoji 🎉 中文", "%s %(x)s %% $1 ?", "", " trailing  "]  # fmt: skip


def txn(table: TableInfo, ts: int, *images: dict) -> SingleTableTxn:
    rows = [RowChangedEvent(ts - 1, ts, table, after=image) for image in images]
    return SingleTableTxn(ts - 1, ts, table, rows)


async def test_texts_and_bytes_that_need_escaping_arrive_whole(database: Database) -> None:
    texts = [*TEXTS, "nul \x00 inside"] if database.kind != "postgresql" else TEXTS  # PG: no NUL
    every_byte = bytes(range(256))
    images = [
        {"id": i, "s": text, "t": text * 3, "b": base64.b64encode(every_byte[i:] + b"'\\").decode(),
         "j": {"text": text, "list": [text, 1.5, None]}}
        for i, text in enumerate(texts)
    ]  # fmt: skip
    sink = await opened(database)
    await sink.write_ddl_event(DDLEvent(1, DDLType.CREATE, "", EDGES))
    await write_txns(sink, [txn(EDGES, 3, *images)])
    await sink.close()
    found = database.query(f"SELECT id, s, t, b FROM {database.ref('v', 'edges')} ORDER BY id")
    assert [(i, s, t, bytes(b)) for i, s, t, b in found] == [
        (i, text, text * 3, every_byte[i:] + b"'\\") for i, text in enumerate(texts)
    ]


BAD = make_table(
    "v", "bad", 2, 1,
    [ColumnInfo("id", "int", nullable=False), ColumnInfo("qty", "tinyint", unsigned=True),
     ColumnInfo("code", "varchar", length=4), ColumnInfo("raw", "varbinary", length=8)],
    [PK],
)  # fmt: skip


async def rejected(database: Database, image: dict) -> str:
    """The error a row with ``image`` ends the sink with."""
    sink = await opened(database)
    await sink.write_ddl_event(DDLEvent(1, DDLType.CREATE, "", BAD))
    good = {"id": 1, "qty": 1, "code": "ok", "raw": None}
    with pytest.raises(SinkDeadError) as caught:
        await write_txns(sink, [txn(BAD, 3, good), txn(BAD, 5, {**good, "id": 2, **image})])
    await sink.close()
    assert database.query(f"SELECT id FROM {database.ref('v', 'bad')}") == []  # one transaction
    return str(caught.value)


async def test_a_value_that_is_no_value_of_its_column_names_table_and_column(database: Database):
    message = await rejected(database, {"raw": "not base64!"})
    assert "table v.bad column raw" in message


@pytest.mark.parametrize(
    ("image", "column"), [({"qty": 300}, "qty"), ({"code": "too long"}, "code")]
)
async def test_a_value_the_column_cannot_hold_names_table_and_column(database, image, column):
    if database.kind != "sqlite":
        message = await rejected(database, image)
        assert "v.bad" in message and column in message, message
        return
    sink = await opened(database)  # SQLite enforces no column type: the value is stored
    await write_txns(sink, [txn(BAD, 3, {"id": 1, "qty": 1, "code": "ok", "raw": None, **image})])
    await sink.close()
    assert database.query(f"SELECT {column} FROM {database.ref('v', 'bad')}") == [(image[column],)]
