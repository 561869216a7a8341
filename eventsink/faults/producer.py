"""FaultyProducer: a Producer that passes each batch through a FaultInjector.

It wraps the producer the MQ sinks write through (outside the DTS ``ps`` stamping, so copies
are numbered as the new records they are), and is ``SendsMarked``: the sinks tell it which
records are DML, DDL, BOOTSTRAP and WATERMARK messages.
"""

from __future__ import annotations

from collections.abc import Sequence

from tisink.codec.message import Record
from tisink.eventsink.capabilities import acknowledged_ends
from tisink.eventsink.faults.injector import FaultInjector
from tisink.eventsink.faults.report import InjectedFault
from tisink.eventsink.mq.producer import Mark, Producer
from tisink.eventsink.stats import AcknowledgedEnds


class FaultyProducer:
    """``inner`` with ``injector``'s faults; closing flushes what skew holds, then ``inner``."""

    def __init__(self, inner: Producer, injector: FaultInjector) -> None:
        self.inner = inner
        self.injector = injector

    async def partition_count(self, topic: str) -> int:
        return await self.inner.partition_count(topic)

    async def send(self, topic: str, partition: int, records: Sequence[Record]) -> None:
        await self.injector.deliver(self.inner, topic, partition, records, ())

    async def send_marked(
        self, topic: str, partition: int, records: Sequence[Record], marks: Sequence[Mark]
    ) -> None:
        await self.injector.deliver(self.inner, topic, partition, records, marks)

    def acknowledged_offsets(self) -> AcknowledgedEnds:
        return acknowledged_ends(self.inner)

    async def close(self) -> None:
        try:
            await self.injector.flush()
        finally:
            await self.inner.close()


def faults_of(producer: object) -> list[InjectedFault]:
    """What a sink's producer injected: its injector's list when it is a FaultyProducer."""
    return list(producer.injector.injected) if isinstance(producer, FaultyProducer) else []
