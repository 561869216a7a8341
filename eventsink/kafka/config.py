"""Kafka sink settings under TiCDC's names (sink URI parameters and ``[sink.kafka-config]``).

URI parameters override the changefeed file, as in TiCDC (``pkg/sink/kafka/options.go``
``mergeConfig``). Values from the URI are strings; values from TOML may already be typed.
"""

from __future__ import annotations

import logging
import re
import ssl
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from aiokafka.helpers import create_ssl_context
from tisink.codec.config import DEFAULT_MAX_MESSAGE_BYTES
from tisink.eventsink.kafka.errors import KafkaConfigError

log = logging.getLogger(__name__)

#: partitions of a topic the sink creates when ``partition-num`` is not set (TiCDC's default)
DEFAULT_PARTITION_NUM = 3
COMPRESSIONS = ("none", "gzip", "snappy", "lz4", "zstd")
SASL_MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
_ACKS = {-1: "all", 0: 0, 1: 1}
_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)")
_DURATIONS = re.compile(rf"(?:{_DURATION.pattern})+")
_DURATION_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_TRUE = ("1", "t", "T", "TRUE", "true", "True")
_FALSE = ("0", "f", "F", "FALSE", "false", "False")


@dataclass(frozen=True)
class KafkaConfig:
    """Connection, topic and producer settings of one Kafka sink."""

    hosts: tuple[str, ...]
    topic: str
    #: None when the user did not set it: new topics get DEFAULT_PARTITION_NUM, existing keep theirs
    partition_num: int | None = None
    replication_factor: int = 1
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
    compression: str = "none"
    required_acks: int = -1
    client_id: str = "tisink_producer"
    auto_create_topic: bool = True
    dial_timeout_s: float = 10.0
    request_timeout_s: float = 10.0
    enable_tls: bool = False
    ca: str = ""
    cert: str = ""
    key: str = ""
    insecure_skip_verify: bool = False
    sasl_mechanism: str = ""
    sasl_user: str = ""
    sasl_password: str = field(default="", repr=False)
    #: tisink's own: how long one batch may keep failing with retriable errors before it is fatal
    send_retry_timeout_s: float = 60.0
    #: tisink's own: upper bound of one record batch (never above max_message_bytes)
    max_batch_bytes: int = 1 << 20

    def __post_init__(self) -> None:
        if not self.hosts:
            raise KafkaConfigError("the Kafka sink URI names no broker (kafka://host:port/topic)")
        if not self.topic:
            raise KafkaConfigError(f"no topic in the Kafka sink URI for {','.join(self.hosts)}")
        if self.partition_num is not None and self.partition_num <= 0:
            raise KafkaConfigError(f"partition-num must be positive, got {self.partition_num}")
        if self.replication_factor <= 0:
            raise KafkaConfigError(
                f"replication-factor must be positive, got {self.replication_factor}"
            )
        if self.max_message_bytes <= 0:
            raise KafkaConfigError(
                f"max-message-bytes must be positive, got {self.max_message_bytes}"
            )
        if self.required_acks not in _ACKS:
            raise KafkaConfigError(f"required-acks must be -1, 0 or 1, got {self.required_acks}")
        if self.sasl_mechanism and self.sasl_mechanism not in SASL_MECHANISMS:
            raise KafkaConfigError(
                f"sasl-mechanism {self.sasl_mechanism!r} is not supported; "
                f"expected one of {', '.join(SASL_MECHANISMS)}"
            )

    @property
    def bootstrap_servers(self) -> str:
        return ",".join(self.hosts)

    @property
    def create_partition_num(self) -> int:
        """Partitions of a topic this sink creates."""
        return self.partition_num or DEFAULT_PARTITION_NUM

    @property
    def uses_tls(self) -> bool:
        """TLS is on when asked for, or when any certificate file is given (as in TiCDC)."""
        return self.enable_tls or bool(self.ca or self.cert or self.key)

    @classmethod
    def from_uri(cls, uri: str, file_config: Mapping[str, Any] | None = None) -> KafkaConfig:
        """Parse ``kafka://h1:9092,h2:9092/topic?partition-num=3&...``."""
        parts = urlsplit(uri)
        if parts.scheme != "kafka":
            raise KafkaConfigError(f"not a Kafka sink URI: {uri!r}")
        hosts = parts.netloc.rsplit("@", 1)[-1]
        params = dict(parse_qsl(parts.query, keep_blank_values=True))
        return cls.from_sink_params(hosts, unquote(parts.path.strip("/")), params, file_config)

    @classmethod
    def from_sink_params(
        cls,
        hosts: str,
        topic: str,
        params: Mapping[str, Any],
        file_config: Mapping[str, Any] | None = None,
    ) -> KafkaConfig:
        """Build from the URI's hosts, path topic and query parameters, over the file's
        ``[sink.kafka-config]`` table (a mapping with the same kebab-case keys)."""
        merged: dict[str, Any] = dict(file_config or {})
        merged.update(params)
        kwargs: dict[str, Any] = {}
        for key, (name, convert) in _KEYS.items():
            if key in merged and merged[key] not in ("", None):
                kwargs[name] = convert(key, merged[key])
        if "compression" in kwargs and kwargs["compression"] not in COMPRESSIONS:
            log.warning("unknown Kafka compression %r, using none", kwargs["compression"])
            kwargs["compression"] = "none"
        host_list = tuple(h.strip() for h in hosts.split(",") if h.strip())
        return cls(hosts=host_list, topic=topic, **kwargs)

    def client_kwargs(self) -> dict[str, Any]:
        """Connection settings shared by aiokafka's producer and admin client."""
        kwargs: dict[str, Any] = {
            "bootstrap_servers": list(self.hosts),
            "client_id": self.client_id,
            "request_timeout_ms": int(self.request_timeout_s * 1000),
            "retry_backoff_ms": 100,
        }
        if self.uses_tls:
            kwargs["ssl_context"] = self._ssl_context()
        if self.sasl_mechanism:
            kwargs["security_protocol"] = "SASL_SSL" if self.uses_tls else "SASL_PLAINTEXT"
            kwargs["sasl_mechanism"] = self.sasl_mechanism
            kwargs["sasl_plain_username"] = self.sasl_user
            kwargs["sasl_plain_password"] = self.sasl_password
        elif self.uses_tls:
            kwargs["security_protocol"] = "SSL"
        return kwargs

    def producer_kwargs(self, max_message_bytes: int) -> dict[str, Any]:
        """Settings of the AIOKafkaProducer; batches never exceed the message size limit."""
        return {
            **self.client_kwargs(),
            "acks": _ACKS[self.required_acks],
            "compression_type": None if self.compression == "none" else self.compression,
            "max_batch_size": min(self.max_batch_bytes, max_message_bytes),
            "max_request_size": max_message_bytes,
            "linger_ms": 0,
            "enable_idempotence": False,
        }

    def _ssl_context(self) -> ssl.SSLContext:
        try:
            context = create_ssl_context(
                cafile=self.ca or None, certfile=self.cert or None, keyfile=self.key or None
            )
        except (OSError, ssl.SSLError) as exc:
            raise KafkaConfigError(
                f"cannot load TLS files ca={self.ca!r} cert={self.cert!r} key={self.key!r}: {exc}"
            ) from exc
        if self.insecure_skip_verify:
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        return context


