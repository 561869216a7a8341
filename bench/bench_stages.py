"""Per-stage rates of the ``demo`` workload (wide rows of every MySQL type), with baselines.

Stages, each timed alone: generate, read + validate (the feed lines, in memory), table sink +
player (into ``blackhole://``), Simple JSON encode, Simple Avro encode, route, produce (our
Kafka producer). Baselines from the same run: ``orjson.loads`` of the feed lines,
``orjson.dumps`` of the finished JSON messages, and raw aiokafka batch sends of the encoded
bytes. End to end: the demo workload played inline (as ``tisink play --engine inline``) into
``blackhole://`` and into the embedded broker, the latter compared with the raw sends. The
note column says whether a stage meets its target (issue 18).

CPU-only stages are timed in process time (other processes on a shared machine do not count);
anything that talks to the broker in wall time. Each figure is the median of ``repeat`` runs;
the encoders get the rows of another seed each run, so value caches (float text) never see a
value twice, as in a play.

    python bench/bench_stages.py [--rows 100000] [--repeat 3] [--no-kafka] [--bootstrap H:P]

``run_stages`` returns the rows of the table, for ``tisink bench`` to reuse.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import statistics
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
from bench_kafka_sink import raw_aiokafka

from tisink.bench.rows import transactions
from tisink.codec import new_encoder
from tisink.core.clock import FixedClock
from tisink.ddlsink.blackhole import BlackholeDDLSink
from tisink.eventsink.blackhole import BlackholeSink
from tisink.eventsink.kafka import KafkaConfig, new_kafka_producer
from tisink.eventsink.router import EventRouter
from tisink.feed import play_inline
from tisink.feed.format.reader import FeedParser
from tisink.feed.format.records import FeedRecord, FeedRow
from tisink.feed.inline import play_with_factory
from tisink.feed.workload import generate_records, record_line
from tisink.model.events import RowChangedEvent
from tisink.sink import ChangefeedConfig, SinkFactory
from tisink.tablesink import TableSink

WORKLOAD = "demo"
PARTITIONS = 3
BUILD_TS = 1_714_550_400_000
SIMPLE_JSON = '[sink]\nprotocol = "simple"\n'
SIMPLE_AVRO = SIMPLE_JSON + '[sink.kafka-config.codec-config]\nencoding-format = "avro"\n'
TARGETS = {
    "generate": 80_000,
    "read + validate": 150_000,
    "Simple JSON encode": 100_000,
    "Simple Avro encode": 50_000,
}
"""Rows/s each stage should reach; the broker play should reach half the raw sends' rate."""
E2E_TARGET_RATIO = 0.5


@dataclass
class StageResult:
    """One line of the table: ``rows`` items through ``stage`` in ``seconds`` (a median)."""

    stage: str
    rows: int
    seconds: float
    clock: str
    """``cpu`` (process time) or ``wall``."""
    baseline: bool = False
    note: str = ""

    @property
    def rows_per_s(self) -> float:
        return self.rows / self.seconds if self.seconds > 0 else float("inf")

    @property
    def us_per_row(self) -> float:
        return 1e6 * self.seconds / self.rows if self.rows else 0.0


def _median_time(run: Callable[[], object], repeat: int, clock: Callable[[], float]) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        started = clock()
        run()
        times.append(clock() - started)
    return statistics.median(times)


def _cpu(run: Callable[[], object], repeat: int) -> float:
    return _median_time(run, repeat, time.process_time)


def _cpu_once(run: Callable[..., object], *args: Any) -> float:
    started = time.process_time()
    run(*args)
    return time.process_time() - started


def _route_all(router: EventRouter, txns: list[list[RowChangedEvent]]) -> None:
    for txn in txns:
        router.partitions_for_rows(txn, PARTITIONS)


def _drain(items: Iterable[Any]) -> None:
    for _ in items:
        pass


async def _play_blackhole(records: Iterable[FeedRecord]) -> int:
    sink = BlackholeSink()
    stats = await play_inline(
        records, sink, BlackholeDDLSink(), lambda table_id: TableSink(table_id, sink)
    )
    return stats.rows


async def _play_uri(uri: str, records: Iterable[FeedRecord]) -> int:
    stats = await play_with_factory(records, SinkFactory(uri))
    return stats.rows


