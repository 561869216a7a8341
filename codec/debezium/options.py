"""The options of TiCDC's Debezium protocol, apart from its registry entry so the encoder and
the decoder read them without importing the entry that builds them."""

from __future__ import annotations

from dataclasses import dataclass

from tisink.codec.architecture import NEWARCH_OPTION
from tisink.core.options import Option, to_bool, to_str


@dataclass(frozen=True)
class DebeziumOptions:
    """TiCDC's defaults: schema on, old values on, no TiDB extension, no start_ts, cluster id
    ``default`` (the TiCDC server's ``cluster-id``), the new architecture's bytes (``newarch``;
    false gives the classic architecture's, README.md)."""

    disable_schema: bool = False
    output_old_value: bool = True
    enable_tidb_extension: bool = False
    include_start_ts: bool = False
    cluster_id: str = "default"
    newarch: bool = True

    def __post_init__(self) -> None:
        if not self.cluster_id:
            raise ValueError("cluster-id must not be empty")
        if self.include_start_ts and not self.newarch:
            raise ValueError(
                "debezium-include-start-ts is the new architecture's (pingcap/ticdc); the classic "
                "architecture (newarch=false, pingcap/tiflow) has no source.start_ts"
            )


OPTIONS = (
    Option(
        "debezium-disable-schema",
        "disable_schema",
        to_bool,
        help="leave the schema out of keys and values (the payload wrapper stays)",
    ),
    Option(
        "output-old-value",
        "output_old_value",
        to_bool,
        (("sink", "debezium"),),
        uri=False,
        help="UPDATE values carry before",
    ),
    Option(
        "enable-tidb-extension",
        "enable_tidb_extension",
        to_bool,
        (("sink", "kafka-config", "codec-config"),),
        help="tidb_type in column schemas, commit_ts/cluster_id in the source schema, WATERMARKs",
    ),
    Option(
        "include-start-ts",
        "include_start_ts",
        to_bool,
        (("sink", "debezium"),),
        uri=False,
        help="source.start_ts in row values (ticdc)",
    ),
    Option(
        "debezium-include-start-ts",
        "include_start_ts",
        to_bool,
        (),
        help="source.start_ts in row values (ticdc); the URI's name of include-start-ts",
    ),
    NEWARCH_OPTION,
    Option(
        "cluster-id",
        "cluster_id",
        to_str,
        ((),),
        help="the TiCDC cluster id: source.name and the schema names (tisink's addition)",
    ),
)
