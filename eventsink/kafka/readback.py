"""Reading a send's offsets back when they do not prove the send whole by themselves.

The librdkafka producer learns only the first and last offsets of a send. A run longer than
the send is normal after a retry (a batch whose ack was lost is written twice) or when another
producer writes the same partition; the records between must then be looked at: every record
of the send has to be there, in order (copies and other producers' records in between are
fine). This is the rare path, so it reads with a consumer of its own.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from confluent_kafka import Consumer, TopicPartition

from tisink.codec.message import Record
from tisink.eventsink.kafka.config import KafkaConfig
from tisink.eventsink.kafka.errors import KafkaSinkError
from tisink.eventsink.kafka.reader import DebugLogger, consumer_settings

_BATCH = 1000


def records_held(
    config: KafkaConfig,
    topic: str,
    partition: int,
    first: int,
    last: int,
    records: Sequence[Record],
    logger: DebugLogger,
) -> int:
    """How many of ``records``, in order from the first, offsets ``first`` to ``last`` of the
    partition hold (blocking: run it in a thread). It stops at ``last``, not at the high
    watermark: Tansu moves that by one per record batch."""
    consumer = Consumer(
        consumer_settings(config)
        | {
            "group.id": "tisink-readback",
            "enable.auto.commit": False,
            "logger": logger,
        }
    )
    deadline = time.monotonic() + config.request_timeout_s
    matched = 0
    try:
        consumer.assign([TopicPartition(topic, partition, first)])
        while matched < len(records) and time.monotonic() < deadline:
            for message in consumer.consume(_BATCH, 0.5):
                error = message.error()
                if error is not None:
                    raise KafkaSinkError(
                        f"reading back topic {topic} partition {partition}: {error.str()}"
                    )
                record = records[matched]
                if message.key() == record[0] and message.value() == record[1]:
                    matched += 1
                if matched == len(records) or (message.offset() or 0) >= last:
                    return matched
    finally:
        consumer.close()
    return matched
