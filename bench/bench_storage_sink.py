"""The storage sink (csv, canal-json in TiCDC's layout) against the sinks around it, in
process CPU seconds (user + system, the writer thread included) of one inline play of the same
feed under the feed clock: blackhole (the player and table sinks alone), partition files of
the same protocol (canal-json), and the storage layout with and without fsync.

    python bench/bench_storage_sink.py --rows 20000 --repeat 3
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import resource
import statistics
import tempfile
import time
from pathlib import Path
from unittest import mock

from tisink.core.clock import FeedClock
from tisink.eventsink.storage import durable
from tisink.feed.format.reader import read_feed
from tisink.feed.inline import play_with_factory
from tisink.feed.workload import generate_feed
from tisink.sink.factory import SinkFactory

CASES = {
    "blackhole (floor)": "blackhole://",
    "canal-json partition files": "file://{out}?protocol=canal-json&file-layout=partitions",
    "canal-json storage layout": "file://{out}?protocol=canal-json",
    "csv storage layout": "file://{out}?protocol=csv",
    "csv storage layout, no fsync": "file://{out}?protocol=csv",
}


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _play(feed: Path, uri: str, sync: bool) -> tuple[float, float]:
    """CPU and wall seconds of one play; without ``sync`` the writes skip fsync."""
    original = durable.write_atomic
    patch = (
        contextlib.nullcontext()
        if sync
        else mock.patch(
            "tisink.eventsink.storage.files.write_atomic",
            lambda path, data, sync=True: original(path, data, sync=False),
        )
    )
    with tempfile.TemporaryDirectory() as tmp, patch:
        factory = SinkFactory(uri.format(out=Path(tmp) / "out"), clock=FeedClock())
        cpu, wall = _cpu(), time.perf_counter()
        asyncio.run(play_with_factory(read_feed(feed), factory))
        return _cpu() - cpu, time.perf_counter() - wall


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        feed = Path(tmp) / "demo.jsonl"
        generate_feed("demo", 1, args.rows, feed)
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in CASES}
        for _ in range(args.repeat):
            for name, uri in CASES.items():
                runs[name].append(_play(feed, uri, sync="no fsync" not in name))
    floor = statistics.median(cpu for cpu, _ in runs["blackhole (floor)"])
    print(f"{args.rows} rows, median of {args.repeat} runs: CPU s (x blackhole's CPU), wall s")
    for name, values in runs.items():
        cpu = statistics.median(c for c, _ in values)
        wall = statistics.median(w for _, w in values)
        print(f"  {name:30s} {cpu:6.2f} (x{cpu / floor:4.2f})  {wall:6.2f}")


if __name__ == "__main__":
    main()
