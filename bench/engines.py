"""The engines: a workload played inline and on Spark ``local[1]`` and ``local[2]``.

Each play writes Simple JSON to a topic of its own on a broker of its own per engine (the
in-memory broker slows down as it fills), as ``tisink play`` does, without verify. ``rows/s``
is the summary's, end to end: from the play's start to the last acknowledgement; the Spark
figures are compared with the inline one. The note gives the CPU seconds of the whole process
tree (this process, the JVM and the Python workers) per play, the writing phase's rows/s and
the start-up. A Spark engine first plays a small warm-up (the JVM starts once per process, not
per play), so its start-up here is a warm session's, not a command's.
"""

from __future__ import annotations

import statistics
import uuid
from pathlib import Path

from tisink.bench.cpu import tree_cpu_seconds
from tisink.bench.kafka import broker_address
from tisink.bench.results import BenchResult
from tisink.feed.play_spec import Engine
from tisink.play.run import PlaySpec, run_play
from tisink.run.summary import RunSummary

ENGINES: tuple[tuple[Engine, str | None], ...] = (
    ("inline", None),
    ("spark", "local[1]"),
    ("spark", "local[2]"),
)
WARM_UP_ROWS = 2000


def play_once(
    bootstrap: str,
    engine: tuple[Engine, str | None],
    workload: str,
    rows: int,
    partitions: int,
    config: Path | None = None,
) -> RunSummary:
    topic = f"bench-play-{uuid.uuid4().hex[:8]}"
    options = PlaySpec(
        workload=workload,
        rows=rows,
        seed=1,
        sink_uri=f"kafka://{bootstrap}/{topic}?protocol=simple&partition-num={partitions}",
        config_path=config,
        engine=engine[0],
        master=engine[1] or "local[*]",
        verify_after=False,
    )
    return run_play(options)


def stop_spark() -> None:
    """Stop the active Spark session, if any: one SparkContext per process, so a new master
    needs the last one gone."""
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        active.stop()


def engine_group(
    bootstrap: str | None,
    rows: int,
    repeat: int,
    *,
    workload: str = "demo",
    partitions: int = 3,
    config: Path | None = None,
) -> list[BenchResult]:
    """``repeat`` plays per engine; medians of rows/s, p99 latency and start-up."""
    group = f"engines: {workload} workload, {rows} rows, {partitions} partitions"
    results: list[BenchResult] = []
    inline_rate: float | None = None
    for engine in ENGINES:
        if engine[1] is not None:
            stop_spark()
        with broker_address(bootstrap) as address:
            if engine[1] is not None:
                play_once(address, engine, workload, WARM_UP_ROWS, partitions, config)
            runs, cpu = [], []
            for _ in range(max(1, repeat)):
                before = tree_cpu_seconds()
                runs.append(play_once(address, engine, workload, rows, partitions, config))
                cpu.append(tree_cpu_seconds() - before)
        rate = statistics.median(s.rows_per_s for s in runs)
        writing = statistics.median(s.writing_rows_per_s for s in runs)
        startup = statistics.median(s.startup_s for s in runs)
        result = BenchResult(
            group,
            engine[1] or engine[0],
            rate,
            bytes_per_row=round(statistics.median(s.bytes / s.rows for s in runs), 1),
            p99_ms=statistics.median(float(s.latency_ms.get("p99", 0.0)) for s in runs),
            note=f"CPU {statistics.median(cpu):.1f} s, writing {writing:,.0f} rows/s, "
            f"start-up {startup:.2f} s",
        )
        if inline_rate is None:
            inline_rate = rate
        else:
            result.baseline, result.baseline_rows_per_s = "inline", inline_rate
        results.append(result)
    stop_spark()
    return results
