"""The built-in sink schemes: ``blackhole``, ``log``, ``file`` and (when importable) ``kafka``.

A provider turns a parsed sink URI and a changefeed config into an event sink and a DDL sink.
Plugins implement the same two coroutines (see ``sink/registry.py``).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from tisink.codec import new_encoder
from tisink.codec.bootstrap import BootstrapCadence
from tisink.codec.clock import Clock
from tisink.ddlsink.base import DDLSink
from tisink.ddlsink.blackhole import BlackholeDDLSink
from tisink.ddlsink.log import LogDDLSink
from tisink.ddlsink.mq import MQDDLSink
from tisink.eventsink.base import EventSink
from tisink.eventsink.blackhole import BlackholeSink
from tisink.eventsink.file import FileProducer
from tisink.eventsink.log import LogSink
from tisink.eventsink.mq.dml_sink import MQDMLSink
from tisink.eventsink.mq.encoder_group import new_encoder_group
from tisink.eventsink.router import EventRouter
from tisink.sink.config import ChangefeedConfig
from tisink.sink.errors import SinkURIError
from tisink.sink.uri import SinkURI

if TYPE_CHECKING:
    from tisink.eventsink.kafka.config import KafkaConfig

log = logging.getLogger(__name__)

DEFAULT_FILE_TOPIC = "tidb-cdc"
"""Topic of the file sink when the URI has no ``topic`` parameter."""
DEFAULT_FILE_PARTITION_NUM = 1
"""Partitions per topic of the file sink without ``partition-num``."""
FALLBACK_PROTOCOL = "debug"
"""What the file and log sinks encode with when no protocol is configured: readable JSON."""


def new_router(default_topic: str, config: ChangefeedConfig) -> EventRouter:
    return EventRouter(
        default_topic,
        config.dispatch_rules,
        case_sensitive=config.case_sensitive,
        time_zone=config.encoder_config.time_zone,
    )


class BlackholeProvider:
    """``blackhole://``: accepts everything and forgets it; the floor for benchmarks."""

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

    async def create_event_sink(
        self, uri: SinkURI, config: ChangefeedConfig, clock: Clock
    ) -> EventSink:
        encoder = new_encoder(config.encoder_config, clock) if config.protocol else None
        return LogSink(encoder)

    async def create_ddl_sink(
        self, uri: SinkURI, config: ChangefeedConfig, clock: Clock
    ) -> DDLSink:
        encoder = new_encoder(config.encoder_config, clock) if config.protocol else None
        return LogDDLSink(encoder)


class FileProvider:
    """``file:///dir?topic=t&partition-num=3&protocol=simple``: the MQ sinks over files.

    The event sink and the DDL sink built by one provider share a FileProducer per directory,
    so DML, bootstraps, DDL and watermarks interleave in one partition file with one offset
    sequence, as they would in one Kafka partition.
    """

    def __init__(self) -> None:
        self._producers: dict[Path, FileProducer] = {}

    def _producer(self, uri: SinkURI, config: ChangefeedConfig) -> FileProducer:
        directory = Path(uri.path)
        if directory.exists() and not directory.is_dir():
            raise SinkURIError(f"sink URI {uri.redacted()}: {directory} is not a directory")
        key = directory.resolve()
        producer = self._producers.get(key)
        if producer is None:
            partitions = config.partition_num or DEFAULT_FILE_PARTITION_NUM
            producer = self._producers[key] = FileProducer(directory, partitions)
        return producer

    async def create_event_sink(
        self, uri: SinkURI, config: ChangefeedConfig, clock: Clock
    ) -> EventSink:
        config = config.with_protocol_default(FALLBACK_PROTOCOL)
        encoder_config = config.encoder_config
        cadence = BootstrapCadence(encoder_config, clock)
        router = new_router(uri.topic or DEFAULT_FILE_TOPIC, config)
        return MQDMLSink(
            self._producer(uri, config),
            new_encoder(encoder_config, clock),
            router,
            cadence if cadence.enabled else None,
            scheme="file",
            encoder_group=new_encoder_group(
                encoder_config, router, config.encoder_concurrency, clock
            ),
        )

    async def create_ddl_sink(
        self, uri: SinkURI, config: ChangefeedConfig, clock: Clock
    ) -> DDLSink:
        config = config.with_protocol_default(FALLBACK_PROTOCOL)
        return MQDDLSink(
            self._producer(uri, config),
            new_encoder(config.encoder_config, clock),
            new_router(uri.topic or DEFAULT_FILE_TOPIC, config),
        )


class KafkaProvider:
    """``kafka://host:port/topic?...``: the Kafka helper's producer behind the MQ sinks.

    Imported lazily so that tisink works (with the other schemes) where the Kafka client
    libraries are missing.
    """

    async def create_event_sink(
        self, uri: SinkURI, config: ChangefeedConfig, clock: Clock
    ) -> EventSink:
        from tisink.eventsink.kafka.sink import new_kafka_dml_sink

        config = config.with_protocol_default("simple")
        return await new_kafka_dml_sink(
            _kafka_config(uri, config),
            config.encoder_config,
            new_router(uri.topic, config),
            clock,
            encoder_concurrency=config.encoder_concurrency,
        )

    async def create_ddl_sink(
        self, uri: SinkURI, config: ChangefeedConfig, clock: Clock
    ) -> DDLSink:
        from tisink.ddlsink.kafka import new_kafka_ddl_sink

        config = config.with_protocol_default("simple")
        return await new_kafka_ddl_sink(
            _kafka_config(uri, config), config.encoder_config, new_router(uri.topic, config), clock
        )


def _kafka_config(uri: SinkURI, config: ChangefeedConfig) -> KafkaConfig:
    from tisink.eventsink.kafka.config import KafkaConfig

    return KafkaConfig.from_sink_params(
        ",".join(uri.hosts), uri.topic, uri.params, config.kafka_config
    )


def kafka_available() -> bool:
    """True when the Kafka sink's modules import (aiokafka installed, code present)."""
    try:
        import tisink.ddlsink.kafka
        import tisink.eventsink.kafka.sink  # noqa: F401
    except ImportError as err:
        log.debug("kafka scheme unavailable: %s", err)
        return False
    return True
