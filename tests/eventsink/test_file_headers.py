"""FileProducer lines with Kafka headers: written as ``"headers"`` and read back."""

from __future__ import annotations

from pathlib import Path

import orjson

from tisink.eventsink.file import (
    FileProducer,
    partition_file,
    read_file_topic,
    read_file_topic_records,
)


async def test_headers_are_written_and_read_back(tmp_path: Path) -> None:
    producer = FileProducer(tmp_path, 1)
    await producer.send(
        "t",
        0,
        [
            (b"", b"v0", (("ps", b"1"), ('we"ird', b"\x00\xff"))),
            (None, b"v1"),
            (b"k", b"v2", ()),
        ],
    )
    await producer.close()
    lines = partition_file(tmp_path, "t", 0).read_bytes().splitlines()
    first = orjson.loads(lines[0])
    assert first["headers"] == [["ps", "MQ=="], ['we"ird', "AP8="]]
    assert "headers" not in orjson.loads(lines[1])
    assert "headers" not in orjson.loads(lines[2])  # no headers: the plain line
    records = list(read_file_topic_records(tmp_path, "t"))
    assert [r.headers for r in records] == [(("ps", b"1"), ('we"ird', b"\x00\xff")), (), ()]
    assert [(r.offset, r.key, r.value) for r in records] == [
        (0, b"", b"v0"),
        (1, None, b"v1"),
        (2, b"k", b"v2"),
    ]
    assert list(read_file_topic(tmp_path, "t")) == [
        (0, 0, b"", b"v0"),
        (0, 1, None, b"v1"),
        (0, 2, b"k", b"v2"),
    ]
