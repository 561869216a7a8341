"""The MQ DML sink (TiCDC ``cdc/sink/dmlsink/mq/mq_dml_sink.go`` and its worker).

``write_events`` only queues transactions. One worker task takes them in order, a batch at a
time, and hands them to the ``TxnPipeline`` (``txn_pipeline.py``): route each txn's rows (topic,
partitions), let the bootstrap cadence put a BOOTSTRAP ahead of a table's first row, encode the
rows and queue one segment per partition the transaction (or a run of one table's
transactions, where nothing asks per txn) touches. A txn's callback fires once every segment is
acknowledged, which is what lets the table sink's checkpoint move (spec 7.2).

Memory is bounded by bytes in flight (encoded, not yet acknowledged): the pipeline pauses
between transactions once they pass ``max_inflight_bytes`` (so the bound may be exceeded by one
transaction; a run is cut where the bound is reached), and callers that feed the sink await
``wait_for_capacity()`` before handing it more, which is how back-pressure reaches the player.

The sink's own timers (``timers.MQTimers``: the BOOTSTRAP cadence and, for protocols that send
them, idle-partition HEARTBEATs) run after each batch, on the worker's idle tick, and when a
caller asks with ``run_timers`` (``eventsink.capabilities.RunsTimers``): a marker in the queue,
so what they write lands after everything handed over before and ahead of anything after.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from tisink.codec.bootstrap import BootstrapSend
from tisink.codec.encoder import RowEventEncoder
from tisink.eventsink.base import CallbackableEvent
from tisink.eventsink.capabilities import acknowledged_ends
from tisink.eventsink.errors import EventSinkError, SinkDeadError
from tisink.eventsink.faults import InjectedFault, faults_of
from tisink.eventsink.mq.heartbeats import IdlePartitions
from tisink.eventsink.mq.producer import Producer
from tisink.eventsink.mq.txn_encoding import InlineEncoder, TxnEncoder
from tisink.eventsink.mq.txn_pipeline import TxnPipeline
from tisink.eventsink.stats import AckedSeconds, AcknowledgedEnds, SinkStats
from tisink.model.events import SingleTableTxn

if TYPE_CHECKING:
    from tisink.codec.bootstrap import BootstrapCadence
    from tisink.eventsink.router import EventRouter

log = logging.getLogger(__name__)

IDLE_TICK_SECONDS = 1.0
"""How often an idle worker still asks the cadence for due bootstraps (TiCDC ticks every 5 s
whether or not rows arrive, so idle tables keep getting bootstraps) and for due heartbeats."""

_Txn = CallbackableEvent[SingleTableTxn]
_Queued = _Txn | asyncio.Future[None] | BootstrapSend
"""The worker's queue: txns, ``run_timers`` markers (resolved once the timers ran) and
planned BOOTSTRAPs (``write_bootstrap``)."""


class MQDMLSink:
    """An EventSink of single-table txns over any Producer (Kafka, files)."""

    wants_txn = True

    def __init__(
        self,
        producer: Producer,
        encoder: RowEventEncoder,
        router: EventRouter,
        cadence: BootstrapCadence | None,
        *,
        scheme: str,
        max_inflight_bytes: int = 64 << 20,
        txn_encoder: TxnEncoder | None = None,
        heartbeats: IdlePartitions | None = None,
    ) -> None:
        if max_inflight_bytes <= 0:
            raise EventSinkError(f"max_inflight_bytes must be positive, got {max_inflight_bytes}")
        self.scheme = scheme
        self._producer = producer
        self._pipeline = TxnPipeline(
            producer,
            encoder,
            router,
            txn_encoder or InlineEncoder(encoder, router),
            cadence,
            heartbeats,
            max_inflight_bytes=max_inflight_bytes,
            on_fail=self._failed,
        )
        self._backlog: list[_Queued] = []
        self._closed = False
        self._logged_death = False
        self._worker: asyncio.Task[None] | None = None
        self._input_ready: asyncio.Event | None = None

    # --- the EventSink protocol ----------------------------------------------------------

    def write_events(self, events: Sequence[_Txn]) -> None:
        """Queue txns and return at once; an empty call is a health check."""
        self._check_alive()
        if not events:
            return
        self._ensure_started()
        self._backlog.extend(events)
        assert self._input_ready is not None
        self._input_ready.set()

    @property
    def error(self) -> BaseException | None:
        return self._pipeline.error

    async def close(self) -> None:
        """Deliver everything queued (unless dead), stop the tasks and close the producer."""
        if self._closed:
            return
        self._closed = True
        if self._worker is not None:
            assert self._input_ready is not None
            self._input_ready.set()
            await self._worker
        await self._pipeline.close()
        log.info("%s sink closed: %s", self.scheme, self.stats().to_dict())

    # --- back-pressure, timers and observability -----------------------------------------

    async def start(self) -> None:
        """Start the worker (and the encoder processes, if any) now rather than at the first
        ``write_events``; raises SinkDeadError if the processes cannot start."""
        self._ensure_started()
        try:
            await self._pipeline.txn_encoder.start()
        except EventSinkError as err:
            self._pipeline.fail(err)
            raise SinkDeadError(f"{self.scheme} sink is dead: {err}") from err

    async def wait_for_capacity(self) -> None:
        """Return once the sink can take more: queued txns are picked up and the bytes in
        flight are below ``max_inflight_bytes``. Raises SinkDeadError if the sink died."""
        self._ensure_started()
        pipeline = self._pipeline
        while pipeline.error is None and (
            self._backlog or pipeline.inflight_bytes >= pipeline.max_inflight
        ):
            pipeline.changed.clear()
            await pipeline.changed.wait()
        if pipeline.error is not None:
            raise SinkDeadError(f"{self.scheme} sink is dead: {pipeline.error}") from pipeline.error

    async def run_timers(self) -> None:
        """Run the BOOTSTRAP cadence's and the heartbeats' due checks now, after everything
        handed over so far, and return once what they emitted is queued, so it goes out ahead
        of anything written later. Raises SinkDeadError if the sink died."""
        self._check_alive()
        if not self._pipeline.timers.enabled:
            return
        self._ensure_started()
        assert self._input_ready is not None
        marker: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._backlog.append(marker)
        self._input_ready.set()
        await marker
        self._check_alive()

    def add_ack_listener(self, listener: Callable[[], None]) -> None:
        """Call ``listener`` after acknowledgements arrive (``NotifiesAcks``): a player that
        drains to a checkpoint awaits them instead of polling."""
        self._pipeline.ack_listeners.append(listener)

    def write_bootstrap(self, send: BootstrapSend) -> None:
        """Queue a planned BOOTSTRAP (``eventsink.capabilities.WritesBootstraps``): written
        after the txns handed over before it and ahead of those after."""
        self._check_alive()
        self._ensure_started()
        self._backlog.append(send)
        assert self._input_ready is not None
        self._input_ready.set()

    @property
    def inflight_bytes(self) -> int:
        return self._pipeline.inflight_bytes

    def stats(self) -> SinkStats:
        """Counters of delivered messages (by type), bytes, txns; plus the bytes in flight."""
        return self._pipeline.stats.snapshot(self._pipeline.inflight_bytes)

    def acked_seconds(self) -> AckedSeconds:
        """Messages and bytes acknowledged per epoch second."""
        return self._pipeline.stats.per_second()

    def acknowledged_offsets(self) -> AcknowledgedEnds:
        """The producer's acknowledged ends per partition (empty if it does not track them)."""
        return acknowledged_ends(self._producer)

    def injected_faults(self) -> list[InjectedFault]:
        """The faults the producer injected (``--faults``); empty without."""
        return faults_of(self._producer)

    # --- the worker ----------------------------------------------------------------------

    def _check_alive(self) -> None:
        error = self._pipeline.error
        if error is not None:
            raise SinkDeadError(f"{self.scheme} sink is dead: {error}") from error
        if self._closed:
            raise EventSinkError(f"{self.scheme} sink is closed")

    def _ensure_started(self) -> None:
        if self._worker is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError as err:
            raise EventSinkError(
                f"{self.scheme} sink needs a running asyncio loop to start its worker"
            ) from err
        self._input_ready = asyncio.Event()
        self._worker = loop.create_task(self._run(), name=f"{self.scheme}-dml-worker")

    async def _run(self) -> None:
        assert self._input_ready is not None
        pipeline = self._pipeline
        try:
            await pipeline.txn_encoder.start()
            while pipeline.error is None:
                if not self._backlog:
                    if self._closed:
                        return
                    self._input_ready.clear()
                    await self._wait_input()
                    continue
                batch, self._backlog = self._backlog, []
                pipeline.changed.set()
                await self._write(batch)
                pipeline.run_due_timers()
        except asyncio.CancelledError:
            raise
        except EventSinkError as err:
            pipeline.fail(err)
        except Exception as err:
            failure = EventSinkError(f"{self.scheme} sink worker failed: {err!r}")
            failure.__cause__ = err
            pipeline.fail(failure)

    async def _wait_input(self) -> None:
        assert self._input_ready is not None
        if not self._pipeline.timers.enabled:
            await self._input_ready.wait()
            return
        try:
            await asyncio.wait_for(self._input_ready.wait(), IDLE_TICK_SECONDS)
        except TimeoutError:
            self._pipeline.run_due_timers()

    async def _write(self, batch: list[_Queued]) -> None:
        """Write runs of txns; at a ``run_timers`` marker, first queue every txn before it,
        then run the timers and release the caller (whatever happens: a failed sink releases
        its callers, who then raise SinkDeadError)."""
        pipeline = self._pipeline
        run: list[_Txn] = []
        try:
            for item in batch:
                if isinstance(item, CallbackableEvent):
                    run.append(item)
                    continue
                if run and pipeline.error is None:
                    await pipeline.write(run, self._more_waiting)
                run = []
                await pipeline.drain()
                if isinstance(item, BootstrapSend):
                    pipeline.write_bootstrap(item)
                    continue
                pipeline.run_due_timers()
                item.set_result(None)
            if run and pipeline.error is None:
                await pipeline.write(run, self._more_waiting)
        finally:
            _release(batch)

    def _more_waiting(self) -> bool:
        return bool(self._backlog)

    def _failed(self, err: EventSinkError) -> None:
        """The pipeline failed: wake the worker, and release ``run_timers`` callers (they
        raise SinkDeadError)."""
        if not self._logged_death:
            self._logged_death = True
            log.error("%s sink is dead: %s", self.scheme, err)
        _release(self._backlog)
        if self._input_ready is not None:
            self._input_ready.set()


def _release(queued: list[_Queued]) -> None:
    for item in queued:
        if isinstance(item, asyncio.Future) and not item.done():
            item.set_result(None)
