"""What a sink scheme's provider can do, as typed Protocols: the one place callers learn it.

Every provider makes an event sink (``EventSinkProvider``); most make a DDL sink too
(``SinkProvider``). Beyond that a provider declares abilities by implementing them, and the
engines use them through ``SinkFactory`` without knowing any scheme:

* ``MQTargetProvider``: topics and partitions that Spark tasks can own (as bytewax's
  ``FixedPartitionedSink`` lists its parts and builds one writer per owned part): the target's
  default topic and effective config, and a producer to write through.
* ``VerifiableProvider``: a ``RecordSource`` that ``tisink verify`` reads the stream back with.
* ``ReportsLeftovers``: topics an earlier run left at the target (a play refuses them).
* ``FixedPartitions``: the partitions per topic, known before anything is written.
* ``UpdateSplitting``: whether key-changing UPDATEs are split into DELETE + INSERT (TiCDC
  splits for every sink but the MySQL-compatible ones); without it, they are.
* ``OwnsURIParams`` / ``HasDefaultProtocol``: URI parameters the scheme reads itself, and the
  protocol its sinks encode with when none is configured.

What the sinks themselves can do (back-pressure, timers, stats) is in
``eventsink.capabilities``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol, runtime_checkable

from tisink.core.clock import Clock
from tisink.ddlsink.base import DDLSink
from tisink.eventsink.base import EventSink
from tisink.eventsink.mq.producer import Producer
from tisink.eventsink.reading import RecordSource
from tisink.eventsink.storage.config import StorageLayout
from tisink.sink.config import ChangefeedConfig
from tisink.sink.uri import SinkURI


@runtime_checkable
class EventSinkProvider(Protocol):
    """The least a scheme provides: an event sink (DDL and checkpoints then go nowhere)."""

    async def create_event_sink(
        self, uri: SinkURI, config: ChangefeedConfig, clock: Clock
    ) -> EventSink[Any]: ...


@runtime_checkable
class SinkProvider(EventSinkProvider, Protocol):
    """A scheme with both sinks of a changefeed."""

    async def create_ddl_sink(
        self, uri: SinkURI, config: ChangefeedConfig, clock: Clock
    ) -> DDLSink: ...


@dataclass(frozen=True)
class MQTarget:
    """What an MQ sink URI writes to: the scheme, the config with the scheme's defaults applied
    (protocol), and the default topic (DDL broadcasts and watermarks go there)."""

    scheme: str
    config: ChangefeedConfig
    default_topic: str


class OpenedProducer(NamedTuple):
    producer: Producer
    max_message_bytes: int | None = None
    """The destination's limit when it lowered the configured one (Kafka's topic config); the
    encoders then check sizes against it."""


@runtime_checkable
class MQTargetProvider(Protocol):
    """A scheme that writes topics and partitions through a ``Producer``: Spark gives each
    (topic, partition) to one task, which builds the MQ sinks over this producer."""

    def mq_target(self, uri: SinkURI, config: ChangefeedConfig) -> MQTarget: ...

    async def open_producer(self, uri: SinkURI, target: MQTarget) -> OpenedProducer:
        """A new producer to the target (creating topics as the sinks would); the caller
        closes it."""
        ...


@runtime_checkable
class VerifiableProvider(Protocol):
    """A scheme whose stream can be read back for ``tisink verify``."""

    def open_record_source(
        self, uri: SinkURI, config: ChangefeedConfig, timeout_s: float
    ) -> RecordSource: ...


@runtime_checkable
class ReportsLeftovers(Protocol):
    """A scheme whose target may hold an earlier run's topics, which a new play would continue
    (offsets, sequence numbers) and verify would read as one stream with the new one."""

    def leftover_topics(self, uri: SinkURI, config: ChangefeedConfig) -> list[str]: ...


@runtime_checkable
class FixedPartitions(Protocol):
    """An MQ scheme whose topics have a partition count known before anything is written (a
    fault's ``partition=`` past it is refused up front)."""

    def partition_num(self, target: MQTarget) -> int: ...


@runtime_checkable
class UpdateSplitting(Protocol):
    """A scheme that says whether key-changing UPDATEs reach it split (False: MySQL-compatible
    destinations, which apply an UPDATE whole, TiCDC ``IsMySQLCompatibleScheme``)."""

    def splits_key_updates(self) -> bool: ...


@runtime_checkable
class ChoosesProvider(Protocol):
    """A scheme whose URI and config pick the provider that serves them (``file://``:
    Kafka-like partition files, or TiCDC's storage layout for csv and canal-json)."""

    def provider_for(self, uri: SinkURI, config: ChangefeedConfig) -> EventSinkProvider: ...


@runtime_checkable
class WritesStorageLayout(Protocol):
    """A scheme that writes TiCDC's storage layout, which ``tisink verify`` reads as files
    rather than as a stream of records."""

    def layout(self, uri: SinkURI, config: ChangefeedConfig) -> StorageLayout: ...


@runtime_checkable
class OwnsURIParams(Protocol):
    """A scheme that reads URI parameters tisink does not know (not reported as typos)."""

    uri_params: tuple[str, ...]


@runtime_checkable
class HasDefaultProtocol(Protocol):
    """A scheme whose sinks encode with this protocol when none is configured (None: the
    scheme encodes nothing unless asked)."""

    default_protocol: str | None


_DECLARED: tuple[tuple[str, type], ...] = (
    ("ddl", SinkProvider),
    ("spark partitions", MQTargetProvider),
    ("verify", VerifiableProvider),
)


def declared_capabilities(provider: object) -> list[str]:
    """What ``provider`` declares, in words (``tisink sinks``): a plugin author sees at once
    whether the engines will find what the plugin implements."""
    names = [name for name, protocol in _DECLARED if isinstance(provider, protocol)]
    if isinstance(provider, UpdateSplitting) and not provider.splits_key_updates():
        names.append("updates whole")
    return names
