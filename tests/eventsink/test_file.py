"""FileProducer: one JSON line per message, offsets per partition, resumable; and its reader."""

from __future__ import annotations

import base64
import json
import os
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tisink.eventsink.errors import PathNameError
from tisink.eventsink.file import (
    FileProducer,
    FileSinkError,
    list_file_topics,
    partition_file,
    read_file_topic,
    read_file_topic_records,
)


async def test_lines_and_offsets(tmp_path):
    producer = FileProducer(tmp_path, 2)
    assert await producer.partition_count("orders") == 2
    await producer.send("orders", 1, [(b"", b'{"a":1}'), (None, b"x")])
    await producer.send("orders", 1, [(b"k", b"y")])
    await producer.send("orders", 0, [(None, b"z")])
    await producer.close()

    lines = partition_file(tmp_path, "orders", 1).read_text().splitlines()
    assert [json.loads(line) for line in lines] == [
        {"offset": 0, "key": "", "value": base64.b64encode(b'{"a":1}').decode()},
        {"offset": 1, "key": None, "value": base64.b64encode(b"x").decode()},
        {"offset": 2, "key": base64.b64encode(b"k").decode(), "value": "eQ=="},
    ]
    assert list(read_file_topic(tmp_path, "orders")) == [
        (0, 0, None, b"z"),
        (1, 0, b"", b'{"a":1}'),
        (1, 1, None, b"x"),
        (1, 2, b"k", b"y"),
    ]
    assert list_file_topics(tmp_path) == ["orders"]


async def test_offsets_resume_from_existing_files(tmp_path):
    first = FileProducer(tmp_path, 1)
    await first.send("t", 0, [(None, b"a"), (None, b"b")])
    await first.close()
    second = FileProducer(tmp_path, 1)
    await second.send("t", 0, [(None, b"c")])
    await second.close()
    await second.send("t", 0, [(None, b"d")])  # closing is not final: the file reopens
    await second.close()
    assert [(o, v) for _, o, _, v in read_file_topic(tmp_path, "t")] == [
        (0, b"a"),
        (1, b"b"),
        (2, b"c"),
        (3, b"d"),
    ]


async def test_partition_out_of_range_and_bad_topic(tmp_path):
    producer = FileProducer(tmp_path, 2)
    with pytest.raises(FileSinkError, match=r"topic 't' partition 2: out of range"):
        await producer.send("t", 2, [(None, b"a")])
    for topic in ("../escape", "a/b", "..", ""):
        with pytest.raises(FileSinkError, match="not a valid topic name"):
            await producer.partition_count(topic)
    with pytest.raises(FileSinkError, match="partition-num"):
        FileProducer(tmp_path, 0)


def test_reader_names_file_and_line_of_a_bad_record(tmp_path):
    path = partition_file(tmp_path, "t", 0)
    path.parent.mkdir(parents=True)
    path.write_text('{"offset":0,"key":null,"value":"YQ=="}\n\n{"offset":1,"key":null}\n')
    records = read_file_topic(tmp_path, "t")
    assert next(records) == (0, 0, None, b"a")
    with pytest.raises(FileSinkError, match=r"partition-0\.jsonl:3: bad record"):
        next(records)
    with pytest.raises(FileSinkError, match="no folder"):
        list(read_file_topic(tmp_path, "missing"))


@settings(max_examples=60, deadline=None)
@given(
    batches=st.lists(
        st.tuples(
            st.integers(min_value=0, max_value=2),
            st.lists(
                # a None value is a tombstone (TiCDC's avro DELETE), never read back as b""
                st.tuples(st.none() | st.binary(max_size=8), st.none() | st.binary(max_size=40)),
                max_size=5,
            ),
        ),
        max_size=8,
    )
)
def test_property_round_trip(tmp_path_factory, batches):
    import asyncio

    directory = tmp_path_factory.mktemp("files")

    async def write() -> None:
        producer = FileProducer(directory, 3)
        for partition, records in batches:
            await producer.send("p", partition, records)
        await producer.close()

    asyncio.run(write())
    expected = []
    for partition in range(3):
        records = [r for p, rs in batches if p == partition for r in rs]
        expected += [(partition, n, k, v) for n, (k, v) in enumerate(records)]
    got = list(read_file_topic(directory, "p")) if expected else []
    assert got == expected


async def test_a_tombstone_with_headers_reads_back_as_one(tmp_path):
    producer = FileProducer(tmp_path, 1)
    await producer.send("t", 0, [(b"k", None, (("ps", b"7"),)), (b"k", b"", ())])
    await producer.close()
    records = list(read_file_topic_records(tmp_path, "t"))
    assert [(r.key, r.value, r.headers) for r in records] == [
        (b"k", None, (("ps", b"7"),)),
        (b"k", b"", ()),
    ]


async def test_writers_sharing_a_partition_keep_one_offset_sequence(tmp_path):
    """Two producers on one folder (as Spark tasks and the driver are) interleave batches:
    offsets stay 0, 1, 2, ... with no repeats, whoever wrote last."""
    first, second = FileProducer(tmp_path, 1), FileProducer(tmp_path, 1)
    for round_ in range(3):
        await first.send("t", 0, [(None, b"a%d" % round_)] * 2)
        await second.send("t", 0, [(None, b"b%d" % round_)])
    await first.close()
    await second.close()
    records = list(read_file_topic(tmp_path, "t"))
    assert [offset for _, offset, _, _ in records] == list(range(9))
    assert [value for *_, value in records][:3] == [b"a0", b"a0", b"b0"]


@settings(deadline=None)
@given(topic=st.one_of(st.sampled_from(["..", ".", "", "../x", "/abs", "a\x00b"]), st.text()))
def test_every_topic_path_is_inside_the_folder_or_refused(topic):
    """Issue 44 item 3: the writer, the reader and capture (``partition_file``) never reach
    outside the folder, whatever the topic; a refusal names the topic."""
    root = "/files/root"
    try:
        path = str(partition_file(Path(root), topic, 1))
    except PathNameError as err:
        assert f"topic {topic!r}" in str(err)
        return
    assert os.path.normpath(path).startswith(root + os.sep)
    assert os.path.dirname(os.path.dirname(path)) == root


def test_the_reader_refuses_a_topic_outside_the_folder(tmp_path):
    outside = partition_file(tmp_path, "t", 0)
    outside.parent.mkdir(parents=True)
    outside.write_text('{"offset":0,"key":null,"value":"YQ=="}\n')
    with pytest.raises(PathNameError, match=re.escape("topic '../t'")):
        list(read_file_topic(tmp_path / "inner", "../t"))
