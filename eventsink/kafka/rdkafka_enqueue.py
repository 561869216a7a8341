"""Handing a send's records to librdkafka, with delivery reports for its first and last only.

A report per record costs the sending thread a Python call and a Message object (key and
value copied) per record: a quarter of a replay's CPU. librdkafka reports a partition's records
in order, so the last record's report says the whole send is settled, and the first and last
offsets say how many offsets the send took: exactly one per record means every record is in
the log (a partition's log has no holes, so a record that failed would leave the run short).
A longer run (a batch written twice after a lost ack, or another producer's records in
between) is checked by reading it back (``readback.py``); a shorter one is records lost.

(``produce_batch`` was tried: building and parsing a dict per record costs more than it saves.)
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from itertools import islice

from confluent_kafka import KafkaError, KafkaException, Message
from confluent_kafka import Producer as ConfluentProducer

from tisink.codec.message import Record
from tisink.eventsink.kafka.errors import KafkaSinkError

FULL_QUEUE_WAIT_S = 0.005


class EndsReport:
    """The delivery reports of a send's first and last records (librdkafka's callback, from a
    ``poll`` on the event loop's thread)."""

    __slots__ = ("error", "first", "last", "waiting")

    def __init__(self, count: int) -> None:
        self.waiting = 1 if count == 1 else 2
        """Reports still to come."""
        self.first = -1
        self.last = -1
        self.error: KafkaError | None = None

    def __call__(self, error: KafkaError | None, message: Message) -> None:
        if error is not None:
            if self.error is None:
                self.error = error
        else:
            offset: int = message.offset()  # type: ignore[assignment]
            if self.first < 0 or offset < self.first:  # the first record's, whatever came first
                self.first = offset
            self.last = max(self.last, offset)
        self.waiting -= 1


async def enqueue(
    client: ConfluentProducer,
    topic: str,
    partition: int,
    records: Sequence[Record],
    report: EndsReport,
) -> None:
    """Queue ``records`` in order for (topic, partition), waiting while librdkafka's queue is
    full; only the first and the last carry ``report``."""
    start = 0
    while True:
        try:
            _produce(client.produce, topic, partition, records, start, report)
            return
        except _QueueFull as full:
            start = full.index  # the refused record goes again
            client.poll(0)  # reports free the queue's room
            await asyncio.sleep(FULL_QUEUE_WAIT_S)
        except KafkaException as err:
            raise KafkaSinkError(
                f"producing to topic {topic} partition {partition} failed: {err}"
            ) from err


class _QueueFull(Exception):
    def __init__(self, index: int) -> None:
        super().__init__(index)
        self.index = index


def _produce(
    produce: Callable[..., None],
    topic: str,
    partition: int,
    records: Sequence[Record],
    start: int,
    report: EndsReport,
) -> None:
    """Produce ``records[start:]``; _QueueFull with the index of the record refused. The
    records between the first and the last go without a callback, in a loop of their own (a
    quarter less CPU a record than choosing the callback each time)."""
    last = len(records) - 1
    index = start
    try:
        if index == 0:
            _produce_one(produce, topic, partition, records[0], report)
            index = 1
        for record in islice(records, index, last):
            if len(record) == 2:
                produce(topic, record[1], record[0], partition)
            else:
                produce(topic, record[1], record[0], partition, headers=list(record[2]))
            index += 1
        if index == last:
            _produce_one(produce, topic, partition, records[last], report)
    except BufferError as full:
        raise _QueueFull(index) from full


def _produce_one(
    produce: Callable[..., None], topic: str, partition: int, record: Record, report: EndsReport
) -> None:
    if len(record) == 2:
        produce(topic, record[1], record[0], partition, report)
    else:
        headers: list[tuple[str, str | bytes | None]] = list(record[2])
        produce(topic, record[1], record[0], partition, report, headers=headers)
