"""Kafka sink settings under TiCDC's names (sink URI parameters and ``[sink.kafka-config]``).

``KAFKA_OPTIONS`` declares every key once; the changefeed config parses them with it (URI over
file, as TiCDC's ``pkg/sink/kafka/options.go`` merges them) and the sink adds the brokers and
topic of its URI with ``for_target``. ``max-message-bytes`` is an encoder setting the sink
passes in, since the encoder checks sizes against it.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import ssl
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tisink.codec.config import DEFAULT_MAX_MESSAGE_BYTES
from tisink.core.errors import ConfigError
from tisink.core.options import (
    Option,
    build_options,
    to_bool,
    to_int,
    to_lower,
    to_positive_int,
    to_str,
)
from tisink.eventsink.kafka.errors import KafkaConfigError

log = logging.getLogger(__name__)

#: partitions of a topic the sink creates when ``partition-num`` is not set (TiCDC's default)
DEFAULT_PARTITION_NUM = 3
COMPRESSIONS = ("none", "gzip", "snappy", "lz4", "zstd")
SASL_MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
CLIENTS = ("aiokafka", "librdkafka")
"""The producer libraries: ``kafka-client`` picks one (``producer.py``, ``rdkafka_producer.py``)."""
_ACKS = {-1: "all", 1: 1}
_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)")
_DURATIONS = re.compile(rf"(?:{_DURATION.pattern})+")
_DURATION_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


@dataclass(frozen=True)
class KafkaConfig:
    """Connection, topic and producer settings of one Kafka sink; ``hosts`` and ``topic`` come
    from the sink URI (``for_target``)."""

    hosts: tuple[str, ...] = ()
    topic: str = ""
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
    #: tisink's own: the producer library, ``aiokafka`` or ``librdkafka`` (confluent-kafka)
    client: str = "aiokafka"
    #: the producer's idempotence (sequence numbers per partition; needs acks -1 and a broker
    #: with InitProducerId: the embedded Tansu answers aiokafka's with an error, librdkafka's not)
    enable_idempotence: bool = False

    def __post_init__(self) -> None:
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
            raise KafkaConfigError(f"required-acks must be -1 or 1, got {self.required_acks}")
        if self.client not in CLIENTS:
            raise KafkaConfigError(
                f"kafka-client {self.client!r} is not supported; expected {' or '.join(CLIENTS)}"
            )
        if self.enable_idempotence and self.required_acks != -1:
            raise KafkaConfigError("enable-idempotence needs required-acks -1")
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

    def for_target(
        self, hosts: Sequence[str], topic: str, max_message_bytes: int | None = None
    ) -> KafkaConfig:
        """These settings for the brokers and default topic of one sink URI."""
        changes: dict[str, Any] = {"hosts": tuple(h.strip() for h in hosts if h.strip())}
        changes["topic"] = topic
        if max_message_bytes is not None:
            changes["max_message_bytes"] = max_message_bytes
        config = dataclasses.replace(self, **changes)
        config.check_target()
        return config

    def check_target(self) -> None:
        if not self.hosts:
            raise KafkaConfigError("the Kafka sink URI names no broker (kafka://host:port/topic)")
        if not self.topic:
            raise KafkaConfigError(f"no topic in the Kafka sink URI for {','.join(self.hosts)}")

    @classmethod
    def from_sink_params(
        cls,
        hosts: str,
        topic: str,
        params: Mapping[str, Any],
        file_config: Mapping[str, Any] | None = None,
    ) -> KafkaConfig:
        """Settings from raw key -> value pairs (the URI's over the file's), for callers that
        have no changefeed config: tests and benchmarks."""
        raw = {**(file_config or {}), **params}
        try:
            config = build_options(cls, KAFKA_OPTIONS, raw, "kafka settings")
        except ConfigError as err:
            raise KafkaConfigError(str(err)) from None
        max_bytes = raw.get("max-message-bytes")
        return config.for_target(
            hosts.split(","), topic, None if max_bytes is None else to_positive_int(max_bytes)
        )

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
            "enable_idempotence": self.enable_idempotence,
        }

    def _ssl_context(self) -> ssl.SSLContext:
        from aiokafka.helpers import create_ssl_context

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


def _upper(value: Any) -> str:
    return to_str(value).strip().upper()


def _text(value: Any) -> str:
    return value if isinstance(value, str) else str(value)


def _compression(value: Any) -> str:
    """Kept as TiCDC does: an unknown codec is a warning, and no compression is used."""
    name = to_lower(value)
    if name not in COMPRESSIONS:
        log.warning("unknown Kafka compression %r, using none", name)
        return "none"
    return name


def _required_acks(value: Any) -> int:
    """-1 or 1. TiCDC also takes 0, but then the broker acknowledges nothing, and tisink moves
    the checkpoint (and reports success) only for data a broker acknowledged."""
    acks = to_int(value)
    if acks == 0:
        raise ValueError(
            "0 is not supported: without acknowledgements the checkpoint could pass data the "
            "broker lost; use 1 (leader) or -1 (all in-sync replicas)"
        )
    if acks not in _ACKS:
        raise ValueError(f"must be -1 or 1, got {acks}")
    return acks


def _duration(value: Any) -> float:
    """Go duration strings (``10s``, ``1m30s``, ``500ms``) or plain seconds."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    text = to_str(value).strip()
    if not _DURATIONS.fullmatch(text):
        raise ValueError(f"must be a duration like 10s or 500ms, got {value!r}")
    return sum(float(n) * _DURATION_UNITS[u] for n, u in _DURATION.findall(text))


def _client(value: Any) -> str:
    name = to_lower(value)
    if name not in CLIENTS:
        raise ValueError(f"expected {' or '.join(CLIENTS)}, got {value!r}")
    return name


def _sasl_mechanism(value: Any) -> str:
    mechanism = _upper(value)
    if mechanism and mechanism not in SASL_MECHANISMS:
        raise ValueError(f"expected one of {', '.join(SASL_MECHANISMS)}, got {value!r}")
    return mechanism


def _kafka(key: str, attr: str, convert: Any, help: str = "") -> Option:
    return Option(key, attr, convert, (("sink", "kafka-config"),), help=help)


KAFKA_OPTIONS: tuple[Option, ...] = (
    _kafka("partition-num", "partition_num", to_positive_int, "partitions of new topics"),
    _kafka("replication-factor", "replication_factor", to_positive_int),
    _kafka("compression", "compression", _compression, "none, gzip, snappy, lz4, zstd"),
    _kafka("required-acks", "required_acks", _required_acks, "-1 or 1"),
    _kafka("kafka-client-id", "client_id", _text),
    _kafka("auto-create-topic", "auto_create_topic", to_bool),
    _kafka("dial-timeout", "dial_timeout_s", _duration),
    _kafka("read-timeout", "request_timeout_s", _duration),
    _kafka("enable-tls", "enable_tls", to_bool),
    _kafka("ca", "ca", _text),
    _kafka("cert", "cert", _text),
    _kafka("key", "key", _text),
    _kafka("insecure-skip-verify", "insecure_skip_verify", to_bool),
    _kafka("sasl-mechanism", "sasl_mechanism", _sasl_mechanism),
    _kafka("sasl-user", "sasl_user", _text),
    _kafka("sasl-password", "sasl_password", _text),
    _kafka("kafka-client", "client", _client, "aiokafka or librdkafka (the producer library)"),
    _kafka("enable-idempotence", "enable_idempotence", to_bool, "needs required-acks -1"),
)
"""Every Kafka key, in the URI and under ``[sink.kafka-config]``."""
