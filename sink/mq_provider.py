"""MQSinkProvider: a provider whose sinks are tisink's MQ sinks over a producer of its own.

A scheme (built-in or plugin) that can deliver batches of records to (topic, partition) and
count partitions implements ``mq_target`` and ``open_producer``; this base class builds the MQ
DML and DDL sinks over it, so the scheme gets TiCDC's routing, bootstraps, watermarks and
heartbeats, and, by being an ``MQTargetProvider``, Spark tasks that each own a partition.
"""

from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator
from typing import Any

from tisink.core.clock import Clock
from tisink.ddlsink.base import DDLSink
from tisink.eventsink.base import EventSink
from tisink.eventsink.faults import FaultInjector
from tisink.eventsink.mq.senders import PartitionSequences
from tisink.sink.capabilities import MQTarget, OpenedProducer
from tisink.sink.config import ChangefeedConfig
from tisink.sink.mq_sinks import (
    new_fault_injector,
    new_mq_ddl_sink,
    new_mq_dml_sink,
    new_sequences,
)
from tisink.sink.uri import SinkURI


class MQSinkProvider(ABC):
    """The sinks of a changefeed share one set of sequence counters per target
    (``target_key``), as the records of one partition must count on from each other."""

    def __init__(self) -> None:
        self._sequences: dict[object, PartitionSequences | None] = {}
        self._faults: dict[object, FaultInjector | None] = {}

    @abstractmethod
    def mq_target(self, uri: SinkURI, config: ChangefeedConfig) -> MQTarget: ...

    @abstractmethod
    async def open_producer(self, uri: SinkURI, target: MQTarget) -> OpenedProducer: ...

    def target_key(self, uri: SinkURI) -> object:
        """What identifies one destination among this provider's URIs."""
        return uri.raw

    async def producer_for_sinks(self, uri: SinkURI, target: MQTarget) -> OpenedProducer:
        """The producer of one sink this provider builds: a new one each (as TiCDC's DDL
        producer is apart from the DML one) unless a scheme shares one."""
        return await self.open_producer(uri, target)

    def sequences_for(self, uri: SinkURI, target: MQTarget) -> PartitionSequences | None:
        key = self.target_key(uri)
        if key not in self._sequences:
            self._sequences[key] = new_sequences(target.config)
        return self._sequences[key]

    def faults_for(self, uri: SinkURI, target: MQTarget) -> FaultInjector | None:
        """The fault injector of a target, shared by its sinks (None without faults)."""
        key = self.target_key(uri)
        if key not in self._faults:
            self._faults[key] = new_fault_injector(target.config)
        return self._faults[key]

    async def create_event_sink(
        self, uri: SinkURI, config: ChangefeedConfig, clock: Clock
    ) -> EventSink[Any]:
        target = self.mq_target(uri, config)
        opened = await self.producer_for_sinks(uri, target)
        async with _closed_on_error(opened):
            return new_mq_dml_sink(
                opened.producer,
                target.config,
                target.default_topic,
                clock,
                scheme=target.scheme,
                max_message_bytes=opened.max_message_bytes,
                sequences=self.sequences_for(uri, target),
                faults=self.faults_for(uri, target),
            )

    async def create_ddl_sink(
        self, uri: SinkURI, config: ChangefeedConfig, clock: Clock
    ) -> DDLSink:
        target = self.mq_target(uri, config)
        opened = await self.producer_for_sinks(uri, target)
        async with _closed_on_error(opened):
            return new_mq_ddl_sink(
                opened.producer,
                target.config,
                target.default_topic,
                clock,
                max_message_bytes=opened.max_message_bytes,
                sequences=self.sequences_for(uri, target),
                faults=self.faults_for(uri, target),
            )


@contextlib.asynccontextmanager
async def _closed_on_error(opened: OpenedProducer) -> AsyncIterator[None]:
    """A sink that cannot be built (a config only the encoder checks) closes the producer it
    was given, so no connection is left behind."""
    try:
        yield
    except BaseException:
        await opened.producer.close()
        raise
