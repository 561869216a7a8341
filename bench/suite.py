"""The standard suite: what ``tisink bench`` runs, in order, and what it writes.

``quick`` keeps every group but on fewer rows and repeats (the whole suite in under three
minutes on a two-core machine); the full suite takes longer and gives steadier figures.
"""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path
from typing import Any

from tisink.bench.charts import bench_chart
from tisink.bench.encoding import encoding_group
from tisink.bench.engines import engine_group
from tisink.bench.feed import feed_group
from tisink.bench.kafka import kafka_group
from tisink.bench.output import markdown, write_json
from tisink.bench.replay import replay_group
from tisink.bench.results import BenchResult, loop_turn_ns
from tisink.bench.rows import demo_txns, ten_column_txns
from tisink.run.embedded import DEFAULT_BROKER, BrokerKind

JSON_FILE, MARKDOWN_FILE, CHART_FILE = "bench.json", "bench.md", "bench.png"


@dataclass(frozen=True)
class SuiteSettings:
    """Sizes of one suite run; ``quick()`` and ``full()`` are the two ``tisink bench`` runs."""

    encode_rows: int
    kafka_rows: int
    play_rows: int
    repeat: int
    bootstrap: str | None = None
    """An existing Kafka for the broker groups (default: embedded brokers)."""
    broker: BrokerKind = DEFAULT_BROKER
    """The Kafka group's broker: an embedded one of this kind, or what kind ``bootstrap`` is
    (Kafka's producer tool runs against Apache Kafka only). The engine and replay groups start
    a Tansu per contender unless ``bootstrap`` is given."""
    replay_loops: int = 3
    """Passes of ``kafka_rows`` demo rows' messages the replay group sends."""
    replay_repeat: int = 1

    @classmethod
    def quick(
        cls, bootstrap: str | None = None, broker: BrokerKind = DEFAULT_BROKER
    ) -> SuiteSettings:
        return cls(
            encode_rows=5_000,
            kafka_rows=20_000,
            play_rows=30_000,
            repeat=3,
            bootstrap=bootstrap,
            broker=broker,
        )

    @classmethod
    def full(
        cls, bootstrap: str | None = None, broker: BrokerKind = DEFAULT_BROKER
    ) -> SuiteSettings:
        return cls(
            encode_rows=20_000,
            kafka_rows=100_000,
            play_rows=100_000,
            repeat=5,
            bootstrap=bootstrap,
            broker=broker,
            replay_loops=10,
            replay_repeat=3,
        )


Step = Callable[[str], None]
Done = Callable[[str, list[BenchResult]], None]


@dataclass(frozen=True)
class SuiteStep:
    """One group of the suite: what the progress line and a stopped run's "not run" list call
    it, and the work (nothing is measured or built before ``run`` is called)."""

    name: str
    run: Callable[[], list[BenchResult]]


def suite_steps(settings: SuiteSettings) -> list[SuiteStep]:
    """The suite's groups, in the order they run."""
    rows, repeat = settings.encode_rows, settings.repeat
    return [
        SuiteStep(
            "encoding 10-column rows",
            lambda: encoding_group(
                f"encode: 10-column rows ({rows})", ten_column_txns(rows), repeat
            ),
        ),
        SuiteStep(
            "encoding demo rows",
            lambda: encoding_group(f"encode: demo rows ({rows})", demo_txns(rows), repeat),
        ),
        SuiteStep(
            "generating and reading the demo feed",
            lambda: feed_group(f"feed: demo rows ({rows})", rows, repeat),
        ),
        SuiteStep(
            "Kafka sink against raw aiokafka, raw confluent-kafka and Kafka's producer tool",
            lambda: kafka_group(
                settings.bootstrap, ten_column_txns(settings.kafka_rows), repeat, settings.broker
            ),
        ),
        SuiteStep(
            "engines: inline, Spark local[1], local[2]",
            lambda: engine_group(settings.bootstrap, settings.play_rows, repeat),
        ),
        SuiteStep(
            "replay and play with each Kafka client against raw sends",
            lambda: replay_group(
                settings.bootstrap,
                settings.kafka_rows,
                settings.replay_loops,
                settings.replay_repeat,
            ),
        ),
    ]


def suite_meta(settings: SuiteSettings) -> dict[str, Any]:
    """The run's description (machine and sizes); the caller adds ``wall_s``."""
    return {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "tisink": version("tisink"),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "loop_turn_ns": round(loop_turn_ns(), 1),
        "encode_rows": settings.encode_rows,
        "kafka_rows": settings.kafka_rows,
        "kafka_broker": settings.broker,
        "play_rows": settings.play_rows,
        "replay_loops": settings.replay_loops,
        "repeat": settings.repeat,
    }


def run_suite(
    settings: SuiteSettings, step: Step | None = None, done: Done | None = None
) -> tuple[list[BenchResult], dict[str, Any]]:
    """Every group, in order; ``step`` hears the name of each before it runs, ``done`` its name
    and results after. Returns the results and the run's description (machine, sizes, wall
    time)."""
    started = time.perf_counter()
    results: list[BenchResult] = []
    for each in suite_steps(settings):
        if step is not None:
            step(each.name)
        finished = each.run()
        results += finished
        if done is not None:
            done(each.name, finished)
    meta = suite_meta(settings)
    meta["wall_s"] = round(time.perf_counter() - started, 1)
    return results, meta


def write_outputs(
    results: list[BenchResult], meta: dict[str, Any], folder: Path, *, chart: bool = True
) -> list[Path]:
    """``bench.json``, ``bench.md`` and, with ``chart`` and results to chart, ``bench.png`` in
    ``folder`` (a stopped run skips the chart: drawing it takes longer than stopping); the
    paths written. Without a chart, an earlier run's is removed, not left beside these."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / JSON_FILE, folder / MARKDOWN_FILE, folder / CHART_FILE]
    write_json(results, meta, paths[0])
    paths[1].write_text(markdown(results, meta), encoding="utf-8")
    if not (chart and results):
        paths[2].unlink(missing_ok=True)
        return paths[:2]
    bench_chart(results, paths[2])
    return paths
