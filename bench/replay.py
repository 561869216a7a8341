"""Replay against raw sends of the same bytes, and ``tisink play`` inline with each Kafka client.

A demo play (feed clock, Simple JSON, 3 partitions) is written to a file-sink folder once; then
each contender runs in a process of its own (``replay_worker``) against a fresh embedded broker
(it keeps everything in memory and slows as it fills), so CPU time and peak RSS are the
contender's alone:

- ``tisink replay --preload`` of the folder ``--loop N`` times with ``kafka-client=aiokafka``
  against raw aiokafka batch sends (one batch in flight per partition) of the same records,
  and with ``kafka-client=librdkafka`` against raw confluent-kafka ``produce`` (no delivery
  callbacks, librdkafka's defaults, acks all) and against the same with one request in flight
  per connection (the ordering tisink keeps without idempotence). The raw senders hold the
  records in memory before their clock starts; so does a preloaded replay, whose line rate is
  its sending phase (first send to last acknowledgement). Its end-to-end rate (command start,
  reading included) is in the note;
- ``tisink replay`` streamed (reading and decoding the folder in reader processes as it
  sends, the default), end to end, against the same raw senders;
- ``tisink play`` of the same demo rows inline with each client against both raw senders of
  the bytes it writes (one pass).

Figures are messages per wall-clock second (medians of the repeats); the note gives CPU
microseconds per message of the sending process (and replay's readers), and peak RSS.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import orjson

from tisink.bench.kafka import broker_address
from tisink.bench.results import BenchResult
from tisink.play.run import PlaySpec, run_play

PARTITIONS = 3
RAW = {
    "aiokafka": ("raw-aiokafka", "raw aiokafka send_batch"),
    "librdkafka": ("raw-confluent", "raw confluent-kafka produce"),
}

ORDERED = "raw confluent-kafka produce, a client per partition, 1 request in flight"
"""The raw sender with the order guarantee tisink's librdkafka producer keeps without
idempotence (as TiCDC's sarama producer, MaxOpenRequests 1: librdkafka's default of many
requests in flight lets a retried batch land after the next one) and its connections (a
client per partition group): the replay's own cost, apart from what ordering costs."""


def demo_folder(folder: Path, rows: int) -> Path:
    """The demo workload's messages in a file-sink folder (what replay sends)."""
    run_play(
        PlaySpec(
            workload="demo",
            rows=rows,
            sink_uri=f"file://{folder}?protocol=simple&partition-num={PARTITIONS}",
            engine="inline",
            clock="feed",
            verify_after=False,
        )
    )
    return folder


def run_worker(
    kind: str, folder: Path, loops: int, rows: int, bootstrap: str | None
) -> dict[str, Any]:
    """One contender in a process of its own, against a fresh embedded broker (or
    ``bootstrap``)."""
    with broker_address(bootstrap) as address:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "tisink.bench.replay_worker",
                kind,
                str(folder),
                address,
                str(loops),
                str(rows),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
    if done.returncode != 0:
        raise RuntimeError(f"{kind} failed: {done.stderr[-2000:]}")
    return dict(orjson.loads(done.stdout.splitlines()[-1]))


def _rate(runs: list[dict[str, Any]], field: str = "wall_s") -> float:
    return statistics.median(r["messages"] / r[field] for r in runs)


def _us(runs: list[dict[str, Any]], field: str = "cpu_s") -> float:
    return statistics.median(r[field] / r["messages"] * 1e6 for r in runs)


def replay_group(bootstrap: str | None, rows: int, loops: int, repeat: int) -> list[BenchResult]:
    """Replay and play with each client against the raw senders, ``repeat`` rounds, the
    contenders of a round one after the other."""
    kinds = [
        ("raw-aiokafka", loops),
        ("replay-aiokafka", loops),
        ("raw-confluent", loops),
        ("replay-librdkafka", loops),
        ("raw-confluent-ordered", loops),
        ("stream-aiokafka", loops),
        ("stream-librdkafka", loops),
        ("raw-aiokafka", 1),
        ("raw-confluent", 1),
        ("play-aiokafka", 1),
        ("play-librdkafka", 1),
    ]
    runs: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    with tempfile.TemporaryDirectory() as temp:
        folder = demo_folder(Path(temp) / "demo", rows)
        for _ in range(max(1, repeat)):
            for kind, passes in kinds:
                runs[kind, passes].append(run_worker(kind, folder, passes, rows, bootstrap))
    messages = runs["replay-aiokafka", loops][0]["messages"]
    replay = f"replay: {messages:,} demo messages ({rows:,} rows' x {loops}), 3 partitions"
    play = f"play: {rows:,} demo rows inline, 3 partitions, against raw sends of its bytes"
    results = []
    for client, raw_kind, raw_name in [
        *((client, kind, name) for client, (kind, name) in RAW.items()),
        ("librdkafka", "raw-confluent-ordered", ORDERED),
    ]:
        ours, raw = runs[f"replay-{client}", loops], runs[raw_kind, loops]
        results.append(
            BenchResult(
                replay,
                f"tisink replay --preload, kafka-client={client}, line rate",
                _rate(ours, "sending_s"),
                raw_name,
                _rate(raw),
                note=f"end to end {_rate(ours):,.0f} msg/s; CPU {_us(ours):.1f} us/msg + readers "
                f"{_us(ours, 'children_cpu_s'):.1f} vs raw {_us(raw):.1f}; RSS "
                f"{max(r['rss_mb'] for r in ours):.0f} MB vs raw "
                f"{max(r['rss_mb'] for r in raw):.0f} MB",
            )
        )
    for client, (raw_kind, raw_name) in RAW.items():
        ours, raw = runs[f"stream-{client}", loops], runs[raw_kind, loops]
        results.append(
            BenchResult(
                replay,
                f"tisink replay streamed, kafka-client={client}, end to end",
                _rate(ours),
                raw_name,
                _rate(raw),
                note=f"CPU {_us(ours):.1f} us/msg + readers {_us(ours, 'children_cpu_s'):.1f} "
                f"vs raw {_us(raw):.1f}; RSS {max(r['rss_mb'] for r in ours):.0f} MB",
            )
        )
    for client in RAW:
        ours = runs[f"play-{client}", 1]
        for raw_kind, raw_name in RAW.values():
            raw = runs[raw_kind, 1]
            results.append(
                BenchResult(
                    play,
                    f"tisink play, kafka-client={client}",
                    _rate(ours),
                    raw_name,
                    _rate(raw),
                    note=f"CPU {_us(ours):.1f} us/msg vs raw {_us(raw):.1f}",
                )
            )
    return results
