"""One contender of the replay benchmark in a process of its own, so CPU time and peak RSS are
its alone: ``python -m tisink.bench.replay_worker KIND FOLDER BOOTSTRAP LOOPS [ROWS]`` prints
``{"messages", "wall_s", "cpu_s", "rss_mb"}`` as JSON.

Kinds: ``raw-aiokafka`` (aiokafka's batch API, one batch in flight per partition, acks all),
``raw-confluent`` (confluent-kafka ``produce`` per record, acks all, then ``flush``;
``raw-confluent-ordered`` with tisink's layout: one request in flight per connection, a
client per partition group): the
folder's records, read into memory before the clock starts, sent ``LOOPS`` times to the same
partitions; ``replay-aiokafka`` and ``replay-librdkafka`` (``tisink replay``'s ``run_replay``
of the folder, ``--loop LOOPS``); ``play-aiokafka`` and ``play-librdkafka`` (``tisink play``
of ROWS demo rows inline, feed clock, no verify: the same bytes as the folder).
"""

from __future__ import annotations

import asyncio
import resource
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import orjson

Parts = list[list[tuple[bytes | None, bytes]]]
PARTITIONS = 3


def load(folder: Path) -> tuple[str, Parts]:
    """The folder's one topic and its records by partition."""
    from tisink.replay.records import read_partition_file
    from tisink.replay.sources import FolderSource

    source = FolderSource(folder)
    parts: Parts = [[] for _ in range(source.partition_count())]
    for partition in source.partitions:
        path = folder / source.topic / f"partition-{partition}.jsonl"
        for chunk in read_partition_file(path):
            parts[partition].extend((r.key, r.value or b"") for r in chunk)
    return source.topic, parts


async def raw_aiokafka(bootstrap: str, topic: str, parts: Parts, loops: int) -> None:
    from aiokafka import AIOKafkaProducer

    client = AIOKafkaProducer(
        bootstrap_servers=bootstrap, acks="all", max_batch_size=1 << 20, linger_ms=0
    )
    await client.start()

    async def partition_loop(partition: int, records: list[tuple[bytes | None, bytes]]) -> None:
        for _ in range(loops):
            index = 0
            while index < len(records):
                batch = client.create_batch()
                while index < len(records):
                    key, value = records[index]
                    if batch.append(key=key, value=value, timestamp=None) is None:
                        break
                    index += 1
                batch.close()
                await (await client.send_batch(batch, topic, partition=partition))

    try:
        await asyncio.gather(*(partition_loop(p, r) for p, r in enumerate(parts)))
    finally:
        await client.stop()


def raw_confluent(
    bootstrap: str, topic: str, parts: Parts, loops: int, ordered: bool = False
) -> None:
    """``ordered``: tisink's librdkafka layout, one request in flight per connection (the
    order guarantee it keeps without idempotence; librdkafka's default lets a retried batch
    land after the next) and a client for each partition group (partition p in client p % n,
    up to ``CLIENTS_MAX``), so that the figure measures tisink's own cost."""
    from confluent_kafka import Producer

    from tisink.eventsink.kafka.rdkafka_producer import CLIENTS_MAX

    settings: dict[str, object] = {"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 5}
    count = 1
    if ordered:
        settings["max.in.flight.requests.per.connection"] = 1
        count = max(1, min(CLIENTS_MAX, len(parts)))
    producers = [Producer(settings) for _ in range(count)]
    for _ in range(loops):
        for partition, records in enumerate(parts):
            producer = producers[partition % count]
            produce, poll = producer.produce, producer.poll
            for key, value in records:
                while True:
                    try:
                        produce(topic, value, key, partition)
                        break
                    except BufferError:
                        poll(0.005)
    if sum(producer.flush(120) for producer in producers) != 0:
        raise RuntimeError("raw confluent-kafka: messages left undelivered")


def _create_topic(bootstrap: str, topic: str, partitions: int) -> None:
    from tisink.bench.kafka import create_topic

    asyncio.run(create_topic(bootstrap, topic, partitions))


def measure(run: Callable[[], int]) -> dict[str, float]:
    """Wall and CPU seconds of ``run`` (every thread of this process; apart, its child
    processes': replay's readers), which returns the messages it sent; peak RSS of this
    process (a child's as the kernel counts it includes this process's pages at its fork, so
    it is left out)."""
    before = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    messages = run()
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_SELF)
    done = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "messages": messages,
        "wall_s": round(wall, 4),
        "cpu_s": round(_cpu(after) - _cpu(before), 4),
        "children_cpu_s": round(_cpu(done) - _cpu(children), 4),
        "rss_mb": round(peak_rss_kib(after) / 1024, 1),
    }


def peak_rss_kib(usage: resource.struct_rusage) -> int:
    """This process's peak resident set: Linux's VmHWM, which starts again at ``exec``;
    ``ru_maxrss`` keeps the parent's at the fork (the ``tisink bench`` process's 260 MB)."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return usage.ru_maxrss


def _cpu(usage: resource.struct_rusage) -> float:
    return usage.ru_utime + usage.ru_stime


def main(argv: list[str]) -> dict[str, float]:
    kind, folder, bootstrap, loops = argv[0], Path(argv[1]), argv[2], int(argv[3])
    target = f"bench-{kind}-{uuid.uuid4().hex[:8]}"
    if kind.startswith("raw-"):
        _, parts = load(folder)
        total = sum(map(len, parts)) * loops
        _create_topic(bootstrap, target, len(parts))

        def raw() -> int:
            if kind == "raw-aiokafka":
                asyncio.run(raw_aiokafka(bootstrap, target, parts, loops))
            else:
                raw_confluent(bootstrap, target, parts, loops, kind == "raw-confluent-ordered")
            return total

        return measure(raw)
    client = kind.split("-", 1)[1]
    uri = f"kafka://{bootstrap}/{target}?partition-num={PARTITIONS}&kafka-client={client}"
    if kind.startswith(("replay-", "stream-")):
        from tisink.replay.run import ReplayOptions, run_replay
        from tisink.run.summary import RunSummary

        preload = kind.startswith("replay-")
        options = ReplayOptions(source=str(folder), sink_uri=uri, loops=loops, preload=preload)
        summaries: list[RunSummary] = []

        def replay() -> int:
            summaries.append(run_replay(options))
            return summaries[0].rows

        measured = measure(replay)
        done = summaries[0]
        measured["sending_s"] = round(done.rows / done.writing_rows_per_s, 4)
        return measured
    from tisink.play.run import PlaySpec, run_play

    play = PlaySpec(
        workload="demo",
        rows=int(argv[4]),
        sink_uri=uri + "&protocol=simple",
        engine="inline",
        clock="feed",
        verify_after=False,
    )
    return measure(lambda: sum(run_play(play).messages.values()))


if __name__ == "__main__":
    sys.stdout.write(orjson.dumps(main(sys.argv[1:])).decode() + "\n")
