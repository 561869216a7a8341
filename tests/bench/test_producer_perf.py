"""Kafka's ProducerPerformance as the bench's anchor: its summary lines read back, its failures
in one line, and one real run whose records an independent reader finds."""

from __future__ import annotations

import re
import time
import uuid
from pathlib import Path

import pytest
from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from tisink.bench import producer_perf
from tisink.bench.kafka import kafka_group, tool_skipped
from tisink.bench.producer_perf import (
    NAME,
    PRODUCER_SETTINGS,
    PerfSummary,
    ProducerPerfError,
    ProducerPerfUnavailable,
    parse_summaries,
    parse_summary,
    producer_performance,
    tool_command,
)
from tisink.bench.rows import ten_column_txns

# Captured from a real run of Kafka 4.4.0's tool (the embedded broker, --num-records 51000
# --warmup-records 1000 --record-size 419 --reporting-interval 300, this module's settings):
# its notices, progress lines, the whole-run summary and the steady-state one, as printed.
REAL_OUTPUT = (
    "Warmup first 1000 records. Steady state results will print after the complete test "
    "summary.\n"
    "In steady state.\n"
    "1 records sent, 1.9 records/sec (0.00 MB/sec), 306.0 ms avg latency, 306.0 ms max "
    "latency.\n"
    "14180 records sent, 33443.4 records/sec (13.36 MB/sec), 383.3 ms avg latency, 811.0 ms "
    "max latency.\n"
    "12317 records sent, 35909.6 records/sec (14.35 MB/sec), 546.4 ms avg latency, 811.0 ms "
    "max latency.\n"
    "51000 records sent, 17051.153460 records/sec (6.81 MB/sec), 484.29 ms avg latency, "
    "1747.00 ms max latency, 467 ms 50th, 740 ms 95th, 806 ms 99th, 809 ms 99.9th.\n"
    "50000 steady state records sent, 32030.749520 records/sec (12.80 MB/sec), 483.48 ms avg "
    "latency, 811.00 ms max latency, 467 ms 50th, 740 ms 95th, 806 ms 99th, 809 ms 99.9th.\n"
)
# Captured from a real run of the 4.4.0 tool against a closed port (max.block.ms=1000): it
# exits 0, prints a summary of no records and a stack trace per record on stderr.
NOTHING_SENT = (
    "0 records sent, 0.000000 records/sec (0.00 MB/sec), NaN ms avg latency, 0.00 ms max "
    "latency, 0 ms 50th, 0 ms 95th, 0 ms 99th, 0 ms 99.9th.\n"
)
NOTHING_SENT_STDERR = (
    "[kafka-producer-network-thread | perf-producer-client] WARN "
    "org.apache.kafka.clients.NetworkClient - [Producer clientId=perf-producer-client] "
    "Connection to node -1 (/127.0.0.1:1) could not be established. Node may not be "
    "available.\n"
    "org.apache.kafka.common.errors.TimeoutException: Topic pp not present in metadata after "
    "1000 ms.\n"
)
# The 4.4.0 tool's answer to a missing required option (exit code 1), as printed.
USAGE_ERROR = "kafka-producer-perf-test: error: argument --throughput is required\n"


def test_the_summaries_of_a_real_run() -> None:
    whole, steady = parse_summaries(REAL_OUTPUT)
    assert whole == PerfSummary(51000, 17051.15346, 6.81, 484.29, 1747.0, 467, 740, 806, 809)
    assert steady == PerfSummary(
        50000, 32030.74952, 12.80, 483.48, 811.0, 467, 740, 806, 809, steady_state=True
    )
    assert parse_summary(REAL_OUTPUT) == whole
    assert parse_summary(REAL_OUTPUT, steady_state=True) == steady


def test_a_summary_of_no_records_reads_as_none_sent() -> None:
    summary = parse_summary(NOTHING_SENT)
    assert summary.records == 0 and summary.records_per_s == 0.0 and summary.p99_ms == 0