def _int(key: str, value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise KafkaConfigError(f"{key} must be an integer, got {value!r}") from None


def _bool(key: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if str(value) in _TRUE:
        return True
    if str(value) in _FALSE:
        return False
    raise KafkaConfigError(f"{key} must be true or false, got {value!r}")


def _str(_key: str, value: Any) -> str:
    return str(value)


def _lower(_key: str, value: Any) -> str:
    return str(value).strip().lower()


def _upper(_key: str, value: Any) -> str:
    return str(value).strip().upper()


def _duration(key: str, value: Any) -> float:
    """Go duration strings (``10s``, ``1m30s``, ``500ms``) or plain seconds."""
    if isinstance(value, int | float):
        return float(value)
    text = str(value).strip()
    if not _DURATIONS.fullmatch(text):
        raise KafkaConfigError(f"{key} must be a duration like 10s or 500ms, got {value!r}")
    return sum(float(n) * _DURATION_UNITS[u] for n, u in _DURATION.findall(text))


_KEYS: dict[str, tuple[str, Any]] = {
    "partition-num": ("partition_num", _int),
    "replication-factor": ("replication_factor", _int),
    "max-message-bytes": ("max_message_bytes", _int),
    "compression": ("compression", _lower),
    "required-acks": ("required_acks", _int),
    "kafka-client-id": ("client_id", _str),
    "auto-create-topic": ("auto_create_topic", _bool),
    "dial-timeout": ("dial_timeout_s", _duration),
    "read-timeout": ("request_timeout_s", _duration),
    "enable-tls": ("enable_tls", _bool),
    "ca": ("ca", _str),
    "cert": ("cert", _str),
    "key": ("key", _str),
    "insecure-skip-verify": ("insecure_skip_verify", _bool),
    "sasl-mechanism": ("sasl_mechanism", _upper),
    "sasl-user": ("sasl_user", _str),
    "sasl-password": ("sasl_password", _str),
}