async def _our_sends(bootstrap: str, topic: str, parts: list[list[bytes]]) -> float:
    """Seconds for ``KafkaProducer.send`` to deliver ``parts`` in chunks of 2048 records."""
    config = KafkaConfig.from_sink_params(bootstrap, topic, {"partition-num": str(len(parts))})
    producer = await new_kafka_producer(config)
    records = [[(b"", value) for value in values] for values in parts]

    async def partition_loop(partition: int) -> None:
        batch = records[partition]
        for start in range(0, len(batch), 2048):
            await producer.send(topic, partition, batch[start : start + 2048])

    try:
        started = time.perf_counter()
        await asyncio.gather(*(partition_loop(p) for p in range(len(parts))))
        return time.perf_counter() - started
    finally:
        await producer.close()


@contextlib.contextmanager
def _broker(bootstrap: str | None) -> Iterator[str]:
    if bootstrap:
        yield bootstrap
        return
    from tisink.run.broker import start_broker

    with start_broker() as broker:
        yield broker.bootstrap


def _kafka_stages(
    bootstrap: str | None, seed: int, rows: int, parts: list[list[bytes]], repeat: int
) -> list[StageResult]:
    messages = sum(map(len, parts))
    mean = sum(map(len, (v for p in parts for v in p))) // max(messages, 1)
    results: list[StageResult] = []
    with _broker(bootstrap) as address:
        run = uuid.uuid4().hex[:8]
        raw_topic, ours_topic = f"bench-stages-raw-{run}", f"bench-stages-ours-{run}"
        for topic in (raw_topic, ours_topic):  # create both with PARTITIONS partitions
            asyncio.run(_our_sends(address, topic, [[] for _ in range(PARTITIONS)]))
        raw = statistics.median(
            asyncio.run(raw_aiokafka(address, raw_topic, parts)) for _ in range(repeat)
        )
        ours = statistics.median(
            asyncio.run(_our_sends(address, ours_topic, parts)) for _ in range(repeat)
        )
        played = []
        for attempt in range(repeat):
            uri = (
                f"kafka://{address}/bench-stages-play-{run}-{attempt}"
                f"?protocol=simple&partition-num={PARTITIONS}"
            )
            started = time.perf_counter()
            count = asyncio.run(_play_uri(uri, generate_records(WORKLOAD, seed, rows)))
            played.append(time.perf_counter() - started)
            assert count == rows, (count, rows)
    note = f"{messages} messages, mean {mean} B"
    results.append(StageResult("produce (KafkaProducer.send)", messages, ours, "wall", note=note))
    results.append(
        StageResult("raw aiokafka batch sends", messages, raw, "wall", baseline=True, note=note)
    )
    e2e = StageResult(
        "end to end: generate + play inline -> broker", rows, statistics.median(played), "wall"
    )
    ratio = e2e.rows_per_s / (messages / raw)
    met = "met" if ratio >= E2E_TARGET_RATIO else "NOT met"
    e2e.note = f"{ratio:.2f}x raw sends; target {E2E_TARGET_RATIO}x: {met}"
    results.append(e2e)
    return results


def _encoders() -> tuple[Any, Any, EventRouter]:
    json_config = ChangefeedConfig.from_toml(SIMPLE_JSON)
    json_encoder = new_encoder(json_config.encoder, FixedClock(BUILD_TS))
    avro_encoder = new_encoder(
        ChangefeedConfig.from_toml(SIMPLE_AVRO).encoder, FixedClock(BUILD_TS)
    )
    return json_encoder, avro_encoder, EventRouter("tidb-cdc", json_config.dispatch_rules)


def _rows_stages(seed: int, rows: int, repeat: int) -> list[StageResult]:
    """The stages that take generated rows: JSON and Avro encoding and routing. Each run
    takes the rows of another seed: value caches (float text) never see a value twice, as
    in a play."""
    json_encoder, avro_encoder, router = _encoders()
    runs: dict[str, list[float]] = {"json": [], "avro": [], "route": []}
    for attempt in range(repeat):
        records = generate_records(WORKLOAD, seed + attempt, rows)
        txns = transactions([r.row for r in records if type(r) is FeedRow])
        gc.collect()
        gc.freeze()  # the fixture outlives the timing; a streaming source's rows die young
        runs["json"].append(_cpu_once(_drain, map(json_encoder.encode_rows, txns)))
        runs["avro"].append(_cpu_once(_drain, map(avro_encoder.encode_rows, txns)))
        runs["route"].append(_cpu_once(_route_all, router, txns))
        gc.unfreeze()
    return [
        StageResult("Simple JSON encode", rows, statistics.median(runs["json"]), "cpu"),
        StageResult("Simple Avro encode", rows, statistics.median(runs["avro"]), "cpu"),
        StageResult("route (default dispatchers)", rows, statistics.median(runs["route"]), "cpu"),
    ]


