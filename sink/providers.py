"""The built-in sink schemes: ``blackhole``, ``log``, ``file`` and (when importable) ``kafka``.

A provider turns a parsed sink URI and a changefeed config into an event sink and a DDL sink.
Plugins implement the same two coroutines (see ``sink/registry.py``).
"""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from tisink.codec import new_encoder
from tisink.codec.bootstrap import BootstrapCadence
from tisink.codec.config import EncoderConfig
from tisink.core.clock import Clock
from tisink.ddlsink.base import DDLSink
from tisink.ddlsink.blackhole import BlackholeDDLSink
from tisink.ddlsink.log import LogDDLSink
from tisink.ddlsink.mq import MQDDLSink
from tisink.eventsink.base import EventSink
from tisink.eventsink.blackhole import BlackholeSink
from tisink.eventsink.file import FileProducer
from tisink.eventsink.log import LogSink
from tisink.eventsink.mq.dml_sink import MQDMLSink
from tisink.eventsink.mq.encoder_group import new_txn_encoder
from tisink.eventsink.mq.heartbeats import IdlePartitions
from tisink.eventsink.mq.producer import Producer
from tisink.eventsink.mq.senders import PartitionSequences, SequencedProducer
from tisink.eventsink.router import EventRouter
from tisink.sink.config import ChangefeedConfig
from tisink.sink.errors import SinkURIError
from tisink.sink.uri import SinkURI

if TYPE_CHECKING:
    from tisink.eventsink.kafka.producer import KafkaProducer

log = logging.getLogger(__name__)

DEFAULT_FILE_TOPIC = "tidb-cdc"
"""Topic of the file sink when the URI has no ``topic`` parameter."""
DEFAULT_FILE_PARTITION_NUM = 1
"""Partitions per topic of the file sink without ``partition-num``."""
FALLBACK_PROTOCOL = "debug"
"""What the file and log sinks encode with when no protocol is configured: readable JSON."""
KAFKA_PROTOCOL = "simple"
"""What the Kafka sink encodes with when no protocol is configured, as TiCDC's examples do."""


def new_router(default_topic: str, config: ChangefeedConfig) -> EventRouter:
    return EventRouter(
        default_topic,
        config.dispatch_rules,
        case_sensitive=config.case_sensitive,
        time_zone=config.encoder.time_zone,
        avro_topic_rules=config.encoder.spec.avro_topic_rules,
    )


def _encoder_config(config: ChangefeedConfig, max_message_bytes: int | None) -> EncoderConfig:
    """The encoder checks sizes against the producer's limit, which Kafka may have lowered (as
    TiCDC passes the adjusted ``MaxMessageBytes`` to its encoder)."""
    if max_message_bytes is None:
        return config.encoder
    return dataclasses.replace(config.encoder, max_message_bytes=max_message_bytes)


def _sequenced(producer: Producer, sequences: PartitionSequences | None) -> Producer:
    """The producer stamping the protocol's per-partition sequence header, if it has one."""
    return producer if sequences is None else SequencedProducer(producer, sequences)


def new_mq_dml_sink(
    producer: Producer,
    config: ChangefeedConfig,
    default_topic: str,
    clock: Clock,
    *,
    scheme: str,
    max_message_bytes: int | None = None,
    sequences: PartitionSequences | None = None,
) -> MQDMLSink:
    """The MQ DML sink over any producer: the one assembly of encoder, router, bootstrap
    cadence, heartbeats, encoder group and sequence header that the file and Kafka schemes share.
    ``sequences`` must be the object the DDL sink of the same changefeed gets."""
    producer = _sequenced(producer, sequences)
    encoder_config = _encoder_config(config, max_message_bytes)
    encoder = new_encoder(encoder_config, clock)
    router = new_router(default_topic, config)
    return MQDMLSink(
        producer,
        encoder,
        router,
        BootstrapCadence(encoder_config.bootstrap, clock),
        scheme=scheme,
        txn_encoder=new_txn_encoder(
            encoder_config, encoder, router, config.encoder_concurrency, clock
        ),
        heartbeats=_heartbeats(encoder_config, clock),
    )


def _heartbeats(config: EncoderConfig, clock: Clock) -> IdlePartitions | None:
    """Partition idle timers when the protocol sends heartbeats and they are on."""
    interval_ms = config.heartbeat_interval_ms
    return IdlePartitions(interval_ms, clock) if interval_ms is not None else None


def new_mq_ddl_sink(
    producer: Producer,
    config: ChangefeedConfig,
    default_topic: str,
    clock: Clock,
    *,
    max_message_bytes: int | None = None,
    sequences: PartitionSequences | None = None,
) -> MQDDLSink:
    """The MQ DDL sink over any producer, with the DML sink's routing."""
    producer = _sequenced(producer, sequences)
    encoder_config = _encoder_config(config, max_message_bytes)
    bootstrap = encoder_config.bootstrap
    return MQDDLSink(
        producer,
        new_encoder(encoder_config, clock),
        new_router(default_topic, config),
        bootstrap_at_start=bootstrap is not None and bootstrap.send_all_bootstrap_at_start,
    )


class BlackholeProvider:
    """``blackhole://``: accepts everything and forgets it; the floor for benchmarks."""

    uri_params: tuple[str, ...] = ()
    default_protocol = None

    async def create_event_sink(
        self, uri: SinkURI, config: ChangefeedConfig, clock: Clock
    ) -> EventSink:
        return BlackholeSink()

    async def create_ddl_sink(
        self, uri: SinkURI, config: ChangefeedConfig, clock: Clock
    ) -> DDLSink:
        return BlackholeDDLSink()


