"""StorageSink: TiCDC's storage DML sink (``downstreamadapter/sink/cloudstorage``) over a folder.

Each transaction is encoded when handed over and appended to the open file of its table
version (and partition): one file per ``{schema}/{table}/{version}[/{partition}]`` at a time.
A file closes when it reaches ``file-size``, when it has been open ``flush-interval`` (a wall
clock ticks on its own; a feed clock runs the timers where the player moves it), or at a
barrier (``flush_open``: the player drains before a DDL and a watermark point, as TiCDC's block
events flush every file). A closed file gets its date directory and number, and one writer task
writes it (``files.FileWriter``: schema file, data file, index, each atomic and ``fsync``'ed);
the callbacks of its transactions fire after that, never before. A play continuing a folder
(``resume``) skips what its files hold already, and acknowledges it at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tisink.codec.encoder import RowEventEncoder
from tisink.codec.message import MessageType
from tisink.core.clock import Clock, ObservingClock
from tisink.core.errors import TisinkError
from tisink.eventsink.base import CallbackableEvent
from tisink.eventsink.errors import EventSinkError, SinkDeadError
from tisink.eventsink.stats import AcknowledgedEnds, SinkStats
from tisink.eventsink.storage.config import StorageConfig
from tisink.eventsink.storage.files import ClosedFile, FileWriter
from tisink.eventsink.storage.paths import DataDir, date_text, dispatcher_id, table_path
from tisink.eventsink.storage.resume import ResumePoint, StoredKey
from tisink.eventsink.storage.schema_file import SchemaFile
from tisink.model.events import SingleTableTxn
from tisink.model.table import TableInfo

log = logging.getLogger(__name__)

TICK_S = 0.1
"""How often a wall-clock sink looks for files open ``flush-interval``."""
MAX_PENDING_BYTES = 64 << 20
"""Closed bytes waiting for the writer above which ``wait_for_capacity`` holds the player."""

FileKey = tuple[str, str, int, int, int]
"""(schema, table, table version, partition, dispatcher's physical table id or 0): one open
file at a time each. With ``enable-table-across-nodes`` each physical table's dispatcher
writes files of its own, in one directory when partitions share one."""


@dataclass(slots=True)
class _OpenFile:
    table: TableInfo
    opened_ms: int
    physical_id: int
    chunks: list[bytes] = field(default_factory=list)
    size: int = 0
    rows: int = 0
    records: int = 0
    txns: int = 0
    callbacks: list[Callable[[], None]] = field(default_factory=list)


class StorageSink:
    """The EventSink of the storage layout; see the module docstring."""

    scheme = "file"
    wants_txn = True

    def __init__(
        self,
        root: Path,
        config: StorageConfig,
        encoder: RowEventEncoder,
        extension: str,
        clock: Clock,
        *,
        header: Callable[[TableInfo], bytes] | None = None,
        record_end: bytes = b"",
        writer: FileWriter | None = None,
        resume: ResumePoint | None = None,
    ) -> None:
        self.config = config
        self._encoder = encoder
        self._extension = extension
        self._clock = clock
        self._header = header
        self._record_end = record_end
        self._writer = writer or FileWriter(root, config=config)
        self._resume = resume
        self.resumed_txns = 0
        """Transactions skipped because the folder held them already (``resume``)."""
        self._open: dict[FileKey, _OpenFile] = {}
        self._queue: asyncio.Queue[ClosedFile | None] | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._listeners: list[Callable[[], None]] = []
        self._error: BaseException | None = None
        self._closed = False
        self._inflight = 0
        self._pending = 0
        self._stats = SinkStats()
        self._acked: Counter[str] = Counter()

    # --- EventSink -------------------------------------------------------------------------

    def write_events(self, events: Sequence[CallbackableEvent[SingleTableTxn]]) -> None:
        self._check_alive()
        if not events:
            return
        self._start()
        skipped = self.resumed_txns
        for event in events:
            txn = event.event
            if self._resume is not None and self._resume.holds(
                self._stream(txn), txn.commit_ts, len(txn.rows)
            ):
                self.resumed_txns += 1
                event.callback()
                continue
            try:
                encoded = self._encoder.encode_rows(txn.rows)
            except TisinkError as err:
                self._error = err
                raise
            end = self._record_end
            # the storage protocols (storage_extension) write no tombstones
            data = b"".join((value or b"") + end for _, value, *_ in encoded.records)
            key = self._key(txn)
            open_file = self._open.get(key)
            if open_file is None:
                self._check_names(txn.table)
                physical = txn.physical_table_id or txn.table.table_id
                open_file = self._open[key] = _OpenFile(txn.table, self._clock.now_ms(), physical)
                if self._header is not None:
                    head = self._header(txn.table)
                    open_file.chunks.append(head)
                    open_file.size += len(head)
                    self._inflight += len(head)
            open_file.chunks.append(data)
            open_file.size += len(data)
            open_file.rows += len(txn.rows)
            open_file.records += len(encoded.records)
            open_file.txns += 1
            open_file.callbacks.append(event.callback)
            self._inflight += len(data)
            if open_file.size >= self.config.file_size:
                self._close_file(key)
        if self.resumed_txns != skipped:
            self._notify()

    @property
    def error(self) -> BaseException | None:
        return self._error

    async def close(self) -> None:
        """Close the open files and wait for the writer; a dead sink writes nothing more."""
        if self._closed:
            return
        try:
            if self._error is None and self._queue is not None:
                self.flush_open()
        finally:
            self._closed = True
            if self._queue is not None:
                self._queue.put_nowait(None)
            for task in self._tasks:
                if self._error is not None or task.get_name() == "storage-ticker":
                    task.cancel()
            for task in self._tasks:
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            self._tasks.clear()

    # --- what the player asks --------------------------------------------------------------

    def flush_open(self) -> None:
        """Close every open file now (a barrier: DDL, watermark point, close)."""
        for key in list(self._open):
            self._close_file(key)

    async def run_timers(self) -> None:
        """Close the files open ``flush-interval`` or longer by the clock."""
        now = self._clock.now_ms()
        interval = self.config.flush_interval_ms
        for key, open_file in list(self._open.items()):
            if now - open_file.opened_ms >= interval:
                self._close_file(key)

    async def wait_for_capacity(self) -> None:
        while self._error is None and self._pending > MAX_PENDING_BYTES:
            await asyncio.sleep(0.01)
        self._check_alive()

    @property
    def inflight_bytes(self) -> int:
        """Encoded bytes handed over whose file is not written yet."""
        return self._inflight

    def add_ack_listener(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    def stats(self) -> SinkStats:
        return self._stats

    def acknowledged_offsets(self) -> AcknowledgedEnds:
        """Rows stored per table, as ``(schema.table, 0) -> rows`` (verify counts the rows
        of each table's files against it)."""
        return {(table, 0): rows for table, rows in self._acked.items()}

    # --- internals -------------------------------------------------------------------------

    def _key(self, txn: SingleTableTxn) -> FileKey:
        table = txn.table
        partition = self._stream(txn)[2]
        physical = 0
        if self.config.enable_table_across_nodes:
            physical = txn.physical_table_id or table.table_id
        return (table.schema, table.table, table.version, partition, physical)

    def _stream(self, txn: SingleTableTxn) -> StoredKey:
        """(schema, table, partition): the rows in one commit order, over table versions.
        With ``use-table-id-as-path`` every physical table is a directory of its own whatever
        its name (a RENAME keeps the id), so the stream is ("", "", its id) (ticdc ignores
        ``enable-partition-separator`` there)."""
        table = txn.table
        physical = txn.physical_table_id or table.table_id
        if self.config.use_table_id_as_path:
            return ("", "", physical)
        own_dir = self.config.enable_partition_separator and physical != table.table_id
        return (table.schema, table.table, physical if own_dir else 0)

    def _check_names(self, table: TableInfo) -> None:
        """Refuse a table whose name would leave the root before any of its rows is held."""
        try:
            table_path(table.schema, table.table)
        except TisinkError as err:
            self._error = err
            raise

    def _close_file(self, key: FileKey) -> None:
        open_file = self._open.pop(key)
        assert self._queue is not None
        schema, table, version, partition, _ = key
        config = self.config
        date = date_text(self._clock.now_ms(), config.date_separator)
        physical = open_file.physical_id
        dispatcher = dispatcher_id(physical) if config.enable_table_across_nodes else ""
        table_id = physical if config.use_table_id_as_path else 0
        directory = DataDir(schema, table, version, partition, date, dispatcher, table_id)
        try:
            number = self._writer.next_number(directory)
        except TisinkError as err:
            self._error = err
            raise
        name = directory.file_name(number, self._extension, config.file_index_width)
        closed = ClosedFile(
            directory,
            name,
            b"".join(open_file.chunks),
            SchemaFile(
                schema,
                open_file.table,
                version,
                output_column_id=config.output_column_id,
                table_id=physical,
            ),
            open_file.rows,
            open_file.txns,
            open_file.callbacks,
            records=open_file.records,
        )
        self._pending += len(closed.data)
        self._queue.put_nowait(closed)

    def _start(self) -> None:
        if self._queue is not None:
            return
        self._queue = asyncio.Queue()
        self._tasks.append(asyncio.create_task(self._write_files(), name="storage-writer"))
        if not isinstance(self._clock, ObservingClock):
            self._tasks.append(asyncio.create_task(self._tick(), name="storage-ticker"))

    async def _tick(self) -> None:
        while not self._closed:
            await asyncio.sleep(TICK_S)
            await self.run_timers()

    async def _write_files(self) -> None:
        assert self._queue is not None
        while (closed := await self._queue.get()) is not None:
            try:
                await asyncio.to_thread(self._writer.write, closed)
            except Exception as err:
                log.error("storage sink stopped: %s", err)
                self._error = err
                self._notify()
                return
            self._pending -= len(closed.data)
            self._inflight -= len(closed.data)
            self._stats.rows += closed.rows
            messages = self._stats.messages
            messages[MessageType.DML] = messages.get(MessageType.DML, 0) + closed.records
            self._stats.txns += closed.txns
            self._stats.batches += 1
            self._stats.bytes += len(closed.data)
            self._acked[f"{closed.directory.schema}.{closed.directory.table}"] += closed.rows
            for callback in closed.callbacks:
                callback()
            self._notify()

    def _notify(self) -> None:
        for listener in self._listeners:
            listener()

    def _check_alive(self) -> None:
        if self._error is not None:
            raise SinkDeadError(f"storage sink is dead: {self._error}") from self._error
        if self._closed:
            raise EventSinkError("storage sink is closed")
