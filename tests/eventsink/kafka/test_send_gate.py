"""The checks both Kafka producers make before a send."""

from __future__ import annotations

import pytest

from tisink.eventsink.kafka.errors import KafkaMessageTooLargeError, KafkaSinkError
from tisink.eventsink.kafka.send_gate import SendGate


def test_a_closed_producer_refuses_a_send_naming_topic_and_partition() -> None:
    gate = SendGate()
    gate.check("t", 1, [(None, b"v")], 1000)
    gate.closed = True
    with pytest.raises(KafkaSinkError, match="producer closed; cannot send to topic t partition 1"):
        gate.check("t", 1, [(None, b"v")], 1000)


def test_a_record_over_the_limit_is_refused() -> None:
    with pytest.raises(KafkaMessageTooLargeError, match="record 2 of 2"):
        SendGate().check("t", 0, [(None, b"v"), (b"k", b"x" * 2000)], 1000)


def test_a_partition_the_topic_lacks_is_refused_and_each_partition_has_one_lock() -> None:
    gate = SendGate()
    with pytest.raises(KafkaSinkError, match="topic t has 3 partitions; partition 3 does not"):
        gate.lock("t", 3, 3)
    with pytest.raises(KafkaSinkError, match="partition -1 does not exist"):
        gate.lock("t", -1, 3)
    assert gate.lock("t", 2, 3) is gate.lock("t", 2, 3)
    assert gate.lock("t", 1, 3) is not gate.lock("t", 2, 3)
    assert gate.lock("u", 1, 3) is not gate.lock("t", 1, 3)
