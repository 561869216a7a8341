"""The ``alibaba-dts`` registry entry, and its stream read by a second, independent decoder: the
Apache ``avro`` package with the verbatim schema from tests/data/formats/alibaba-dts."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import avro.io
import avro.schema
import pytest
from hypothesis import HealthCheck, given, settings

from tests.codec.dts.avro.strategies import transactions
from tests.codec.dts.avro.support import decode
from tisink.codec import new_encoder
from tisink.codec.config import EncoderConfig
from tisink.codec.dts.options import DTSOptions
from tisink.codec.registry import get_protocol
from tisink.core.clock import FixedClock
from tisink.core.errors import ConfigError
from tisink.core.options import build_options
from tisink.model.events import DDLEvent, DDLType, RowChangedEvent
from tisink.model.tso import compose_ts

SHARED_SCHEMA = Path("formats") / "alibaba-dts" / "Record.avsc"


def test_entry() -> None:
    spec = get_protocol("alibaba-dts")
    assert spec.encoding_formats == ("avro",)
    assert spec.sends_bootstrap is False
    assert spec.sends_heartbeat is True
    assert spec.default_options() == DTSOptions(
        checkpoint_interval_in_sec=10, heartbeat_interval_in_sec=10
    )
    assert [o.key for o in spec.options] == [
        "dts-checkpoint-interval-in-sec",
        "dts-heartbeat-interval-in-sec",
    ]
    options = build_options(
        spec.options_type,
        spec.options,
        {"dts-checkpoint-interval-in-sec": "3", "dts-heartbeat-interval-in-sec": "0"},
        "uri",
    )
    assert options.checkpoint_interval_in_sec == 3
    assert options.heartbeat_interval_ms is None
    with pytest.raises(ConfigError, match="dts-checkpoint-interval-in-sec"):
        build_options(spec.options_type, spec.options, {"dts-checkpoint-interval-in-sec": -1}, "x")
    with pytest.raises(ConfigError, match="dts-heartbeat-interval-in-sec"):
        build_options(spec.options_type, spec.options, {"dts-heartbeat-interval-in-sec": "x"}, "x")


def test_schema_files_give_the_verbatim_schema(reference_data: Path) -> None:
    files = get_protocol("alibaba-dts").schema_files("avro")
    assert files == {"Record.avsc": (reference_data / SHARED_SCHEMA).read_bytes()}


def test_encoder_and_decoder_from_the_registry() -> None:
    config = EncoderConfig(protocol="alibaba-dts", options=DTSOptions(checkpoint_interval_in_sec=0))
    encoder = new_encoder(config, FixedClock(5))
    assert encoder.message_per_row is False
    ts = compose_ts(1_715_930_562_000)
    checkpoints = [encoder.encode_checkpoint(ts + i) for i in range(2)]
    assert all(c is not None for c in checkpoints)
    decoder = config.spec.new_decoder(config)  # type: ignore[misc]
    assert [m.commit_ts for c in checkpoints for m in decoder.decode(None, c.value)] == [
        ts,
        ts + 1,
    ]


@pytest.fixture(scope="module")
def apache_record(reference_data: Path) -> avro.schema.Schema:
    """The ``Record`` branch of the verbatim file's 14 schemas, parsed by Apache avro."""
    union = avro.schema.parse((reference_data / SHARED_SCHEMA).read_text(encoding="utf-8"))
    record = union.schemas[-1]  # type: ignore[attr-defined]
    assert record.fullname == "com.alibaba.dts.formats.avro.Record"
    return record


def _apache_read(schema: avro.schema.Schema, value: bytes) -> Any:
    buffer = io.BytesIO(value)
    datum = avro.io.DatumReader(schema).read(avro.io.BinaryDecoder(buffer))
    assert buffer.tell() == len(value), "bytes left after the record"
    return datum


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(transactions())
def test_apache_avro_reads_what_fastavro_reads(
    apache_record: avro.schema.Schema, rows: list[RowChangedEvent]
) -> None:
    encoder = new_encoder(EncoderConfig(protocol="alibaba-dts"), FixedClock(9))
    table = rows[0].table
    values = [value for _key, value in encoder.encode_rows(rows).records]
    ddl = encoder.encode_ddl(DDLEvent(rows[0].commit_ts + 1, DDLType.ALTER, "ALTER", table))
    checkpoint = encoder.encode_checkpoint(rows[0].commit_ts + 1)
    assert ddl is not None and checkpoint is not None
    for value in [*values, ddl.value, checkpoint.value]:
        assert _apache_read(apache_record, value) == decode("alibaba", value)
