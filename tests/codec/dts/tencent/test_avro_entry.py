"""The Avro form of the ``tencent-dts`` registry entry: encoder, schema file and decoder."""

from __future__ import annotations

from tests.codec.dts.avro.support import decode
from tisink.codec import new_encoder
from tisink.codec.config import EncoderConfig
from tisink.codec.dts.avro.schemas import schema_bytes
from tisink.codec.dts.options import DTSOptions
from tisink.codec.registry import get_protocol
from tisink.core.clock import FixedClock
from tisink.model.events import RowChangedEvent
from tisink.model.table import ColumnInfo, make_table
from tisink.model.tso import compose_ts


def test_avro_is_a_tencent_encoding_format() -> None:
    spec = get_protocol("tencent-dts")
    assert spec.default_encoding_format == "protobuf"
    assert "avro" in spec.encoding_formats
    assert spec.schema_files("avro") == {"Record.avsc": schema_bytes("tencent")}


def test_registry_encoder_and_decoder() -> None:
    config = EncoderConfig(
        protocol="tencent-dts",
        encoding_format="avro",
        options=DTSOptions(checkpoint_interval_in_sec=0),
    )
    encoder = new_encoder(config, FixedClock(42))
    ts = compose_ts(1_715_930_562_000)
    table = make_table("db", "t", 1, 1, [ColumnInfo("id", "int")])
    records = encoder.encode_rows([RowChangedEvent(ts - 1, ts, table, after={"id": 7})]).records
    assert [decode("tencent", v)["messageType"] for _k, v in records] == [
        "BEGIN",
        "INSERT",
        "COMMIT",
    ]
    checkpoint = encoder.encode_checkpoint(ts)
    assert checkpoint is not None and encoder.encode_checkpoint(ts + 1) is not None
    decoder = config.spec.new_decoder(config)  # type: ignore[misc]
    messages = [m for _k, v in records for m in decoder.decode(None, v)]
    assert [(m.type, m.commit_ts) for m in messages] == [
        ("BEGIN", ts),
        ("INSERT", ts),
        ("COMMIT", ts),
    ]
    [watermark] = decoder.decode(None, checkpoint.value)
    assert watermark.commit_ts == ts
