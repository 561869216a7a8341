"""The built-in sink schemes: ``blackhole``, ``file`` (partition files, or TiCDC's storage
layout: ``sink/storage_provider.py``) and (when importable) ``kafka``; ``log`` is written as a
plugin is, in ``logsink/``.

A provider turns a parsed sink URI and a changefeed config into an event sink and a DDL sink,
and declares what else its scheme can do (``sink/capabilities.py``): files and Kafka are MQ
targets Spark tasks can own and streams verify can read. Plugins implement the same Protocols
(see ``sink/registry.py``).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, cast

from tisink.codec.registry import get_protocol
from tisink.core.clock import Clock
from tisink.ddlsink.base import DDLSink
from tisink.ddlsink.blackhole import BlackholeDDLSink
from tisink.eventsink.base import EventSink
from tisink.eventsink.blackhole import BlackholeSink
from tisink.eventsink.file import FileProducer, list_file_topics
from tisink.eventsink.reading import FileRecordSource, RecordSource
from tisink.sink.capabilities import EventSinkProvider, MQTarget, OpenedProducer
from tisink.sink.config import ChangefeedConfig
from tisink.sink.errors import SinkURIError
from tisink.sink.mq_provider import MQSinkProvider
from tisink.sink.storage_provider import (
    LAYOUT_PARAM,
    LAYOUTS,
    StorageProvider,
    storage_protocols,
)
from tisink.sink.uri import SinkURI

log = logging.getLogger(__name__)

DEFAULT_FILE_TOPIC = "tidb-cdc"
"""Topic of the file sink when the URI has no ``topic`` parameter."""
DEFAULT_FILE_PARTITION_NUM = 1
"""Partitions per topic of the file sink without ``partition-num``."""
FALLBACK_PROTOCOL = "debug"
"""What the file sink encodes with when no protocol is configured: readable JSON."""
KAFKA_PROTOCOL = "simple"
"""What the Kafka sink encodes with when no protocol is configured, as TiCDC's examples do."""


class BlackholeProvider:
    """``blackhole://``: accepts everything and forgets it; the floor for benchmarks."""

    uri_params: tuple[str, ...] = ()
    default_protocol = None

    async def create_event_sink(
        self, uri: SinkURI, config: ChangefeedConfig, clock: Clock
    ) -> EventSink[Any]:
        return BlackholeSink()

    async def create_ddl_sink(
        self, uri: SinkURI, config: ChangefeedConfig, clock: Clock
    ) -> DDLSink:
        return BlackholeDDLSink()


class FileProvider(MQSinkProvider):
    """``file:///dir?topic=t&partition-num=3&protocol=simple``: the MQ sinks over files.

    The event sink and the DDL sink built by one provider share a FileProducer per directory,
    so DML, bootstraps, DDL and watermarks interleave in one partition file with one offset
    sequence, as they would in one Kafka partition.

    ``protocol=csv`` and ``protocol=canal-json`` write TiCDC's storage layout instead, as
    TiCDC's ``file://`` does (``provider_for`` hands them to ``StorageProvider``);
    ``file-layout=partitions`` asks for canal-json partition files.
    """

    uri_params = ("topic", LAYOUT_PARAM)
    default_protocol = FALLBACK_PROTOCOL

    def provider_for(self, uri: SinkURI, config: ChangefeedConfig) -> EventSinkProvider:
        """The storage layout for a protocol the storage sink takes (unless
        ``file-layout=partitions``), else these partition files."""
        layout = uri.param(LAYOUT_PARAM)
        if layout is not None and layout not in LAYOUTS:
            raise SinkURIError(
                f"sink URI {uri.redacted()}: {LAYOUT_PARAM} must be storage or partitions, "
                f"got {layout!r}"
            )
        spec = get_protocol(config.protocol) if config.protocol else None
        storage_protocol = spec is not None and spec.storage_extension is not None
        if layout == "storage" or (layout is None and storage_protocol):
            if not storage_protocol:
                raise SinkURIError(
                    f"sink URI {uri.redacted()}: {LAYOUT_PARAM}=storage takes protocol "
                    f"{' or '.join(storage_protocols())}, not {config.protocol or 'none'}"
                )
            return StorageProvider()
        if spec is not None and spec.storage_only:
            raise SinkURIError(
                f"sink URI {uri.redacted()}: protocol {spec.name} is written only in TiCDC's "
                f"storage layout; drop {LAYOUT_PARAM}=partitions"
            )
        return self

    def __init__(self) -> None:
        super().__init__()
        self._producers: dict[object, FileProducer] = {}

    def mq_target(self, uri: SinkURI, config: ChangefeedConfig) -> MQTarget:
        config = config.with_protocol_default(FALLBACK_PROTOCOL)
        return MQTarget("file", config, uri.topic or DEFAULT_FILE_TOPIC)

    def target_key(self, uri: SinkURI) -> object:
        return Path(uri.path).resolve()

    async def open_producer(self, uri: SinkURI, target: MQTarget) -> OpenedProducer:
        directory = Path(uri.path)
        if directory.exists() and not directory.is_dir():
            raise SinkURIError(f"sink URI {uri.redacted()}: {directory} is not a directory")
        return OpenedProducer(FileProducer(directory, self.partition_num(target)))

    def partition_num(self, target: MQTarget) -> int:
        return target.config.kafka.partition_num or DEFAULT_FILE_PARTITION_NUM

    async def producer_for_sinks(self, uri: SinkURI, target: MQTarget) -> OpenedProducer:
        key = self.target_key(uri)
        producer = self._producers.get(key)
        if producer is None:
            opened = await self.open_producer(uri, target)
            producer = self._producers[key] = cast(FileProducer, opened.producer)
        return OpenedProducer(producer)

    def open_record_source(
        self, uri: SinkURI, config: ChangefeedConfig, timeout_s: float
    ) -> RecordSource:
        return FileRecordSource(Path(uri.path))

    def leftover_topics(self, uri: SinkURI, config: ChangefeedConfig) -> list[str]:
        return list_file_topics(Path(uri.path))


