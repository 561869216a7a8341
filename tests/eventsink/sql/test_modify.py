"""A narrowing MODIFY COLUMN has one meaning in every SQL sink and in ``tisink check``'s oracle
(itself the SQLite sink): TiDB's strict mode. Kept values that the new type cannot hold are
refused naming the table, column and value; values that fit are rounded to the new scale as
MySQL rounds. The demo workload, whose MODIFY narrows a DOUBLE to DECIMAL(8,2), is then EQUAL
in every database."""

from __future__ import annotations

from decimal import Decimal

import pytest
from typer.testing import CliRunner

from tests.eventsink.sql.support import Database, opened, write_txns
from tisink.cli import app
from tisink.eventsink.errors import EventSinkError
from tisink.eventsink.sql import SQLiteDialect
from tisink.eventsink.sql.narrowing import unfit_reason
from tisink.model.events import DDLEvent, DDLType, RowChangedEvent, SingleTableTxn
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo, make_table

PK = IndexInfo("primary", ("id",), unique=True, primary=True)
ROWS = 3000


def shaped(version: int, *columns: ColumnInfo) -> TableInfo:
    return make_table("m", "t", 1, version, [ColumnInfo("id", "int", nullable=False), *columns],
                      [PK])  # fmt: skip


def ref(db: Database) -> str:
    if db.kind == "sqlite":
        assert db.path is not None
        return SQLiteDialect(db.path).table_ref("m", "t")
    return db.ref("m", "t")


async def modify(db: Database, old: ColumnInfo, new: ColumnInfo, *values: object) -> None:
    """Create ``m.t`` with column ``old``, write ``values`` into it, then MODIFY it to ``new``."""
    before, after = shaped(1, old), shaped(2, new)
    rows = [
        RowChangedEvent(19, 20, before, after={"id": i, old.name: value})
        for i, value in enumerate(values)
    ]
    sink = await opened(db)
    try:
        await sink.write_ddl_event(DDLEvent(10, DDLType.CREATE, "", before))
        await write_txns(sink, [SingleTableTxn(19, 20, before, rows)])
        await sink.write_ddl_event(DDLEvent(30, DDLType.ALTER, "", after, before))
    finally:
        await sink.close()


@pytest.mark.parametrize(
    ("old", "new", "value", "shown"),
    [
        (ColumnInfo("d", "decimal", length=14, decimal=4), ColumnInfo("d", "decimal", length=8,
         decimal=2), "-509943598.7964", "-509943598.7964"),
        (ColumnInfo("d", "double"), ColumnInfo("d", "decimal", length=8, decimal=2),
         1e9, "1000000000"),
        (ColumnInfo("d", "int"), ColumnInfo("d", "tinyint", unsigned=True), -1, "-1"),
        (ColumnInfo("d", "varchar", length=10), ColumnInfo("d", "varchar", length=4),
         "tidb!", "tidb!"),
    ],
    ids=["decimal", "double", "unsigned", "varchar"],
)  # fmt: skip
async def test_a_modify_the_kept_values_cannot_follow_is_refused(
    database: Database, old: ColumnInfo, new: ColumnInfo, value: object, shown: str
) -> None:
    with pytest.raises(EventSinkError) as caught:
        await modify(database, old, new, value, None)
    message = str(caught.value)
    assert "table m.t column d: MODIFY COLUMN to " in message
    assert f"cannot hold the kept value {shown}" in message and "\n" not in message
    assert len(database.query(f"SELECT * FROM {ref(database)}")) == 2  # the table as it was


async def test_kept_values_are_rounded_to_the_new_scale_alike(database: Database) -> None:
    old = ColumnInfo("d", "decimal", length=10, decimal=4)
    await modify(database, old, ColumnInfo("d", "decimal", length=8, decimal=2),
                 "12.3450", "-12.3450", "0.0049")  # fmt: skip
    found = database.query(f"SELECT d FROM {ref(database)} ORDER BY id")
    assert [Decimal(str(v)) for (v,) in found] == [Decimal("12.35"), Decimal("-12.35"), 0]


async def test_a_double_going_to_an_integer_rounds_half_away_from_zero(database: Database):
    await modify(database, ColumnInfo("d", "double"), ColumnInfo("d", "int"), 2.5, -2.5, 1.4)
    found = database.query(f"SELECT d FROM {ref(database)} ORDER BY id")
    assert [int(v) for (v,) in found] == [3, -3, 1]


def test_the_demo_workload_is_equal_in_every_database(database: Database) -> None:
    workload = ["--workload", "demo", "--rows", str(ROWS)]
    play = ["play", "--engine", "inline", *workload, "--sink-uri", database.url, "--no-verify"]
    played = CliRunner().invoke(app, play)
    assert played.exit_code == 0, played.output
    checked = CliRunner().invoke(app, ["check", *workload, "--actual", database.url])
    assert checked.exit_code == 0, checked.output
    assert "shop.customers: equal" in checked.output


WIDE = ColumnInfo("d", "decimal", length=65, decimal=30)


@pytest.mark.parametrize(
    ("col", "value", "reason"),
    [
        (WIDE, "-" + "9" * 35 + "." + "1" * 30, None),  # past the default 28 digits, still fits
        (WIDE, "9" * 36, "out of range"),
        (ColumnInfo("d", "decimal", length=8, decimal=2), "999999.994", None),  # rounds down
        (ColumnInfo("d", "decimal", length=8, decimal=2), "999999.995", "out of range"),
        (ColumnInfo("d", "decimal", length=8, decimal=2), "1e400", "out of range"),
        (ColumnInfo("d", "decimal", length=8, decimal=2), "1e-400", None),
        (ColumnInfo("d", "decimal", length=4, decimal=2, unsigned=True), "-0.004", None),
        (ColumnInfo("d", "tinyint", unsigned=True), 255.4, None),
        (ColumnInfo("d", "tinyint", unsigned=True), 255.5, "out of range"),
        (ColumnInfo("d", "int"), "twelve", "not a number"),
        (ColumnInfo("d", "varbinary", length=2), b"abc", "longer than 2 bytes"),
    ],
)
def test_what_a_new_type_cannot_hold(col: ColumnInfo, value: object, reason: str | None):
    assert unfit_reason(col, value) == reason
