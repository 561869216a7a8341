"""The embedded Tansu broker launcher."""

from __future__ import annotations

import asyncio
import socket

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
