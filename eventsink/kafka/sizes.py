"""The size check both Kafka producers make before sending, as sarama refuses a record over
MaxMessageBytes before sending (the sinks add which table it belongs to)."""

from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter

from tisink.codec.message import Record
from tisink.core.framing import RECORD_OVERHEAD
from tisink.eventsink.kafka.errors import KafkaMessageTooLargeError
from tisink.eventsink.mq.producer import SizedRecords

_key, _value = itemgetter(0), itemgetter(1)


def check_sizes(
    records: Sequence[Record], max_message_bytes: int, topic: str, partition: int
) -> None:
    """Raise KafkaMessageTooLargeError naming the first record over ``max_message_bytes``."""
    limit = max_message_bytes - RECORD_OVERHEAD
    if isinstance(records, SizedRecords) and records.largest <= limit:
        return
    longest_value = max(map(len, filter(None, map(_value, records))), default=0)  # None: tombstone
    longest_key = max(map(len, filter(None, map(_key, records))), default=0)
    if longest_value + longest_key <= limit:
        return
    for index, record in enumerate(records):
        key, value = record[0], record[1]
        size = (len(value) if value else 0) + (len(key) if key else 0)
        if size > limit:
            raise KafkaMessageTooLargeError(
                f"record {index + 1} of {len(records)} is {size + RECORD_OVERHEAD} bytes, "
                f"over max-message-bytes {max_message_bytes}, for topic {topic} "
                f"partition {partition}"
            )
