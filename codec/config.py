"""Encoder settings, named after TiCDC's changefeed keys (spec/simple-protocol.md 4.1, 5)."""

from __future__ import annotations

from dataclasses import dataclass

from codec.errors import ConfigError

PROTOCOLS = ("simple", "debug")
ENCODING_FORMATS = ("json", "avro")
LARGE_MESSAGE_OPTIONS = ("none", "handle-key-only", "claim-check")
PAYLOAD_COMPRESSIONS = ("none", "snappy", "lz4")
DEFAULT_MAX_MESSAGE_BYTES = 10 * 1024 * 1024


@dataclass(frozen=True)
class EncoderConfig:
    """Everything a codec and its bootstrap cadence need; no I/O settings besides claim-check."""

    protocol: str = "simple"
    encoding_format: str = "json"
    time_zone: str | None = None
    """IANA zone for timestamp values; None means the process's local zone (TZ)."""
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
    large_message_handle_option: str = "none"
    large_message_handle_compression: str = "none"
    claim_check_storage_uri: str = ""
    claim_check_raw_value: bool = False
    enable_row_checksum: bool = False
    send_bootstrap_interval_in_sec: int = 120
    send_bootstrap_in_msg_count: int = 10000
    send_bootstrap_to_all_partition: bool = True
    send_all_bootstrap_at_start: bool = False

    def __post_init__(self) -> None:
        _check("protocol", self.protocol, PROTOCOLS)
        _check("encoding-format", self.encoding_format, ENCODING_FORMATS)
        _check(
            "large-message-handle-option", self.large_message_handle_option, LARGE_MESSAGE_OPTIONS
        )
        _check(
            "large-message-handle-compression",
            self.large_message_handle_compression,
            PAYLOAD_COMPRESSIONS,
        )
        if self.max_message_bytes <= 0:
            raise ConfigError(f"max-message-bytes must be positive, got {self.max_message_bytes}")
        if self.large_message_handle_option == "claim-check" and not self.claim_check_storage_uri:
            raise ConfigError(
                "large-message-handle-option=claim-check needs claim-check-storage-uri"
            )

    @property
    def should_send_bootstrap(self) -> bool:
        """TiCDC's ShouldSendBootstrapMsg: simple protocol and both triggers > 0."""
        return (
            self.protocol == "simple"
            and self.send_bootstrap_interval_in_sec > 0
            and self.send_bootstrap_in_msg_count > 0
        )


def _check(key: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ConfigError(f"unknown {key} {value!r}; expected one of {', '.join(allowed)}")
