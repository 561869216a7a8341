"""``encoder-concurrency``: route and encode transactions in other processes (TiCDC's
``encoderGroup``, whose goroutines become processes here, since CPython encodes on one core).

The MQ DML sink submits a run of transactions and gets back a future of their partitions and
records, in the order it submitted them; it queues them for sending as each future completes,
so the order per partition and the bootstrap cadence are the same as with encoding in process.
Requests go to the processes in turn. A process that dies fails every request still waiting
on it, naming its exit code.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import pickle
import subprocess
import sys
from collections.abc import Sequence
from multiprocessing.connection import Connection

from tisink.codec.config import EncoderConfig
from tisink.codec.encoder import RowEventEncoder
from tisink.core.clock import Clock
from tisink.eventsink.errors import EventSinkError
from tisink.eventsink.mq.encoder_worker import TableTokens, dump_request
from tisink.eventsink.mq.txn_encoding import InlineEncoder, Result, Txn, TxnEncoder
from tisink.eventsink.router import EventRouter

log = logging.getLogger(__name__)

STARTUP_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 5.0
WORKER_CODE = "from tisink.eventsink.mq.encoder_worker import main; main()"
"""Imported, not run as ``-m``: results must name the module's classes, not ``__main__``'s."""


def usable_concurrency(requested: int) -> int:
    """Processes to start for ``encoder-concurrency = requested``: at most one per CPU (TiCDC's
    default of 32 goroutines would be 32 processes here)."""
    return max(1, min(requested, os.cpu_count() or 1))


GROUP_CHUNK_ROWS = 1000
"""Rows per request to an encoder process: enough to pay for the pipe, small enough to keep
every process busy."""


class EncoderGroup:
    """Encoder processes fed round-robin; futures resolve in the loop that submitted.
    Implements ``txn_encoding.TxnEncoder``, with two requests in flight per process."""

    chunk_rows = GROUP_CHUNK_ROWS

    def __init__(
        self, config: EncoderConfig, router: EventRouter, processes: int, clock: Clock
    ) -> None:
        if processes <= 0:
            raise EventSinkError(f"an encoder group needs processes, got {processes}")
        self._config = config
        self._router = router
        self._clock = clock
        self._count = processes
        self.window = 2 * processes
        self._conns: list[Connection] = []
        self._processes: list[subprocess.Popen[bytes]] = []
        self._tokens: list[TableTokens] = []
        self._waiting: list[dict[int, asyncio.Future[Result]]] = []
        self._dead: set[int] = set()
        self._seq = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._started: asyncio.Future[None] | None = None
        self._ready = False
        self._closed = False

    @property
    def processes(self) -> int:
        return self._count

    @property
    def pids(self) -> list[int]:
        """The processes' ids, for operators (and tests) to watch them."""
        return [process.pid for process in self._processes]

    async def start(self) -> None:
        """Start the processes and return once each has loaded its encoder; EventSinkError if
        one does not (its own error is on stderr). Safe to call again, also concurrently."""
        if self._started is None:
            self._started = asyncio.ensure_future(self._start())
        await asyncio.shield(self._started)

    async def _start(self) -> None:
        """Each process is a fresh interpreter running the worker module: forking a process
        that runs threads (a Spark driver does) is unsafe, and multiprocessing's spawn would
        import the caller's main script again in every process."""
        self._loop = asyncio.get_running_loop()
        setup = pickle.dumps((self._config, self._router), protocol=pickle.HIGHEST_PROTOCOL)
        # the caller's import path, so the processes find the same packages it found
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, sys.path))}
        for _ in range(self._count):
            ours, theirs = multiprocessing.Pipe()
            process = subprocess.Popen(
                [sys.executable, "-c", WORKER_CODE, str(theirs.fileno())],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                env=env,
            )
            theirs.close()
            self._conns.append(ours)
            self._processes.append(process)
            self._tokens.append(TableTokens())
            self._waiting.append({})
        for number, conn in enumerate(self._conns):
            try:
                conn.send_bytes(setup)
                if not await asyncio.to_thread(conn.poll, STARTUP_TIMEOUT_S):
                    self._processes[number].kill()
                    raise EventSinkError(
                        f"encoder process {number} did not start within {STARTUP_TIMEOUT_S} s"
                    )
                conn.recv_bytes()
            except (EOFError, OSError):
                self._dead.add(number)
                raise self._died(number) from None
            self._loop.add_reader(conn.fileno(), self._on_readable, number)
        self._ready = True
        log.info("started %d encoder processes", self._count)

    def submit(self, txns: Sequence[Txn]) -> asyncio.Future[Result]:
        """Send ``txns`` to the next process with one ``buildTs`` from the sink's clock; the
        future gives one result per txn, or the first that failed."""
        if self._closed:
            raise EventSinkError("encoder group is closed")
        if not self._ready:
            raise EventSinkError("encoder group used before start() returned")
        assert self._loop is not None  # set by start(), which _ready says returned
        seq = self._seq = self._seq + 1
        number = seq % self._count
        future: asyncio.Future[Result] = self._loop.create_future()
        if number in self._dead:
            future.set_exception(self._died(number))
            return future
        build_ts = self._clock.now_ms()
        header, body = dump_request(self._tokens[number], seq, build_ts, txns)
        try:
            if header is not None:
                self._conns[number].send_bytes(header)
            self._conns[number].send_bytes(body)
        except OSError:
            self._dead.add(number)
            future.set_exception(self._died(number))
            return future
        self._waiting[number][seq] = future
        return future

    async def close(self) -> None:
        """Stop the processes; requests still waiting fail."""
        if self._closed:
            return
        self._closed = True
        if self._started is not None and not self._started.done():
            self._started.cancel()
        for number, conn in enumerate(self._conns):
            if self._loop is not None and number not in self._dead:
                self._loop.remove_reader(conn.fileno())  # no-op if start never got to it
            with contextlib.suppress(OSError):
                conn.send_bytes(b"")
            self._fail_waiting(number, EventSinkError("encoder group closed"))
        for process in self._processes:
            try:
                await asyncio.to_thread(process.wait, STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                process.kill()
                await asyncio.to_thread(process.wait)
        for conn in self._conns:
            conn.close()

    def _on_readable(self, number: int) -> None:
        try:
            seq, result = pickle.loads(self._conns[number].recv_bytes())
        except (EOFError, OSError):
            assert self._loop is not None
            self._loop.remove_reader(self._conns[number].fileno())
            self._dead.add(number)
            self._fail_waiting(number, self._died(number))
            return
        future = self._waiting[number].pop(seq, None)
        if future is not None and not future.done():
            future.set_result(result)

    def _died(self, number: int) -> EventSinkError:
        process = self._processes[number]
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(0.5)
        return EventSinkError(
            f"encoder process {number} (pid {process.pid}) exited (exit code {process.returncode})"
        )

    def _fail_waiting(self, number: int, err: EventSinkError) -> None:
        waiting = self._waiting[number]
        for future in waiting.values():
            if not future.done():
                future.set_exception(err)
        waiting.clear()


def new_txn_encoder(
    config: EncoderConfig,
    encoder: RowEventEncoder,
    router: EventRouter,
    concurrency: int,
    clock: Clock,
) -> TxnEncoder:
    """The sink's encoding for ``encoder-concurrency``: ``encoder`` in process when it is 0,
    else a group of processes running encoders built from ``config``."""
    if concurrency <= 0:
        return InlineEncoder(encoder, router)
    processes = usable_concurrency(concurrency)
    if processes < concurrency:
        log.info("encoder-concurrency %d capped at %d CPUs", concurrency, processes)
    return EncoderGroup(config, router, processes, clock)
