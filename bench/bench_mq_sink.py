"""MQ DML sink pipeline throughput: TableSink -> MQDMLSink -> producer, without a broker.

Three producers isolate the costs: ``null`` (acks at once: routing, encoding and the sink's
bookkeeping only), ``file`` (the FileProducer's JSON Lines writes) and the encoder alone
(``encode``, a loop over ``encode_row``) as the floor. Rows are 10-column Simple Protocol
JSON inserts spread over 4 tables and 3 partitions, ``--txn-rows`` rows per transaction.

    python bench/bench_mq_sink.py --rows 200000 --protocol simple --txn-rows 10
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from tisink.codec import new_encoder
from tisink.codec.bootstrap import BootstrapCadence
from tisink.codec.config import EncoderConfig
from tisink.codec.message import Record
from tisink.core.clock import FixedClock
from tisink.eventsink.file import FileProducer
from tisink.eventsink.mq.dml_sink import MQDMLSink
from tisink.eventsink.router import EventRouter
from tisink.model.events import ResolvedTs, RowChangedEvent
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo, make_table
from tisink.model.tso import compose_ts
from tisink.tablesink import TableSink

PARTITIONS = 3
TABLES = 4


class NullProducer:
    async def partition_count(self, topic: str) -> int:
        return PARTITIONS

    async def send(self, topic: str, partition: int, records: Sequence[Record]) -> None:
        return None

    async def close(self) -> None:
        return None


def tables() -> list[TableInfo]:
    columns = [ColumnInfo("id", "bigint", nullable=False)]
    columns += [ColumnInfo(f"c{i}", "varchar", "utf8mb4", "utf8mb4_bin", 64) for i in range(9)]
    primary = [IndexInfo("primary", ("id",), unique=True, primary=True)]
    return [make_table("bench", f"t{n}", 100 + n, 1, columns, primary) for n in range(TABLES)]


def rows(count: int, schemas: list[TableInfo], txn_rows: int) -> list[list[RowChangedEvent]]:
    """Rows round-robin over the tables; ``txn_rows`` consecutive rows of a table share one
    commitTs, so they form one transaction."""
    per_table: list[list[RowChangedEvent]] = [[] for _ in schemas]
    base = 1_700_000_000_000
    for i in range(count):
        table = schemas[i % len(schemas)]
        txn = i // (txn_rows * len(schemas))
        ts = compose_ts(base + txn // 100, txn % 100)
        after = {"id": i, **{f"c{c}": f"value-{i}-{c}" for c in range(9)}}
        per_table[i % len(schemas)].append(RowChangedEvent(ts - 1, ts, table, after=after))
    return per_table


async def run_sink(producer: object, config: EncoderConfig, batches: list[list[RowChangedEvent]]):
    clock = FixedClock(1_700_000_000_000)
    sink = MQDMLSink(
        producer,  # type: ignore[arg-type]
        new_encoder(config, clock),
        EventRouter("bench"),
        BootstrapCadence(config.bootstrap, clock),
        scheme="bench",
    )
    table_sinks = [TableSink(batch[0].table.table_id, sink) for batch in batches]
    step = 2000
    started = time.perf_counter()
    for offset in range(0, max(len(b) for b in batches), step):
        for table_sink, batch in zip(table_sinks, batches, strict=True):
            chunk = batch[offset : offset + step]
            if chunk:
                table_sink.append_row_changed_events(chunk)
                table_sink.update_resolved_ts(ResolvedTs.normal(chunk[-1].commit_ts))
        await sink.wait_for_capacity()
    last = max(b[-1].commit_ts for b in batches)
    while min(t.get_checkpoint_ts().resolved_mark for t in table_sinks) < min(
        b[-1].commit_ts for b in batches
    ):
        await asyncio.sleep(0.001)
    elapsed = time.perf_counter() - started
    await sink.close()
    assert last > 0
    return elapsed, sink.stats()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--protocol", default="simple", choices=("simple", "debug"))
    parser.add_argument("--encoding-format", default="json", choices=("json", "avro"))
    parser.add_argument("--txn-rows", type=int, default=10, help="rows per transaction")
    args = parser.parse_args()
    config = EncoderConfig(protocol=args.protocol, encoding_format=args.encoding_format)
    batches = rows(args.rows, tables(), args.txn_rows)

    encoder = new_encoder(config, FixedClock(0))
    started = time.perf_counter()
    for batch in batches:
        encoder.encode_rows(batch)
    floor = time.perf_counter() - started
    print(f"encode only : {args.rows / floor:>10,.0f} rows/s")

    elapsed, stats = asyncio.run(run_sink(NullProducer(), config, batches))
    print(f"sink, null  : {args.rows / elapsed:>10,.0f} rows/s  {stats.bytes / 1e6:.1f} MB")
    with tempfile.TemporaryDirectory() as directory:
        producer = FileProducer(Path(directory), PARTITIONS)
        elapsed, stats = asyncio.run(run_sink(producer, config, batches))
        print(
            f"sink, file  : {args.rows / elapsed:>10,.0f} rows/s  {stats.message_count()} messages"
        )


if __name__ == "__main__":
    main()
