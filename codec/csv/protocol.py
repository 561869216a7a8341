"""Registry entry of TiCDC's CSV protocol (``protocol=csv``); its options are in ``options``.

TiCDC writes CSV only through its storage sink, so the spec says ``storage_only``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tisink.codec.csv.options import NAME, OPTIONS, CSVOptions
from tisink.codec.protocol import ProtocolSpec

if TYPE_CHECKING:
    from tisink.codec.config import EncoderConfig
    from tisink.codec.encoder import RowEventEncoder
    from tisink.core.clock import Clock


def _new_encoder(config: EncoderConfig, clock: Clock) -> RowEventEncoder:
    from tisink.codec.csv.encoder import CSVEncoder

    return CSVEncoder(config)


PROTOCOL = ProtocolSpec(
    name=NAME,
    summary="TiCDC's CSV change files (storage sink only): I/U/D, table, schema, columns",
    encoding_formats=("csv",),
    new_encoder=_new_encoder,
    options_type=CSVOptions,
    options=OPTIONS,
    storage_extension=".csv",
    storage_only=True,
)
