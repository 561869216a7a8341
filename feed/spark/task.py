"""The executor side of the Spark job: one task plays its tables' records into its own sinks.

A task builds its sinks with ``sink.SinkFactory`` (the file sink's producer is process-safe),
plays with the same Player as the inline engine and returns
one result dict instead of raising, so the driver sees the executor's error, the table, the
feed line and the task's last checkpoint. Watermarks are the driver's job: the task's DDL sink
is wrapped so that ``write_checkpoint_ts`` does nothing (a task only knows its own tables).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import traceback
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from tisink.codec.clock import Clock, FeedClock, WallClock
from tisink.ddlsink.base import DDLSink
from tisink.feed.errors import FeedError, PlayError
from tisink.feed.inline import play_inline
from tisink.feed.records import FeedRecord, FeedRow
from tisink.feed.workload.inline import throttled
from tisink.model.events import DDLEvent
from tisink.model.table import TableInfo
from tisink.sink import ChangefeedConfig, SinkFactory

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TaskSpec:
    """What every task of one epoch needs; small and picklable (shipped with the closure)."""

    sink_uri: str
    config_text: str | None
    feed_clock: bool
    low: int
    """Records with commitTs <= low were played by earlier epochs."""
    high: int
    """This epoch plays records with low < commitTs <= high."""
    rate: float | None = None
    """Rows per second for this task (the play's rate split over the tasks)."""


def make_factory(sink_uri: str, config_text: str | None, clock: Clock) -> SinkFactory:
    """A SinkFactory for ``sink_uri`` and the changefeed TOML text shipped to the task."""
    config = ChangefeedConfig.from_toml(config_text) if config_text else None
    factory = SinkFactory(sink_uri, config, clock=clock)
    if factory.config.encoder_concurrency:
        # Spark's tasks are already the parallel encoders; processes per task would only fight
        # them for the executor's cores.
        log.info("encoder-concurrency is not used inside Spark tasks")
        factory.config = dataclasses.replace(factory.config, encoder_concurrency=0)
    return factory


class CheckpointDroppingDDLSink:
    """A DDLSink for tasks: DDLs go through, checkpoints are left to the driver."""

    def __init__(self, inner: DDLSink) -> None:
        self.inner = inner

    async def write_ddl_event(self, ddl: DDLEvent) -> None:
        await self.inner.write_ddl_event(ddl)

    async def write_checkpoint_ts(self, ts: int, tables: Sequence[TableInfo]) -> None:
        return None

    async def close(self) -> None:
        await self.inner.close()

    def stats(self) -> dict[str, int]:
        stats = getattr(self.inner, "stats", None)
        return stats() if callable(stats) else {}


def in_window(records: Iterable[FeedRecord], low: int, high: int) -> Iterator[FeedRecord]:
    """Records with low < commitTs <= high (records carry their schema, so skipping is safe)."""
    for record in records:
        ts = record.row.commit_ts if type(record) is FeedRow else record.commit_ts  # type: ignore[union-attr]
        if ts <= low:
            continue
        if ts > high:
            return
        yield record


def run_task(index: int, spec: TaskSpec, records: Iterable[FeedRecord]) -> dict[str, Any]:
    """Play ``records`` (commit-ordered, this task's tables) and describe the outcome."""
    return asyncio.run(_play(index, spec, records))


async def _play(index: int, spec: TaskSpec, records: Iterable[FeedRecord]) -> dict[str, Any]:
    result: dict[str, Any] = {"task": index, "ok": True, "checkpoint_ts": spec.low}
    sink_stats: list[dict[str, int]] = []
    clock: Clock = FeedClock() if spec.feed_clock else WallClock()
    event_sink: Any = None
    ddl_sink: CheckpointDroppingDDLSink | None = None
    try:
        factory = make_factory(spec.sink_uri, spec.config_text, clock)
        event_sink = await factory.create_event_sink()
        ddl_sink = CheckpointDroppingDDLSink(await factory.create_ddl_sink())
        stats = await play_inline(
            throttled(records, spec.rate),
            event_sink,
            ddl_sink,
            lambda table_id: factory.create_table_sink(table_id, event_sink),
            clock=clock,
        )
        result.update(stats.to_dict())
        result["checkpoint_ts"] = max(spec.high, stats.checkpoint_ts)
    except PlayError as err:
        result.update(err.stats.to_dict())
        _describe(result, err.cause, max(spec.low, err.last_checkpoint_ts))
    except Exception as err:  # a task must report, never crash: the driver raises
        _describe(result, err, spec.low)
    finally:
        for sink in (event_sink, ddl_sink):
            if sink is None:
                continue
            try:
                await sink.close()
            except Exception as err:
                if result["ok"]:
                    _describe(result, err, spec.low)
            stats_of = getattr(sink, "stats", None)
            sink_stats.append(stats_of() if callable(stats_of) else {})
    result["sink_stats"] = _sum(sink_stats)
    return result


def _describe(result: dict[str, Any], err: BaseException, checkpoint: int) -> None:
    log.error("spark task %s failed: %s", result["task"], err)
    result.update(
        ok=False,
        checkpoint_ts=checkpoint,
        error=str(err),
        error_type=type(err).__name__,
        traceback="".join(traceback.format_exception(err)),
    )
    if isinstance(err, FeedError):
        result.update(
            reason=err.reason, file=err.file, line=err.line, table=err.table, column=err.column
        )


def _sum(stats: Iterable[dict[str, int]]) -> dict[str, int]:
    total: dict[str, int] = {}
    for item in stats:
        for key, value in item.items():
            if isinstance(value, int):
                total[key] = total.get(key, 0) + value
    return total
