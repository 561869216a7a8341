"""Kafka producer throughput: raw aiokafka batches (baseline) vs KafkaProducer.send.

Both sides send the same pre-encoded 10-column Simple-like JSON rows to the same broker (the
embedded Tansu unless ``--bootstrap`` names a Kafka), one batch in flight per partition and
the partitions side by side. Prints rows/s for each and their ratio.

    python bench/bench_kafka_sink.py --rows 200000 --partitions 3
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import time
import uuid
from collections.abc import Iterator

import orjson
from aiokafka import AIOKafkaProducer

from tisink.broker import start_broker
from tisink.eventsink.kafka import KafkaConfig, KafkaTopicManager, new_kafka_producer


def simple_rows(count: int) -> list[bytes]:
    """Rows shaped like Simple's INSERT message: header fields plus 10 string columns."""
    rows = []
    for i in range(count):
        data = {f"c{c}": f"value-{i}-{c}" for c in range(9)}
        data["id"] = str(i)
        rows.append(
            orjson.dumps(
                {
                    "version": 1,
                    "database": "bench",
                    "table": "t",
                    "tableID": 100,
                    "type": "INSERT",
                    "commitTs": 450000000000000000 + i,
                    "buildTs": 1700000000000,
                    "schemaVersion": 450000000000000000,
                    "data": data,
                }
            )
        )
    return rows


async def raw_aiokafka(bootstrap: str, topic: str, parts: list[list[bytes]]) -> float:
    """Seconds to send every row (connecting and closing not counted)."""
    client = AIOKafkaProducer(
        bootstrap_servers=bootstrap, acks="all", max_batch_size=1 << 20, linger_ms=0
    )
    await client.start()

    async def partition_loop(partition: int, values: list[bytes]) -> None:
        index = 0
        while index < len(values):
            batch = client.create_batch()
            while index < len(values):
                if batch.append(key=b"", value=values[index], timestamp=None) is None:
                    break
                index += 1
            batch.close()
            await (await client.send_batch(batch, topic, partition=partition))

    try:
        started = time.perf_counter()
        await asyncio.gather(*(partition_loop(p, v) for p, v in enumerate(parts)))
        return time.perf_counter() - started
    finally:
        await client.stop()


async def tisink_producer(bootstrap: str, topic: str, parts: list[list[bytes]], chunk: int) -> None:
    config = KafkaConfig.from_sink_params(bootstrap, topic, {"partition-num": str(len(parts))})
    producer = await new_kafka_producer(config)
    records = [[(b"", v) for v in values] for values in parts]

    async def partition_loop(partition: int) -> None:
        batch = records[partition]
        for start in range(0, len(batch), chunk):
            await producer.send(topic, partition, batch[start : start + chunk])

    try:
        started = time.perf_counter()
        await asyncio.gather(*(partition_loop(p) for p in range(len(parts))))
        return time.perf_counter() - started
    finally:
        await producer.close()


@contextlib.contextmanager
def broker_address(bootstrap: str | None) -> Iterator[str]:
    if bootstrap:
        yield bootstrap
        return
    with start_broker() as broker:
        yield broker.bootstrap


def report(label: str, rows: int, elapsed: float) -> float:
    rate = rows / elapsed
    print(f"{label:<24} {rows:>9} rows  {elapsed:7.2f} s  {rate:>11,.0f} rows/s")
    return rate


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--partitions", type=int, default=3)
    parser.add_argument("--chunk", type=int, default=2048, help="messages per send() call")
    parser.add_argument("--bootstrap", help="an existing Kafka (default: embedded Tansu)")
    args = parser.parse_args()
    values = simple_rows(args.rows)
    parts = [values[p :: args.partitions] for p in range(args.partitions)]
    print(
        f"{args.rows} rows of ~{sum(map(len, values)) // len(values)} bytes, "
        f"{args.partitions} partitions"
    )
    with broker_address(args.bootstrap) as bootstrap:
        run_id = uuid.uuid4().hex[:8]
        setup = KafkaConfig.from_sink_params(
            bootstrap, f"bench-raw-{run_id}", {"partition-num": str(args.partitions)}
        )
        manager = await KafkaTopicManager.connect(setup)
        await manager.partition_count(setup.topic)
        await manager.close()
        baseline = report(
            "raw aiokafka batches", args.rows, await raw_aiokafka(bootstrap, setup.topic, parts)
        )
        ours = report(
            "KafkaProducer.send",
            args.rows,
            await tisink_producer(bootstrap, f"bench-tisink-{run_id}", parts, args.chunk),
        )
    print(f"ratio KafkaProducer / raw aiokafka: {ours / baseline:.2f}")


if __name__ == "__main__":
    asyncio.run(main())
