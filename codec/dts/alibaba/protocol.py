"""Registry entry of Alibaba Cloud DTS's Avro record format (``protocol=alibaba-dts``).

One bare ``com.alibaba.dts.formats.avro.Record`` per Kafka value (spec/dts-formats.md 4): each
partition's share of a transaction as BEGIN, rows, COMMIT; DDL; CHECKPOINT on every partition
on a cadence. Consumers need the verbatim public ``Record.avsc``, which ``schema_files`` gives.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tisink.codec.options import Option, to_non_negative_int
from tisink.codec.protocol import ProtocolSpec

if TYPE_CHECKING:
    from tisink.codec.clock import Clock
    from tisink.codec.config import EncoderConfig
    from tisink.codec.encoder import RowEventEncoder
    from tisink.codec.protocol import Decoder

DEFAULT_CHECKPOINT_INTERVAL_IN_SEC = 10
"""DTS's checkpoint period; the same default and key as ``tencent-dts``."""


@dataclass(frozen=True)
class AlibabaDTSOptions:
    """``checkpoint_interval_in_sec``: least time, by the encoder's clock, between two
    CHECKPOINT records; 0 sends one whenever the changefeed's checkpoint advances."""

    checkpoint_interval_in_sec: int = DEFAULT_CHECKPOINT_INTERVAL_IN_SEC


OPTIONS: tuple[Option, ...] = (
    Option(
        "dts-checkpoint-interval-in-sec",
        "checkpoint_interval_in_sec",
        to_non_negative_int,
        help="seconds between CHECKPOINT records on every partition (0: on every advance)",
    ),
)


def _new_encoder(config: EncoderConfig, clock: Clock) -> RowEventEncoder:
    from tisink.codec.dts.avro.formats import new_dts_avro_encoder

    return new_dts_avro_encoder("alibaba", config, clock, config.options.checkpoint_interval_in_sec)


def _new_decoder(config: EncoderConfig) -> Decoder:
    from tisink.codec.dts.avro.decoder import DTSAvroDecoder

    return DTSAvroDecoder("alibaba")


def _schema_files(encoding_format: str) -> dict[str, bytes]:
    """The verbatim ``Record.avsc``: all 14 schemas in one file, the Record last."""
    from tisink.codec.dts.avro.schemas import SCHEMA_FILE, schema_bytes

    return {SCHEMA_FILE: schema_bytes("alibaba")}


PROTOCOL = ProtocolSpec(
    name="alibaba-dts",
    summary="Alibaba Cloud DTS Avro Record: BEGIN, DML, COMMIT, DDL, CHECKPOINT",
    encoding_formats=("avro",),
    new_encoder=_new_encoder,
    options_type=AlibabaDTSOptions,
    options=OPTIONS,
    schema_files=_schema_files,
    new_decoder=_new_decoder,
)
