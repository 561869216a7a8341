"""Registry entry of TiCDC's Avro protocol (``protocol=avro``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tisink.codec.avro.options import NAME, OPTIONS, AvroOptions
from tisink.codec.protocol import ProtocolSpec

if TYPE_CHECKING:
    from tisink.codec.config import EncoderConfig
    from tisink.codec.encoder import RowEventEncoder
    from tisink.codec.protocol import Decoder
    from tisink.core.clock import Clock


def _new_encoder(config: EncoderConfig, clock: Clock) -> RowEventEncoder:
    from tisink.codec.avro.encoder import AvroEncoder

    return AvroEncoder(config, clock)


def _new_decoder(config: EncoderConfig) -> Decoder:
    from tisink.codec.avro.decoder import AvroDecoder

    return AvroDecoder(config)


PROTOCOL = ProtocolSpec(
    name=NAME,
    summary="TiCDC's Avro: Confluent wire format, key and value schemas in a schema registry",
    encoding_formats=("avro",),
    new_encoder=_new_encoder,
    options_type=AvroOptions,
    options=OPTIONS,
    avro_topic_rules=True,
    required_options=("schema-registry",),
    new_decoder=_new_decoder,
)
