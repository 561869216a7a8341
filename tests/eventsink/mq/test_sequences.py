"""The per-partition sequence header (DTS ``ps``): continuous per partition over every producer
that shares one PartitionSequences, numbered in the order records are written."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from tisink.codec.message import Record
from tisink.eventsink.file import FileProducer, read_file_topic_records
from tisink.eventsink.mq.senders import PartitionSequences, SequencedProducer


class SlowProducer:
    """Logs every record it writes into ``written`` (shared between instances); ``delay`` makes
    a send slow, so a second caller overtakes it unless something orders them."""

    def __init__(self, written: list[Record], delay: float = 0.0) -> None:
        self.written = written
        self.delay = delay
        self.closed = False

    async def partition_count(self, topic: str) -> int:
        return 2

    async def send(self, topic: str, partition: int, records: Sequence[Record]) -> None:
        await asyncio.sleep(self.delay)
        self.written.extend(records)

    async def close(self) -> None:
        self.closed = True


def numbers(records: list[Record]) -> list[int]:
    return [int(dict(r[2])["ps"]) for r in records]  # type: ignore[misc]


async def test_dml_and_ddl_paths_share_one_count(tmp_path: Path) -> None:
    files = FileProducer(tmp_path, 2)
    sequences = PartitionSequences("ps")
    dml, ddl = SequencedProducer(files, sequences), SequencedProducer(files, sequences)
    await dml.send("t", 0, [(b"", b"a"), (b"", b"b")])
    await ddl.send("t", 0, [(None, b"checkpoint")])
    await ddl.send("t", 1, [(None, b"checkpoint")])
    await dml.send("t", 0, [(b"", b"c", (("x", b"y"),))])
    await dml.send("t", 0, [])
    await dml.close()
    got = {(r.partition, r.value): r.headers for r in read_file_topic_records(tmp_path, "t")}
    assert got == {
        (0, b"a"): (("ps", b"1"),),
        (0, b"b"): (("ps", b"2"),),
        (0, b"checkpoint"): (("ps", b"3"),),
        (0, b"c"): (("ps", b"4"), ("x", b"y")),
        (1, b"checkpoint"): (("ps", b"1"),),
    }


async def test_numbers_follow_write_order_across_producers() -> None:
    written: list[Record] = []
    slow, fast = SlowProducer(written, delay=0.05), SlowProducer(written)
    sequences = PartitionSequences("ps")
    await asyncio.gather(
        SequencedProducer(slow, sequences).send("t", 0, [(b"", b"a"), (b"", b"b")]),
        SequencedProducer(fast, sequences).send("t", 0, [(None, b"c")]),
        SequencedProducer(fast, sequences).send("t", 1, [(None, b"d")]),
    )
    # the fast producer waited for the slow one on partition 0 only
    assert [r[1] for r in written] == [b"d", b"a", b"b", b"c"]
    assert numbers(written) == [1, 1, 2, 3]
    assert await SequencedProducer(fast, sequences).partition_count("t") == 2


async def test_files_count_across_producers_of_other_processes(tmp_path: Path) -> None:
    """Two FileProducers (a Spark task and the driver) each with counters of their own: the
    file numbers records by offset, so the sequence stays continuous."""
    task = SequencedProducer(FileProducer(tmp_path, 1), PartitionSequences("ps"))
    driver = SequencedProducer(FileProducer(tmp_path, 1), PartitionSequences("ps"))
    await task.send("t", 0, [(b"", b"a"), (b"", b"b")])
    await driver.send("t", 0, [(None, b"ddl")])
    await task.send("t", 0, [(b"", b"c")])
    await task.close()
    await driver.close()
    got = [(r.value, r.headers) for r in read_file_topic_records(tmp_path, "t")]
    assert got == [
        (b"a", (("ps", b"1"),)),
        (b"b", (("ps", b"2"),)),
        (b"ddl", (("ps", b"3"),)),
        (b"c", (("ps", b"4"),)),
    ]
