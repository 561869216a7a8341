"""The cost of measuring acknowledgement latency on every play: with and without the recorder.

The demo workload is played inline (the player, table sinks and the sink, as ``tisink play
--engine inline`` does) into ``blackhole://`` (row callbacks, the most callbacks per row; CPU
time) and into the embedded broker as Simple JSON (transaction callbacks; wall time), once with
the table sinks sharing an ``AckLatency`` and once without, alternating, ``--repeat`` times.
Prints the medians and the overhead.

    python bench/bench_ack_latency.py [--rows 50000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
import uuid
from collections.abc import Callable

from tisink.bench.kafka import broker_address
from tisink.feed.format.records import FeedRecord
from tisink.feed.inline import play_inline
from tisink.feed.workload import generate_records
from tisink.sink import SinkFactory
from tisink.tablesink import AckLatency, TableSink


async def play(uri: str, records: list[FeedRecord], measured: bool) -> None:
    factory = SinkFactory(uri)
    event_sink = await factory.create_event_sink()
    ddl_sink = await factory.create_ddl_sink()
    latency = AckLatency() if measured else None
    try:
        await play_inline(
            records,
            event_sink,
            ddl_sink,
            lambda table_id: TableSink(table_id, event_sink, latency=latency),
        )
    finally:
        await event_sink.close()
        await ddl_sink.close()


def timed(clock: Callable[[], float], uri: str, records: list[FeedRecord], measured: bool) -> float:
    started = clock()
    asyncio.run(play(uri, records, measured))
    return clock() - started


def compare(
    label: str, clock: Callable[[], float], uris: Callable[[], str], records, repeat: int
) -> None:
    times: dict[bool, list[float]] = {False: [], True: []}
    for _ in range(repeat):
        for measured in (False, True):
            times[measured].append(timed(clock, uris(), records, measured))
    before, after = (statistics.median(times[m]) for m in (False, True))
    print(
        f"{label:<28} without {before:7.3f} s  with {after:7.3f} s  "
        f"overhead {100 * (after / before - 1):+5.1f} %"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--bootstrap", help="an existing Kafka (default: embedded Tansu)")
    args = parser.parse_args()
    records = list(generate_records("demo", 1, args.rows))
    print(f"demo workload, {args.rows} rows, median of {args.repeat} runs, alternating")
    compare(
        "blackhole:// (CPU time)", time.process_time, lambda: "blackhole://", records, args.repeat
    )
    with broker_address(args.bootstrap) as address:

        def kafka_uri() -> str:
            return f"kafka://{address}/bench-latency-{uuid.uuid4().hex[:8]}?protocol=simple&partition-num=3"

        compare("Kafka, Simple JSON (wall)", time.perf_counter, kafka_uri, records, args.repeat)


if __name__ == "__main__":
    main()
