"""The Kafka reader: librdkafka settings from the sink URI, timeouts, unreachable brokers."""

from __future__ import annotations

import time

import pytest
from confluent_kafka import Producer

from tests.kafka_support.readback import create_topic, unique_topic
from tisink.eventsink.kafka import reader as kafka_source
from tisink.eventsink.kafka.config import KafkaConfig
from tisink.eventsink.kafka.reader import KafkaRecordReader, consumer_settings
from tisink.run.broker import free_port
from tisink.verify import VerifyError, verify


def _config(**params: str) -> KafkaConfig:
    return KafkaConfig.from_sink_params("h1:9092,h2:9092", "t", params)


def test_plain_settings_name_the_brokers_only() -> None:
    assert consumer_settings(_config()) == {"bootstrap.servers": "h1:9092,h2:9092"}


def test_tls_and_sasl_settings_follow_the_sink_uri() -> None:
    tls = consumer_settings(_config(ca="/ca.pem", **{"insecure-skip-verify": "true"}))
    assert tls["security.protocol"] == "SSL"
    assert tls["ssl.ca.location"] == "/ca.pem"
    assert tls["enable.ssl.certificate.verification"] is False
    assert "ssl.certificate.location" not in tls
    sasl = consumer_settings(
        _config(**{"sasl-mechanism": "scram-sha-256", "sasl-user": "u", "sasl-password": "p"})
    )
    assert sasl["security.protocol"] == "SASL_PLAINTEXT"
    assert (sasl["sasl.mechanisms"], sasl["sasl.username"], sasl["sasl.password"]) == (
        "SCRAM-SHA-256",
        "u",
        "p",
    )
    both = consumer_settings(_config(**{"enable-tls": "true", "sasl-mechanism": "PLAIN"}))
    assert both["security.protocol"] == "SASL_SSL"


def test_partitions_not_read_in_time_are_reported_unfinished(kafka_bootstrap: str) -> None:
    topic = unique_topic("verify-slow")
    create_topic(kafka_bootstrap, topic, 2)
    producer = Producer({"bootstrap.servers": kafka_bootstrap})
    producer.produce(topic, value=b"{}", partition=1)
    assert producer.flush(15) == 0
    seen: list[tuple[str, int, int]] = []
    with KafkaRecordReader({"bootstrap.servers": kafka_bootstrap}, timeout_s=0) as reader:
        unfinished = reader.read([topic], lambda t, p, o, *_rest: seen.append((t, p, o)))
    assert seen == []
    # partition 0 was empty at start, so only partition 1 is owed
    assert unfinished == [
        f"{topic}[1]: nothing read, end at start >= offset 1; nothing more came in 0s"
    ]
    with KafkaRecordReader({"bootstrap.servers": kafka_bootstrap}, timeout_s=15) as reader:
        assert reader.read([topic], lambda t, p, o, *_rest: seen.append((t, p, o))) == []
    assert seen == [(topic, 1, 0)]


def test_a_stream_that_keeps_coming_is_read_past_the_timeout(
    kafka_bootstrap: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The timeout counts from the last record: reading one record per poll, each taking
    0.05 s, 40 records take 2 s against a 0.5 s timeout and are all read."""
    topic = unique_topic("verify-long")
    create_topic(kafka_bootstrap, topic, 1)
    producer = Producer({"bootstrap.servers": kafka_bootstrap})
    for n in range(40):
        producer.produce(topic, value=b"%d" % n, partition=0)
    assert producer.flush(15) == 0
    monkeypatch.setattr(kafka_source, "_BATCH", 1)
    seen: list[int] = []

    def slow(_topic: str, _partition: int, offset: int, *_rest: object) -> None:
        time.sleep(0.05)
        seen.append(offset)

    with KafkaRecordReader({"bootstrap.servers": kafka_bootstrap}, timeout_s=0.5) as reader:
        assert reader.read([topic], slow) == []
    assert seen == list(range(40))


def test_an_unreachable_broker_is_an_error() -> None:
    port = free_port()
    uri = f"kafka://127.0.0.1:{port}/t?protocol=simple&read-timeout=1s"
    with pytest.raises(VerifyError, match=f"cannot reach Kafka at 127.0.0.1:{port}: tried for"):
        verify(uri, timeout_s=1)


def test_verify_against_a_dead_kafka_says_so_in_a_few_lines() -> None:
    """librdkafka's repeated connection failures stay out of the output; the one error that
    names the servers is what the user reads."""
    import subprocess
    import sys

    port = free_port()
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from tisink.cli import main; main()",
            "verify",
            "--sink-uri",
            f"kafka://127.0.0.1:{port}/t?protocol=simple",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 2, output
    assert f"cannot reach Kafka at 127.0.0.1:{port}: tried for" in " ".join(output.split()), output
    assert "rdkafka" not in output and len(output.splitlines()) <= 5, output
