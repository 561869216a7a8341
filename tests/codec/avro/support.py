"""Shared pieces of the Avro tests: encoders over the in-memory registry, and the table of
tiflow's ``avroTestColumns`` / ``newLargeEvent`` (``pkg/sink/codec/avro/avro_test.go`` at
2a7a65c6f4b4ff0196ca42d2680e6167d61b6994), whose schemas are the goldens in ``data/``."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

from tests.codec.avro.memory_registry import MemoryRegistry
from tisink.codec.avro.encoder import AvroEncoder
from tisink.codec.avro.options import AvroOptions
from tisink.codec.config import EncoderConfig
from tisink.core.clock import FixedClock
from tisink.model import ColumnInfo, IndexInfo, RowChangedEvent, TableInfo, make_table

DATA = Path(__file__).parent / "data"
TS = 417318403368288260
"""``newLargeEvent``'s CommitTs."""


def encoder(
    registry: MemoryRegistry | None = None, config: dict[str, Any] | None = None, **options: Any
) -> AvroEncoder:
    """An Avro encoder (UTC) over ``registry`` with ``options`` and EncoderConfig ``config``."""
    settings: dict[str, Any] = {"time_zone": "UTC", **(config or {})}
    options.setdefault("schema_registry", "http://registry.invalid")
    encoder_config = EncoderConfig(protocol="avro", options=AvroOptions(**options), **settings)
    return AvroEncoder(encoder_config, FixedClock(0), registry=registry or MemoryRegistry())


_TEXT = ("utf8mb4", "utf8mb4_bin")
# (name, mysqlType, unsigned, elements, TiCDC's value, our feed value), avroTestColumns' order
GO_COLUMNS: tuple[tuple[str, str, bool, tuple[str, ...], Any], ...] = (
    ("tiny", "tinyint", False, (), 1),
    ("short", "smallint", False, (), 1),
    ("int24", "mediumint", False, (), 1),
    ("long", "int", False, (), 1),
    ("longlong", "bigint", False, (), 1),
    ("tinyunsigned", "tinyint", True, (), 1),
    ("shortunsigned", "smallint", True, (), 1),
    ("int24unsigned", "mediumint", True, (), 1),
    ("longunsigned", "int", True, (), 1),
    ("longlongunsigned", "bigint", True, (), 1),
    ("float", "float", False, (), 3.14),
    ("double", "double", False, (), 3.14),
    ("bit", "bit", False, (), 683),
    ("decimal", "decimal", False, (), "129012.1230000"),
    ("tinytext", "tinytext", False, (), "hello world"),
    ("mediumtext", "mediumtext", False, (), "hello world"),
    ("text", "text", False, (), "hello world"),
    ("longtext", "longtext", False, (), "hello world"),
    ("varchar", "varchar", False, (), "hello world"),
    ("varstring", "varchar", False, (), "hello world"),
    ("string", "char", False, (), "hello world"),
    ("tinyblob", "tinyblob", False, (), b"hello world"),
    ("mediumblob", "mediumblob", False, (), b"hello world"),
    ("blob", "blob", False, (), b"hello world"),
    ("longblob", "longblob", False, (), b"hello world"),
    ("varbinary", "varbinary", False, (), b"hello world"),
    ("varbinary1", "varbinary", False, (), b"hello world"),
    ("binary", "binary", False, (), b"hello world"),
    ("enum", "enum", False, ("a", "b"), "a"),
    ("set", "set", False, ("a", "b"), ["a"]),
    ("json", "json", False, (), {"key": "value"}),
    ("date", "date", False, (), "2000-01-01"),
    ("datetime", "datetime", False, (), "2015-12-20 23:58:58"),
    ("timestamp", "timestamp", False, (), "1973-12-30 15:30:00"),
    ("time", "time", False, (), "23:59:59"),
    ("year", "year", False, (), 1970),
)


def _column(
    name: str, mysql_type: str, unsigned: bool, elements: tuple[str, ...], id_: int, nullable: bool
) -> ColumnInfo:
    binary = mysql_type in ("tinyblob", "mediumblob", "blob", "longblob", "varbinary", "binary")
    charset = ("binary", "binary") if binary else _TEXT
    return ColumnInfo(
        name,
        mysql_type,
        *charset,
        elements=elements,
        unsigned=unsigned,
        nullable=nullable,
        id=id_,
    )


def large_table() -> TableInfo:
    """``newLargeEvent``'s ``testdb.avroencode``: ``id`` (int, primary key, column id 1000),
    then each test column NOT NULL (ids 1..36) followed by its nullable twin (ids 37..72)."""
    cols = [_column("id", "int", False, (), 1000, False)]
    count = len(GO_COLUMNS)
    for position, (name, mysql_type, unsigned, elements, _value) in enumerate(GO_COLUMNS, 1):
        cols.append(_column(name, mysql_type, unsigned, elements, position, False))
        cols.append(
            _column(name + "nullable", mysql_type, unsigned, elements, position + count, True)
        )
    return make_table(
        "testdb", "avroencode", 100, 1, cols, [IndexInfo("primary", ("id",), True, True)]
    )


def large_image() -> dict[str, Any]:
    """``newLargeEvent``'s row in the feed's value form: the twins NULL."""
    image: dict[str, Any] = {"id": 1}
    for name, _type, _unsigned, _elements, value in GO_COLUMNS:
        image[name] = base64.b64encode(value).decode() if isinstance(value, bytes) else value
        image[name + "nullable"] = None
    return image


def insert(table: TableInfo, after: dict[str, Any], ts: int = TS) -> RowChangedEvent:
    return RowChangedEvent(ts - 5, ts, table, None, after)


def update(
    table: TableInfo, before: dict[str, Any], after: dict[str, Any], ts: int = TS
) -> RowChangedEvent:
    return RowChangedEvent(ts - 5, ts, table, before, after)


def delete(table: TableInfo, before: dict[str, Any], ts: int = TS) -> RowChangedEvent:
    return RowChangedEvent(ts - 5, ts, table, before, None)
