"""The options of TiCDC's canal-json protocol (``pkg/sink/codec/common/config.go`` of
pingcap/ticdc): the TiDB extension from the URI or ``[sink.kafka-config.codec-config]``,
``content-compatible`` and ``only-output-updated-columns`` from the URI or ``[sink]``, and
``delete-only-output-handle-key-columns`` from ``[sink]`` only. ``content-compatible`` turns
``only-output-updated-columns`` on, as TiCDC's ``Apply`` does.

Apart from the registry entry, so the encoder reads them without importing the entry that
builds it.
"""

from __future__ import annotations

from dataclasses import dataclass

from tisink.codec.architecture import NEWARCH_OPTION
from tisink.core.options import Option, to_bool

NAME = "canal-json"


@dataclass(frozen=True)
class CanalOptions:
    """TiCDC's defaults: every switch off."""

    enable_tidb_extension: bool = False
    content_compatible: bool = False
    only_output_updated_columns: bool = False
    delete_only_output_handle_key_columns: bool = False
    newarch: bool = True
    """The new architecture's bytes (pingcap/ticdc); false: the classic one's (pingcap/tiflow,
    README.md "Classic and new architecture")."""

    @property
    def only_updated(self) -> bool:
        """Whether UPDATE ``old`` keeps only the changed columns (content-compatible implies
        it)."""
        return self.only_output_updated_columns or self.content_compatible


_CODEC_CONFIG = ("sink", "kafka-config", "codec-config")

OPTIONS = (
    Option(
        "enable-tidb-extension",
        "enable_tidb_extension",
        to_bool,
        (_CODEC_CONFIG,),
        help="_tidb.commitTs in DML and DDL, TIDB_WATERMARK messages, large-message handling",
    ),
    Option(
        "content-compatible",
        "content_compatible",
        to_bool,
        help="mysqlType with lengths and members, as official Canal (implies "
        "only-output-updated-columns)",
    ),
    Option(
        "only-output-updated-columns",
        "only_output_updated_columns",
        to_bool,
        help="UPDATE old carries only the columns whose value changed",
    ),
    Option(
        "delete-only-output-handle-key-columns",
        "delete_only_output_handle_key_columns",
        to_bool,
        uri=False,
        help="DELETE data carries only the handle key columns",
    ),
    NEWARCH_OPTION,
)
