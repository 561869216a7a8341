"""The verify decoder: encode -> decode round trips, and what it rejects."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.codec.debezium.support import encoder, tiny_table
from tisink.codec.config import EncoderConfig
from tisink.codec.debezium.decoder import DebeziumDecoder
from tisink.codec.debezium.options import DebeziumOptions
from tisink.codec.decoded import DDL, DML, WATERMARK
from tisink.codec.errors import MessageDecodeError
from tisink.codec.registry import get_protocol
from tisink.model import ColumnInfo, DDLEvent, DDLType, IndexInfo, RowChangedEvent, make_table

TEXT = {"charset": "utf8mb4", "collate": "utf8mb4_bin"}
TABLE = make_table(
    "shop",
    "orders",
    5,
    3,
    [
        ColumnInfo("id", "bigint", nullable=False),
        ColumnInfo("code", "varchar", length=20, nullable=False, **TEXT),
        ColumnInfo("qty", "int"),
        ColumnInfo("price", "double"),
        ColumnInfo("note", "text", **TEXT),
    ],
    [IndexInfo("primary", ("id",), True, True), IndexInfo("uk", ("code",), True)],
)

images = st.fixed_dictionaries(
    {
        "id": st.integers(-(1 << 63), (1 << 63) - 1),
        "code": st.text(max_size=20),
        "qty": st.none() | st.integers(-(1 << 31), (1 << 31) - 1),
        "price": st.none() | st.floats(allow_nan=False, allow_infinity=False),
        "note": st.none() | st.text(),
    }
)
option_sets = st.builds(
    DebeziumOptions,
    disable_schema=st.booleans(),
    output_old_value=st.booleans(),
    enable_tidb_extension=st.booleans(),
    include_start_ts=st.booleans(),
)


def _read_back(image: dict[str, Any] | None) -> dict[str, Any] | None:
    """The image as a consumer reads it: lone surrogates (no Go string holds one) become
    U+FFFD, and an integral double has no ".0", so it parses as an int of the same value."""
    if image is None:
        return None
    out = dict(image)
    for name in ("code", "note"):
        if isinstance(out[name], str):
            out[name] = "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in out[name])
    return out


def _same(decoded: dict[str, Any] | None, expected: dict[str, Any] | None) -> bool:
    if decoded is None or expected is None:
        return decoded is expected
    price = decoded.get("price")
    decoded = {**decoded, "price": None if price is None else float(price)}
    return decoded == expected


@given(
    options=option_sets,
    before=st.none() | images,
    after=st.none() | images,
    ts=st.integers(1, 1 << 62),
)
def test_rows_round_trip(
    options: DebeziumOptions, before: dict | None, after: dict | None, ts: int
) -> None:
    if before is None and after is None:
        after = {"id": 1, "code": "", "qty": None, "price": None, "note": None}
    row = RowChangedEvent(ts - 1, ts, TABLE, before=before, after=after)
    config = EncoderConfig(protocol="debezium", time_zone="UTC", options=options)
    message = get_protocol("debezium").new_encoder(config, _Clock()).encode_rows([row])
    ((key, value),) = message.records
    (decoded,) = DebeziumDecoder(options).decode(key, value)
    assert (decoded.kind, decoded.type, decoded.commit_ts) == (DML, row.op.value, ts)
    assert (decoded.database, decoded.table) == ("shop", "orders")
    assert decoded.table_schema is not None and decoded.table_schema.handle_key == ("id",)
    assert decoded.schema_version == decoded.table_schema.version
    assert _same(decoded.data, _read_back(after))
    old_kept = row.is_delete or (row.is_update and options.output_old_value)
    assert _same(decoded.old, _read_back(before) if old_kept else None)


class _Clock:
    def now_ms(self) -> int:
        return 42


def test_ddl_and_watermark_kinds() -> None:
    options = DebeziumOptions(cluster_id="test_cluster", enable_tidb_extension=True)
    enc = encoder(enable_tidb_extension=True)
    decoder = DebeziumDecoder(options)
    ddl = enc.encode_ddl(DDLEvent(8, DDLType.CREATE, "CREATE TABLE t", tiny_table(False)))
    watermark = enc.encode_checkpoint(9)
    assert ddl is not None and watermark is not None
    (d,) = decoder.decode(ddl.key, ddl.value)
    assert (d.kind, d.type, d.commit_ts, d.table_name) == (DDL, "CREATE", 8, "test.table1")
    (w,) = decoder.decode(watermark.key, watermark.value)
    assert (w.kind, w.commit_ts) == (WATERMARK, 9)


def test_compressed_records() -> None:
    options = DebeziumOptions()
    config = EncoderConfig(
        protocol="debezium", large_message_handle_compression="lz4", options=options
    )
    enc = get_protocol("debezium").new_encoder(config, _Clock())
    ((key, value),) = enc.encode_rows(
        [RowChangedEvent(0, 5, tiny_table(False), after={"tiny": 1})]
    ).records
    decoder = get_protocol("debezium").new_decoder
    assert decoder is not None
    (decoded,) = decoder(config).decode(key, value)
    assert decoded.data == {"tiny": 1}


def _message(**options: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    row = RowChangedEvent(0, 5, tiny_table(False), before={"tiny": 1}, after={"tiny": 2})
    message = encoder(**options).encode_row(row)
    return json.loads(message.key or b""), json.loads(message.value)


def _decode(key: Any, value: Any, **options: Any) -> None:
    dump = lambda obj: obj if isinstance(obj, bytes | None) else json.dumps(obj).encode()  # noqa: E731
    DebeziumDecoder(DebeziumOptions(**options)).decode(dump(key), dump(value))


def _broken(change: str) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    key, value = _message()
    options: dict[str, Any] = {}
    if change == "op":
        value["payload"]["op"] = "c"
    elif change == "delete-with-after":
        value["payload"]["op"] = "d"
    elif change == "schema-missing":
        del value["schema"]
    elif change == "schema-unwanted":
        options["disable_schema"] = True
    elif change == "undeclared-field":
        value["payload"]["after"]["extra"] = 1
    elif change == "required-null":
        value["payload"]["after"]["tiny"] = None
    elif change == "wrong-kind":
        value["payload"]["after"]["tiny"] = "1"
    elif change == "int16-range":
        value["payload"]["after"]["tiny"] = 40000
    elif change == "key-field":
        key["payload"]["other"] = 3
    elif change == "commit-ts":
        value["payload"]["source"]["commit_ts"] = -1
    return key, value, options


@pytest.mark.parametrize(
    "change",
    [
        "op",
        "delete-with-after",
        "schema-missing",
        "schema-unwanted",
        "undeclared-field",
        "required-null",
        "wrong-kind",
        "int16-range",
        "key-field",
        "commit-ts",
    ],
)
def test_rejects_inconsistent_messages(change: str) -> None:
    key, value, options = _broken(change)
    _decode(*_message())  # the unbroken message decodes
    with pytest.raises(MessageDecodeError):
        _decode(key, value, **options)


@pytest.mark.parametrize(("key", "value"), [(b"{}", None), (None, b"{}"), (b"{", b"x")])
def test_rejects_tombstones_null_keys_and_garbage(key: bytes | None, value: bytes | None) -> None:
    with pytest.raises(MessageDecodeError):
        _decode(key, value)
