"""Row checksums in the Simple Protocol (``[integrity] integrity-check-level =
"correctness"``): ``checksum{version, corrupted, current, previous}`` filled from
``codec.checksum`` when the row brings none, in both encodings, read back by the decoder, and
equal to what a consumer recomputes from the row (tiflow ``common.VerifyChecksum``)."""

from __future__ import annotations

import uuid
from typing import Any

import orjson
import pytest

from tisink.codec import checksum
from tisink.codec.config import EncoderConfig
from tisink.codec.simple.decoder import SimpleDecoder
from tisink.codec.simple.encoder import SimpleEncoder
from tisink.core.clock import FixedClock
from tisink.model import RowChangedEvent, RowChecksum, TableInfo

BUILD_TS = 1_708_923_662_983


def _encoder(**settings: Any) -> SimpleEncoder:
    return SimpleEncoder(
        EncoderConfig(**{"time_zone": "UTC", **settings}),
        FixedClock(BUILD_TS),
        uuid_factory=lambda: uuid.UUID(int=42),
    )


def _rows(table: TableInfo, image: dict[str, Any]) -> list[RowChangedEvent]:
    changed = {**image, "varcharT": "another"}
    return [
        RowChangedEvent(1, 2, table, None, image),
        RowChangedEvent(1, 2, table, image, changed),
        RowChangedEvent(1, 2, table, changed, None),
    ]


@pytest.mark.parametrize("encoding", ["json", "avro"])
def test_each_image_carries_its_column_level_checksum(
    large_table: TableInfo, large_row_image: dict[str, Any], encoding: str
) -> None:
    encoder = _encoder(enable_row_checksum=True, encoding_format=encoding)
    decoder = SimpleDecoder(encoding)
    for row in _rows(large_table, large_row_image):
        value = encoder.encode_row(row).value
        decoder.decode_value(value)
        current = checksum.column_checksum(large_table, row.after) if row.after else 0
        previous = checksum.column_checksum(large_table, row.before) if row.before else 0
        assert decoder.last_checksum == RowChecksum(checksum.V2, False, current, previous)
        assert checksum.mismatches(row.replace(checksum=decoder.last_checksum)) == []
        if encoding == "json":
            expected = (
                f'"checksum":{{"version":2,"corrupted":false,"current":{current},'
                f'"previous":{previous}}}'
            ).encode()
            assert expected in value
            assert orjson.loads(value)["checksum"]["current"] == current


def test_the_batch_path_computes_them_too(
    large_table: TableInfo, large_row_image: dict[str, Any]
) -> None:
    rows = _rows(large_table, large_row_image)
    encoder = _encoder(enable_row_checksum=True)
    one_by_one = [encoder.encode_row(row).value for row in rows]
    batched = [value for _key, value in encoder.encode_rows(rows).records]
    assert batched == one_by_one


def test_off_writes_none_and_a_rows_own_checksum_is_kept(
    large_table: TableInfo, large_row_image: dict[str, Any]
) -> None:
    row = RowChangedEvent(1, 2, large_table, None, large_row_image)
    assert b'"checksum"' not in _encoder().encode_row(row).value
    row.checksum = RowChecksum(version=0, corrupted=True, current=5, previous=0)
    value = _encoder(enable_row_checksum=True).encode_row(row).value
    assert b'"checksum":{"version":0,"corrupted":true,"current":5,"previous":0}' in value
    decoder = SimpleDecoder()
    decoder.decode_value(value)
    assert decoder.last_checksum == row.checksum
    found = checksum.mismatches(row)
    assert found[0] == "corrupted" and found[1].startswith("current checksum 5 != ")


def test_a_carried_json_checksum_is_found_and_rewritten(
    large_table: TableInfo, large_row_image: dict[str, Any]
) -> None:
    row = RowChangedEvent(1, 2, large_table, None, large_row_image)
    value = _encoder(enable_row_checksum=True).encode_row(row).value
    carried = checksum.carried_simple_json(value)
    assert carried is not None
    assert carried.checksum.current == checksum.column_checksum(large_table, large_row_image)
    new = checksum.rewritten(value, carried, RowChecksum(2, True, 9, 0))
    assert orjson.loads(new)["checksum"] == {
        "version": 2,
        "corrupted": True,
        "current": 9,
        "previous": 0,
    }
    assert {k: v for k, v in orjson.loads(new).items() if k != "checksum"} == {
        k: v for k, v in orjson.loads(value).items() if k != "checksum"
    }
