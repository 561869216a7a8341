"""Registry entry of TiCDC's Simple Protocol (``protocol=simple``)."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING

from tisink.codec.bootstrap import BootstrapSettings
from tisink.codec.protocol import ProtocolSpec
from tisink.core.options import Option, to_bool, to_non_negative_int

if TYPE_CHECKING:
    from tisink.codec.config import EncoderConfig
    from tisink.codec.encoder import RowEventEncoder
    from tisink.codec.protocol import Decoder
    from tisink.core.clock import Clock


@dataclass(frozen=True)
class SimpleOptions(BootstrapSettings):
    """Simple's own settings are its bootstrap cadence (spec 4.1) and ``newarch``: the new
    architecture's bytes (pingcap/ticdc), false the classic one's (pingcap/tiflow, README.md)."""

    newarch: bool = True


OPTIONS = (
    Option(
        "send-bootstrap-interval-in-sec",
        "send_bootstrap_interval_in_sec",
        to_non_negative_int,
        uri=False,
        help="resend a table's BOOTSTRAP after this many seconds (0 disables bootstraps)",
    ),
    Option(
        "send-bootstrap-in-msg-count",
        "send_bootstrap_in_msg_count",
        to_non_negative_int,
        uri=False,
        help="resend a table's BOOTSTRAP after this many rows (0 disables bootstraps)",
    ),
    Option(
        "send-bootstrap-to-all-partition",
        "send_bootstrap_to_all_partition",
        to_bool,
        uri=False,
        help="BOOTSTRAP to every partition of the topic (else partition 0)",
    ),
    Option(
        "send-all-bootstrap-at-start",
        "send_all_bootstrap_at_start",
        to_bool,
        uri=False,
        help="every table's BOOTSTRAP when the changefeed starts",
    ),
    Option(
        "newarch",
        "newarch",
        to_bool,
        ((),),
        help="true: the new architecture's bytes (pingcap/ticdc, TiCDC's server switch "
        "`newarch`); false: the classic architecture's (pingcap/tiflow); see README.md",
    ),
)


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
