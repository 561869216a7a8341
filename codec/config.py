"""Encoder settings: the ones every protocol shares, plus one options object of the protocol's
own (its registry entry declares it). Keys are TiCDC's (spec/simple-protocol.md 4.1, 5)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeVar

from tisink.codec.bootstrap import BootstrapSettings
from tisink.codec.heartbeat import HeartbeatSettings
from tisink.codec.protocol import ProtocolSpec
from tisink.codec.registry import get_protocol
from tisink.core.errors import ConfigError
from tisink.core.options import Option, one_of, to_bool, to_positive_int, to_str, to_time_zone

OptionsT = TypeVar("OptionsT")

LARGE_MESSAGE_OPTIONS = ("none", "handle-key-only", "claim-check")
PAYLOAD_COMPRESSIONS = ("none", "snappy", "lz4")
DEFAULT_MAX_MESSAGE_BYTES = 10 * 1024 * 1024
LARGE_MESSAGE_TABLE = ("sink", "kafka-config", "large-message-handle")


def _integrity_level(value: Any) -> bool:
    return one_of("none", "correctness")(value) == "correctness"


COMMON_OPTIONS: tuple[Option, ...] = (
    Option(
        "encoding-format",
        "encoding_format",
        one_of("json", "avro", "protobuf", "csv"),
        (("sink", "kafka-config", "codec-config"),),
        help="the protocol's encoding (its first format when unset)",
    ),
    Option(
        "max-message-bytes",
        "max_message_bytes",
        to_positive_int,
        (("sink", "kafka-config"),),
        help="largest Kafka message; Kafka lowers it to the topic's limit - 128",
    ),
    Option(
        "large-message-handle-option",
        "large_message_handle_option",
        one_of(*LARGE_MESSAGE_OPTIONS),
        (LARGE_MESSAGE_TABLE,),
        help="a message over max-message-bytes: none (fail), handle-key-only (send only the "
        "key columns), claim-check (store the whole message at claim-check-storage-uri and "
        "send a reference); simple, open and canal-json",
    ),
    Option(
        "large-message-handle-compression",
        "large_message_handle_compression",
        one_of(*PAYLOAD_COMPRESSIONS),
        (LARGE_MESSAGE_TABLE,),
        help="compress each message's value (none, snappy, lz4) before its size is checked",
    ),
    Option(
        "claim-check-storage-uri",
        "claim_check_storage_uri",
        to_str,
        (LARGE_MESSAGE_TABLE,),
        help="where claim-check stores large messages (file:///dir)",
    ),
    Option(
        "claim-check-raw-value",
        "claim_check_raw_value",
        to_bool,
        (LARGE_MESSAGE_TABLE,),
        help="claim-check stores the raw value instead of the whole encoded message",
    ),
    Option(
        "time-zone", "time_zone", to_time_zone, ((),), uri=False, help="zone of TIMESTAMP values"
    ),
    Option(
        "integrity-check-level",
        "enable_row_checksum",
        _integrity_level,
        (("integrity",),),
        uri=False,
        help="correctness adds row checksums",
    ),
)
"""Settings every protocol reads, under TiCDC's keys."""


@dataclass(frozen=True)
class EncoderConfig:
    """Everything a codec and its bootstrap cadence need; no I/O settings besides claim-check.

    ``encoding_format`` "" means the protocol's default; ``options`` None its default options.
    Both are filled in on construction, so a built config is complete.
    """

    protocol: str = "simple"
    encoding_format: str = ""
    time_zone: str | None = None
    """IANA zone for timestamp values; None means the process's local zone (TZ)."""
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
    large_message_handle_option: str = "none"
    large_message_handle_compression: str = "none"
    claim_check_storage_uri: str = ""
    claim_check_raw_value: bool = False
    enable_row_checksum: bool = False
    options: Any = None
    """The protocol's own options object (``ProtocolSpec.options_type``)."""

    def __post_init__(self) -> None:
        spec = get_protocol(self.protocol)
        if not self.encoding_format:
            object.__setattr__(self, "encoding_format", spec.default_encoding_format)
        if self.encoding_format not in spec.encoding_formats:
            raise ConfigError(
                f"protocol {spec.name} has no encoding-format {self.encoding_format!r}; "
                f"expected one of {', '.join(spec.encoding_formats)}"
            )
        if self.options is None:
            object.__setattr__(self, "options", spec.default_options())
        elif not isinstance(self.options, spec.options_type):
            raise ConfigError(
                f"protocol {spec.name} takes {spec.options_type.__name__} options, "
                f"not {type(self.options).__name__}"
            )
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
        if self.large_message_handle_option != "none" and not spec.large_message_handling:
            raise ConfigError(
                f"large-message-handle-option={self.large_message_handle_option} is not "
                f"supported by protocol {spec.name} (it has no large-message fallback); "
                "use none"
            )
        if self.large_message_handle_option == "claim-check" and not self.claim_check_storage_uri:
            raise ConfigError(
                "large-message-handle-option=claim-check needs claim-check-storage-uri"
            )

    def options_as(self, options_type: type[OptionsT]) -> OptionsT:
        """The protocol's options for an encoder that reads ``options_type``; ConfigError when
        this config is another protocol's."""
        if not isinstance(self.options, options_type):
            raise ConfigError(
                f"protocol {self.protocol} has {type(self.options).__name__} options, "
                f"not {options_type.__name__}"
            )
        return self.options

    @property
    def spec(self) -> ProtocolSpec[EncoderConfig]:
        return get_protocol(self.protocol)

    @property
    def bootstrap(self) -> BootstrapSettings | None:
        """The bootstrap settings when the protocol sends BOOTSTRAPs, else None."""
        if self.spec.sends_bootstrap and isinstance(self.options, BootstrapSettings):
            return self.options
        return None

    @property
    def heartbeat_interval_ms(self) -> int | None:
        """How long a partition may stay idle before a HEARTBEAT, when the protocol sends them
        and they are on; else None."""
        if self.spec.sends_heartbeat and isinstance(self.options, HeartbeatSettings):
            return self.options.heartbeat_interval_ms
        return None


def _check(key: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ConfigError(f"unknown {key} {value!r}; expected one of {', '.join(allowed)}")