@pytest.mark.parametrize(
    "output",
    [
        "",
        USAGE_ERROR,
        # progress lines only: the tool died before its summary
        "14180 records sent, 33443.4 records/sec (13.36 MB/sec), 383.3 ms avg latency, 811.0 "
        "ms max latency.\n",
        # a summary cut short
        "2000 records sent, 1516.300227 records/sec (0.61 MB/sec), 84.97 ms avg latency, "
        "1128.00 ms max latency, 71 ms 50th\n",
    ],
)
def test_no_summary_is_one_clear_error(output: str) -> None:
    with pytest.raises(ProducerPerfError) as raised:
        parse_summary(output)
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith(f"{producer_perf.TOOL} printed no summary line")
    if output == USAGE_ERROR:
        assert message.endswith("argument --throughput is required")


def test_a_steady_state_summary_is_wanted_only_after_a_warm_up() -> None:
    with pytest.raises(ProducerPerfError, match=re.escape("'N steady state records sent, ...'")):
        parse_summary(NOTHING_SENT, steady_state=True)


def test_the_command_line() -> None:
    command = tool_command("java", Path("jars"), "127.0.0.1:9", "t", 2000, 419, warmup=500)
    assert command[0] == "java" and "-Xmx512M" in command
    assert command[command.index("-cp") + 1] == str(Path("jars", "*"))
    assert command[command.index("-cp") + 2] == "org.apache.kafka.tools.ProducerPerformance"
    options = command[command.index("-cp") + 3 :]
    assert options[: options.index("--command-property")] == [
        "--bootstrap-server",
        "127.0.0.1:9",
        "--topic",
        "t",
        "--num-records",
        "2500",
        "--warmup-records",
        "500",
        "--record-size",
        "419",
        "--throughput",
        "-1",
    ]
    properties = options[options.index("--command-property") + 1 :]
    assert properties == [f"{k}={v}" for k, v in PRODUCER_SETTINGS.items()]
    assert "acks=all" in properties and "enable.idempotence=false" in properties
    plain = tool_command("java", Path("jars"), "b:1", "t", 10, 1, {"linger.ms": "0"})
    assert "--warmup-records" not in plain and "linger.ms=0" in plain


def _fake_tool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stdout: str, stderr: str, code: int
) -> None:
    """A ``java`` that prints what the tool printed once, and exits with ``code``."""
    (tmp_path / "out").write_text(stdout)
    (tmp_path / "err").write_text(stderr)
    fake = tmp_path / "fake-jvm"
    fake.write_text(f'#!/bin/sh\ncat "{tmp_path}/out"\ncat "{tmp_path}/err" >&2\nexit {code}\n')
    fake.chmod(0o755)
    monkeypatch.setattr(producer_perf, "tool_runtime", lambda: (str(fake), tmp_path))


def test_records_left_unacknowledged_are_one_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_tool(tmp_path, monkeypatch, NOTHING_SENT, NOTHING_SENT_STDERR, 0)
    with pytest.raises(ProducerPerfError) as raised:
        producer_performance("127.0.0.1:1", "pp", 10, 10, warmup=0)
    assert str(raised.value) == (
        f"{producer_perf.TOOL} had 0 of 10 records acknowledged: "
        "org.apache.kafka.common.errors.TimeoutException: Topic pp not present in metadata "
        "after 1000 ms."
    )


def test_the_steady_state_must_count_every_measured_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_tool(tmp_path, monkeypatch, REAL_OUTPUT, "", 0)
    run = producer_performance("127.0.0.1:1", "pp", 50000, 419, warmup=1000)
    assert run.measured == run.steady and run.measured.records == 50000
    assert run.whole.records == 51000 and run.startup_s >= 0
    with pytest.raises(ProducerPerfError, match="had 51,000 of 50,001 records acknowledged"):
        producer_performance("127.0.0.1:1", "pp", 50000, 419, warmup=1)


