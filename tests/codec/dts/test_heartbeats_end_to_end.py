"""Heartbeats in a played DTS stream: the demo workload under the feed clock, tables pinned to
one partition each (``table`` dispatcher) over 16 partitions, so most partitions never see a
row; they must still hear a HEARTBEAT about every second of commit time (Tencent's in ``ps``
order), and ``tisink verify`` must pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.codec.dts.avro.support import decode
from tisink.codec.dts.tencent import reader
from tisink.codec.dts.tencent.enums import MessageType
from tisink.eventsink.file import read_file_topic_records
from tisink.play.run import PlaySpec, run_play
from tisink.sink.providers import DEFAULT_FILE_TOPIC
from tisink.verify import verify

ROWS = 8000
"""About 4 s of commit time at the demo's 2000 rows/s."""
PARTITIONS = 16


def _kind(protocol: str, value: bytes) -> str:
    """HEARTBEAT, BEGIN (a transaction's first message), or another control kind."""
    if protocol == "tencent-dts&encoding-format=avro":
        return decode("tencent", value)["messageType"]
    if protocol == "alibaba-dts":
        return decode("alibaba", value)["operation"]
    items = reader.entries(reader.envelope(value).data)
    return MessageType(items[0].header.message_type).name


@pytest.mark.parametrize(
    "protocol", ["tencent-dts", "tencent-dts&encoding-format=avro", "alibaba-dts"]
)
def test_idle_partitions_hear_heartbeats(tmp_path: Path, protocol: str) -> None:
    config = tmp_path / "changefeed.toml"
    config.write_text(
        '[[sink.dispatchers]]\nmatcher = ["*.*"]\npartition = "table"\n', encoding="utf-8"
    )
    out = tmp_path / "out"
    uri = (
        f"file://{out}?protocol={protocol}&partition-num={PARTITIONS}"
        "&dts-heartbeat-interval-in-sec=1"
    )
    summary = run_play(
        PlaySpec(
            workload="demo",
            sink_uri=uri,
            config_path=config,
            engine="inline",
            rows=ROWS,
            clock="feed",
            verify_after=False,
        )
    )
    kinds: dict[int, list[str]] = {}
    sequence: dict[int, list[int]] = {}
    for record in read_file_topic_records(out, DEFAULT_FILE_TOPIC):
        kinds.setdefault(record.partition, []).append(_kind(protocol, record.value))
        if protocol.startswith("tencent-dts"):
            sequence.setdefault(record.partition, []).append(int(dict(record.headers)["ps"]))
    rowless = [p for p in range(PARTITIONS) if "BEGIN" not in kinds.get(p, [])]
    assert len(rowless) >= PARTITIONS // 2
    for partition in rowless:
        # watched from the first row, idle for ~4 s of commit time: a heartbeat each second
        assert 2 <= kinds[partition].count("HEARTBEAT") <= 5, (partition, kinds[partition])
    assert all(numbers == list(range(1, len(numbers) + 1)) for numbers in sequence.values())
    heartbeats = sum(found.count("HEARTBEAT") for found in kinds.values())
    assert summary.messages["HEARTBEAT"] == heartbeats
    report = verify(uri, config_path=config)
    assert report.ok, [str(v) for v in report.violations]
