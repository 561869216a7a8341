"""The state a change feed leaves in a database, computed from the feed alone, and a check that a
database (SQLite, MariaDB or PostgreSQL) holds it.

``final_state`` applies each row change to a dict per table keyed by primary key (INSERT and
UPDATE store the after image, DELETE removes the key) and follows the DDLs (CREATE, TRUNCATE,
RENAME, DROP; ALTER gives kept rows the added columns' defaults and drops removed columns). It
shares no code with the applier. Values are compared in one canonical form per MySQL type
(``canonical``), written here from the feed format and from what each driver returns; a value
written before a MODIFY COLUMN is compared as the new type holds it (``converted``).
"""

from __future__ import annotations

import base64
import json
import math
import re
import struct
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

from tests.eventsink.sql.support import Database
from tisink.feed.format.records import FeedDDL, FeedRecord, FeedRow
from tisink.model.events import DDLType
from tisink.model.table import ColumnInfo, TableInfo

Cell = tuple[ColumnInfo, Any]
"""A value and the column (type) it was written under."""

INTEGERS = {"tinyint": 8, "smallint": 16, "mediumint": 24, "int": 32, "bigint": 64}
TEXT_FAMILIES = ("char", "varchar", "tinytext", "text", "mediumtext", "longtext", "enum")
BINARIES = ("binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob")
_TIME = re.compile(r"^(-)?(\d+):(\d\d):(\d\d)(?:\.(\d{1,6}))?$")


@dataclass
class TableState:
    info: TableInfo
    rows: dict[tuple[Any, ...], dict[str, Cell]] = field(default_factory=dict)

    def key(self, image: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(image[name] for name in self.info.handle_key)


def final_state(records: Iterable[FeedRecord]) -> dict[int, TableState]:
    """Table id -> its final schema and rows."""
    tables: dict[int, TableState] = {}
    for record in records:
        if type(record) is FeedRow:
            row = record.row
            state = tables.setdefault(row.table.table_id, TableState(row.table))
            state.info = row.table
            if row.before is not None:
                state.rows.pop(state.key(row.before), None)
            if row.after is not None:
                columns = row.table.column_by_name
                state.rows[state.key(row.after)] = {
                    name: (columns[name], value) for name, value in row.after.items()
                }
        elif type(record) is FeedDDL:
            _apply_ddl(tables, record)
    return tables


def _apply_ddl(tables: dict[int, TableState], record: FeedDDL) -> None:
    ddl = record.ddl
    kind, table, pre = ddl.ddl_type, ddl.table, ddl.pre_table
    if kind is DDLType.ERASE:
        gone = pre or table
        assert gone is not None
        tables.pop(gone.table_id, None)
    elif kind is DDLType.TRUNCATE:
        assert pre is not None and table is not None
        tables.pop(pre.table_id, None)
        tables[table.table_id] = TableState(table)
    elif kind is DDLType.CREATE:
        assert table is not None
        tables.setdefault(table.table_id, TableState(table))
    elif table is not None:
        state = tables.setdefault(table.table_id, TableState(table))
        state.info = table
        if kind is DDLType.ALTER:
            for key, cells in state.rows.items():
                state.rows[key] = {
                    col.name: cells.get(col.name, (col, col.default))
                    for col in table.stored_columns
                }


@dataclass(frozen=True)
class Near:
    """A FLOAT or DOUBLE: equal within the type's precision (drivers print floats briefly)."""

    value: float
    rel: float

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Near) and math.isclose(self.value, other.value, rel_tol=self.rel)

    def __hash__(self) -> int:
        return 0


def _time(text: str) -> timedelta:
    match = _TIME.match(text)
    assert match, text
    sign, hours, minutes, seconds, fraction = match.groups()
    span = timedelta(hours=int(hours), minutes=int(minutes), seconds=int(seconds),
                     microseconds=int((fraction or "").ljust(6, "0")))  # fmt: skip
    return -span if sign else span


