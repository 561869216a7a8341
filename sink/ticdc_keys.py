"""TiCDC settings tisink reads but does not implement, so a user's changefeed file or sink URI
is told "not implemented" rather than "unknown" (which would suggest a typo).

The names are TiCDC's (changefeed TOML and Kafka sink URI of the new architecture); a table
name covers every key under it.
"""

from __future__ import annotations

UNIMPLEMENTED_TOML = frozenset(
    {
        "memory-quota",
        "force-replicate",
        "enable-sync-point",
        "sync-point-interval",
        "sync-point-retention",
        "sql-mode",
        "bdr-mode",
        "changefeed-error-stuck-duration",
        "enable-table-monitor",
        "mounter",
        "filter",
        "scheduler",
        "consistent",
        "sink.column-selectors",
        "sink.delete-only-output-handle-key-columns",
        "sink.content-compatible",
        "sink.advance-timeout-in-sec",
        "sink.safe-mode",
        "sink.transaction-atomicity",
        "sink.only-output-updated-columns",
        "sink.file-index-digit",
        "sink.enable-kafka-sink-v2",
        "sink.cloud-storage-config.worker-count",
        "sink.cloud-storage-config.flush-concurrency",
        "sink.cloud-storage-config.file-expiration-days",
        "sink.cloud-storage-config.file-cleanup-cron-spec",
        "sink.pulsar-config",
        "sink.mysql-config",
        "sink.open",
        "sink.kafka-config.kafka-version",
        "sink.kafka-config.write-timeout",
        "sink.kafka-config.glue-schema-registry-config",
    }
)
"""Dotted TOML keys and tables."""

_SASL_EXTRAS = ("gssapi", "oauth")

UNIMPLEMENTED_URI = frozenset(
    {
        "kafka-version",
        "write-timeout",
        "only-output-updated-columns",
        "content-compatible",
    }
)
"""Kafka sink URI parameters (besides the ``sasl-gssapi-*`` and ``sasl-oauth-*`` families)."""


def is_unimplemented_toml(dotted: str) -> bool:
    """True for a TiCDC TOML key (or a key under a TiCDC table) tisink does not implement."""
    parts = dotted.split(".")
    return any(".".join(parts[:n]) in UNIMPLEMENTED_TOML for n in range(1, len(parts) + 1))


def is_unimplemented_uri(name: str) -> bool:
    """True for a TiCDC Kafka sink URI parameter tisink does not implement."""
    family = name.startswith(tuple(f"sasl-{extra}-" for extra in _SASL_EXTRAS))
    return name in UNIMPLEMENTED_URI or family
