"""The injector over a producer: offsets of the faults it lists, skew held and released in
order, and a failed late delivery that fails the close."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from tisink.codec.message import MessageType, Record
from tisink.eventsink.faults import FaultInjector, FaultyProducer, parse_faults
from tisink.eventsink.faults.errors import FaultDeliveryError, FaultSpecError
from tisink.eventsink.mq.producer import Mark

T = MessageType


def _ts(ms: int) -> int:
    return (1_700_000_000_000 + ms) << 18


class Partitions:
    """An in-memory destination that numbers records per partition, as a broker does."""

    def __init__(self, fail_on: bytes | None = None) -> None:
        self.logs: dict[tuple[str, int], list[Record]] = {}
        self.fail_on = fail_on
        self.closed = False

    async def partition_count(self, topic: str) -> int:
        return 2

    async def send(self, topic: str, partition: int, records: Sequence[Record]) -> None:
        if self.fail_on is not None and any(r[1] == self.fail_on for r in records):
            raise OSError("disk full")
        self.logs.setdefault((topic, partition), []).extend(records)

    def acknowledged_offsets(self) -> dict[tuple[str, int], int]:
        return {key: len(log) for key, log in self.logs.items()}

    async def close(self) -> None:
        self.closed = True


def _dml(ms: int, value: bytes) -> tuple[list[Record], list[Mark]]:
    return [(b"k", value)], [Mark(T.DML, "s.a", _ts(ms), 1)]


async def test_listed_offsets_hold_the_copies() -> None:
    inner = Partitions()
    producer = FaultyProducer(inner, FaultInjector(parse_faults("producer-retry:p=1")))
    await producer.send_marked("t", 1, *_dml(10, b"a"))
    await producer.send_marked("t", 1, *_dml(20, b"b"))
    faults = producer.injector.injected
    assert [(f.partition, f.first_offset, f.last_offset, f.kind) for f in faults] == [
        (1, 1, 1, "producer-retry"),
        (1, 3, 3, "producer-retry"),
    ]
    log = inner.logs["t", 1]
    assert [log[f.first_offset][1] for f in faults] == [b"a", b"b"]


async def test_skew_holds_a_partition_until_the_others_are_ahead() -> None:
    inner = Partitions()
    producer = FaultyProducer(inner, FaultInjector(parse_faults("skew:by=2s,partition=0")))
    await producer.send_marked("t", 0, *_dml(100, b"held-1"))
    await producer.send_marked("t", 0, *_dml(200, b"held-2"))
    assert ("t", 0) not in inner.logs  # acknowledged to the sink, not yet delivered
    await producer.send_marked("t", 1, *_dml(1500, b"other"))
    assert ("t", 0) not in inner.logs
    await producer.send_marked("t", 1, *_dml(2150, b"later"))
    # the release runs as a task: let it deliver what is due (held-1 only: 100 + 2000 <= 2150)
    for _ in range(5):
        await _yield()
    assert inner.logs["t", 0] == [(b"k", b"held-1")]
    await producer.close()
    assert inner.logs["t", 0] == [(b"k", b"held-1"), (b"k", b"held-2")]
    assert [(f.kind, f.first_offset, f.last_offset) for f in producer.injector.injected] == [
        ("skew", 0, 0),
        ("skew", 1, 1),
    ]
    assert inner.closed


async def test_a_held_batch_that_fails_fails_the_close() -> None:
    inner = Partitions(fail_on=b"held")
    producer = FaultyProducer(inner, FaultInjector(parse_faults("skew:by=1s")))
    await producer.send_marked("t", 0, *_dml(100, b"held"))
    with pytest.raises(FaultDeliveryError, match=r"partition 0.*disk full"):
        await producer.close()
    assert inner.closed


def test_skew_is_refused_for_a_single_partition_owner() -> None:
    with pytest.raises(FaultSpecError, match="inline engine"):
        FaultInjector(parse_faults("skew"), owned={"t": (3,)})


async def test_an_owner_names_its_real_partition() -> None:
    inner = Partitions()
    producer = FaultyProducer(
        inner, FaultInjector(parse_faults("producer-retry:p=1"), owned={"t": (4, 5)})
    )
    await producer.send_marked("t", 1, *_dml(10, b"a"))
    assert [f.partition for f in producer.injector.injected] == [5]


async def _yield() -> None:
    await asyncio.sleep(0)
