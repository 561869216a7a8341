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

from tisink.run.broker import BrokerStartError, answers_metadata, free_port, start_broker


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
    monkeypatch.setattr("tisink.run.broker._STORAGE", "bogus://nowhere/")
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
        "import time; from tisink.run.broker import start_broker; "
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


def test_a_broker_restarts_at_once_on_the_port_of_one_that_died() -> None:
    """A killed broker leaves its port in TIME_WAIT; the next one must start there at once."""
    first = start_broker()
    port = first.port
    # a client still connected when the broker dies: the broker's side closes first, so the
    # port is left in TIME_WAIT
    client = socket.create_connection(("127.0.0.1", port), timeout=5)
    first.process.kill()
    first.process.wait()
    client.close()
    first.stop()
    with start_broker(port, startup_timeout=10) as second:
        assert answers_metadata("127.0.0.1", second.port)


def test_tisink_broker_reports_its_process_dying(tmp_path: Path) -> None:
    port = free_port()
    cli = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from tisink.cli import main; main()",
            "broker",
            "--port",
            str(port),
        ],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # wait for the CLI's own "listening" line, not just for the port to answer: killing
        # the broker between the two is a death while starting, reported differently
        assert cli.stderr is not None
        seen = []
        for line in cli.stderr:
            seen.append(line)
            if "listening on" in line:
                break
        tansu = subprocess.run(
            ["pgrep", "-P", str(cli.pid)], capture_output=True, text=True, check=True
        ).stdout.split()
        subprocess.run(["kill", "-9", *tansu], check=True)
        _, rest = cli.communicate(timeout=30)
        stderr = "".join(seen) + rest
    finally:
        if cli.poll() is None:
            cli.kill()
    assert cli.returncode != 0
    assert "exited with code -9" in stderr and "its last lines" in stderr


def test_tisink_broker_on_a_busy_port_says_so_in_one_line() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        main = "from tisink.cli import main; main()"
        cli = subprocess.run(
            [sys.executable, "-c", main, "broker", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert cli.returncode == 2, cli.stderr
    lines = cli.stderr.strip().splitlines()
    assert len(lines) == 1, cli.stderr
    assert f"127.0.0.1:{port}" in lines[0] and "Address already in use" in lines[0]
