"""FaultInjector: the faults of one changefeed's sinks (the DML and the DDL sink share one, as
the records of a partition come from both), per partition, and the list of what it injected.

``skew`` holds one partition's batches back until the other partitions have delivered
``by`` of commit time more: the held batches are acknowledged to the sink when they are held
(so the play goes on) and delivered, in order, as the others advance or when the sinks close;
a failure then fails the close, so the play still reports it. It needs every partition in one
process, the inline engine: a Spark task owns some partitions (``owned``: each topic's real
partitions, which its sinks see as 0, 1, ...).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tisink.codec.message import Record
from tisink.core.clock import TSO_LOGICAL_BITS
from tisink.eventsink.capabilities import acknowledged_ends
from tisink.eventsink.faults.errors import FaultDeliveryError, FaultSpecError
from tisink.eventsink.faults.partition_log import Added, PartitionLog
from tisink.eventsink.faults.report import InjectedFault
from tisink.eventsink.faults.spec import FaultPlan, FaultSpec
from tisink.eventsink.mq.producer import Mark, Producer

log = logging.getLogger(__name__)


@dataclass(slots=True)
class _Held:
    inner: Producer
    partition: int
    records: list[Record]
    added: list[Added]
    commit_ts: int


class _Partition:
    """A partition's log, its offsets as seen through this injector, and skew's queue."""

    def __init__(self, plan: FaultPlan, topic: str, partition: int, skewed: bool) -> None:
        self.log = PartitionLog(plan, topic, partition)
        self.lock = asyncio.Lock()
        self.next_offset = 0
        self.skewed = skewed
        self.held: deque[_Held] = deque()
        self.releasing: asyncio.Task[None] | None = None
        self.inner: Producer | None = None
        """The producer of the last batch (where ``flush`` sends what the log still holds)."""
        self.sink_partition = partition
        """The partition's number as that producer knows it (a Spark task's own numbering)."""


class FaultInjector:
    """Applies ``plan`` to every batch the MQ sinks send (through ``FaultyProducer``)."""

    def __init__(
        self, plan: FaultPlan, *, owned: Mapping[str, Sequence[int]] | None = None
    ) -> None:
        skew = plan.of("skew")
        if skew is not None and owned is not None:
            raise FaultSpecError(
                "fault 'skew' needs the inline engine (--engine inline): it holds one partition "
                "behind the others, and a Spark task writes only the partitions it owns"
            )
        self.plan = plan
        self._owned = owned
        self._skew: FaultSpec | None = skew
        self._states: dict[tuple[str, int], _Partition] = {}
        self._clock = 0
        """The newest commit ts delivered on a partition that is not held back."""
        self.injected: list[InjectedFault] = []
        self.error: FaultDeliveryError | None = None

    def _state(self, topic: str, partition: int) -> _Partition:
        state = self._states.get((topic, partition))
        if state is None:
            skew = self._skew
            skewed = skew is not None and skew.applies_to(topic, partition)
            state = self._states[topic, partition] = _Partition(self.plan, topic, partition, skewed)
        return state

    async def deliver(
        self,
        inner: Producer,
        topic: str,
        partition: int,
        records: Sequence[Record],
        marks: Sequence[Mark],
    ) -> None:
        """Send ``records`` to ``partition`` through ``inner`` with the faults due in them."""
        if self.error is not None:
            raise self.error
        real = partition if self._owned is None else self._owned[topic][partition]
        state = self._state(topic, real)
        async with state.lock:
            state.inner, state.sink_partition = inner, partition
            out, added = state.log.apply(records, marks)
            if state.skewed:
                state.held.append(_Held(inner, partition, out, added, state.log.last_ts))
                self._release(topic, real, state)
                return
            if out:
                await inner.send(topic, partition, out)
                self._record(inner, topic, real, state, out, added)
        if not state.skewed and state.log.last_ts > self._clock:
            self._clock = state.log.last_ts
            for (held_topic, held_partition), held in self._states.items():
                if held.skewed and held.held:
                    self._release(held_topic, held_partition, held)

    def _record(
        self,
        inner: Producer,
        topic: str,
        partition: int,
        state: _Partition,
        out: list[Record],
        added: list[Added],
    ) -> None:
        end = acknowledged_ends(inner).get((topic, partition))
        base = state.next_offset if end is None else end - len(out)
        state.next_offset = base + len(out)
        for kind, index, count, ts in added:
            first = base + index
            self.injected.append(
                InjectedFault(topic, partition, first, first + count - 1, kind, ts, count)
            )

    async def _drain(self, topic: str, partition: int, state: _Partition) -> None:
        """Send what the log still holds or lost (``split-table``, ``ts-regression``) when no
        WATERMARK or DDL came after it."""
        async with state.lock:
            out, added = state.log.drain()
            inner = state.inner
            if not out or inner is None:
                return
            if state.skewed:
                state.held.append(_Held(inner, state.sink_partition, out, added, state.log.last_ts))
                return
            try:
                await inner.send(topic, state.sink_partition, out)
            except Exception as err:
                self.error = FaultDeliveryError(
                    f"topic {topic!r} partition {partition}: delivering {len(out)} record(s) "
                    f"held back at the close failed: {err}"
                )
                log.error("%s", self.error)
                return
            self._record(inner, topic, partition, state, out, added)

    def _release(
        self, topic: str, partition: int, state: _Partition, *, force: bool = False
    ) -> None:
        """Start delivering the held batches that are due (all with ``force``)."""
        if state.releasing is not None and not state.releasing.done() and not force:
            return
        state.releasing = asyncio.get_running_loop().create_task(
            self._deliver_held(topic, partition, state, force)
        )

    async def _deliver_held(
        self, topic: str, partition: int, state: _Partition, force: bool
    ) -> None:
        assert self._skew is not None
        behind = self._skew.by_ms << TSO_LOGICAL_BITS
        while state.held and (force or state.held[0].commit_ts + behind <= self._clock):
            held = state.held.popleft()
            try:
                if held.records:
                    await held.inner.send(topic, held.partition, held.records)
            except Exception as err:
                self.error = FaultDeliveryError(
                    f"skew: topic {topic!r} partition {partition}: delivering "
                    f"{len(held.records)} held record(s) failed: {err}"
                )
                log.error("%s", self.error)
                state.held.clear()
                return
            first = state.next_offset
            self._record(held.inner, topic, partition, state, held.records, held.added)
            if held.records:
                self.injected.append(
                    InjectedFault(
                        topic,
                        partition,
                        first,
                        state.next_offset - 1,
                        "skew",
                        held.commit_ts,
                        len(held.records),
                    )
                )

    async def flush(self) -> None:
        """Deliver everything held (the sinks are closing); raise what a delivery hit."""
        for (topic, partition), state in list(self._states.items()):
            await self._drain(topic, partition, state)
        for (topic, partition), state in list(self._states.items()):
            if state.releasing is not None:
                await state.releasing
            if state.held:
                self._release(topic, partition, state, force=True)
                assert state.releasing is not None
                await state.releasing
        if self.error is not None:
            raise self.error
