"""Registry entry of Alibaba Cloud DTS's Avro record format (``protocol=alibaba-dts``).

One bare ``com.alibaba.dts.formats.avro.Record`` per Kafka value (spec/dts-formats.md 4): each
partition's share of a transaction as BEGIN, rows, COMMIT; DDL; CHECKPOINT on every partition
on a cadence. Consumers need the verbatim public ``Record.avsc``, which ``schema_files`` gives.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tisink.codec.dts.options import OPTIONS, DTSOptions
from tisink.codec.protocol import ProtocolSpec

if TYPE_CHECKING:
    from tisink.codec.config import EncoderConfig
    from tisink.codec.encoder import RowEventEncoder
    from tisink.codec.protocol import Decoder
    from tisink.core.clock import Clock


def _new_encoder(config: EncoderConfig, clock: Clock) -> RowEventEncoder:
    from tisink.codec.dts.avro.formats import new_dts_avro_encoder

    return new_dts_avro_encoder("alibaba", config, clock)


def _new_decoder(config: EncoderConfig) -> Decoder:
    from tisink.codec.dts.avro.decoder import DTSAvroDecoder

    return DTSAvroDecoder("alibaba")


def _schema_files(encoding_format: str) -> dict[str, bytes]:
    """The verbatim ``Record.avsc``: all 14 schemas in one file, the Record last."""
    from tisink.codec.dts.avro.schemas import SCHEMA_FILE, schema_bytes

    return {SCHEMA_FILE: schema_bytes("alibaba")}


PROTOCOL = ProtocolSpec(
    name="alibaba-dts",
    summary="Alibaba Cloud DTS Avro Record: BEGIN, DML, COMMIT, DDL, CHECKPOINT, HEARTBEAT",
    encoding_formats=("avro",),
    new_encoder=_new_encoder,
    options_type=DTSOptions,
    options=OPTIONS,
    sends_heartbeat=True,
    schema_files=_schema_files,
    new_decoder=_new_decoder,
)
