"""Registry entry of TiCDC's Debezium protocol (``protocol=debezium``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tisink.codec.debezium.options import OPTIONS, DebeziumOptions
from tisink.codec.protocol import ProtocolSpec

if TYPE_CHECKING:
    from tisink.codec.config import EncoderConfig
    from tisink.codec.encoder import RowEventEncoder
    from tisink.codec.protocol import Decoder
    from tisink.core.clock import Clock


def _new_encoder(config: EncoderConfig, clock: Clock) -> RowEventEncoder:
    from tisink.codec.debezium.encoder import DebeziumEncoder

    return DebeziumEncoder(config, clock)


def _new_decoder(config: EncoderConfig) -> Decoder:
    from tisink.codec.debezium.decoder import DebeziumDecoder

    return DebeziumDecoder(config.options, config.large_message_handle_compression)


PROTOCOL = ProtocolSpec(
    name="debezium",
    summary="TiCDC's Debezium JSON: key and value per row, schema in each message, DDL, WATERMARK",
    encoding_formats=("json",),
    new_encoder=_new_encoder,
    options_type=DebeziumOptions,
    options=OPTIONS,
    new_decoder=_new_decoder,
)
