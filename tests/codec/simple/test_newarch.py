"""Where ticdc (``newarch``, the default) and tiflow (``newarch=false``) write different Simple
bytes (codec/simple/README.md): the ``tableSchema`` column order, ``preTableSchema`` and, in
Avro, TIMESTAMP's ``decimal`` and BIT's branch (tests/codec/simple/avro/test_vectors.py)."""

from __future__ import annotations

import json

import pytest

from tisink.codec.config import EncoderConfig
from tisink.codec.simple.avro import AvroMarshaller
from tisink.codec.simple.avro.generic import decode_message
from tisink.codec.simple.encoder import SimpleEncoder
from tisink.codec.simple.json_marshaller import JSONMarshaller
from tisink.codec.simple.options import SimpleOptions
from tisink.codec.simple.protocol import PROTOCOL
from tisink.core.clock import FixedClock
from tisink.model import ColumnInfo, DDLEvent, DDLType, IndexInfo, TableInfo, make_table


def _reordered() -> TableInfo:
    """``c`` added after ``a`` (``ADD COLUMN c ... AFTER a``): table order a, c, b; ids 1, 3, 2."""
    cols = [
        ColumnInfo("a", "int", nullable=False, id=1),
        ColumnInfo("c", "timestamp", decimal=3, id=3),
        ColumnInfo("b", "int", id=2),
    ]
    return make_table("db", "t", 9, 2, cols, [IndexInfo("primary", ("a",), True, True)])


@pytest.mark.parametrize(("newarch", "order"), [(True, ["a", "c", "b"]), (False, ["a", "b", "c"])])
def test_table_schema_column_order(newarch: bool, order: list[str]) -> None:
    """tiflow ``newTableSchema`` sorts the columns by id (``sort.SliceStable``); ticdc keeps
    the table order."""
    ddl = DDLEvent.bootstrap(_reordered())
    text = JSONMarshaller("UTC", newarch=newarch).marshal_ddl(ddl, 0)
    assert [c["name"] for c in json.loads(text)["tableSchema"]["columns"]] == order
    avro = decode_message(AvroMarshaller("UTC", newarch=newarch).marshal_ddl(ddl, 0))
    assert [c["name"] for c in avro["payload"]["tableSchema"]["columns"]] == order


@pytest.mark.parametrize(("newarch", "decimal"), [(True, 3), (False, None)])
def test_avro_timestamp_decimal(newarch: bool, decimal: int | None) -> None:
    """ticdc's ``newTableSchemaMap`` gives TIMESTAMP its fsp as ``decimal``; tiflow does not."""
    ddl = DDLEvent.bootstrap(_reordered())
    avro = decode_message(AvroMarshaller("UTC", newarch=newarch).marshal_ddl(ddl, 0))
    (column,) = [c for c in avro["payload"]["tableSchema"]["columns"] if c["name"] == "c"]
    assert column["dataType"]["decimal"] == decimal


@pytest.mark.parametrize("encoding", ["json", "avro"])
@pytest.mark.parametrize(("newarch", "expected"), [(True, False), (False, True)])
def test_pre_table_schema(encoding: str, newarch: bool, expected: bool) -> None:
    """An ALTER: tiflow writes the table before it (``PreTableInfo``), ticdc nothing (its DDL
    event holds one table info)."""
    table = _reordered()
    ddl = DDLEvent(5, DDLType.ALTER, "ALTER TABLE t ADD COLUMN c TIMESTAMP(3)", table, table)
    config = EncoderConfig(
        protocol="simple", encoding_format=encoding, options=SimpleOptions(newarch=newarch)
    )
    message = SimpleEncoder(config, FixedClock(0)).encode_ddl(ddl)
    assert message is not None
    if encoding == "json":
        has_pre = "preTableSchema" in json.loads(message.value)
    else:
        has_pre = decode_message(message.value)["payload"]["preTableSchema"] is not None
    assert has_pre == expected


def test_newarch_is_a_top_level_option() -> None:
    (option,) = [o for o in PROTOCOL.options if o.key == "newarch"]
    assert option.tables == ((),) and SimpleOptions().newarch
