"""A Tencent DTS stream written as the MQ sinks write it (routed shares, broadcast DDL and
checkpoints, ``ps`` stamped per partition, file sink) passes verify's checks; a lost message,
a checkpoint before its rows and a reordered row are each named."""

from __future__ import annotations

import base64
from pathlib import Path

import orjson

from tests.codec.dts.tencent.support import COMMIT_MS, example_row, new_encoder, ts_at
from tisink.codec.dts.tencent.decoder import TencentProtobufDecoder
from tisink.core.clock import FixedClock
from tisink.eventsink.file import FileProducer, partition_file
from tisink.eventsink.mq.senders import PartitionSequences, SequencedProducer
from tisink.model.events import DDLEvent, DDLType, RowChangedEvent
from tisink.model.table import TableInfo
from tisink.verify.checker import StreamChecker
from tisink.verify.report import VerifyReport
from tisink.verify.sources import read_file_records

PARTITIONS = 3
TOPIC = "dts"


async def write_stream(directory: Path, table: TableInfo, *, reorder: bool = False) -> None:
    """Ten transactions of 1..4 rows routed by id, a DDL, checkpoints every 10 s of clock."""
    clock = FixedClock(COMMIT_MS)
    dml_encoder = new_encoder(max_message_bytes=700, clock=clock)
    ddl_encoder = new_encoder(max_message_bytes=700, clock=clock)
    files = FileProducer(directory, PARTITIONS)
    sequences = PartitionSequences("ps")
    dml, ddl = SequencedProducer(files, sequences), SequencedProducer(files, sequences)

    async def broadcast(value: bytes) -> None:
        for partition in range(PARTITIONS):
            await ddl.send(TOPIC, partition, [(b"", value)])

    for number in range(10):
        ts = ts_at(number * 4000)
        clock.ms = COMMIT_MS + number * 4000
        ids = [number * 10 + i for i in range(1 + number % 4)]
        rows = [RowChangedEvent(ts - 1, ts, table, None, example_row(i)) for i in ids]
        if reorder and number == 9:
            rows = [RowChangedEvent(ts_at(1), ts_at(1), table, example_row(0), None)]
        for partition in range(PARTITIONS):
            share = [r for r in rows if (r.after or r.before)["id"] % PARTITIONS == partition]
            if share:
                await dml.send(TOPIC, partition, dml_encoder.encode_rows(share).records)
        if number == 4:
            message = ddl_encoder.encode_ddl(
                DDLEvent(ts + 1, DDLType.ALTER, "ALTER TABLE t", table)
            )
            assert message is not None
            await broadcast(message.value)
        checkpoint = ddl_encoder.encode_checkpoint(ts)
        if checkpoint is not None:
            await broadcast(checkpoint.value)
    await files.close()


def check(directory: Path) -> VerifyReport:
    report = VerifyReport(source=str(directory), encoding_format="protobuf")
    checker = StreamChecker(report, TencentProtobufDecoder)
    for record in read_file_records(directory, [TOPIC]):
        checker.check_record(*record)
    return report


async def test_a_sink_written_stream_passes(tmp_path: Path, table: TableInfo) -> None:
    await write_stream(tmp_path, table)
    report = check(tmp_path)
    assert report.ok, report.violations
    assert report.counts["INSERT"] == sum(1 + n % 4 for n in range(10))
    assert report.counts["DDL"] == PARTITIONS
    assert report.counts["WATERMARK"] == 4 * PARTITIONS  # at 0 s, 12 s, 24 s and 36 s
    assert report.tables == {"db.t"}
    for line in partition_file(tmp_path, TOPIC, 0).read_bytes().splitlines():
        record = orjson.loads(line)
        ps = base64.b64decode(dict(record["headers"])["ps"])
        assert ps == b"%d" % (record["offset"] + 1)


async def test_a_lost_message_is_a_ps_gap(tmp_path: Path, table: TableInfo) -> None:
    await write_stream(tmp_path, table)
    path = partition_file(tmp_path, TOPIC, 1)
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:3] + lines[4:]))
    report = check(tmp_path)
    assert not report.ok
    details = [v.detail for v in report.violations]
    assert any("ps: gap from ps 3 to 5: 1 message(s) lost" in d for d in details), details


async def test_a_row_behind_its_checkpoint_is_named(tmp_path: Path, table: TableInfo) -> None:
    await write_stream(tmp_path, table, reorder=True)
    report = check(tmp_path)
    assert report.violation_counts == {"dml-behind-watermark": 1}
