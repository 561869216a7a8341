"""Registry entry of the ``debug`` protocol."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tisink.codec.protocol import ProtocolSpec

if TYPE_CHECKING:
    from tisink.codec.config import EncoderConfig
    from tisink.codec.encoder import RowEventEncoder
    from tisink.core.clock import Clock


def _new_encoder(config: EncoderConfig, clock: Clock) -> RowEventEncoder:
    from tisink.codec.debug.encoder import DebugEncoder

    return DebugEncoder(clock)


PROTOCOL = ProtocolSpec(
    name="debug",
    summary="readable JSON of each event (not a TiCDC format): the file and log sinks' default",
    encoding_formats=("json",),
    new_encoder=_new_encoder,
)
