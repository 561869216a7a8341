"""The JSON marshaller against every Simple Protocol golden in tests/data/formats/ticdc-simple."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tisink.codec.config import EncoderConfig
from tisink.codec.gojson import go_dumps
from tisink.codec.simple.encoder import SimpleEncoder
from tisink.codec.simple.json_marshaller import JSONMarshaller
from tisink.codec.simple.json_schema import drops_pre_table_schema, table_schema
from tisink.codec.simple.options import SimpleOptions
from tisink.core.clock import FixedClock
from tisink.model import (
    ColumnInfo,
    DDLEvent,
    DDLType,
    IndexInfo,
    RowChangedEvent,
    TableInfo,
    TypeFamily,
    make_table,
)


def _golden(simple_golden: Path, name: str) -> tuple[bytes, dict[str, Any]]:
    raw = (simple_golden / "docs-examples" / name).read_bytes()
    return raw, json.loads(raw)


def _feed_image(table: TableInfo, data: dict[str, str]) -> dict[str, Any]:
    """Turn a golden ``data`` map (all strings) back into feed values for the docs table."""
    image: dict[str, Any] = {}
    for name, text in data.items():
        family = table.column_by_name[name].family
        if family is TypeFamily.INT:
            image[name] = int(text)
        elif family is TypeFamily.FLOAT:
            image[name] = float(text)
        else:
            image[name] = text
    return image


@pytest.fixture(scope="module")
def user_table(simple_golden: Path) -> TableInfo:
    _, alter = _golden(simple_golden, "ddl_alter.json")
    return TableInfo.from_dict(alter["preTableSchema"])


@pytest.mark.parametrize("name", ["dml_insert.json", "dml_update.json", "dml_delete.json"])
def test_docs_dml_byte_equal(simple_golden: Path, user_table: TableInfo, name: str) -> None:
    raw, golden = _golden(simple_golden, name)
    assert golden["schemaVersion"] == user_table.version
    before = _feed_image(user_table, golden["old"]) if "old" in golden else None
    after = _feed_image(user_table, golden["data"]) if "data" in golden else None
    row = RowChangedEvent(golden["commitTs"] - 10, golden["commitTs"], user_table, before, after)
    encoder = SimpleEncoder(EncoderConfig(time_zone="UTC"), FixedClock(golden["buildTs"]))
    message = encoder.encode_row(row)
    assert message.value == raw
    assert message.key == b""
    assert (message.rows, message.table) == (1, "simple.user")


def test_docs_watermark_byte_equal(simple_golden: Path) -> None:
    raw, golden = _golden(simple_golden, "watermark.json")
    encoder = SimpleEncoder(EncoderConfig(), FixedClock(golden["buildTs"]))
    message = encoder.encode_checkpoint(golden["commitTs"])
    assert message.value == raw
    assert message.key is None


def test_docs_bootstrap_byte_equal(simple_golden: Path) -> None:
    raw, golden = _golden(simple_golden, "bootstrap.json")
    ddl = DDLEvent.bootstrap(TableInfo.from_dict(golden["tableSchema"]))
    encoder = SimpleEncoder(EncoderConfig(), FixedClock(golden["buildTs"]))
    message = encoder.encode_ddl(ddl)
    assert message.value == raw
    assert (message.key, message.type.value, message.table) == (
        None,
        "BOOTSTRAP",
        "simple.new_user",
    )


def _docs_alter(golden: dict[str, Any]) -> DDLEvent:
    return DDLEvent(
        commit_ts=golden["commitTs"],
        ddl_type=DDLType(golden["type"]),
        query=golden["sql"],
        table=TableInfo.from_dict(golden["tableSchema"]),
        pre_table=TableInfo.from_dict(golden["preTableSchema"]),
    )


def test_docs_ddl_alter_byte_equal(simple_golden: Path) -> None:
    """The docs example shows the classic architecture's DDL (tiflow ``PreTableInfo``)."""
    raw, golden = _golden(simple_golden, "ddl_alter.json")
    config = EncoderConfig(options=SimpleOptions(newarch=False))
    encoder = SimpleEncoder(config, FixedClock(golden["buildTs"]))
    assert encoder.encode_ddl(_docs_alter(golden)).value == raw


