"""``tisink play --engine spark``: the driver of the Spark job.

The play runs in commit-ts *epochs*. Each epoch is one Spark job: every task plays its table
groups' records with low < commitTs <= high into its own sinks and returns once all of them
are acknowledged. Only then does the driver write the WATERMARK ``high`` (its own DDL sink),
so no watermark W ever precedes a row with commitTs <= W on any executor. Epoch ends come from
``epoch_ms`` (commit time between intermediate watermarks; None: only the final one) and from
DDLs without a table (QUERY): the epoch before one ends at its commitTs - 1 and the driver
writes the DDL between the two epochs, as TiCDC's DDL barrier would.

Each task's MQ sink sends a table's BOOTSTRAP before the table's first row, so a consumer sees
a table's schema before its rows in every partition; a table belongs to one task per epoch, so
there is one bootstrap per table per epoch (plus the sink's own cadence), not one per row.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from pathlib import Path
from typing import Any

from tisink.codec.clock import Clock, FeedClock, WallClock
from tisink.feed.player import bootstrap_at_start
from tisink.feed.spark.errors import SparkPlayError
from tisink.feed.spark.session import spark_session
from tisink.feed.spark.sources import PlaySource, feed_source, workload_source
from tisink.feed.spark.task import TaskSpec, make_factory
from tisink.feed.stats import PlayStats
from tisink.feed.workload import load_scenario
from tisink.model.events import DDLEvent, DDLType
from tisink.model.table import TableInfo
from tisink.model.tso import LOGICAL_BITS, physical_ms

log = logging.getLogger(__name__)


def plan_epochs(
    first_ts: int, last_ts: int, barriers: list[int], epoch_ms: int | None
) -> list[tuple[int, int]]:
    """(low, high] commit-ts windows covering (0, last_ts]: cuts every ``epoch_ms`` of commit
    time and just before every barrier ts."""
    cuts = {ts - 1 for ts in barriers if ts > 0}
    if epoch_ms:
        ms = physical_ms(first_ts) + epoch_ms
        while (ms << LOGICAL_BITS) <= last_ts:
            cuts.add((ms << LOGICAL_BITS) - 1)
            ms += epoch_ms
    ends = [*sorted(c for c in cuts if c < last_ts), max(last_ts, max(cuts, default=0))]
    windows, low = [], 0
    for high in ends:
        if high > low or not windows:
            windows.append((low, high))
            low = high
    return windows


def run_spark_play(
    *,
    feed_path: str | None,
    workload: str | None,
    seed: int,
    rows: int | None,
    sink_uri: str,
    config_path: str | None,
    master: str,
    feed_clock: bool,
    rate: float | None,
    epoch_ms: int | None = None,
    tasks: int | None = None,
) -> dict[str, Any]:
    """Play a feed folder or a workload on Spark into ``sink_uri``; the summary dict has the
    inline engine's fields (rows, ddl, messages by type, bytes, elapsed_s, rows_per_s,
    checkpoint_ts) plus engine details. Raises SparkPlayError when a task failed."""
    if (feed_path is None) == (workload is None):
        raise ValueError("give exactly one of feed_path and workload")
    started = time.perf_counter()
    spark = spark_session(master)
    config_text = Path(config_path).read_text(encoding="utf-8") if config_path else None
    if feed_path is not None:
        source = feed_source(spark, feed_path, tasks)
    else:
        source = workload_source(spark, load_scenario(workload or ""), seed, rows, tasks)
    summary = asyncio.run(_drive(source, sink_uri, config_text, feed_clock, rate, epoch_ms))
    elapsed = time.perf_counter() - started
    summary["elapsed_s"] = round(elapsed, 3)
    summary["rows_per_s"] = round(summary["rows"] / elapsed, 1) if elapsed > 0 else 0.0
    return summary


async def _drive(
    source: PlaySource,
    sink_uri: str,
    config_text: str | None,
    feed_clock: bool,
    rate: float | None,
    epoch_ms: int | None,
) -> dict[str, Any]:
    clock: Clock = FeedClock() if feed_clock else WallClock()
    observe = getattr(clock, "observe_ts", None)
    factory = make_factory(sink_uri, config_text, clock)
    barriers = [d.commit_ts for d in source.tableless]
    epochs = plan_epochs(source.first_ts, source.last_ts, barriers, epoch_ms)
    pending = sorted(source.tableless, key=lambda d: d.commit_ts)
    stats = PlayStats()
    results: list[dict[str, Any]] = []
    watermark = 0
    ddl_sink = await factory.create_ddl_sink()
    try:
        await bootstrap_at_start(ddl_sink, _live_tables(source.ddls, source.first_ts))
        for low, high in epochs:
            spec = TaskSpec(
                sink_uri, config_text, feed_clock, low, high, rate / source.tasks if rate else None
            )
            epoch_results = await asyncio.to_thread(source.run_epoch, spec)
            results.extend(epoch_results)
            _add(stats, epoch_results)
            failed = [r for r in epoch_results if not r["ok"]]
            if failed:
                checkpoint = max(watermark, min(r["checkpoint_ts"] for r in failed))
                stats.checkpoint_ts = checkpoint
                raise SparkPlayError(failed[0], checkpoint, stats)
            if observe is not None:
                observe(high)
            await ddl_sink.write_checkpoint_ts(high, _live_tables(source.ddls, high))
            watermark = stats.checkpoint_ts = high
            stats.watermarks += 1
            while pending and pending[0].commit_ts <= high + 1:
                ddl = pending.pop(0)
                if observe is not None:
                    observe(ddl.commit_ts)
                await ddl_sink.write_ddl_event(ddl)
                stats.ddl += 1
            log.info("epoch (%d, %d] done: %d rows so far", low, high, stats.rows)
    finally:
        await ddl_sink.close()
    driver_stats = getattr(ddl_sink, "stats", None)
    sink_stats = [r.get("sink_stats") or {} for r in results]
    sink_stats.append(driver_stats() if callable(driver_stats) else {})
    return _summary(stats, sink_stats, factory.uri.redacted(), source.tasks, len(epochs))


def _add(stats: PlayStats, results: list[dict[str, Any]]) -> None:
    for result in results:
        stats.rows += int(result.get("rows", 0))
        stats.ddl += int(result.get("ddl", 0))
        stats.bytes += int(result.get("bytes", 0))
        stats.tables = max(stats.tables, int(result.get("tables", 0)))


def _live_tables(ddls: list[DDLEvent], ts: int) -> list[TableInfo]:
    """The tables that exist after every DDL with commitTs <= ts (for the watermark's topics)."""
    live: dict[int, TableInfo] = {}
    for ddl in ddls:
        if ddl.commit_ts > ts:
            break
        if ddl.pre_table is not None and ddl.ddl_type in (DDLType.TRUNCATE, DDLType.ERASE):
            live.pop(ddl.pre_table.table_id, None)
        if ddl.table is not None and ddl.ddl_type is not DDLType.ERASE:
            live[ddl.table.table_id] = ddl.table
    return list(live.values())


def _summary(
    stats: PlayStats, sink_stats: list[dict[str, int]], sink_uri: str, tasks: int, epochs: int
) -> dict[str, Any]:
    messages: Counter[str] = Counter()
    total_bytes = 0
    for item in sink_stats:
        for key, count in item.items():
            if key.endswith("_messages") and count:
                messages[key.removesuffix("_messages").upper()] += count
        total_bytes += int(item.get("bytes", 0))
    return {
        "rows": stats.rows,
        "ddl": stats.ddl,
        "messages": dict(sorted(messages.items())),
        "bytes": total_bytes,
        "elapsed_s": 0.0,
        "rows_per_s": 0.0,
        "checkpoint_ts": stats.checkpoint_ts,
        "verified": None,
        "sink_uri": sink_uri,
        "engine": "spark",
        "tasks": tasks,
        "epochs": epochs,
        "watermarks": stats.watermarks,
        "feed_bytes": stats.bytes,
        "sink_stats": _sum_stats(sink_stats),
    }


def _sum_stats(items: list[dict[str, int]]) -> dict[str, int]:
    total: Counter[str] = Counter()
    for item in items:
        total.update({k: v for k, v in item.items() if isinstance(v, int)})
    return dict(total)
