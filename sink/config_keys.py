"""Where each changefeed setting lives in TiCDC's TOML and sink URI, and how its value is read.

Values from TOML arrive typed; values from a sink URI arrive as strings, so every converter
accepts both. A converter raises ValueError with a short reason; the caller adds the file or
URI and the key, so the user sees exactly which setting is wrong.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

Converter = Callable[[Any], Any]

_TRUE = ("1", "t", "T", "TRUE", "true", "True")
_FALSE = ("0", "f", "F", "FALSE", "false", "False")
KAFKA_COMPRESSIONS = ("none", "gzip", "snappy", "lz4", "zstd")
INTEGRITY_LEVELS = ("none", "correctness")
LOCAL_ZONE_NAMES = ("", "System", "Local")


def to_str(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"expected a string, got {value!r}")
    return value


def to_lower(value: Any) -> str:
    return to_str(value).strip().lower()


def to_int(value: Any) -> int:
    """An integer; strings as Go's strconv.Atoi reads them."""
    if isinstance(value, bool):
        raise ValueError(f"expected an integer, got {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        try:
            return int(value.strip(), 10)
        except ValueError:
            pass
    raise ValueError(f"expected an integer, got {value!r}")


def to_positive_int(value: Any) -> int:
    number = to_int(value)
    if number <= 0:
        raise ValueError(f"must be positive, got {number}")
    return number


def to_non_negative_int(value: Any) -> int:
    number = to_int(value)
    if number < 0:
        raise ValueError(f"must not be negative, got {number}")
    return number


def to_bool(value: Any) -> bool:
    """A boolean; strings as Go's strconv.ParseBool reads them."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        if value in _TRUE:
            return True
        if value in _FALSE:
            return False
    raise ValueError(f"expected true or false, got {value!r}")


def to_required_acks(value: Any) -> int:
    acks = to_int(value)
    if acks not in (-1, 0, 1):
        raise ValueError(f"must be -1, 0 or 1, got {acks}")
    return acks


def to_integrity_level(value: Any) -> str:
    level = to_lower(value)
    if level not in INTEGRITY_LEVELS:
        raise ValueError(f"expected one of {', '.join(INTEGRITY_LEVELS)}, got {value!r}")
    return level


def to_time_zone(value: Any) -> str | None:
    """An IANA zone name; "", "System" and "Local" mean the process's local zone (None)."""
    name = to_str(value).strip()
    if name in LOCAL_ZONE_NAMES:
        return None
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"unknown time zone {name!r}") from None
    return name


def to_kafka_compression(value: Any) -> str:
    """Kept as given; the Kafka sink warns about an unknown codec and uses none, as TiCDC does."""
    return to_lower(value)


# (TOML table path, key) -> (ChangefeedConfig field, converter)
TOML_KEYS: dict[tuple[tuple[str, ...], str], tuple[str, Converter]] = {
    ((), "case-sensitive"): ("case_sensitive", to_bool),
    ((), "time-zone"): ("time_zone", to_time_zone),
    (("sink",), "protocol"): ("protocol", to_lower),
    (("sink",), "send-bootstrap-interval-in-sec"): ("send_bootstrap_interval_in_sec", to_int),
    (("sink",), "send-bootstrap-in-msg-count"): ("send_bootstrap_in_msg_count", to_int),
    (("sink",), "send-bootstrap-to-all-partition"): ("send_bootstrap_to_all_partition", to_bool),
    (("sink",), "send-all-bootstrap-at-start"): ("send_all_bootstrap_at_start", to_bool),
    (("sink",), "output-raw-change-event"): ("output_raw_change_event", to_bool),
    (("sink",), "encoder-concurrency"): ("encoder_concurrency", to_non_negative_int),
    (("sink", "kafka-config"), "max-message-bytes"): ("max_message_bytes", to_positive_int),
    (("sink", "kafka-config"), "partition-num"): ("partition_num", to_positive_int),
    (("sink", "kafka-config"), "replication-factor"): ("replication_factor", to_positive_int),
    (("sink", "kafka-config"), "compression"): ("compression", to_kafka_compression),
    (("sink", "kafka-config"), "required-acks"): ("required_acks", to_required_acks),
    (("sink", "kafka-config"), "kafka-client-id"): ("kafka_client_id", to_str),
    (("sink", "kafka-config"), "auto-create-topic"): ("auto_create_topic", to_bool),
    (("sink", "kafka-config", "codec-config"), "encoding-format"): ("encoding_format", to_lower),
    (("sink", "kafka-config", "large-message-handle"), "large-message-handle-option"): (
        "large_message_handle_option",
        to_lower,
    ),
    (("sink", "kafka-config", "large-message-handle"), "large-message-handle-compression"): (
        "large_message_handle_compression",
        to_lower,
    ),
    (("sink", "kafka-config", "large-message-handle"), "claim-check-storage-uri"): (
        "claim_check_storage_uri",
        to_str,
    ),
    (("sink", "kafka-config", "large-message-handle"), "claim-check-raw-value"): (
        "claim_check_raw_value",
        to_bool,
    ),
    (("integrity",), "integrity-check-level"): ("integrity_check_level", to_integrity_level),
}

# Sink URI parameters that override the TOML (TiCDC applies the URI last, too).
URI_PARAMS: dict[str, tuple[str, Converter]] = {
    "protocol": ("protocol", to_lower),
    "partition-num": ("partition_num", to_positive_int),
    "max-message-bytes": ("max_message_bytes", to_positive_int),
    "encoding-format": ("encoding_format", to_lower),
    "large-message-handle-option": ("large_message_handle_option", to_lower),
    "large-message-handle-compression": ("large_message_handle_compression", to_lower),
    "claim-check-storage-uri": ("claim_check_storage_uri", to_str),
    "claim-check-raw-value": ("claim_check_raw_value", to_bool),
    "replication-factor": ("replication_factor", to_positive_int),
    "compression": ("compression", to_kafka_compression),
    "required-acks": ("required_acks", to_required_acks),
    "kafka-client-id": ("kafka_client_id", to_str),
    "auto-create-topic": ("auto_create_topic", to_bool),
    "encoder-concurrency": ("encoder_concurrency", to_non_negative_int),  # tisink's addition
}

# Tables whose keys go to the dataclass one by one; ``dispatchers`` is read separately.
KNOWN_TABLES: frozenset[tuple[str, ...]] = frozenset(path for path, _ in TOML_KEYS)
