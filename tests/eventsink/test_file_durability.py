"""A partition file holds whole records only (issue 28): a failed write is cut back before the
error is reported, a torn tail a killed writer left is cut by the next producer (``--append``
or another Spark task), and a file damaged before its end is refused."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.eventsink.limited import run_with_file_limit
from tisink.eventsink.file import FileProducer, FileSinkError, partition_file, read_file_topic

VALUE = b"v" * 300
"""A record of about 450 bytes: a batch of a few crosses any small limit mid-record."""


async def _send(directory: Path, values: list[bytes]) -> None:
    producer = FileProducer(directory, 1)
    try:
        await producer.send("t", 0, [(None, v) for v in values])
    finally:
        await producer.close()


def _assert_whole(directory: Path) -> list[bytes]:
    """Every line of the partition is a whole record, offsets count 0, 1, 2...; no side-file
    temporaries are left. The values, in order."""
    path = partition_file(directory, "t", 0)
    data = path.read_bytes()
    assert data == b"" or data.endswith(b"\n"), data[-80:]
    records = list(read_file_topic(directory, "t"))
    assert [offset for _, offset, _, _ in records] == list(range(len(records)))
    assert sorted(p.name for p in path.parent.iterdir()) in (
        ["partition-0.jsonl"],
        [".partition-0.next", "partition-0.jsonl"],
    )
    return [value for *_, value in records]


@contextlib.contextmanager
def _small_tmpfs(where: Path, size: str) -> Iterator[Path]:
    where.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
        capture_output=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=True)


async def test_a_full_disk_leaves_whole_records_and_append_continues(tmp_path: Path) -> None:
    with _small_tmpfs(tmp_path / "small", "64k") as disk:
        written = 0
        with pytest.raises(FileSinkError, match=r"partition 0: cannot write .*No space left"):
            for _ in range(1000):
                await _send(disk, [VALUE] * 7)
                written += 7
        assert _assert_whole(disk) == [VALUE] * written
        subprocess.run(["mount", "-o", "remount,size=1m", str(disk)], check=True)
        await _send(disk, [b"after"])
        assert _assert_whole(disk) == [VALUE] * written + [b"after"]


CHILD = """
import asyncio, sys
from pathlib import Path
from tisink.eventsink.file import FileProducer, FileSinkError

async def main():
    producer = FileProducer(Path(sys.argv[1]), 1)
    sent = 0
    try:
        for _ in range(1000):
            await producer.send("t", 0, [(None, b"v" * 300)] * 7)
            sent += 7
    except FileSinkError as err:
        print(sent, err)
    await producer.close()

asyncio.run(main())
"""


def test_a_write_refused_part_way_leaves_whole_records(tmp_path: Path) -> None:
    limit = 20_000
    child = run_with_file_limit(CHILD.replace("sys.argv[1]", repr(str(tmp_path))), limit)
    assert child.returncode == 0, child.stderr
    sent, reason = child.stdout.split(" ", 1)
    assert "File too large" in reason
    assert _assert_whole(tmp_path) == [VALUE] * int(sent)
    assert partition_file(tmp_path, "t", 0).stat().st_size < limit


async def test_append_cuts_a_torn_tail_back_to_the_last_acknowledged_record(
    tmp_path: Path,
) -> None:
    await _send(tmp_path, [b"a", b"b"])
    path = partition_file(tmp_path, "t", 0)
    # what a writer killed mid-batch leaves: a whole record nobody acknowledged, half of one
    path.write_bytes(path.read_bytes() + b'{"offset":2,"key":null,"value":"Yw=="}\n{"offset":3,"ke')
    await _send(tmp_path, [b"c"])
    assert _assert_whole(tmp_path) == [b"a", b"b", b"c"]


@pytest.mark.parametrize("removed", [False, True])
async def test_every_acknowledged_send_of_an_open_producer_moves_the_side_file(
    tmp_path: Path, removed: bool
) -> None:
    """The side file is rewritten in place on each send (the producer keeps it open), so a
    torn tail after the last acknowledged send is cut there, and no acknowledged record with
    it; a side file removed after the first send is made again by the next."""
    path = partition_file(tmp_path, "t", 0)
    producer = FileProducer(tmp_path, 1)
    try:
        for value in (b"a", b"bb", b"ccc"):
            await producer.send("t", 0, [(None, value)])
            if removed and value == b"a":
                path.with_name(".partition-0.next").unlink()
    finally:
        await producer.close()
    # a whole record nobody acknowledged: only the side file tells it from the others
    path.write_bytes(path.read_bytes() + b'{"offset":3,"key":null,"value":"Yw=="}\n')
    await _send(tmp_path, [b"d"])
    assert _assert_whole(tmp_path) == [b"a", b"bb", b"ccc", b"d"]


async def test_append_without_a_side_file_cuts_to_the_last_whole_record(tmp_path: Path) -> None:
    await _send(tmp_path, [b"a", b"b"])
    path = partition_file(tmp_path, "t", 0)
    path.with_name(".partition-0.next").unlink()
    path.write_bytes(path.read_bytes() + b'{"offset":2,"key":null,"va')
    await _send(tmp_path, [b"c"])
    assert _assert_whole(tmp_path) == [b"a", b"b", b"c"]


async def test_append_refuses_a_file_damaged_before_its_end(tmp_path: Path) -> None:
    path = partition_file(tmp_path, "t", 0)
    path.parent.mkdir(parents=True)
    path.write_bytes(b'{"offset":0,"key":null,"value":"YQ=="}\nnot a record\n')
    with pytest.raises(FileSinkError, match=r"partition-0\.jsonl:2: the last whole line is no"):
        await _send(tmp_path, [b"b"])
    assert path.read_bytes().endswith(b"not a record\n")  # left as found


KILLED = """
import asyncio, sys
from pathlib import Path
from tisink.eventsink.file import FileProducer

async def main():
    producer = FileProducer(Path(sys.argv[1]), 1)
    await producer.send("t", 0, [(None, b"a")])
    print("ready", flush=True)
    while True:
        await producer.send("t", 0, [(None, b"v" * 4000)] * BATCH)

asyncio.run(main())
"""


BATCH = 4000


async def test_a_writer_killed_mid_write_leaves_a_tail_the_next_producer_cuts(
    tmp_path: Path,
) -> None:
    code = KILLED.replace("sys.argv[1]", repr(str(tmp_path))).replace("BATCH", str(BATCH))
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stdout.readline() == "ready\n"
    path = partition_file(tmp_path, "t", 0)
    deadline = time.monotonic() + 60
    while path.stat().st_size < 1_000_000 and time.monotonic() < deadline:
        time.sleep(0.001)  # the big batch is being written: kill it in the middle
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    torn = not path.read_bytes().endswith(b"\n")
    await _send(tmp_path, [b"after"])
    values = _assert_whole(tmp_path)
    assert values[0] == b"a" and values[-1] == b"after"
    if torn:  # the batch being written when it died is cut whole
        assert (len(values) - 2) % BATCH == 0
