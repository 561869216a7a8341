"""The MQ DDL sink (TiCDC ``cdc/sink/ddlsink/mq/mq_ddl_sink.go``).

DDL, start-of-changefeed bootstraps and WATERMARKs go out on the synchronous path: each call
broadcasts one encoded message to every partition of its topic(s) and returns once all copies
are acknowledged. The codec leaves their Kafka key null (spec 5.1). A protocol that sends no
message for an event (its encoder returns None) sends nothing.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tisink.codec.encoder import RowEventEncoder
from tisink.codec.errors import CodecError
from tisink.codec.message import Message, MessageType
from tisink.ddlsink.errors import DDLSinkError
from tisink.eventsink.capabilities import acknowledged_ends
from tisink.eventsink.faults import InjectedFault, faults_of
from tisink.eventsink.mq.producer import Mark, Producer, SendsMarked
from tisink.eventsink.mq.stats import MQStats
from tisink.eventsink.router.errors import DispatchError
from tisink.eventsink.stats import AckedSeconds, AcknowledgedEnds, SinkStats
from tisink.model.events import DDLEvent, DDLType
from tisink.model.table import TableInfo

if TYPE_CHECKING:
    from tisink.eventsink.router import EventRouter

log = logging.getLogger(__name__)


class MQDDLSink:
    """A DDLSink over any Producer; shares the DML sink's router so topics agree."""

    def __init__(
        self,
        producer: Producer,
        encoder: RowEventEncoder,
        router: EventRouter,
        *,
        bootstrap_at_start: bool = False,
    ) -> None:
        self._producer = producer
        self._bootstrap_at_start = bootstrap_at_start
        self._encoder = encoder
        self._router = router
        self._last_checkpoint_ts = 0
        self._stats = MQStats()

    async def write_ddl_event(self, ddl: DDLEvent) -> None:
        """Encode ``ddl`` and send it to all partitions of its DDL topic (the table's topic
        before the DDL, e.g. the old name of a RENAME; the default topic without a table)."""
        if ddl.table is not None and ddl.ddl_type is not DDLType.ERASE:
            try:
                self._router.check_table(ddl.table)
            except DispatchError as err:
                raise DDLSinkError(f"DDL {ddl.describe()}: {err}") from err
        try:
            message = self._encoder.encode_ddl(ddl)
        except CodecError as err:
            raise DDLSinkError(f"DDL {ddl.describe()}: cannot encode: {err}") from err
        if message is None:
            log.info("DDL %s is not sent by this protocol", ddl.describe())
            return
        topic = self._router.topic_for_ddl(ddl)
        await self._broadcast(topic, message, what=f"DDL {ddl.describe()}", ts=ddl.commit_ts)

    async def write_bootstrap_at_start(self, tables: Sequence[TableInfo]) -> None:
        """``send-all-bootstrap-at-start``: one BOOTSTRAP per table through the DDL path, to every
        partition of its topic, before any row is written (tiflow
        ``ddl_manager.trySendBootstrap``, spec 4.4); nothing when the setting is off."""
        if not self._bootstrap_at_start:
            return
        for table in tables:
            try:
                message = self._encoder.encode_bootstrap(table)
            except CodecError as err:
                raise DDLSinkError(
                    f"BOOTSTRAP of {table.qualified_name}: cannot encode: {err}"
                ) from err
            if message is not None:
                topic = self._router.topic_for_table(table.schema, table.table)
                await self._broadcast(topic, message, what=f"BOOTSTRAP {table.qualified_name}")

    async def write_checkpoint_ts(self, ts: int, tables: Sequence[TableInfo]) -> None:
        """A WATERMARK to every partition of every active topic plus the default topic, only
        when ``ts`` advanced past the last one sent (spec 4.5)."""
        if ts <= self._last_checkpoint_ts:
            return
        message = self._encoder.encode_checkpoint(ts)
        topics = self._router.active_topics(tables)
        if message is None:
            # no WATERMARK in this protocol; a producer that follows the stream (the fault
            # injector's restart points) is still told where the checkpoint moved
            if isinstance(self._producer, SendsMarked):
                await asyncio.gather(*(self._mark_checkpoint(topic, ts) for topic in topics))
            self._last_checkpoint_ts = ts
            return
        await asyncio.gather(
            *(self._broadcast(topic, message, what=f"WATERMARK {ts}", ts=ts) for topic in topics)
        )
        self._last_checkpoint_ts = ts

    @property
    def last_checkpoint_ts(self) -> int:
        return self._last_checkpoint_ts

    def stats(self) -> SinkStats:
        """Acknowledged DDL, BOOTSTRAP and WATERMARK copies and their bytes."""
        return self._stats.snapshot()

    def acked_seconds(self) -> AckedSeconds:
        """Messages and bytes acknowledged per epoch second."""
        return self._stats.per_second()

    def acknowledged_offsets(self) -> AcknowledgedEnds:
        """The producer's acknowledged ends per partition (empty if it does not track them)."""
        return acknowledged_ends(self._producer)

    def injected_faults(self) -> list[InjectedFault]:
        """The faults the producer injected (``--faults``); empty without."""
        return faults_of(self._producer)

    async def close(self) -> None:
        await self._producer.close()
        log.info("MQ DDL sink closed: %s", self._stats.snapshot().to_dict())

    async def _partitions(self, topic: str, what: str) -> int:
        try:
            return await self._producer.partition_count(topic)
        except Exception as err:
            raise DDLSinkError(f"{what}: partitions of topic {topic!r}: {err}") from err

    async def _mark_checkpoint(self, topic: str, ts: int) -> None:
        producer = self._producer
        assert isinstance(producer, SendsMarked)
        mark = (Mark(MessageType.WATERMARK, "", ts, 0),)
        partitions = await self._partitions(topic, f"checkpoint {ts}")
        for partition in range(partitions):
            await producer.send_marked(topic, partition, (), mark)

    async def _broadcast(self, topic: str, message: Message, *, what: str, ts: int = 0) -> None:
        partitions = await self._partitions(topic, what)
        producer = self._producer
        records = (message.record(),)
        if isinstance(producer, SendsMarked):
            marks = (Mark(message.type, message.table, ts, 1),)
            sends = [producer.send_marked(topic, p, records, marks) for p in range(partitions)]
        else:
            sends = [producer.send(topic, p, records) for p in range(partitions)]
        results = await asyncio.gather(*sends, return_exceptions=True)
        for partition, result in enumerate(results):
            if isinstance(result, BaseException):
                if not isinstance(result, Exception):
                    raise result
                raise DDLSinkError(
                    f"{what}: send to topic {topic!r} partition {partition} failed: {result}"
                ) from result
        self._stats.count_batch(message.type, partitions, message.length())
