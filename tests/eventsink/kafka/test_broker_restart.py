"""Acknowledged means stored: an embedded broker (memory only) restarted in the middle of a
``tisink play`` comes back empty; the play must fail, naming the topic and partition whose
acknowledged messages are gone, and never exit 0."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from typing import Any

from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

from tisink.run.broker import start_broker


def _wait_for_records(bootstrap: str, topic: str, count: int, timeout: float = 60.0) -> None:
    """Return as soon as partition 0 of ``topic`` holds ``count`` records (read with
    confluent-kafka, not the producer's library)."""
    consumer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": "restart-probe", "enable.auto.commit": False}
    )
    try:
        deadline = time.monotonic() + timeout
        while True:
            if time.monotonic() > deadline:
                raise AssertionError(f"{topic}[0] did not reach {count} records in {timeout}s")
            try:
                consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
            except Exception:
                time.sleep(0.1)
                continue
            seen = 0
            while (message := consumer.poll(0.5)) is not None:
                if message.error() is None:
                    seen += 1
                if seen >= count:
                    return
    finally:
        consumer.close()


def test_a_play_fails_when_the_broker_loses_acknowledged_messages(kafka_client: str) -> None:
    broker = start_broker()
    port = broker.port
    play = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from tisink.cli import main; main()",
            "play",
            "--engine",
            "inline",
            "--workload",
            "demo",
            "--rows",
            "20000",
            "--rate",
            "4000",
            "--no-verify",
            "--sink-uri",
            f"kafka://127.0.0.1:{port}/lost?partition-num=3&protocol=simple"
            f"&kafka-client={kafka_client}",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        # rows are flowing (an independent client sees them) in a 5 s rate-limited play
        _wait_for_records(f"127.0.0.1:{port}", "lost", 200)
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
