"""``tisink replay`` and ``tisink capture`` at the command line: a topic is not replayed into
itself (refused, exit 2) and a pass stops at the end its source had when it started; a replay
whose broker dies writes its summary and one error line, not the client's retry log; a capture
short of --end-offset says where it stopped. Where the claim is where a source ends, the topic
is on Apache Kafka, whose end offsets are what any consumer sees."""

from __future__ import annotations

import dataclasses
import gc
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition
from typer.testing import CliRunner

from tests.kafka_support.readback import create_topic, read_partition, unique_topic
from tisink.cli import app
from tisink.eventsink.kafka import KafkaConfig
from tisink.replay.records import ReplayRecord, record_line
from tisink.replay.run import ReplayOptions, run_replay
from tisink.run.broker import EmbeddedBroker, start_broker
from tisink.run.summary import RunSummary


@pytest.mark.parametrize(
    ("source", "target"),
    [
        ("kafka://127.0.0.1:1/loop1", "kafka://127.0.0.1:1/loop1?partition-num=3"),
        ("kafka://Broker.Example:9092/loop1", "kafka://broker.example/loop1"),
        ("kafka://a.example:1,b.example:2/loop1", "kafka://b.example:2,c.example:3/loop1"),
    ],
)
def test_a_topic_replayed_into_itself_is_refused(source: str, target: str) -> None:
    result = CliRunner().invoke(app, ["replay", source, "--sink-uri", target])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("replay refused:"), result.output
    assert "topic loop1" in lines[0] and "is the source" in lines[0]


def _count(bootstrap: str, topic: str, partitions: int) -> int:
    return sum(len(read_partition(bootstrap, topic, p, 0, timeout=10)) for p in range(partitions))


def test_a_pass_stops_at_the_end_its_source_had_when_it_started(
    apache_kafka_bootstrap: str,
) -> None:
    """The same broker named another way (localhost for 127.0.0.1) is not known to be the
    source, so the replay must stop by itself: every pass at the end each partition had when
    the replay started."""
    kafka_bootstrap = apache_kafka_bootstrap
    host, port = kafka_bootstrap.rsplit(":", 1)
    if host != "127.0.0.1":
        pytest.skip("needs the embedded broker on 127.0.0.1, which localhost also reaches")
    topic = unique_topic("loop")
    create_topic(kafka_bootstrap, topic, 2)
    producer = Producer({"bootstrap.servers": kafka_bootstrap})
    for i in range(300):
        producer.produce(topic, value=b"v%d" % i, partition=i % 2)
    assert producer.flush(30) == 0
    done: list[RunSummary] = []
    options = ReplayOptions(
        source=f"kafka://{kafka_bootstrap}/{topic}",
        sink_uri=f"kafka://localhost:{port}/{topic}",
        timeout_s=10,
        loops=2,
    )
    replay = threading.Thread(target=lambda: done.append(run_replay(options)), daemon=True)
    replay.start()
    replay.join(90)
    assert not replay.is_alive(), "the replay of a topic into itself did not stop"
    assert done and done[0].rows == 600  # each pass the 300 records there at the start
    assert _count(kafka_bootstrap, topic, 2) == 900


def _write_folder(folder: Path, partitions: int, records: int) -> None:
    (folder / "t").mkdir(parents=True)
    for p in range(partitions):
        lines = (record_line(ReplayRecord(i, None, b"v" * 100, (), None)) for i in range(records))
        (folder / "t" / f"partition-{p}.jsonl").write_bytes(b"".join(lines))


def _wait_for_records(bootstrap: str, topic: str, count: int, timeout: float = 60.0) -> None:
    """Return once partition 0 of ``topic`` holds ``count`` records (read with librdkafka)."""
    consumer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": "replay-probe", "enable.auto.commit": False}
    )
    try:
        deadline = time.monotonic() + timeout
        seen = 0
        assigned = False
        while seen < count:
            assert time.monotonic() < deadline, f"{topic} did not reach {count} records"
            if not assigned:
                try:
                    consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
                    assigned = True
                except Exception:
                    time.sleep(0.1)
                continue
            message = consumer.poll(0.5)
            if message is not None and message.error() is None:
                seen += 1
    finally:
        consumer.close()


@pytest.fixture
def doomed_broker() -> Iterator[EmbeddedBroker]:
    broker = start_broker()
    try:
        yield broker
    finally:
        broker.stop()


@pytest.fixture
def short_send_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sends give up after 3 s instead of a minute, so a lost broker fails the replay soon."""
    target = KafkaConfig.for_target

    def for_target(self: KafkaConfig, *args: object, **kwargs: object) -> KafkaConfig:
        return dataclasses.replace(target(self, *args, **kwargs), send_retry_timeout_s=3.0)  # type: ignore[arg-type]

    monkeypatch.setattr(KafkaConfig, "for_target", for_target)


@pytest.mark.parametrize("client", ["aiokafka", "librdkafka"])
def test_a_replay_whose_broker_dies_writes_its_summary_and_one_error_line(
    doomed_broker: EmbeddedBroker,
    short_send_retries: None,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    client: str,
) -> None:
    _write_folder(tmp_path / "cap", 2, 20_000)
    topic = unique_topic("doomed")
    uri = f"kafka://{doomed_broker.bootstrap}/{topic}?partition-num=2&kafka-client={client}"

    def kill_when_flowing() -> None:
        _wait_for_records(doomed_broker.bootstrap, topic, 500)
        doomed_broker.process.kill()

    killer = threading.Thread(target=kill_when_flowing, daemon=True)
    killer.start()
    summary_json = tmp_path / "summary.json"
    args = [str(tmp_path / "cap"), "--sink-uri", uri, "--rate", "4000"]
    result = CliRunner().invoke(app, ["replay", *args, "--summary-json", str(summary_json)])
    killer.join(10)
    gc.collect()  # an abandoned future reports its unread failure when it is collected
    output = result.output
    assert result.exit_code == 1, output
    failed = [line for line in output.splitlines() if "replay failed" in line]
    assert len(failed) == 1, output
    summary = json.loads(summary_json.read_text())
    assert 500 <= summary["rows"] < 40_000 and summary["error"], summary
    assert f"{summary['rows']} rows acknowledged" in output.replace(",", ""), output
    client_lines = [line for line in output.splitlines() if '"logger": "aiokafka' in line]
    assert len(client_lines) <= 5, output
    assert "never retrieved" not in output + caplog.text


def test_a_capture_short_of_its_end_offset_says_so(
    apache_kafka_bootstrap: str, tmp_path: Path
) -> None:
    kafka_bootstrap = apache_kafka_bootstrap
    topic = unique_topic("short")
    create_topic(kafka_bootstrap, topic, 2)
    producer = Producer({"bootstrap.servers": kafka_bootstrap})
    for i in range(300):
        producer.produce(topic, value=b"v%d" % i, partition=0 if i < 200 else 1)
    assert producer.flush(30) == 0
    source = f"kafka://{kafka_bootstrap}/{topic}"
    args = ["capture", "--from", source, "--timeout", "10"]
    result = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "a"), "--end-offset", "100"])
    assert result.exit_code == 0, result.output
    assert "stopped short" not in result.output  # partition 1 ends at 100 exactly
    result = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "b"), "--end-offset", "5000"])
    assert result.exit_code == 0, result.output
    line = " ".join(result.output.split())
    assert (
        f"capture stopped short of --end-offset 5000: topic {topic} partition 0 ended at "
        "offset 200, partition 1 ended at offset 100 when the capture started" in line
    ), result.output
