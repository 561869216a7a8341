"""Row checksums in TiCDC's Avro (``[integrity] integrity-check-level = "correctness"``):
``_tidb_row_level_checksum``, ``_tidb_corrupted``, ``_tidb_checksum_version`` filled from
``codec.checksum`` when the row brings none, read back by Apache ``avro`` (an independent
reader) and by the decoder, and equal to what a consumer recomputes from the row."""

from __future__ import annotations

import io
import json

import avro.io
import avro.schema

from tests.codec.avro.memory_registry import MemoryRegistry
from tests.codec.avro.support import encoder, insert, large_image, large_table, update
from tisink.codec import checksum
from tisink.codec.avro import wire
from tisink.codec.avro.decoder import AvroDecoder
from tisink.model.events import RowChecksum

STRING_MODES = {"decimal_handling_mode": "string", "bigint_unsigned_handling_mode": "string"}


def _encoder(registry: MemoryRegistry):  # type: ignore[no-untyped-def]
    return encoder(
        registry, {"enable_row_checksum": True}, enable_tidb_extension=True, **STRING_MODES
    )


def _apache_read(registry: MemoryRegistry, value: bytes) -> dict:
    schema_id, payload = wire.split(value)
    parsed = avro.schema.parse(registry.schema_by_id(schema_id))
    reader = avro.io.DatumReader(parsed)
    return reader.read(avro.io.BinaryDecoder(io.BytesIO(payload)))  # type: ignore[no-any-return]


def test_the_fields_carry_tidbs_checksum_of_the_row() -> None:
    registry = MemoryRegistry()
    table, image = large_table(), large_image()
    _key, value = _encoder(registry).encode_rows([insert(table, image)]).records[0]
    assert value is not None
    datum = _apache_read(registry, value)
    expected = checksum.column_checksum(table, image)
    assert datum["_tidb_row_level_checksum"] == str(expected)
    assert datum["_tidb_corrupted"] is False
    assert datum["_tidb_checksum_version"] == checksum.V2
    # the last three fields, in this order (what the corrupt-checksum fault rewrites)
    fields = [f["name"] for f in json.loads(registry.schema_by_id(wire.split(value)[0]))["fields"]]
    assert fields[-3:] == ["_tidb_row_level_checksum", "_tidb_corrupted", "_tidb_checksum_version"]
    carried = checksum.carried_avro(value)
    assert carried is not None and carried.checksum == RowChecksum(2, False, expected, 0)
    decoder = AvroDecoder(registry=registry)
    decoder.decode(None, value)
    assert decoder.last_checksum == RowChecksum(2, False, expected, 0)


def test_an_update_carries_its_new_images_checksum() -> None:
    registry = MemoryRegistry()
    table, before = large_table(), large_image()
    after = {**before, "varchar": "changed"}
    _key, value = _encoder(registry).encode_rows([update(table, before, after)]).records[0]
    assert value is not None
    datum = _apache_read(registry, value)
    assert datum["_tidb_row_level_checksum"] == str(checksum.column_checksum(table, after))
    assert datum["_tidb_row_level_checksum"] != str(checksum.column_checksum(table, before))


def test_a_rows_own_checksum_is_kept_and_a_corrupted_one_read_back() -> None:
    registry = MemoryRegistry()
    row = insert(large_table(), large_image())
    row.checksum = RowChecksum(version=0, corrupted=True, current=77, previous=0)
    _key, value = _encoder(registry).encode_rows([row]).records[0]
    assert value is not None
    datum = _apache_read(registry, value)
    assert (datum["_tidb_row_level_checksum"], datum["_tidb_corrupted"]) == ("77", True)
    assert datum["_tidb_checksum_version"] == 0
    decoder = AvroDecoder(registry=registry)
    decoder.decode(None, value)
    assert decoder.last_checksum == RowChecksum(0, True, 77, 0)


def test_rewriting_the_trailing_fields_stays_a_valid_value() -> None:
    registry = MemoryRegistry()
    _key, value = _encoder(registry).encode_rows([insert(large_table(), large_image())]).records[0]
    assert value is not None
    carried = checksum.carried_avro(value)
    assert carried is not None
    new = checksum.rewritten(value, carried, RowChecksum(2, True, 123456789, 0))
    datum = _apache_read(registry, new)
    assert datum["_tidb_row_level_checksum"] == "123456789"
    assert datum["_tidb_corrupted"] is True and datum["_tidb_checksum_version"] == 2
