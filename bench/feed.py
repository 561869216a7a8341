"""The feed stages: generating the demo workload and reading its feed lines back.

Encoding a row is not all a play pays for it: the workload generator draws it, or the reader
parses and validates its line against the live schema. ``generate`` has no library to compare
with; ``read + validate`` is compared with ``orjson.loads`` of the same lines, the parse alone.
"""

from __future__ import annotations

import orjson

from tisink.bench.results import BenchResult, cpu_rate
from tisink.feed.format.reader import FeedParser
from tisink.feed.workload import generate_records, record_line

WORKLOAD = "demo"
SEED = 1


def feed_group(group: str, rows: int, repeat: int) -> list[BenchResult]:
    """Generation and read + validate of ``rows`` demo rows (CPU time, medians)."""

    def generate() -> None:
        for _ in generate_records(WORKLOAD, SEED, rows):
            pass

    lines = [record_line(record) for record in generate_records(WORKLOAD, SEED, rows)]

    def read() -> None:
        for _ in FeedParser().parse_lines(lines, "bench"):
            pass

    def parse() -> None:
        for line in lines:
            orjson.loads(line)

    size = round(sum(map(len, lines)) / len(lines), 1) if lines else None
    return [
        BenchResult(group, "generate", cpu_rate(rows, generate, repeat), bytes_per_row=size),
        BenchResult(
            group,
            "read + validate",
            cpu_rate(rows, read, repeat),
            baseline="orjson.loads",
            baseline_rows_per_s=cpu_rate(rows, parse, repeat),
            bytes_per_row=size,
            note=f"{len(lines)} lines",
        ),
    ]
