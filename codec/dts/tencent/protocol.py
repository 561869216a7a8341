"""Registry entry of Tencent Cloud DTS subscription (``protocol=tencent-dts``).

One entry for both encoding formats; ``_ENCODERS`` picks the encoder by ``encoding-format``
(``protobuf`` here, the default; the Avro form adds itself there).
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from typing import TYPE_CHECKING

from tisink.codec.dts.options import OPTIONS, DTSOptions
from tisink.codec.dts.tencent.framing import PARTITION_SEQUENCE_HEADER
from tisink.codec.protocol import ProtocolSpec
from tisink.core.errors import ConfigError

if TYPE_CHECKING:
    from tisink.codec.config import EncoderConfig
    from tisink.codec.encoder import RowEventEncoder
    from tisink.codec.protocol import Decoder
    from tisink.core.clock import Clock


def _protobuf_encoder(config: EncoderConfig, clock: Clock) -> RowEventEncoder:
    from tisink.codec.dts.tencent.encoder import TencentProtobufEncoder

    return TencentProtobufEncoder(config, clock)


def _avro_encoder(config: EncoderConfig, clock: Clock) -> RowEventEncoder:
    from tisink.codec.dts.avro.formats import new_dts_avro_encoder

    return new_dts_avro_encoder("tencent", config, clock)


_ENCODERS: dict[str, Callable[[EncoderConfig, Clock], RowEventEncoder]] = {
    "protobuf": _protobuf_encoder,
    "avro": _avro_encoder,
}
"""``encoding-format`` -> encoder factory."""


def _new_encoder(config: EncoderConfig, clock: Clock) -> RowEventEncoder:
    factory = _ENCODERS.get(config.encoding_format)
    if factory is None:
        raise ConfigError(f"tencent-dts has no encoding-format {config.encoding_format!r}")
    return factory(config, clock)


def _new_decoder(config: EncoderConfig) -> Decoder:
    from tisink.codec.dts.tencent.decoder import TencentProtobufDecoder

    if config.encoding_format == "avro":
        from tisink.codec.dts.avro.decoder import DTSAvroDecoder

        return DTSAvroDecoder("tencent")
    if config.encoding_format != "protobuf":
        raise ConfigError(f"tencent-dts verify reads protobuf, not {config.encoding_format!r}")
    return TencentProtobufDecoder()


def _schema_files(encoding_format: str) -> dict[str, bytes]:
    """Protobuf consumers generate their classes from ``subscribe.proto``; Avro consumers
    need the rebuilt ``Record.avsc``."""
    if encoding_format == "avro":
        from tisink.codec.dts.avro.schemas import SCHEMA_FILE, schema_bytes

        return {SCHEMA_FILE: schema_bytes("tencent")}
    if encoding_format != "protobuf":
        return {}
    proto = resources.files("tisink.codec.dts.tencent") / "subscribe.proto"
    return {"subscribe.proto": proto.read_bytes()}


PROTOCOL = ProtocolSpec(
    name="tencent-dts",
    summary="Tencent Cloud DTS subscription: Envelope/Entries of BEGIN, DML, COMMIT, DDL, "
    "CHECKPOINT, HEARTBEAT",
    encoding_formats=("protobuf", "avro"),
    new_encoder=_new_encoder,
    options_type=DTSOptions,
    options=OPTIONS,
    sends_heartbeat=True,
    schema_files=_schema_files,
    new_decoder=_new_decoder,
    partition_sequence_header=PARTITION_SEQUENCE_HEADER,
)