def _datetime(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.astimezone(UTC).replace(tzinfo=None) if value.tzinfo else value
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return value  # MySQL's zero dates stay text


def canonical(col: ColumnInfo, value: Any, from_db: bool) -> Any:
    """``value`` (the feed's form, or what a driver returned) in one form per MySQL type."""
    if value is None:
        return None
    kind = col.mysql_type
    if kind in INTEGERS or kind == "year":
        return int(value)
    if kind == "bit":
        return int.from_bytes(value, "big") if isinstance(value, bytes) else int(value)
    if kind == "float":
        return Near(struct.unpack("f", struct.pack("f", float(value)))[0], 1e-5)
    if kind == "double":
        return Near(float(value), 1e-12)
    if kind == "decimal":
        return Decimal(str(value))
    if kind in BINARIES:
        raw = bytes(value) if from_db else base64.b64decode(value)
        return raw.rstrip(b"\0") if kind == "binary" else raw  # MySQL pads BINARY(n)
    if kind == "char":
        return str(value).rstrip(" ")
    if kind in TEXT_FAMILIES:
        return str(value)
    if kind == "set":
        if isinstance(value, str):
            return frozenset(value.split(",")) - {""}
        return frozenset(value)
    if kind == "json":
        return json.loads(value) if from_db and isinstance(value, str) else value
    if kind == "vector":  # stored as TiDB prints it: float32 elements
        items = json.loads(value) if from_db and isinstance(value, str) else value
        return tuple(struct.unpack("f", struct.pack("f", float(x)))[0] for x in items)
    if kind == "date":
        return value.isoformat() if isinstance(value, date) else str(value)
    if kind in ("datetime", "timestamp"):
        return _datetime(value)
    if kind == "time":
        return value if isinstance(value, timedelta) else _time(str(value))
    raise AssertionError(f"no canonical form for {kind}")


def _bounds(col: ColumnInfo) -> tuple[Decimal, Decimal] | None:
    if col.mysql_type == "decimal":
        high = Decimal(10) ** (col.length - col.decimal) - Decimal(10) ** -col.decimal
        return (Decimal(0) if col.unsigned else -high), high
    bits = INTEGERS.get(col.mysql_type)
    if bits is None:
        return None
    if col.unsigned:
        return Decimal(0), Decimal(2**bits - 1)
    return Decimal(-(2 ** (bits - 1))), Decimal(2 ** (bits - 1) - 1)


def converted(kind: str, written: ColumnInfo, col: ColumnInfo, value: Any) -> Any:
    """A value written under ``written`` after a MODIFY COLUMN to ``col``: SQLite keeps it as
    stored (compared as a number); MySQL's ALTER outside strict mode, which the servers
    follow, clamps numbers to the new range and rounds them to its scale."""
    if value is None:
        return None
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        return canonical(col, value, False)
    bounds = _bounds(col)
    if kind == "sqlite" or bounds is None:
        return number
    number = min(max(number, bounds[0]), bounds[1])
    if col.mysql_type == "decimal":
        return number.quantize(Decimal(10) ** -col.decimal, rounding=ROUND_HALF_UP)
    return int(number.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def database_rows(db: Database, info: TableInfo) -> dict[tuple[Any, ...], dict[str, Any]]:
    """Key -> column -> canonical value, read from the database for ``info``'s columns."""
    columns = list(info.stored_columns)
    select = ", ".join(db.quote(c.name) for c in columns)
    rows: dict[tuple[Any, ...], dict[str, Any]] = {}
    for values in db.query(f"SELECT {select} FROM {db.ref(info.schema, info.table)}"):
        image = {c.name: canonical(c, v, True) for c, v in zip(columns, values, strict=True)}
        rows[tuple(image[k] for k in info.handle_key)] = image
    return rows


def assert_database_holds(db: Database, records: Iterable[FeedRecord]) -> dict[str, int]:
    """Compare the database with the feed's final state; returns rows per table."""
    tables = final_state(records)
    assert db.tables() == {s.info.qualified_name for s in tables.values()}, "tables differ"
    counts: dict[str, int] = {}
    for state in tables.values():
        info = state.info
        name = info.qualified_name
        got = database_rows(db, info)
        columns = info.column_by_name
        want: dict[tuple[Any, ...], dict[str, Any]] = {}
        for key, cells in state.rows.items():
            pairs = zip(info.handle_key, key, strict=True)
            db_key = tuple(canonical(columns[k], v, False) for k, v in pairs)
            want[db_key] = {
                c.name: canonical(c, cells[c.name][1], False)
                if cells[c.name][0] == c
                else converted(db.kind, cells[c.name][0], c, cells[c.name][1])
                for c in info.stored_columns
            }
        assert len(got) == len(want), f"{name}: {len(got)} rows, expected {len(want)}"
        assert sorted(map(repr, got)) == sorted(map(repr, want)), f"{name}: keys differ"
        for key, image in want.items():
            actual = got[key]
            for col in info.stored_columns:
                value = actual[col.name]
                if isinstance(image[col.name], Decimal) and not isinstance(value, Decimal):
                    value = Decimal(str(value))  # SQLite after a MODIFY: the kept value
                assert value == image[col.name], (name, key, col.name, value, image[col.name])
        counts[name] = len(want)
    return counts
