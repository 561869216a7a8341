"""TableSink -> Kafka DML sink -> broker, against raw aiokafka batch sends of the same bytes.

The pipeline run covers everything a row goes through: the table sink's buffer and progress
tracker, Simple JSON encoding, routing (index-value dispatch over 3 partitions), the MQ sink's
per-partition batches and the broker's acks, timed until the checkpoint reaches the last row.
The baseline sends the already-encoded values of the same rows to the same partitions with
aiokafka's batch API, one batch in flight per partition. The pipeline runs twice per round:
encoding in its own process, and with ``encoder-concurrency`` processes (TiCDC's encoder group).
Each runs ``--repeat`` times, in turn, and the medians are compared; the encoding alone is timed
too, which gives the ceiling of any single-process pipeline.

    python bench/bench_kafka_pipeline.py --rows 100000
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import statistics
import time
import uuid

from bench_kafka_sink import broker_address, raw_aiokafka, report
from bench_simple_encode import ten_column_rows

from tisink.codec import new_encoder
from tisink.core.clock import FixedClock
from tisink.eventsink.mq.dml_sink import MQDMLSink
from tisink.eventsink.router import EventRouter
from tisink.model import ResolvedTs, RowChangedEvent
from tisink.sink import ChangefeedConfig, SinkFactory

CONFIG = """
[sink]
protocol = "simple"
send-bootstrap-interval-in-sec = 0
[[sink.dispatchers]]
matcher = ["*.*"]
partition = "index-value"
"""


def in_txns(rows: list[RowChangedEvent], size: int) -> list[RowChangedEvent]:
    """Group rows into transactions of ``size`` rows sharing (startTs, commitTs)."""
    out = []
    for i, row in enumerate(rows):
        commit = 1_000 + (i // size) * 2
        out.append(RowChangedEvent(commit - 1, commit, row.table, after=row.after))
    return out


async def pipeline(uri: str, rows: list[RowChangedEvent], flush_every: int) -> float:
    factory = SinkFactory(uri, ChangefeedConfig.from_toml(CONFIG), clock=FixedClock(1))
    event_sink = await factory.create_event_sink()
    if not isinstance(event_sink, MQDMLSink):
        raise SystemExit(f"{uri} gives a {type(event_sink).__name__}, not an MQ sink")
    table_sink = factory.create_table_sink(rows[0].table.table_id, event_sink)
    last = rows[-1].commit_ts
    try:
        await event_sink.start()  # encoder processes, if any, are up before the clock starts
        started = time.perf_counter()
        for start in range(0, len(rows), flush_every):
            chunk = rows[start : start + flush_every]
            table_sink.append_row_changed_events(chunk)
            table_sink.update_resolved_ts(ResolvedTs.normal(chunk[-1].commit_ts))
            await event_sink.wait_for_capacity()
        while table_sink.get_checkpoint_ts().resolved_mark < last:
            await asyncio.sleep(0.001)
        return time.perf_counter() - started
    finally:
        await table_sink.close()
        await event_sink.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--txn-size", type=int, default=10)
    parser.add_argument("--flush-every", type=int, default=4096, help="rows per resolved ts")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each; medians compared")
    parser.add_argument(
        "--encoder-concurrency",
        type=int,
        default=os.cpu_count() or 1,
        help="encoder processes of the second pipeline (default: one per CPU)",
    )
    parser.add_argument("--bootstrap", help="an existing Kafka (default: embedded Tansu)")
    args = parser.parse_args()
    rows = in_txns(ten_column_rows(args.rows), args.txn_size)
    # The prebuilt rows live through both runs; keep the collector from walking them on every
    # full collection, which a streaming source (whose rows die young) never pays for.
    gc.collect()
    gc.freeze()
    config = ChangefeedConfig.from_toml(CONFIG)
    encoder = new_encoder(config.encoder, FixedClock(1))
    routing = EventRouter("t", config.dispatch_rules)
    started = time.perf_counter()
    parts: list[list[bytes]] = [[], [], []]
    for start in range(0, len(rows), args.txn_size):
        txn = rows[start : start + args.txn_size]
        targets = routing.partitions_for_rows(txn, 3)
        for target, record in zip(targets, encoder.encode_rows(txn).records, strict=True):
            parts[target].append(record[1] or b"")
    encode = report("route + encode only", args.rows, time.perf_counter() - started)
    group = f"encoder-concurrency={args.encoder_concurrency}"
    with broker_address(args.bootstrap) as bootstrap:
        run = uuid.uuid4().hex[:8]
        raw_topic = f"bench-raw-{run}"
        await pipeline(  # creates the raw topic with 3 partitions through the same code path
            f"kafka://{bootstrap}/{raw_topic}?protocol=simple&partition-num=3", rows[:10], 10
        )
        rates: dict[str, list[float]] = {"raw": [], "in process": [], group: []}
        for attempt in range(args.repeat):
            seconds = await raw_aiokafka(bootstrap, raw_topic, parts)
            rates["raw"].append(report("raw aiokafka batches", args.rows, seconds))
            for name, extra in (("in process", ""), (group, f"&{group}")):
                uri = (
                    f"kafka://{bootstrap}/bench-pipe-{run}-{attempt}-{len(extra)}"
                    f"?protocol=simple&partition-num=3{extra}"
                )
                seconds = await pipeline(uri, rows, args.flush_every)
                rates[name].append(report(f"pipeline, {name}", args.rows, seconds))
    baseline = statistics.median(rates["raw"])
    print(f"median of {args.repeat}: raw aiokafka {baseline:,.0f} rows/s")
    for name in ("in process", group):
        ours = statistics.median(rates[name])
        print(f"  TableSink -> Kafka sink, {name}: {ours:,.0f} rows/s, ratio {ours / baseline:.2f}")
    # One process that encodes and sends one after the other cannot beat 1 / (1/encode +
    # 1/raw), however free its table sink and MQ sink are.
    ceiling = 1 / (1 / encode + 1 / baseline)
    print(
        f"single-process ceiling (encode then send): {ceiling:,.0f} rows/s, ratio "
        f"{ceiling / baseline:.2f}"
    )


if __name__ == "__main__":
    asyncio.run(main())
