"""The options of TiCDC's Open Protocol, apart from its registry entry so the encoder and the
renderers read them without importing the entry that builds them."""

from __future__ import annotations

from dataclasses import dataclass

from tisink.codec.architecture import NEWARCH_OPTION
from tisink.core.options import Option, to_bool, to_positive_int

DEFAULT_MAX_BATCH_SIZE = 16
"""ticdc ``pkg/sink/codec/common/config.go`` ``defaultMaxBatchSize``."""


@dataclass(frozen=True)
class OpenOptions:
    """TiCDC's defaults: 16 events per message, old values on, every column written."""

    max_batch_size: int = DEFAULT_MAX_BATCH_SIZE
    output_old_value: bool = True
    only_output_updated_columns: bool = False
    delete_only_handle_key_columns: bool = False
    newarch: bool = True
    """The new architecture's bytes (pingcap/ticdc); false: the classic one's (pingcap/tiflow,
    ``classic.py``, README.md "Classic and new architecture")."""

    def __post_init__(self) -> None:
        if self.max_batch_size <= 0:
            raise ValueError(f"invalid max-batch-size {self.max_batch_size}")


OPTIONS = (
    Option(
        "max-batch-size",
        "max_batch_size",
        to_positive_int,
        (("sink", "kafka-config", "codec-config"),),
        help="events per batched message (16)",
    ),
    Option(
        "output-old-value",
        "output_old_value",
        to_bool,
        (("sink", "open"),),
        uri=False,
        help="UPDATE values carry the pre-image p ([sink.open])",
    ),
    Option(
        "open-output-old-value",
        "output_old_value",
        to_bool,
        (),
        help="the URI's name of [sink.open] output-old-value (tisink's addition)",
    ),
    Option(
        "only-output-updated-columns",
        "only_output_updated_columns",
        to_bool,
        help="UPDATE pre-images p hold only the columns that changed",
    ),
    Option(
        "delete-only-output-handle-key-columns",
        "delete_only_handle_key_columns",
        to_bool,
        uri=False,
        help="DELETE values d hold only the handle key columns",
    ),
    NEWARCH_OPTION,
)
