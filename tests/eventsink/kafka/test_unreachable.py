"""A Kafka that does not answer, told the same way by play (aiokafka), verify and capture
(librdkafka): one line naming the addresses, what each said and for how long they were tried;
no library repr and no log line of the client's own."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

import pytest
from confluent_kafka import KafkaError
from typer.testing import CliRunner

from tisink.cli import app
from tisink.eventsink.kafka.config import KafkaConfig
from tisink.eventsink.kafka.errors import KafkaUnreachableError
from tisink.eventsink.kafka.topic_manager import KafkaTopicManager
from tisink.eventsink.kafka.unreachable import ConnectionFailures
from tisink.run.broker import free_port


def _one_line(output: str, said: str) -> str:
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(said), output
    return lines[0]


def _assert_plain(line: str, port: int, setting: str, took: float) -> None:
    assert f"cannot reach Kafka at 127.0.0.1:{port}: tried for " in line
    assert f"(the sink URI's {setting}); 127.0.0.1:{port}: Connection refused" in line
    stated = float(line.split("tried for ")[1].split("s ")[0])
    assert 0.9 <= stated <= took
    assert "KafkaError{" not in line and "_TRANSPORT" not in line


def test_verify_names_the_address_what_it_said_and_how_long() -> None:
    port = free_port()
    began = time.monotonic()
    result = CliRunner().invoke(
        app, ["verify", "--sink-uri", f"kafka://127.0.0.1:{port}/t?read-timeout=1s"]
    )
    took = time.monotonic() - began
    assert result.exit_code == 2, result.output
    _assert_plain(_one_line(result.output, "verify failed: "), port, "read-timeout", took)


def test_capture_names_the_address_what_it_said_and_how_long(tmp_path: Path) -> None:
    port = free_port()
    began = time.monotonic()
    result = CliRunner().invoke(
        app,
        ["capture", "--from", f"kafka://127.0.0.1:{port}/t?read-timeout=1s",
         "--out", str(tmp_path / "cap"), "--timeout", "1"],
    )  # fmt: skip
    took = time.monotonic() - began
    assert result.exit_code == 1, result.output
    _assert_plain(_one_line(result.output, "capture failed: "), port, "read-timeout", took)
    assert not (tmp_path / "cap").exists()


def test_the_dial_keeps_trying_for_its_timeout_and_logs_no_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    port = free_port()
    config = KafkaConfig(hosts=(f"127.0.0.1:{port}",), topic="t", dial_timeout_s=1.0)
    began = time.monotonic()
    with caplog.at_level(logging.INFO), pytest.raises(KafkaUnreachableError) as raised:
        asyncio.run(KafkaTopicManager.connect(config))
    took = time.monotonic() - began
    _assert_plain(str(raised.value), port, "dial-timeout", took)
    assert not [r for r in caplog.records if r.name.startswith("aiokafka")], caplog.text


@pytest.mark.parametrize(
    ("text", "address", "why"),
    [
        (
            "127.0.0.1:1/bootstrap: Connect to ipv4#127.0.0.1:1 failed: Connection refused "
            "(after 0ms in state CONNECT)",
            "127.0.0.1:1",
            "Connection refused",
        ),
        (
            "nohost:9092/bootstrap: Failed to resolve 'nohost:9092': Name or service not known "
            "(after 2ms in state CONNECT, 3 identical error(s) suppressed)",
            "nohost:9092",
            "Failed to resolve 'nohost:9092': Name or service not known",
        ),
        (
            "sasl_plaintext://10.0.0.5:9092/bootstrap: SASL authentication error: invalid "
            "credentials (after 5ms in state AUTH_REQ)",
            "10.0.0.5:9092",
            "SASL authentication error: invalid credentials",
        ),
    ],
)
def test_librdkafka_connection_failures_are_kept_by_address(
    text: str, address: str, why: str
) -> None:
    failures = ConnectionFailures()
    code = KafkaError._AUTHENTICATION if "SASL" in text else KafkaError._TRANSPORT
    failures.add_librdkafka(KafkaError(code, text))
    failures.add_librdkafka(KafkaError(KafkaError._ALL_BROKERS_DOWN, "1/1 brokers are down"))
    assert failures.by_address == {address: why}