class LogProvider:
    """``log://``: one log line per row, DDL and checkpoint; encodes only if a protocol is set."""

    uri_params: tuple[str, ...] = ()
    default_protocol = None

    async def create_event_sink(
        self, uri: SinkURI, config: ChangefeedConfig, clock: Clock
    ) -> EventSink:
        encoder = new_encoder(config.encoder, clock) if config.protocol else None
        return LogSink(encoder)

    async def create_ddl_sink(
        self, uri: SinkURI, config: ChangefeedConfig, clock: Clock
    ) -> DDLSink:
        encoder = new_encoder(config.encoder, clock) if config.protocol else None
        return LogDDLSink(encoder)


class FileProvider:
    """``file:///dir?topic=t&partition-num=3&protocol=simple``: the MQ sinks over files.

    The event sink and the DDL sink built by one provider share a FileProducer per directory,
    so DML, bootstraps, DDL and watermarks interleave in one partition file with one offset
    sequence, as they would in one Kafka partition.
    """

    uri_params = ("topic",)
    default_protocol = FALLBACK_PROTOCOL

    def __init__(self) -> None:
        self._producers: dict[Path, FileProducer] = {}
        self._sequences: dict[Path, PartitionSequences] = {}

    def _producer(self, uri: SinkURI, config: ChangefeedConfig) -> FileProducer:
        directory = Path(uri.path)
        if directory.exists() and not directory.is_dir():
            raise SinkURIError(f"sink URI {uri.redacted()}: {directory} is not a directory")
        key = directory.resolve()
        producer = self._producers.get(key)
        if producer is None:
            partitions = config.kafka.partition_num or DEFAULT_FILE_PARTITION_NUM
            producer = self._producers[key] = FileProducer(directory, partitions)
        return producer

    async def create_event_sink(
        self, uri: SinkURI, config: ChangefeedConfig, clock: Clock
    ) -> EventSink:
        config = config.with_protocol_default(FALLBACK_PROTOCOL)
        topic = uri.topic or DEFAULT_FILE_TOPIC
        return new_mq_dml_sink(
            self._producer(uri, config),
            config,
            topic,
            clock,
            scheme="file",
            sequences=self._sequences_for(uri, config),
        )

    async def create_ddl_sink(
        self, uri: SinkURI, config: ChangefeedConfig, clock: Clock
    ) -> DDLSink:
        config = config.with_protocol_default(FALLBACK_PROTOCOL)
        topic = uri.topic or DEFAULT_FILE_TOPIC
        return new_mq_ddl_sink(
            self._producer(uri, config),
            config,
            topic,
            clock,
            sequences=self._sequences_for(uri, config),
        )

    def _sequences_for(self, uri: SinkURI, config: ChangefeedConfig) -> PartitionSequences | None:
        """One counter set per directory, shared by the sinks writing it (the file producer
        numbers records itself, under its file lock)."""
        header = config.encoder.spec.partition_sequence_header
        if header is None:
            return None
        key = Path(uri.path).resolve()
        found = self._sequences.get(key)
        if found is None:
            found = self._sequences[key] = PartitionSequences(header)
        return found


class KafkaProvider:
    """``kafka://host:port/topic?...``: the aiokafka producer behind the MQ sinks. The DDL sink
    has a producer of its own, as TiCDC's synchronous DDL path does."""

    uri_params: tuple[str, ...] = ()
    default_protocol = KAFKA_PROTOCOL

    def __init__(self) -> None:
        self._sequences: PartitionSequences | None = None

    def _sequences_for(self, config: ChangefeedConfig) -> PartitionSequences | None:
        """One counter set for the DML and DDL producers of this changefeed."""
        header = config.encoder.spec.partition_sequence_header
        if header is None:
            return None
        if self._sequences is None:
            self._sequences = PartitionSequences(header)
        return self._sequences

    async def create_event_sink(
        self, uri: SinkURI, config: ChangefeedConfig, clock: Clock
    ) -> EventSink:
        config = config.with_protocol_default(KAFKA_PROTOCOL)
        producer = await _kafka_producer(uri, config)
        return new_mq_dml_sink(
            producer,
            config,
            uri.topic,
            clock,
            scheme="kafka",
            max_message_bytes=producer.max_message_bytes,
            sequences=self._sequences_for(config),
        )

    async def create_ddl_sink(
        self, uri: SinkURI, config: ChangefeedConfig, clock: Clock
    ) -> DDLSink:
        config = config.with_protocol_default(KAFKA_PROTOCOL)
        producer = await _kafka_producer(uri, config)
        return new_mq_ddl_sink(
            producer,
            config,
            uri.topic,
            clock,
            max_message_bytes=producer.max_message_bytes,
            sequences=self._sequences_for(config),
        )


async def _kafka_producer(uri: SinkURI, config: ChangefeedConfig) -> KafkaProducer:
    from tisink.eventsink.kafka.producer import new_kafka_producer

    kafka = config.kafka.for_target(uri.hosts, uri.topic, config.encoder.max_message_bytes)
    return await new_kafka_producer(kafka)


def kafka_available() -> bool:
    """True when the Kafka sink's modules import (aiokafka installed, code present)."""
    try:
        import tisink.eventsink.kafka.producer  # noqa: F401
    except ImportError as err:
        log.debug("kafka scheme unavailable: %s", err)
        return False
    return True
