"""Byte-equality with TiCDC: the value schemas tiflow's tests expect (``data/*.json``, from
``avro_test_data.go``) and goavro's Avro binary of their row (``data/*.hex``, written by
``data/goavro/main.go`` with goavro v2.14.0, the version tiflow builds with)."""

from __future__ import annotations

import json

import pytest

from tests.codec.avro.memory_registry import MemoryRegistry
from tests.codec.avro.support import DATA, TS, encoder, insert, large_image, large_table
from tisink.codec.avro import schema, wire
from tisink.codec.avro.options import AvroOptions
from tisink.model.events import RowChecksum

STRING_MODES = {"decimal_handling_mode": "string", "bigint_unsigned_handling_mode": "string"}
CASES = [
    pytest.param("without_extension", {}, False, id="without-extension"),
    pytest.param("with_extension", {"enable_tidb_extension": True}, False, id="with-extension"),
    pytest.param(
        "with_extension_enable_checksum",
        {"enable_tidb_extension": True, **STRING_MODES},
        True,
        id="with-extension-enable-checksum",
    ),
]


def _golden_schema(name: str) -> str:
    return (DATA / f"value_schema_{name}.json").read_text().rstrip("\n")


@pytest.mark.parametrize(("name", "options", "checksum"), CASES)
def test_value_schema_text_is_tidb_s(name: str, options: dict, checksum: bool) -> None:
    ours = schema.value_schema(large_table(), AvroOptions(newarch=False, **options), checksum)
    golden = _golden_schema(name)
    compact = json.dumps(json.loads(golden), separators=(",", ":"), ensure_ascii=False)
    assert ours == compact  # what TiCDC registers: json.Marshal's compact text
    assert json.dumps(json.loads(ours), indent=2, ensure_ascii=False) == golden  # indentJSON


@pytest.mark.parametrize(("name", "options", "checksum"), CASES)
def test_value_bytes_are_goavro_s(name: str, options: dict, checksum: bool) -> None:
    registry = MemoryRegistry()
    enc = encoder(registry, {"enable_row_checksum": checksum}, newarch=False, **options)
    row = insert(large_table(), large_image())
    if checksum:
        row.checksum = RowChecksum(version=1, corrupted=False, current=3009655218, previous=0)
    key, value = enc.encode_rows([row]).records[0]
    schema_id, data = wire.split(value)
    assert registry.schema_by_id(schema_id) == json.dumps(
        json.loads(_golden_schema(name)), separators=(",", ":"), ensure_ascii=False
    )
    assert data.hex() == (DATA / f"value_{name}.hex").read_text().strip()
    assert key is not None
    assert wire.split(key)[1] == b"\x02"  # id = 1, zigzag


def test_commit_ts_of_the_golden_row() -> None:
    assert TS >> 18 == 1591943372224  # tiflow TestResolvedE2E's ts is this physical time