def test_docs_ddl_alter_without_pre_table_schema_as_ticdc(simple_golden: Path) -> None:
    """ticdc writes ``preTableSchema`` only for a DDL event holding two table infos
    (``len(MultipleTableInfos) > 1``, b813e76f ``pkg/sink/codec/simple/message.go``): the
    example's bytes up to that field, then the closing brace."""
    raw, golden = _golden(simple_golden, "ddl_alter.json")
    encoder = SimpleEncoder(EncoderConfig(), FixedClock(golden["buildTs"]))
    assert (
        encoder.encode_ddl(_docs_alter(golden)).value
        == raw[: raw.index(b',"preTableSchema"')] + b"}"
    )


# --- TestNewTableSchema -------------------------------------------------------------------


@pytest.mark.parametrize("name", ["t1", "t2", "t3"])
def test_new_table_schema_round_trip(simple_golden: Path, name: str) -> None:
    path = simple_golden / "unit-test-derived" / f"TestNewTableSchema_{name}.tableSchema.json"
    raw = path.read_bytes()
    assert go_dumps(table_schema(TableInfo.from_dict(json.loads(raw)))) == raw


def test_new_table_schema_t1_built_by_hand(simple_golden: Path) -> None:
    """t1 from its SQL (test.t1: id int PK, name varchar(64) NOT NULL UNIQUE, age int,
    email varchar(255) NOT NULL, index(age, email)) and TiDB's rules, not from the golden."""
    text = dict(charset="utf8mb4", collate="utf8mb4_bin")
    table = make_table(
        "test",
        "t1",
        0,
        0,
        [
            ColumnInfo("id", "int", length=11, nullable=False),
            ColumnInfo("name", "varchar", length=64, nullable=False, **text),
            ColumnInfo("age", "int", length=11),
            ColumnInfo("email", "varchar", length=255, nullable=False, **text),
        ],
        [
            IndexInfo("idx_name", ("name",), unique=True),
            IndexInfo("idx_age_email", ("age", "email")),
            IndexInfo("primary", ("id",), unique=True, primary=True),
        ],
    )
    path = simple_golden / "unit-test-derived" / "TestNewTableSchema_t1.tableSchema.json"
    assert go_dumps(table_schema(table)) == path.read_bytes()


# --- unit-test vectors --------------------------------------------------------------------


def _int_table() -> TableInfo:
    columns = [ColumnInfo("id", "int", length=11, nullable=False)]
    types = ("tinyint", "smallint", "mediumint", "int", "bigint")
    for name, mysql_type in zip(
        "abcdefghij",
        [t for t in types for _ in range(2)],
        strict=True,
    ):
        columns.append(ColumnInfo(name, mysql_type, unsigned=name in "bdfhj"))
    return make_table("test", "t", 100, 1, columns, [IndexInfo("primary", ("id",), True, True)])


def test_encode_integer_types(simple_golden: Path) -> None:
    vectors = json.loads(
        (simple_golden / "unit-test-derived" / "TestEncodeIntegerTypes.vectors.json").read_text()
    )
    marshaller = JSONMarshaller("UTC")
    table = _int_table()
    for case in vectors["rows"]:
        row = RowChangedEvent(1, 2, table, after=case["input"])
        data = marshaller.renderer(table).render(case["input"])
        assert go_dumps(data) == case["json_data_bytes"].encode()
        assert marshaller.marshal_row(row, 0).endswith(
            b'"data":' + case["json_data_bytes"].encode() + b"}"
        )


