"""``corrupt-checksum`` (issue 47): one row message's checksum made wrong and ``corrupted``
set, as TiCDC writes a row whose data did not match TiDB's checksum. Its points are DML runs
whose row message carries a checksum; the rest of the stream is untouched; a play verifies
(the row is delivered, flagged: verify lists it) and a lost row still fails."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.eventsink.faults.test_unfired import STREAM
from tisink.codec import checksum
from tisink.codec.message import MessageType
from tisink.eventsink.faults import parse_faults
from tisink.eventsink.faults.checksum import corrupt_run, corrupt_value
from tisink.eventsink.faults.partition_log import PartitionLog
from tisink.eventsink.faults.unfired import not_fired
from tisink.eventsink.file import partition_file
from tisink.eventsink.mq.producer import Mark
from tisink.feed.play_spec import PlaySpec
from tisink.model.events import RowChecksum
from tisink.play.run import run_play
from tisink.sink.providers import DEFAULT_FILE_TOPIC
from tisink.verify import render_text, verify

PARTITIONS = 3


def _simple(current: int, previous: int = 0, corrupted: bool = False) -> bytes:
    flag = "true" if corrupted else "false"
    return (
        '{"version":1,"database":"d","table":"t","type":"INSERT","commitTs":5,'
        f'"checksum":{{"version":2,"corrupted":{flag},"current":{current},'
        f'"previous":{previous}}},"data":{{"id":"1"}}}}'
    ).encode()


def test_a_simple_json_checksum_is_corrupted_in_place() -> None:
    value = _simple(1234)
    new = corrupt_value(value)
    assert new is not None
    body = orjson.loads(new)
    assert body["checksum"] == {
        "version": 2,
        "corrupted": True,
        "current": checksum.corrupted_value(1234),
        "previous": 0,
    }
    assert {k: v for k, v in body.items() if k != "checksum"} == {
        k: v for k, v in orjson.loads(value).items() if k != "checksum"
    }
    deleted = orjson.loads(corrupt_value(_simple(0, 99)) or b"{}")["checksum"]
    assert (deleted["current"], deleted["previous"]) == (0, checksum.corrupted_value(99))


def test_an_avro_values_trailing_fields_are_corrupted() -> None:
    # Confluent header, an int column, the checksum "3009655218", corrupted false, version 1
    value = b"\x00\x00\x00\x00\x07" + b"\x54" + b"\x14" + b"3009655218" + b"\x00\x02"
    new = corrupt_value(value)
    assert new is not None
    digits = str(checksum.corrupted_value(3009655218)).encode()
    assert new == value[:6] + bytes((2 * len(digits),)) + digits + b"\x01\x02"
    carried = checksum.carried_avro(new)
    assert carried is not None
    assert carried.checksum == RowChecksum(1, True, int(digits), 0)


@pytest.mark.parametrize(
    "value",
    [
        _simple(5, corrupted=True),  # already corrupted
        _simple(0, 0),  # nothing to corrupt
        b'{"type":"INSERT","data":{}}',  # no checksum
        b"\x00\x00\x00\x00\x07\x54\x14" + b"30096552x8" + b"\x00\x02",  # no digits
        b"\x01\x00\x00\x00\x07\x54\x02" + b"3" + b"\x00\x02",  # not the Confluent magic
    ],
)
def test_no_checksum_no_point(value: bytes) -> None:
    assert corrupt_value(value) is None
    assert corrupt_run([(None, value)]) is None


def _dml(n: int, carries: bool) -> tuple[Mark, tuple[bytes | None, bytes]]:
    value = _simple(1000 + n) if carries else b'{"n":%d}' % n
    return Mark(MessageType.DML, "d.t", 100 + n, 1), (None, value)


def test_nth_counts_runs_with_a_checksum_and_a_fault_replaces_one_record() -> None:
    log = PartitionLog(parse_faults("corrupt-checksum:nth=2"), "t", 0)
    stream = [_dml(n, carries=n % 3 != 0) for n in range(1, 13)]  # 3, 6, 9, 12 carry none
    out, added = log.apply([r for _, r in stream], [m for m, _ in stream])
    assert len(out) == len(stream)
    eligible = [n for n in range(1, 13) if n % 3 != 0]  # 1 2 4 5 7 8 10 11
    fired = eligible[1::2]  # the 2nd, 4th, ...: 2 5 8 11
    assert [(kind, index, count) for kind, index, count, _ in added] == [
        ("corrupt-checksum", n - 1, 1) for n in fired
    ]
    for n, (record, (_, original)) in enumerate(zip(out, stream, strict=True), 1):
        if n in fired:
            assert orjson.loads(record[1])["checksum"]["corrupted"] is True
        else:
            assert record == original


def test_not_fired_says_what_its_points_need() -> None:
    reasons = not_fired(parse_faults("corrupt-checksum"), set(), STREAM)
    reason = reasons["corrupt-checksum"]
    assert "nth=100: no partition had 100 DML runs with a row checksum" in reason
    assert 'integrity-check-level = "correctness"' in reason
    assert reason.endswith("(the default trigger)")


def _play(tmp_path: Path, faults: str | None) -> tuple[str, dict[str, Any]]:
    config = tmp_path / "changefeed.toml"
    config.write_text('[integrity]\nintegrity-check-level = "correctness"\n')
    out = tmp_path / "out"
    uri = f"file://{out}?protocol=simple&file-layout=partitions&partition-num={PARTITIONS}"
    summary = run_play(
        PlaySpec(
            workload="demo",
            rows=2000,
            sink_uri=uri,
            config_path=config,
            engine="inline",
            clock="feed",
            watermark_interval_s=0.5,
            faults=faults,
        )
    ).to_dict()
    assert summary["verified"] is True
    return uri, summary


def test_a_played_stream_verifies_and_lists_each_corrupted_row(tmp_path: Path) -> None:
    uri, summary = _play(tmp_path, "corrupt-checksum:nth=25")
    injected = [f for f in summary["faults"] if f["kind"] == "corrupt-checksum"]
    assert injected
    report = verify(uri)
    assert report.ok, render_text(report)
    flagged = {(c.partition, c.offset) for c in report.corrupted_checksums}
    assert flagged == {(f["partition"], f["first_offset"]) for f in injected}
    assert report.checksummed >= report.counts["INSERT"] > len(flagged)
    text = render_text(report)
    assert f"checksum corrupted: {len(flagged)} of {report.checksummed} row message(s)" in text
    entry = report.to_dict()["corrupted_checksums"][0]
    assert entry["version"] == 2 and entry["table"]


def test_without_faults_every_row_carries_a_checksum_that_holds(tmp_path: Path) -> None:
    uri, _summary = _play(tmp_path, None)
    report = verify(uri)
    assert report.ok and report.corrupted_checksums == []
    assert report.checksummed == sum(report.counts[t] for t in ("INSERT", "UPDATE", "DELETE"))


def test_a_lost_row_among_corrupted_ones_still_fails(tmp_path: Path) -> None:
    uri, _summary = _play(tmp_path, "corrupt-checksum:nth=25")
    report = verify(uri)
    corrupted = report.corrupted_checksums[0]
    acknowledged = {}
    for partition in range(PARTITIONS):
        held = partition_file(tmp_path / "out", DEFAULT_FILE_TOPIC, partition).read_bytes()
        acknowledged[DEFAULT_FILE_TOPIC, partition] = held.count(b"\n")
    path = partition_file(tmp_path / "out", DEFAULT_FILE_TOPIC, corrupted.partition)
    lines = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    dropped = next(
        n
        for n, line in enumerate(lines)
        if n != corrupted.offset
        and orjson.loads(base64.b64decode(line["value"]))["type"] == "INSERT"
    )
    kept = [line for n, line in enumerate(lines) if n != dropped]
    path.write_bytes(
        b"".join(orjson.dumps({**line, "offset": n}) + b"\n" for n, line in enumerate(kept))
    )
    broken = verify(uri, acknowledged=acknowledged)
    assert not broken.ok
    assert broken.violation_counts["acknowledged-stored"] == 1
