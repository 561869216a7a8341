"""Registry entry of TiCDC's Simple Protocol (``protocol=simple``)."""

from __future__ import annotations

from importlib import resources
from typing import TYPE_CHECKING

from tisink.codec.protocol import ProtocolSpec
from tisink.codec.simple.options import OPTIONS, SimpleOptions

if TYPE_CHECKING:
    from tisink.codec.config import EncoderConfig
    from tisink.codec.encoder import RowEventEncoder
    from tisink.codec.protocol import Decoder
    from tisink.core.clock import Clock


def _new_encoder(config: EncoderConfig, clock: Clock) -> RowEventEncoder:
    from tisink.codec.simple.encoder import SimpleEncoder

    return SimpleEncoder(config, clock)


def _new_decoder(config: EncoderConfig) -> Decoder:
    from tisink.codec.simple.decoder import SimpleDecoder

    return SimpleDecoder(config.encoding_format, config.large_message_handle_compression)


def _schema_files(encoding_format: str) -> dict[str, bytes]:
    """Avro consumers need TiCDC's official ``message.json``; JSON needs nothing."""
    if encoding_format != "avro":
        return {}
    schema = resources.files("tisink.codec.simple.avro") / "message.json"
    return {"message.json": schema.read_bytes()}


PROTOCOL = ProtocolSpec(
    name="simple",
    summary="TiCDC Simple Protocol: DML, DDL with schemas, BOOTSTRAP, WATERMARK",
    encoding_formats=("json", "avro"),
    new_encoder=_new_encoder,
    options_type=SimpleOptions,
    options=OPTIONS,
    sends_bootstrap=True,
    schema_files=_schema_files,
    new_decoder=_new_decoder,
    large_message_handling=True,
)