def test_encoder_other_types(simple_golden: Path) -> None:
    vectors = json.loads(
        (simple_golden / "unit-test-derived" / "TestEncoderOtherTypes.vectors.json").read_text()
    )
    text = dict(charset="utf8mb4", collate="utf8mb4_bin")
    table = make_table(
        "test",
        "t",
        100,
        1,
        [
            ColumnInfo("a", "int", length=11, nullable=False),
            ColumnInfo("b", "enum", elements=("a", "b", "c"), **text),
            ColumnInfo("c", "set", elements=("a", "b", "c"), **text),
            ColumnInfo("d", "bit", length=64, unsigned=True),
            ColumnInfo("e", "json"),
        ],
        [IndexInfo("primary", ("a",), True, True)],
    )
    image = {
        "a": 1,
        "b": "a",
        "c": ["a", "b"],
        "d": 0b1000001,
        "e": json.loads('{"key1": "value1", "key2": "value2"}'),
    }
    data = JSONMarshaller("UTC").renderer(table).render(image)
    assert go_dumps(data) == vectors["json_data_bytes"].encode()


def test_large_event_insert_data(
    simple_golden: Path,
    large_table: TableInfo,
    large_row_image: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    expected = (simple_golden / "large-event" / "expected_insert_data.json").read_bytes()
    assert len(large_table.columns) == 55
    monkeypatch.setenv("TZ", "UTC")  # the process zone, as a TiCDC server started with TZ=UTC
    message = JSONMarshaller(None).marshal_row(
        RowChangedEvent(1, 2, large_table, after=large_row_image), 3
    )
    assert message.endswith(b'"data":' + expected + b"}")
    update = JSONMarshaller("UTC").marshal_row(
        RowChangedEvent(1, 2, large_table, before=large_row_image, after=large_row_image), 3
    )
    assert update.endswith(b'"data":' + expected + b',"old":' + expected + b"}")


# --- TestEncodeDDLSequence ----------------------------------------------------------------


def _ddl_step_table(name: str, columns: int, indexes: int, version: int) -> TableInfo:
    cols = [ColumnInfo(f"c{i}", "int", length=11, nullable=i > 0) for i in range(columns)]
    idx = [IndexInfo("primary", ("c0",), True, True)]
    idx += [IndexInfo(f"idx_{i}", (f"c{i}",)) for i in range(1, indexes)]
    return make_table("test", name, 200, version, cols, idx)


@pytest.mark.parametrize("newarch", [True, False])
def test_encode_ddl_sequence(simple_golden: Path, newarch: bool) -> None:
    """Every step's DDL type reaches the wire, with a tableSchema of the expected shape; a
    preTableSchema where there is a table before the DDL, as each architecture writes it."""
    expectations = json.loads(
        (
            simple_golden / "unit-test-derived" / "TestEncodeDDLSequence.expectations.json"
        ).read_text()
    )
    marshaller = JSONMarshaller("UTC", newarch=newarch)
    previous: TableInfo | None = None
    for version, step in enumerate(expectations["steps"], start=1):
        ddl_type = DDLType(step["type"])
        table = None
        if step["columns_in_tableSchema"] is not None:
            name = "TBL2" if "TBL2" in step["sql"] else "TBL1"
            table = _ddl_step_table(
                name, step["columns_in_tableSchema"], step["indexes_in_tableSchema"], version
            )
        pre = previous if ddl_type is not DDLType.CREATE else None
        ddl = DDLEvent(version, ddl_type, step["sql"], table, pre)
        decoded = json.loads(marshaller.marshal_ddl(ddl, 0))
        assert decoded["type"] == step["type"]
        assert decoded["sql"] == step["sql"]
        if table is None:
            assert "tableSchema" not in decoded
        else:
            assert len(decoded["tableSchema"]["columns"]) == step["columns_in_tableSchema"]
            assert len(decoded["tableSchema"]["indexes"]) == step["indexes_in_tableSchema"]
        dropped = drops_pre_table_schema(newarch)
        assert ("preTableSchema" in decoded) == (pre is not None and not dropped)
        previous = table
