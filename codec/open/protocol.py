"""Registry entry of TiCDC's Open Protocol (``protocol=open``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tisink.codec.open.options import OPTIONS, OpenOptions
from tisink.codec.protocol import ProtocolSpec

if TYPE_CHECKING:
    from tisink.codec.config import EncoderConfig
    from tisink.codec.encoder import RowEventEncoder
    from tisink.codec.protocol import Decoder
    from tisink.core.clock import Clock


def _new_encoder(config: EncoderConfig, clock: Clock) -> RowEventEncoder:
    from tisink.codec.open.encoder import OpenEncoder

    return OpenEncoder(config, clock)


def _new_decoder(config: EncoderConfig) -> Decoder:
    from tisink.codec.open.decoder import OpenDecoder

    return OpenDecoder(config.large_message_handle_compression)


PROTOCOL = ProtocolSpec(
    name="open",
    summary="TiCDC Open Protocol: batched row, DDL and resolved events, JSON key and value",
    encoding_formats=("json",),
    new_encoder=_new_encoder,
    options_type=OpenOptions,
    options=OPTIONS,
    new_decoder=_new_decoder,
    large_message_handling=True,
)