def test_a_failed_tool_is_one_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_tool(tmp_path, monkeypatch, "", "usage: kafka-producer-perf-test\n" + USAGE_ERROR, 1)
    with pytest.raises(ProducerPerfError) as raised:
        producer_performance("127.0.0.1:1", "pp", 10, 10)
    assert str(raised.value) == (
        f"{producer_perf.TOOL} exited with code 1: "
        "kafka-producer-perf-test: error: argument --throughput is required"
    )


def test_without_java_the_tool_is_skipped_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "no-java"))
    with pytest.raises(ProducerPerfUnavailable, match="needs Java 17 or newer"):
        producer_performance("127.0.0.1:1", "pp", 10, 10)
    reason = tool_skipped(None, "apache")
    assert reason is not None and "\n" not in reason
    assert reason.startswith("skipped: the embedded Apache Kafka needs Java 17 or newer")


def test_against_tansu_the_tool_is_skipped_in_one_line() -> None:
    assert tool_skipped(None, "tansu") == (
        "skipped: runs against Apache Kafka only, and this run uses the embedded Tansu broker"
    )
    assert tool_skipped("h:1", "tansu") == (
        "skipped: runs against Apache Kafka only, and this run uses the Tansu broker at h:1"
    )


def _records_held(bootstrap: str, topic: str, partitions: int) -> list[bytes]:
    """Every value in ``topic``, read with confluent-kafka from the beginning of each partition
    until a second passes without one (not trusting the end offsets)."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"tisink-check-{uuid.uuid4().hex}",
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
        }
    )
    try:
        consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
        values: list[bytes] = []
        quiet_until = time.monotonic() + 10  # the first record may take a while
        while time.monotonic() < quiet_until:
            message = consumer.poll(0.2)
            if message is None:
                continue
            assert message.error() is None, message.error()
            values.append(message.value() or b"")
            quiet_until = time.monotonic() + 1.0
        return values
    finally:
        consumer.close()


def test_a_real_run_delivers_every_record(apache_kafka_bootstrap: str) -> None:
    """2,000 measured records after 500 of warm-up, into a topic of 3 partitions: the summaries
    count them, and an independent reader finds 2,500 values of the size asked for."""
    topic = f"perf-{uuid.uuid4().hex[:12]}"
    admin = AdminClient({"bootstrap.servers": apache_kafka_bootstrap})
    admin.create_topics([NewTopic(topic, num_partitions=3, replication_factor=1)])[topic].result(30)
    run = producer_performance(apache_kafka_bootstrap, topic, 2000, 100, warmup=500)
    assert run.measured.steady_state and run.measured.records == 2000
    assert run.whole.records == 2500 and run.measured.records_per_s > 0
    assert run.measured.p50_ms <= run.measured.p99_ms <= run.measured.max_ms
    assert run.startup_s > 0
    values = _records_held(apache_kafka_bootstrap, topic, 3)
    assert len(values) == 2500
    assert all(len(v) == 100 and v.isalpha() and v.isupper() for v in values)


def test_the_kafka_group_beside_its_three_anchors(apache_kafka_bootstrap: str) -> None:
    """The group against Apache Kafka: the sink's ratio to raw aiokafka, raw confluent-kafka
    and the tool, each measured."""
    results = kafka_group(apache_kafka_bootstrap, ten_column_txns(300), 1, "apache")
    assert [r.baseline for r in results] == [
        "raw aiokafka batch sends",
        "raw confluent-kafka produce",
        NAME,
    ]
    assert all(r.ratio and r.ratio > 0 and not r.error for r in results), results
    assert len({r.rows_per_s for r in results}) == 1
    assert "after 20,000 to warm up" in results[2].note and "JVM start-up" in results[2].note
    assert "(Apache Kafka)" in results[0].note
