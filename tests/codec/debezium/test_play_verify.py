"""End to end: ``tisink play`` of the all-types workload through ``protocol=debezium`` into a
``file://`` sink, then ``tisink verify`` on the same URI (issue 11, acceptance)."""

from __future__ import annotations

import base64
from pathlib import Path

import orjson
import pytest

from tisink.eventsink.file import partition_file
from tisink.play.run import PlaySpec, run_play
from tisink.sink.providers import DEFAULT_FILE_TOPIC
from tisink.verify import verify

PARTITIONS = 3


def _play(directory: Path, params: str) -> tuple[str, dict[str, int]]:
    uri = f"file://{directory}?protocol=debezium&partition-num={PARTITIONS}{params}"
    options = PlaySpec(
        workload="all-types",
        rows=2000,
        sink_uri=uri,
        engine="inline",
        clock="feed",
        verify_after=False,
    )
    return uri, run_play(options).messages


@pytest.mark.parametrize(
    ("params", "watermarks"),
    [
        ("", False),
        ("&debezium-disable-schema=true", False),
        ("&enable-tidb-extension=true&large-message-handle-compression=lz4", True),
    ],
)
def test_all_types_play_verifies(tmp_path: Path, params: str, watermarks: bool) -> None:
    uri, produced = _play(tmp_path / "out", params)
    report = verify(uri)
    assert report.ok, [str(v) for v in report.violations]
    dml = sum(report.counts[t] for t in ("INSERT", "UPDATE", "DELETE"))
    assert dml == produced["DML"] == 2000
    assert report.counts["CREATE"] == produced["DDL"] > 0
    assert (report.counts["WATERMARK"] > 0) is watermarks
    assert report.counts["WATERMARK"] == produced.get("WATERMARK", 0)
    assert report.tables == {"types.all_types", "types.string_keyed"}


def test_verify_finds_a_key_going_back_in_time(tmp_path: Path) -> None:
    directory = tmp_path / "out"
    uri, _ = _play(directory, "&debezium-disable-schema=true")
    for partition in range(PARTITIONS):
        path = partition_file(directory, DEFAULT_FILE_TOPIC, partition)
        records = [orjson.loads(line) for line in path.read_bytes().splitlines() if line]
        seen: dict[str, int] = {}
        for position, record in enumerate(records):
            value = orjson.loads(base64.b64decode(record["value"]))
            if value["payload"].get("op") not in ("c", "u", "d"):
                continue
            earlier = seen.setdefault(record["key"], position)
            if earlier != position:
                records[earlier]["value"], records[position]["value"] = (
                    record["value"],
                    records[earlier]["value"],
                )
                path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
                break
        else:
            continue
        break
    report = verify(uri)
    assert not report.ok
    assert "handle-commit-ts-order" in report.violation_counts


def test_verify_refuses_schema_settings_that_do_not_match(tmp_path: Path) -> None:
    uri, _ = _play(tmp_path / "out", "")
    report = verify(uri + "&debezium-disable-schema=true")
    assert not report.ok and "decodable" in report.violation_counts