def _fixture_stages(
    records: list[FeedRecord], rows: int, repeat: int
) -> tuple[list[StageResult], StageResult, list[list[bytes]]]:
    """The stages that replay one generated feed, the ``orjson.dumps`` baseline of its JSON
    messages, and those messages by partition (for the broker stages)."""
    lines = [record_line(record) for record in records]
    txns = transactions([r.row for r in records if type(r) is FeedRow])
    json_encoder, _, router = _encoders()
    parts: list[list[bytes]] = [[] for _ in range(PARTITIONS)]
    for txn in txns:
        targets = router.partitions_for_rows(txn, PARTITIONS)
        for target, (_, value) in zip(targets, json_encoder.encode_rows(txn).records, strict=True):
            parts[target].append(value)
    values = [value for part in parts for value in part]
    messages = [orjson.loads(value) for value in values]
    gc.collect()
    gc.freeze()
    try:
        dumps = StageResult(
            "orjson.dumps of the same messages",
            len(messages),
            _cpu(lambda: _drain(map(orjson.dumps, messages)), repeat),
            "cpu",
            baseline=True,
            note=f"mean {sum(map(len, values)) // max(len(values), 1)} B/message",
        )
        stages = [
            StageResult(
                "orjson.loads of the feed lines",
                rows,
                _cpu(lambda: _drain(map(orjson.loads, lines)), repeat),
                "cpu",
                baseline=True,
            ),
            StageResult(
                "read + validate",
                rows,
                _cpu(lambda: _drain(FeedParser().parse_lines(lines, "bench")), repeat),
                "cpu",
            ),
            StageResult(
                "table sink + player (blackhole)",
                rows,
                _cpu(lambda: asyncio.run(_play_blackhole(records)), repeat),
                "cpu",
            ),
        ]
        return stages, dumps, parts
    finally:
        gc.unfreeze()


def run_stages(
    rows: int = 100_000,
    seed: int = 1,
    repeat: int = 3,
    *,
    kafka: bool = True,
    bootstrap: str | None = None,
) -> list[StageResult]:
    """Time every stage on ``rows`` rows of the demo workload; returns the table's rows."""
    # Generation streams (nothing retained, as in a play); the fixtures are built once after.
    generate = _cpu(lambda: _drain(generate_records(WORKLOAD, seed, rows)), repeat)
    results = [StageResult("generate", rows, generate, "cpu")]
    records = list(generate_records(WORKLOAD, seed, rows))
    stages, dumps, parts = _fixture_stages(records, rows, repeat)
    del records
    json_stage, *encoding_stages = _rows_stages(seed, rows, repeat)
    results += [*stages, json_stage, dumps, *encoding_stages]
    for result in results:
        target = TARGETS.get(result.stage)
        if target:
            met = "met" if result.rows_per_s >= target else "NOT met"
            result.note = f"target {target:,}: {met}" + (f"; {result.note}" if result.note else "")
    gc.collect()
    blackhole = _median_time(
        lambda: asyncio.run(_play_blackhole(generate_records(WORKLOAD, seed, rows))),
        repeat,
        time.perf_counter,
    )
    results.append(
        StageResult("end to end: generate + play inline -> blackhole", rows, blackhole, "wall")
    )
    if kafka:
        results += _kafka_stages(bootstrap, seed, rows, parts, repeat)
    return results


def format_table(results: Sequence[StageResult]) -> str:
    lines = [
        f"{'stage':<48} {'rows':>8} {'clock':>5} {'rows/s':>10} {'us/row':>8}  note",
        "-" * 100,
    ]
    for r in results:
        name = ("  baseline: " if r.baseline else "") + r.stage
        lines.append(
            f"{name:<48} {r.rows:>8} {r.clock:>5} {r.rows_per_s:>10,.0f} {r.us_per_row:>8.2f}"
            f"  {r.note}"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3, help="runs per stage; medians shown")
    parser.add_argument("--no-kafka", action="store_true", help="skip the broker stages")
    parser.add_argument("--bootstrap", help="an existing Kafka (default: embedded Tansu)")
    args = parser.parse_args()
    results = run_stages(
        args.rows, args.seed, args.repeat, kafka=not args.no_kafka, bootstrap=args.bootstrap
    )
    print(f"demo workload, {args.rows} rows, seed {args.seed}, median of {args.repeat} runs")
    print(format_table(results))


if __name__ == "__main__":
    main()
