"""VECTOR in every dialect: stored as TiDB prints it (``[1,0.5,-2]``, float32 elements in Go's
shortest form) in the column type each database can hold it in (SQLite TEXT, MySQL/MariaDB
LONGTEXT, PostgreSQL jsonb), and a value TiDB would refuse (NaN, infinity, an element that is
no number, the wrong dimension count) stops the sink naming the table and the column."""

from __future__ import annotations

import pytest

from tests.eventsink.sql.support import Database, opened, sqlite_database, write_txns
from tisink.eventsink.errors import SinkDeadError
from tisink.model.events import DDLEvent, DDLType, RowChangedEvent, SingleTableTxn
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo, make_table

VECTORS = make_table(
    "v", "emb", 1, 1,
    [ColumnInfo("id", "int", nullable=False), ColumnInfo("e3", "vector", length=3),
     ColumnInfo("e", "vector")],
    [IndexInfo("primary", ("id",), unique=True, primary=True)],
)  # fmt: skip
COLUMN_TYPES = {"sqlite": "TEXT", "mysql": "longtext", "postgresql": "jsonb"}


def txn(table: TableInfo, ts: int, *images: dict) -> SingleTableTxn:
    rows = [RowChangedEvent(ts - 1, ts, table, after=image) for image in images]
    return SingleTableTxn(ts - 1, ts, table, rows)


def column_type(database: Database) -> str:
    if database.kind == "sqlite":
        found = database.query("SELECT type FROM pragma_table_info('v.emb') WHERE name = 'e3'")
    else:
        found = database.query(
            "SELECT data_type FROM information_schema.columns "
            "WHERE table_schema = 'v' AND table_name = 'emb' AND column_name = 'e3'"
        )
    return str(found[0][0])


async def test_vectors_are_stored_as_tidb_prints_them(database: Database) -> None:
    images = [
        {"id": 1, "e3": [1.0, 0.5, -2], "e": [0.1]},
        {"id": 2, "e3": [0.1234567891, 1e-7, -3.4e38], "e": []},
        {"id": 3, "e3": None, "e": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]},
    ]
    sink = await opened(database)
    await sink.write_ddl_event(DDLEvent(1, DDLType.CREATE, "", VECTORS))
    await write_txns(sink, [txn(VECTORS, 3, *images)])
    await sink.close()
    assert column_type(database) == COLUMN_TYPES[database.kind]
    columns = "id, e3::text, e::text" if database.kind == "postgresql" else "id, e3, e"
    found = database.query(f"SELECT {columns} FROM {database.ref('v', 'emb')} ORDER BY id")
    if database.kind == "postgresql":  # jsonb's text: the same numbers, a space after commas
        found = [(row[0], *(v if v is None else v.replace(", ", ",") for v in row[1:]))
                 for row in found]  # fmt: skip
    assert found == [
        (1, "[1,0.5,-2]", "[0.1]"),
        (2, "[0.12345679,0.0000001,-340000000000000000000000000000000000000]", "[]"),
        (3, None, "[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17]"),
    ]


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ([1.0, 2.0], "2 dimensions, the column is VECTOR(3)"),
        ([1.0, float("nan"), 2.0], "finite float32, got nan"),
        ([1.0, float("inf"), 2.0], "finite float32, got inf"),
        ([1.0, 1e39, 2.0], "finite float32, got 1e+39"),
        ([1.0, "2", 3.0], "a VECTOR element is a number, got '2'"),
        ([1.0, True, 3.0], "a VECTOR element is a number, got True"),
        ("[1,2,3]", "a VECTOR value is a list of numbers, got str"),
    ],
)
async def test_a_vector_tidb_would_refuse_names_table_and_column(tmp_path, value, why) -> None:
    database = sqlite_database(tmp_path / "refuse.db")
    sink = await opened(database)
    await sink.write_ddl_event(DDLEvent(1, DDLType.CREATE, "", VECTORS))
    with pytest.raises(SinkDeadError) as caught:
        await write_txns(sink, [txn(VECTORS, 3, {"id": 1, "e3": value, "e": None})])
    await sink.close()
    message = str(caught.value)
    assert "table v.emb column e3: cannot store" in message and why in message, message
    assert "\n" not in message
    assert database.query(f"SELECT id FROM {database.ref('v', 'emb')}") == []
