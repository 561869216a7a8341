"""Rows/s of the ``demo`` workload to the embedded broker: inline, Spark local[1], local[2].

    python bench/bench_play_engines.py [--rows N] [--seed N]

Each engine writes Simple JSON to its own topic (3 partitions) of one embedded broker. The
Spark figures exclude the session start (a warm-up play runs first) but include the driver's
planning and the executors' generation. Prints the figures and the local[2] / local[1] ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import time
import uuid

from tisink.broker import start_broker
from tisink.feed.inline import play_inline
from tisink.feed.spark import run_spark_play
from tisink.feed.workload import generate_records
from tisink.sink import SinkFactory


def _uri(bootstrap: str, name: str) -> str:
    topic = "bench-" + "".join(c if c.isalnum() else "-" for c in name) + "-" + uuid.uuid4().hex[:8]
    return f"kafka://{bootstrap}/{topic}?protocol=simple&partition-num=3"


async def _inline(uri: str, seed: int, rows: int) -> float:
    factory = SinkFactory(uri)
    event_sink = await factory.create_event_sink()
    ddl_sink = await factory.create_ddl_sink()
    started = time.perf_counter()
    try:
        stats = await play_inline(
            generate_records("demo", seed, rows),
            event_sink,
            ddl_sink,
            lambda table_id: factory.create_table_sink(table_id, event_sink),
        )
    finally:
        await event_sink.close()
        await ddl_sink.close()
    return stats.rows / (time.perf_counter() - started)


def _spark(bootstrap: str, master: str, seed: int, rows: int) -> float:
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        active.stop()
    options = {
        "feed_path": None,
        "workload": "demo",
        "seed": seed,
        "config_path": None,
        "master": master,
        "feed_clock": False,
        "rate": None,
    }
    run_spark_play(rows=2000, sink_uri=_uri(bootstrap, "warmup"), **options)
    started = time.perf_counter()
    summary = run_spark_play(rows=rows, sink_uri=_uri(bootstrap, master), **options)
    return summary["rows"] / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with start_broker() as broker:
        figures = {
            "inline": asyncio.run(_inline(_uri(broker.bootstrap, "inline"), args.seed, args.rows))
        }
        for master in ("local[1]", "local[2]"):
            figures[f"spark {master}"] = _spark(broker.bootstrap, master, args.seed, args.rows)
    for name, rate in figures.items():
        print(f"{name:16s} {rate:10.0f} rows/s")
    ratio = figures["spark local[2]"] / figures["spark local[1]"]
    print(f"local[2] / local[1] = {ratio:.2f} (target >= 1.5)")


if __name__ == "__main__":
    main()
