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

JSON_FILE, MARKDOWN_FILE, CHART_FILE = "bench.json", "bench.md", "bench.png"


@dataclass(frozen=True)
class SuiteSettings:
    """Sizes of one suite run; ``quick()`` and ``full()`` are the two ``tisink bench`` runs."""

    encode_rows: int
    kafka_rows: int
    play_rows: int
    repeat: int
    bootstrap: str | None = None
    """An existing Kafka for the Kafka and engine groups (default: the embedded broker)."""
    replay_loops: int = 3
    """Passes of ``kafka_rows`` demo rows' messages the replay group sends."""
    replay_repeat: int = 1

    @classmethod
    def quick(cls, bootstrap: str | None = None) -> SuiteSettings:
        return cls(
            encode_rows=5_000, kafka_rows=20_000, play_rows=30_000, repeat=3, bootstrap=bootstrap
        )

    @classmethod
    def full(cls, bootstrap: str | None = None) -> SuiteSettings:
        return cls(
            encode_rows=20_000,
            kafka_rows=100_000,
            play_rows=100_000,
            repeat=5,
            bootstrap=bootstrap,
            replay_loops=10,
            replay_repeat=3,
        )


Step = Callable[[str], None]


def run_suite(
    settings: SuiteSettings, step: Step | None = None
) -> tuple[list[BenchResult], dict[str, Any]]:
    """Every group, in order; ``step`` hears the name of each before it runs. Returns the
    results and the run's description (machine, sizes, wall time)."""
    announce = step or (lambda _name: None)
    started = time.perf_counter()
    results: list[BenchResult] = []
    announce("encoding 10-column rows")
    rows = settings.encode_rows
    results += encoding_group(
        f"encode: 10-column rows ({rows})", ten_column_txns(rows), settings.repeat
    )
    announce("encoding demo rows")
    results += encoding_group(f"encode: demo rows ({rows})", demo_txns(rows), settings.repeat)
    announce("generating and reading the demo feed")
    results += feed_group(f"feed: demo rows ({rows})", rows, settings.repeat)
    announce("Kafka sink against raw aiokafka sends")
    results += kafka_group(
        settings.bootstrap, ten_column_txns(settings.kafka_rows), settings.repeat
    )
    announce("engines: inline, Spark local[1], local[2]")
    results += engine_group(settings.bootstrap, settings.play_rows, settings.repeat)
    announce("replay and play with each Kafka client against raw sends")
    results += replay_group(
        settings.bootstrap, settings.kafka_rows, settings.replay_loops, settings.replay_repeat
    )
    meta = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "tisink": version("tisink"),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "loop_turn_ns": round(loop_turn_ns(), 1),
        "encode_rows": settings.encode_rows,
        "kafka_rows": settings.kafka_rows,
        "play_rows": settings.play_rows,
        "replay_loops": settings.replay_loops,
        "repeat": settings.repeat,
        "wall_s": round(time.perf_counter() - started, 1),
    }
    return results, meta


def write_outputs(results: list[BenchResult], meta: dict[str, Any], folder: Path) -> list[Path]:
    """``bench.json``, ``bench.md`` and ``bench.png`` in ``folder``; the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / JSON_FILE, folder / MARKDOWN_FILE, folder / CHART_FILE]
    write_json(results, meta, paths[0])
    paths[1].write_text(markdown(results, meta), encoding="utf-8")
    bench_chart(results, paths[2])
    return paths
