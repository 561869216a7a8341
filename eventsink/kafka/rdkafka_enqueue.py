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
from collections.abc import Sequence

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
    produce = client.produce
    last = len(records) - 1
    start = 0
    while True:
        index = start
        try:
            for index in range(start, last + 1):
                record = records[index]
                callback = report if index == 0 or index == last else None
                if len(record) == 2:
                    produce(topic, record[1], record[0], partition, callback)
                else:
                    headers: list[tuple[str, str | bytes | None]] = list(record[2])
                    produce(topic, record[1], record[0], partition, callback, headers=headers)
            return
        except BufferError:
            start = index  # the refused record goes again
            client.poll(0)  # reports free the queue's room
            await asyncio.sleep(FULL_QUEUE_WAIT_S)
        except KafkaException as err:
            raise KafkaSinkError(
                f"producing to topic {topic} partition {partition} failed: {err}"
            ) from err
