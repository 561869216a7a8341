"""The options of TiCDC's Avro protocol (tiflow ``pkg/sink/codec/common/config.go``), apart from
the registry entry so the encoder reads them without importing the entry that builds them.

``avro-enable-watermark`` only counts with ``enable-tidb-extension`` (TiCDC ignores it
otherwise), and ``schema-registry`` is required; both are checked where an encoder is built,
since a default options object (no registry) must still be constructible.
"""

from __future__ import annotations

from dataclasses import dataclass

from tisink.codec.architecture import NEWARCH_OPTION
from tisink.core.options import Option, one_of, to_bool, to_str

NAME = "avro"
DECIMAL_MODES = ("precise", "string")
BIGINT_UNSIGNED_MODES = ("long", "string")


@dataclass(frozen=True)
class AvroOptions:
    """TiCDC's defaults: precise decimals, unsigned BIGINT as long, no extension, no registry."""

    decimal_handling_mode: str = "precise"
    bigint_unsigned_handling_mode: str = "long"
    enable_tidb_extension: bool = False
    enable_watermark: bool = False
    schema_registry: str = ""
    newarch: bool = True
    """The new architecture's bytes (pingcap/ticdc); false: the classic one's (pingcap/tiflow,
    README.md "Classic and new architecture")."""

    def __post_init__(self) -> None:
        if self.decimal_handling_mode not in DECIMAL_MODES:
            raise ValueError(
                f'avro-decimal-handling-mode value could only be "string" or "precise", '
                f"got {self.decimal_handling_mode!r}"
            )
        if self.bigint_unsigned_handling_mode not in BIGINT_UNSIGNED_MODES:
            raise ValueError(
                f'avro-bigint-unsigned-handling-mode value could only be "long" or "string", '
                f"got {self.bigint_unsigned_handling_mode!r}"
            )

    @property
    def watermarks(self) -> bool:
        """Whether DDL and checkpoint events are written (TiCDC's testing-only markers)."""
        return self.enable_tidb_extension and self.enable_watermark


_CODEC_CONFIG = ("sink", "kafka-config", "codec-config")

OPTIONS = (
    Option(
        "avro-decimal-handling-mode",
        "decimal_handling_mode",
        one_of(*DECIMAL_MODES),
        (_CODEC_CONFIG,),
        help="DECIMAL as Avro decimal bytes (precise) or its text (string)",
    ),
    Option(
        "avro-bigint-unsigned-handling-mode",
        "bigint_unsigned_handling_mode",
        one_of(*BIGINT_UNSIGNED_MODES),
        (_CODEC_CONFIG,),
        help="BIGINT UNSIGNED as a long (values over 2^63-1 wrap) or its text (string)",
    ),
    Option(
        "enable-tidb-extension",
        "enable_tidb_extension",
        to_bool,
        (_CODEC_CONFIG,),
        help="_tidb_op, _tidb_commit_ts and _tidb_commit_physical_time in values",
    ),
    Option(
        "avro-enable-watermark",
        "enable_watermark",
        to_bool,
        (_CODEC_CONFIG,),
        help="with enable-tidb-extension: DDL and checkpoint markers (TiCDC: testing only)",
    ),
    Option(
        "schema-registry",
        "schema_registry",
        to_str,
        help="the Confluent-compatible schema registry URL (required)",
    ),
    NEWARCH_OPTION,
)
