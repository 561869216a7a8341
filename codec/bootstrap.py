"""When to send Simple Protocol BOOTSTRAP messages (TiCDC ``pkg/sink/codec/bootstraper.go``).

State is per table (by logical table id) per cadence instance, as TiCDC keeps it per node. A
table's first row gets a BOOTSTRAP queued before it; later, ``tick`` resends it once the
interval has passed or enough rows arrived since the last one. TiCDC checks that on a 5 s
ticker and evicts tables idle for 30 min on a 30 s ticker; here ``tick`` is called as often as
the caller likes and does the work only when the injected clock says a tick is due, so a
FeedClock gives the same bootstraps on every run. Pure logic: the caller encodes and sends.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass

from tisink.codec.errors import CodecError
from tisink.core.clock import Clock
from tisink.model.table import TableInfo

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class BootstrapSettings:
    """TiCDC's ``[sink] send-bootstrap-*`` keys: the options of a protocol that sends
    BOOTSTRAPs (its registry entry says ``sends_bootstrap``)."""

    send_bootstrap_interval_in_sec: int = 120
    send_bootstrap_in_msg_count: int = 10000
    send_bootstrap_to_all_partition: bool = True
    send_all_bootstrap_at_start: bool = False

    @property
    def enabled(self) -> bool:
        """TiCDC's ShouldSendBootstrapMsg: both triggers > 0."""
        return self.send_bootstrap_interval_in_sec > 0 and self.send_bootstrap_in_msg_count > 0


@dataclass(frozen=True)
class BootstrapSend:
    """Encode one BOOTSTRAP of ``table`` and send the same bytes to each of ``partitions``."""

    table: TableInfo
    topic: str
    partitions: tuple[int, ...]


@dataclass(slots=True)
class _TableStatistic:
    """TiCDC's ``tableStatistic``; the topic is fixed when the table is first seen."""

    table: TableInfo
    topic: str
    total_partitions: int
    counter: int
    last_received_ms: int
    last_send_ms: int


class BootstrapCadence:
    """Decides which tables need a BOOTSTRAP, on a first row and on each due tick."""

    def __init__(
        self,
        settings: BootstrapSettings | None,
        clock: Clock,
        *,
        tick_interval_ms: int = 5000,
        gc_interval_ms: int = 30_000,
        max_inactive_ms: int = 1_800_000,
    ) -> None:
        settings = settings or BootstrapSettings(0, 0)
        self.enabled = settings.enabled
        self.send_all_at_start = settings.send_all_bootstrap_at_start
        self.to_all_partitions = settings.send_bootstrap_to_all_partition
        self.interval_ms = settings.send_bootstrap_interval_in_sec * 1000
        self.count = settings.send_bootstrap_in_msg_count
        self.tick_interval_ms = tick_interval_ms
        self.gc_interval_ms = gc_interval_ms
        self.max_inactive_ms = max_inactive_ms
        self._clock = clock
        self._tables: dict[int, _TableStatistic] = {}
        started = clock.now_ms()
        self._last_tick_ms = started
        self._last_gc_ms = started
        self._next_due_ms = started + min(tick_interval_ms, gc_interval_ms)

    @property
    def active_table_ids(self) -> tuple[int, ...]:
        """Tables with cadence state, in first-seen order."""
        return tuple(self._tables)

    def add_event(
        self, table: TableInfo, topic: str, total_partitions: int, rows: int = 1
    ) -> BootstrapSend | None:
        """Record ``rows`` rows of ``table`` about to be queued for ``topic``, as that many
        single-row calls would; returns the BOOTSTRAP to queue before the first of them when
        the table is new to this instance."""
        if not self.enabled:
            return None
        now = self._clock.now_ms()
        stat = self._tables.get(table.table_id)
        if stat is None:
            stat = _TableStatistic(table, topic, total_partitions, 1, now, 0)
            self._tables[table.table_id] = stat
            send = self._send(stat, now)
            stat.counter = rows - 1
            return send
        stat.counter += rows
        stat.last_received_ms = now
        # A RENAME keeps the schema version, so the name is compared too (as ticdc does, the
        # table name only).
        if stat.table.version != table.version or stat.table.table != table.table:
            stat.table = table
        stat.total_partitions = total_partitions
        return None

    def tick(self) -> list[BootstrapSend]:
        """The BOOTSTRAPs due now; cheap when no tick or GC interval has passed since the last
        one that did work. Idle tables are evicted before sends are checked."""
        if not self.enabled:
            return []
        now = self._clock.now_ms()
        if now < self._next_due_ms:
            return []
        if now - self._last_gc_ms >= self.gc_interval_ms:
            self._last_gc_ms = now
            self._evict_inactive(now)
        sends: list[BootstrapSend] = []
        if now - self._last_tick_ms >= self.tick_interval_ms:
            self._last_tick_ms = now
            for stat in self._tables.values():
                if now - stat.last_send_ms >= self.interval_ms or stat.counter >= self.count:
                    sends.append(self._send(stat, now))
        self._next_due_ms = min(
            self._last_tick_ms + self.tick_interval_ms, self._last_gc_ms + self.gc_interval_ms
        )
        return sends

    def at_start(self, tables: Iterable[tuple[TableInfo, str, int]]) -> list[BootstrapSend]:
        """BOOTSTRAPs for ``send-all-bootstrap-at-start``: one per (table, DDL topic, partition
        count), to every partition, as they go through the DDL sink. Like ticdc, only that flag
        (and the simple protocol) is checked, not the interval and count; the per-table cadence
        state is untouched, so each table's first row still gets its own BOOTSTRAP."""
        if not self.send_all_at_start:
            return []
        sends = []
        for table, topic, total_partitions in tables:
            _check_partitions(table, topic, total_partitions)
            sends.append(BootstrapSend(table, topic, tuple(range(total_partitions))))
        return sends

    def _send(self, stat: _TableStatistic, now: int) -> BootstrapSend:
        _check_partitions(stat.table, stat.topic, stat.total_partitions)
        stat.last_send_ms = now
        stat.counter = 0
        count = stat.total_partitions if self.to_all_partitions else 1
        return BootstrapSend(stat.table, stat.topic, tuple(range(count)))

    def _evict_inactive(self, now: int) -> None:
        idle = [
            table_id
            for table_id, stat in self._tables.items()
            if now - stat.last_received_ms > self.max_inactive_ms
        ]
        for table_id in idle:
            stat = self._tables.pop(table_id)
            log.info(
                "bootstrap cadence forgets idle table %s (id %d, topic %s)",
                stat.table.qualified_name,
                table_id,
                stat.topic,
            )


def _check_partitions(table: TableInfo, topic: str, total_partitions: int) -> None:
    if total_partitions <= 0:
        raise CodecError(
            f"table {table.qualified_name}: cannot send a bootstrap to topic {topic!r} "
            f"with {total_partitions} partitions"
        )
