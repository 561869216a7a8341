"""The embedded Tansu broker launcher."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from aiokafka import AIOKafkaClient

from tisink.broker import BrokerStartError, answers_metadata, free_port, start_broker


def test_broker_answers_kafka_metadata_until_stopped() -> None:
    with start_broker() as broker:
        host, port = broker.bootstrap.split(":")
        assert host == "127.0.0.1"
        assert answers_metadata(host, int(port))
        assert broker.process.poll() is None
    assert broker.process.poll() is not None
    assert not answers_metadata(host, int(port))


def test_busy_port_is_a_clear_error() -> None:
    with start_broker() as first, pytest.raises(BrokerStartError, match=f":{first.port}: "):
        start_broker(first.port, startup_timeout=5)


def test_a_broker_that_dies_at_start_reports_its_output(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tisink.broker._STORAGE", "bogus://nowhere/")
    with pytest.raises(BrokerStartError, match="exited with code") as err:
        start_broker(startup_timeout=5)
    assert "output ends with" in str(err.value)


def test_plain_tcp_listener_is_not_a_broker() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        assert not answers_metadata("127.0.0.1", port, timeout=0.3)
    assert not answers_metadata("127.0.0.1", free_port(), timeout=0.3)


def test_metadata_advertises_the_given_address() -> None:
    advertised_port = free_port()
    with start_broker(advertised=f"127.0.0.1:{advertised_port}") as broker:

        async def brokers() -> list[tuple[str, int]]:
            client = AIOKafkaClient(bootstrap_servers=broker.bootstrap)
            await client.bootstrap()
            try:
                return [(b.host, b.port) for b in client.cluster.brokers()]
            finally:
                await client.close()

        assert asyncio.run(brokers()) == [("127.0.0.1", advertised_port)]


@pytest.mark.skipif(sys.platform != "linux", reason="parent-death signal is Linux-only")
def test_broker_dies_with_a_killed_parent() -> None:
    code = (
        "import time; from tisink.broker import start_broker; "
        "b = start_broker(); print(b.process.pid, flush=True); time.sleep(60)"
    )
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    broker_pid = int(parent.stdout.readline())
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 5
    while _running(broker_pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _running(broker_pid)


def _running(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie waiting to be reaped."""
    try:
        return "State:\tZ" not in Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
