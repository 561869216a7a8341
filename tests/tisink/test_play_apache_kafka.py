"""Plays into a real Apache Kafka (``apache_kafka_bootstrap``): every protocol's stream ends
where the broker says it ends, and idempotent producers play and verify.

A consumer that stops at the end offsets (Flink's bounded ``latest-offset``, Spark's
``endingOffsets``) is only tested honestly against a broker whose end offsets count records;
the embedded Tansu counts batches (README). Each partition is read with confluent-kafka until
quiet, independently of the end offset, and the two must agree. Pointed at Tansu
(``TISINK_APACHE_KAFKA_BOOTSTRAP``), the canal-json play's ends disagree (a partition holding
1,018 records had an end offset of 892) and aiokafka's idempotent producer cannot start: both
fail, as they must.
"""

from __future__ import annotations

import uuid

import pytest
from confluent_kafka import Consumer, TopicPartition

from tests.kafka_support.readback import read_partition
from tisink.codec.registry import get_protocol, protocols
from tisink.play.run import PlaySpec, run_play

PARTITIONS = 3
ROWS = 3000

CASES = [
    (name, fmt)
    for name, spec in protocols().items()
    if spec.new_decoder is not None  # every protocol tisink verifies (csv is storage-only)
    for fmt in spec.encoding_formats
]


def _end_offsets(bootstrap: str, topic: str) -> list[tuple[int, int]]:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": uuid.uuid4().hex})
    try:
        return [
            consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)
            for p in range(PARTITIONS)
        ]
    finally:
        consumer.close()


def _play_and_check_ends(bootstrap: str, topic: str, params: str) -> None:
    uri = f"kafka://{bootstrap}/{topic}?partition-num={PARTITIONS}&{params}"
    summary = run_play(PlaySpec(workload="demo", seed=3, rows=ROWS, sink_uri=uri, engine="inline"))
    assert summary.verified is True
    ends = _end_offsets(bootstrap, topic)
    held = [len(read_partition(bootstrap, topic, p, 1)) for p in range(PARTITIONS)]
    assert ends == [(0, n) for n in held]
    assert sum(held) == sum(summary.messages.values()) > 0  # what the sink says it wrote


@pytest.mark.parametrize(("protocol", "fmt"), CASES)
def test_each_protocols_end_offsets_are_the_records_held(
    apache_kafka_bootstrap: str, protocol: str, fmt: str, request: pytest.FixtureRequest
) -> None:
    topic = f"ends-{protocol}-{fmt}-{uuid.uuid4().hex[:8]}"
    params = f"protocol={protocol}&encoding-format={fmt}&kafka-client=librdkafka"
    if "schema-registry" in get_protocol(protocol).required_options:  # avro: a real registry
        params += f"&schema-registry={request.getfixturevalue('schema_registry_url')}"
    _play_and_check_ends(apache_kafka_bootstrap, topic, params)


@pytest.mark.parametrize("client", ["aiokafka", "librdkafka"])
def test_an_idempotent_producer_plays_and_verifies(
    apache_kafka_bootstrap: str, client: str
) -> None:
    topic = f"idempotent-{client}-{uuid.uuid4().hex[:8]}"
    params = f"protocol=simple&kafka-client={client}&enable-idempotence=true&required-acks=-1"
    _play_and_check_ends(apache_kafka_bootstrap, topic, params)
