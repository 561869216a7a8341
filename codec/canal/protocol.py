"""Registry entry of TiCDC's canal-json protocol (``protocol=canal-json``); its options are in
``options``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tisink.codec.canal.options import NAME, OPTIONS, CanalOptions
from tisink.codec.protocol import ProtocolSpec

if TYPE_CHECKING:
    from tisink.codec.config import EncoderConfig
    from tisink.codec.encoder import RowEventEncoder
    from tisink.codec.protocol import Decoder
    from tisink.core.clock import Clock


def _new_encoder(config: EncoderConfig, clock: Clock) -> RowEventEncoder:
    from tisink.codec.canal.encoder import CanalJSONEncoder

    return CanalJSONEncoder(config, clock)


def _new_decoder(config: EncoderConfig) -> Decoder:
    from tisink.codec.canal.decoder import CanalJSONDecoder

    return CanalJSONDecoder(config.large_message_handle_compression)


PROTOCOL = ProtocolSpec(
    name=NAME,
    summary="TiCDC's Canal-JSON: one flat JSON message per row, DDL, TIDB_WATERMARK",
    encoding_formats=("json",),
    new_encoder=_new_encoder,
    options_type=CanalOptions,
    options=OPTIONS,
    new_decoder=_new_decoder,
    large_message_handling=True,
    storage_extension=".json",
)
