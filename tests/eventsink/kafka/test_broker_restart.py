"""A broker restarted in the middle of a ``tisink play``.

* Apache Kafka, killed (SIGKILL, a crash) and started again on the same ports and log dir, still
  holds what it acknowledged: the play rides out the outage and exits 0, and a consumer reading
  the topic with confluent-kafka (``examples/consumers/simple_consumer.py``) builds exactly the
  tables the workload implies (``tisink check``).
* The embedded Tansu keeps everything in memory, so a restarted one comes back empty: the play
  must fail, naming the topic and partition whose acknowledged messages are gone, and never
  exit 0. Only a broker that loses data can test that the sink notices.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition
from confluent_kafka.admin import AdminClient
from typer.testing import CliRunner

from tests.kafka_support.readback import unique_topic
from tisink.cli import app
from tisink.play.run import PlaySpec, run_play
from tisink.run.apache_kafka import start_apache_kafka
from tisink.run.broker import start_broker

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "consumers"
ROWS = 12_000
RATE = 3000
PARTITIONS = 3


def _wait_for_records(
    bootstrap: str, topic: str, count: int, play: subprocess.Popen[str], timeout: float = 60.0
) -> None:
    """Return as soon as partition 0 of ``topic`` holds ``count`` records (read with
    confluent-kafka, not the producer's library), while ``play`` runs. A fresh consumer per
    attempt, assigned once the topic is in the metadata: one assigned before the play created
    the topic may not see it for minutes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert play.poll() is None, play.communicate()[0]
        topics = AdminClient({"bootstrap.servers": bootstrap}).list_topics(timeout=5).topics
        if topic not in topics or 0 not in topics[topic].partitions:
            time.sleep(0.1)
            continue
        consumer = Consumer(
            {
                "bootstrap.servers": bootstrap,
                "group.id": f"restart-probe-{uuid.uuid4().hex}",
                "enable.auto.commit": False,
            }
        )
        try:
            consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
            seen = 0
            while (message := consumer.poll(1.0)) is not None:
                seen += message.error() is None
                if seen >= count:
                    return
        finally:
            consumer.close()
    raise AssertionError(f"{topic}[0] did not reach {count} records in {timeout}s")


def _play(sink_uri: str, *args: str) -> subprocess.Popen[str]:
    """``tisink play`` of the demo workload, rate limited so that a restart falls inside it."""
    return subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from tisink.cli import main; main()",
            "play",
            *("--engine", "inline", "--workload", "demo"),
            *("--rows", str(ROWS), "--rate", str(RATE)),
            *args,
            *("--sink-uri", sink_uri),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


@pytest.fixture(scope="module")
def expected_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The demo workload applied by tisink's own SQL sink: the state the feed implies."""
    path = tmp_path_factory.mktemp("expected") / "expected.db"
    uri = f"sqlite:///{path}"
    run_play(PlaySpec(workload="demo", rows=ROWS, sink_uri=uri, engine="inline"))
    return uri


class Restartable:
    """One Apache Kafka node for the module, crashed and started again on its ports and log
    dir by each test (one JVM start per test, besides the first)."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.first = start_apache_kafka(workdir=workdir)
        self.current = self.first

    @property
    def bootstrap(self) -> str:
        return self.first.bootstrap

    def crash(self) -> None:
        """SIGKILL: no controlled shutdown, no flush."""
        self.current.process.kill()
        self.current.process.wait()

    def restart(self) -> None:
        self.current = start_apache_kafka(
            self.first.port,
            controller_port=self.first.controller_port,
            log_dir=self.first.data_dir,
            workdir=self.workdir,
        )

    def stop(self) -> None:
        self.current.stop()
        self.first.stop()  # its work dir holds the log dir


@pytest.fixture(scope="module")
def restartable(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Restartable]:
    broker = Restartable(tmp_path_factory.mktemp("kafka"))
    try:
        yield broker
    finally:
        broker.stop()


@pytest.mark.spark  # starts Apache Kafka (a JVM) again
@pytest.mark.kafka
@pytest.mark.timeout(420)
def test_a_play_rides_out_a_crash_of_apache_kafka_restarted_on_its_data(
    kafka_client: str, expected_db: str, restartable: Restartable, tmp_path: Path
) -> None:
    topic = unique_topic("restart")
    source = f"kafka://{restartable.bootstrap}/{topic}"
    summary_json = tmp_path / "summary.json"
    play = _play(
        f"{source}?partition-num={PARTITIONS}&protocol=simple&kafka-client={kafka_client}"
        "&required-acks=-1",
        *("--summary-json", str(summary_json)),
    )
    try:
        _wait_for_records(restartable.bootstrap, topic, 200, play)
        restartable.crash()
        assert play.poll() is None, play.communicate()[0]  # the play was cut off mid-stream
        restartable.restart()
        output, _ = play.communicate(timeout=240)
        assert play.returncode == 0, output
        summary = orjson.loads(summary_json.read_bytes())
        assert summary["rows"] == ROWS and summary["verified"] is True, summary
        database = tmp_path / "consumer.db"
        subprocess.run(
            [sys.executable, str(EXAMPLES / "simple_consumer.py"), source, str(database)],
            cwd=EXAMPLES,
            check=True,
            timeout=300,
        )
    finally:
        if play.poll() is None:
            play.kill()
            play.wait()
    result = CliRunner().invoke(
        app, ["check", "--expected", expected_db, "--actual", f"sqlite:///{database}"]
    )
    assert result.exit_code == 0, result.output
    assert "EQUAL: 4 tables" in result.output


def test_a_play_fails_when_the_broker_loses_acknowledged_messages(kafka_client: str) -> None:
    broker = start_broker()
    port = broker.port
    play = _play(
        f"kafka://127.0.0.1:{port}/lost?partition-num=3&protocol=simple"
        f"&kafka-client={kafka_client}",
        "--no-verify",
    )
    try:
        # rows are flowing (an independent client sees them) in a 4 s rate-limited play
        _wait_for_records(f"127.0.0.1:{port}", "lost", 200, play)
        assert play.poll() is None, play.communicate()[0]
        broker.process.kill()  # a crash: Tansu drains its connections on SIGTERM
        broker.process.wait()
        broker.stop()
        broker = start_broker(port, startup_timeout=15)
        output, _ = play.communicate(timeout=120)
    finally:
        if play.poll() is None:
            play.kill()
        broker.stop()
    assert play.returncode not in (0, None), output
    assert "lost" in output and "topic lost partition" in output, output
    assert "acknowledged" in output, output
    assert "play failed" in output, output
    # the client's retries while the broker was away: each kind of line once, not a flood
    client_lines = [
        (line["logger"], line["event"])
        for line in map(_json_line, output.splitlines())
        if line is not None and str(line.get("logger", "")).startswith("aiokafka")
    ]
    assert len(client_lines) == len(set(client_lines)), output
    # how far it got: the summary's last checkpoint, a TSO
    assert re.search(r"checkpoint_ts\s*│\s*\d{18}", output), output


def _json_line(text: str) -> dict[str, Any] | None:
    """A structured log line of the play's output, or None for any other line."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
