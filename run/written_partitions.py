"""The partitions an inline play wrote into, for the summary's ``partitions``.

The Spark engine counts the (topic, partition)s it gives one task each: every partition of
every topic the play writes. The inline play counts the same after the fact: each topic the
sinks saw acknowledged, with its whole partition count (a partition that got nothing counts
too), asked of a producer of the target. The topics were written, so asking creates none.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from tisink.core.errors import TisinkError
from tisink.eventsink.stats import AcknowledgedEnds
from tisink.sink import SinkFactory
from tisink.sink.capabilities import MQTarget

log = logging.getLogger(__name__)


def written_partitions(factory: SinkFactory, acknowledged: AcknowledgedEnds) -> int:
    """Partitions of the topics in ``acknowledged`` ((topic, partition) -> end); 0 when the
    sink has no partitions, reports no acknowledged ends, or cannot be asked any more."""
    target = factory.mq_target()
    topics = sorted({topic for topic, _ in acknowledged})
    if target is None or not topics:
        return 0
    try:
        return sum(asyncio.run(_partition_counts(factory, target, topics)))
    except TisinkError as err:
        log.warning("the summary's partitions stay 0: %s", err)
        return 0


async def _partition_counts(
    factory: SinkFactory, target: MQTarget, topics: Sequence[str]
) -> list[int]:
    producer = (await factory.open_producer(target)).producer
    try:
        return [await producer.partition_count(topic) for topic in topics]
    finally:
        await producer.close()