class KafkaProvider(MQSinkProvider):
    """``kafka://host:port/topic?...``: the aiokafka producer behind the MQ sinks. The DDL sink
    has a producer of its own, as TiCDC's synchronous DDL path does."""

    uri_params: tuple[str, ...] = ()
    default_protocol = KAFKA_PROTOCOL

    def mq_target(self, uri: SinkURI, config: ChangefeedConfig) -> MQTarget:
        if "@" in uri.raw.split("//", 1)[-1].split("/", 1)[0]:
            raise SinkURIError(
                f"sink URI {uri.redacted()}: Kafka takes no user:password@; give SASL "
                "credentials as sasl-mechanism, sasl-user and sasl-password parameters (as TiCDC "
                "does)"
            )
        config = config.with_protocol_default(KAFKA_PROTOCOL)
        if config.encoder.spec.storage_only:
            raise SinkURIError(
                f"sink URI {uri.redacted()}: protocol {config.encoder.spec.name} is written only "
                "by the storage sink (file:///dir?protocol=csv), as in TiCDC"
            )
        return MQTarget("kafka", config, uri.topic)

    def target_key(self, uri: SinkURI) -> object:
        return "kafka"  # one changefeed per provider: its DML and DDL producers share counters

    async def open_producer(self, uri: SinkURI, target: MQTarget) -> OpenedProducer:
        from tisink.eventsink.kafka.producer import new_kafka_producer

        config = target.config
        kafka = config.kafka.for_target(
            uri.hosts, target.default_topic, config.encoder.max_message_bytes
        )
        producer = await new_kafka_producer(kafka)
        return OpenedProducer(producer, producer.max_message_bytes)

    def open_record_source(
        self, uri: SinkURI, config: ChangefeedConfig, timeout_s: float
    ) -> RecordSource:
        # imported here: the file scheme must work where the Kafka client libraries are missing
        from tisink.eventsink.kafka.reader import open_kafka_source

        return open_kafka_source(config.kafka.for_target(uri.hosts, uri.topic), timeout_s)

    def leftover_topics(self, uri: SinkURI, config: ChangefeedConfig) -> list[str]:
        """The play's named topics (the URI's, the dispatchers' without placeholders) that
        already hold messages; none when the cluster cannot be asked quickly (the play then
        reports the connection itself)."""
        from tisink.eventsink.kafka.reader import holding_topics

        named = {uri.topic} | {
            rule.topic for rule in config.dispatch_rules if rule.topic and "{" not in rule.topic
        }
        kafka = config.kafka.for_target(uri.hosts, uri.topic)
        return holding_topics(kafka, sorted(named), LEFTOVER_CHECK_S)


LEFTOVER_CHECK_S = 3.0
"""How long a play's start may spend asking Kafka whether its topics hold messages."""


def kafka_available() -> bool:
    """True when the Kafka sink's modules import (aiokafka installed, code present)."""
    try:
        import tisink.eventsink.kafka.producer  # noqa: F401
    except ImportError as err:
        log.debug("kafka scheme unavailable: %s", err)
        return False
    return True
