"""``tisink play --faults``: every protocol's stream with replays verifies as valid with its
faults listed, each listed fault holds copies of records sent before, and a row lost or out of
order still fails verify. Kafka: a consumer (confluent-kafka) finds the copies at the offsets
listed, on Apache Kafka, whose offsets are the ones any consumer sees."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from tests.kafka_support.readback import read_partition, unique_topic
from tisink.cli import app
from tisink.eventsink.file import partition_file
from tisink.play.errors import PlayRefused
from tisink.play.run import PlaySpec, run_play
from tisink.sink.providers import DEFAULT_FILE_TOPIC
from tisink.verify import verify

PARTITIONS = 3
ROWS = 3000
FAULTS = "restart-replay:every=1s;producer-retry:p=0.02;duplicate-ddl;stale-watermark:every=2s"

PROTOCOLS = [
    "simple",
    "simple&encoding-format=avro",
    "debezium",
    "tencent-dts",
    "tencent-dts&encoding-format=avro",
    "alibaba-dts",
    "canal-json",
    "canal-json&enable-tidb-extension=true",
    "open",
]


def _play(uri: str, faults: str = FAULTS, **options: Any) -> dict[str, Any]:
    summary = run_play(
        PlaySpec(
            workload="demo",
            rows=ROWS,
            sink_uri=uri,
            engine="inline",
            clock="feed",
            watermark_interval_s=0.5,
            faults=faults,
            **options,
        )
    )
    return summary.to_dict()


def _lines(directory: Path, partition: int) -> list[dict[str, Any]]:
    path = partition_file(directory, DEFAULT_FILE_TOPIC, partition)
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def _copied(lines: list[dict[str, Any]], first: int, last: int) -> bool:
    """Every record first..last repeats (key and value) one written before ``first``."""
    earlier = {(r["key"], r["value"]) for r in lines[:first]}
    return all((r["key"], r["value"]) in earlier for r in lines[first : last + 1])


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_replayed_stream_verifies_with_its_faults_listed(tmp_path: Path, protocol: str) -> None:
    out = tmp_path / "out"
    uri = f"file://{out}?protocol={protocol}&file-layout=partitions&partition-num={PARTITIONS}"
    summary = _play(uri)
    assert summary["verified"] is True
    faults = summary["faults"]
    assert {f["kind"] for f in faults} >= {"restart-replay", "duplicate-ddl", "producer-retry"}
    lines = {p: _lines(out, p) for p in range(PARTITIONS)}
    for fault in faults:
        assert _copied(lines[fault["partition"]], fault["first_offset"], fault["last_offset"])
    report = verify(uri)
    assert report.ok
    redelivered = {
        (r.partition, o)
        for r in report.redeliveries
        for o in range(r.first_offset, r.last_offset + 1)
    }
    listed = {
        (f["partition"], o) for f in faults for o in range(f["first_offset"], f["last_offset"] + 1)
    }
    assert listed <= redelivered

    # one row lost (an original, not a copy): the partition's offsets show the gap
    partition = max(lines, key=lambda p: len(lines[p]))
    kept = lines[partition]
    copies = {o for p, o in listed if p == partition}
    counts: dict[tuple[str, str], int] = {}
    for record in kept:
        counts[record["key"], record["value"]] = counts.get((record["key"], record["value"]), 0) + 1
    lost = next(
        n
        for n, r in enumerate(kept)
        if n not in copies and n > 10 and counts[r["key"], r["value"]] == 1
    )
    path = partition_file(out, DEFAULT_FILE_TOPIC, partition)
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for n, r in enumerate(kept) if n != lost))
    broken = verify(uri)
    assert not broken.ok
    assert broken.violation_counts["offsets-continuous"] == 1


def test_a_row_out_of_order_still_fails_among_replays(tmp_path: Path) -> None:
    out = tmp_path / "out"
    uri = f"file://{out}?protocol=simple&partition-num=1"
    assert _play(uri, faults="restart-replay:every=1s;bab:every=1s")["verified"] is True
    lines = _lines(out, 0)
    values = [orjson.loads(_b64(r["value"])) for r in lines]
    rows = [
        n for n, v in enumerate(values) if v.get("type") == "UPDATE" and v.get("table") == "orders"
    ]
    seen: set[str] = set()
    originals = []
    for n in rows:
        if lines[n]["value"] not in seen:
            seen.add(lines[n]["value"])
            originals.append(n)
    # move a later UPDATE of a row before an earlier one of the same row, as new records
    by_key: dict[Any, list[int]] = {}
    for n in originals:
        by_key.setdefault(orjson.dumps(values[n]["data"]["id"]), []).append(n)
    first, later = next(ns[:2] for ns in by_key.values() if len(ns) >= 2)
    moved = (
        lines[:first]
        + [lines[later]]
        + [r for n, r in enumerate(lines[first:], first) if n != later]
    )
    path = partition_file(out, DEFAULT_FILE_TOPIC, 0)
    path.write_bytes(
        b"".join(orjson.dumps({**r, "offset": n}) + b"\n" for n, r in enumerate(moved))
    )
    report = verify(uri)
    assert report.violation_counts["handle-commit-ts-order"] >= 1


def test_kafka_receives_the_copies(apache_kafka_bootstrap: str) -> None:
    topic = unique_topic("faults")
    uri = f"kafka://{apache_kafka_bootstrap}/{topic}?protocol=simple&partition-num={PARTITIONS}"
    summary = _play(uri, faults="restart-replay:every=1s;duplicate-watermark:every=1s")
    assert summary["verified"] is True
    faults = summary["faults"]
    assert {f["kind"] for f in faults} == {"restart-replay", "duplicate-watermark"}
    for partition in range(PARTITIONS):
        listed = [f for f in faults if f["partition"] == partition]
        records = read_partition(
            apache_kafka_bootstrap, topic, partition, max(f["last_offset"] for f in listed) + 1
        )
        for fault in listed:
            earlier = set(records[: fault["first_offset"]])
            copies = records[fault["first_offset"] : fault["last_offset"] + 1]
            assert copies and all(record in earlier for record in copies)


def _b64(text: str) -> bytes:
    return base64.b64decode(text)


def test_a_bad_spec_or_skew_on_spark_is_refused_before_anything_starts(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown fault 'restart'"):
        PlaySpec(workload="demo", engine="inline", faults="restart:every=1s")
    with pytest.raises(ValueError, match="skew needs --engine inline"):
        PlaySpec(workload="demo", engine="spark", faults="skew:by=2s")
    result = CliRunner().invoke(
        app,
        ["play", "--engine", "inline", "--sink-uri", f"file://{tmp_path}", "--faults", "bab:p=3"],
    )
    assert result.exit_code == 2
    assert "p=3 must be in (0, 1]" in result.output
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("protocol", ["tencent-dts", "alibaba-dts", "open", "simple"])
def test_verify_counts_messages_in_the_units_of_the_play(tmp_path: Path, protocol: str) -> None:
    """The play's ``messages`` and verify's ``messages_by_kind`` count the same records (DTS
    CHECKPOINTs are WATERMARK messages; an Open Protocol batch is one DML message)."""
    out = tmp_path / "out"
    uri = f"file://{out}?protocol={protocol}&file-layout=partitions&partition-num={PARTITIONS}"
    summary = run_play(PlaySpec(workload="demo", rows=800, sink_uri=uri, engine="inline"))
    report = verify(uri)
    assert report.ok
    assert dict(report.kinds) == summary.messages


@pytest.mark.parametrize("uri", ["sqlite:///{tmp}/x.db", "log://", "blackhole://"])
def test_faults_need_topics_and_partitions(tmp_path: Path, uri: str) -> None:
    """Refused before anything starts: the scheme has no partitions to fault."""
    with pytest.raises(PlayRefused, match=r"delivery faults \(--faults\) are injected into"):
        run_play(
            PlaySpec(
                workload="demo",
                rows=10,
                sink_uri=uri.format(tmp=tmp_path),
                engine="inline",
                faults="bab",
            )
        )


def test_the_storage_layout_is_refused_as_having_no_partitions(tmp_path: Path) -> None:
    """Issue 44 item 18: ``file://...?protocol=csv`` was told "the scheme has none (use kafka://
    or file://)" although its scheme is file://."""
    out = tmp_path / "out"
    args = ["play", "--engine", "inline", "--rows", "10", "--faults", "bab"]
    result = CliRunner().invoke(app, [*args, "--sink-uri", f"file://{out}?protocol=csv"])
    assert result.exit_code == 2
    line = " ".join(result.output.split())
    assert "the storage layout (protocol csv;" in line
    assert "without partitions, so delivery faults (--faults) do not apply" in line
    assert "the scheme has none" not in line
    assert not out.exists()


def test_a_partition_the_file_sink_does_not_have_is_refused(tmp_path: Path) -> None:
    """Issue 44 item 17: ``partition=99`` of 2 could never fire; the file sink's count is known."""
    out = tmp_path / "out"
    uri = f"file://{out}?protocol=simple&partition-num=2"
    with pytest.raises(PlayRefused, match=r"fault 'bab': partition=99 does not exist: .* 2 part"):
        _play(uri, faults="bab:partition=99")
    with pytest.raises(PlayRefused, match="partition=1 does not exist"):
        _play(f"file://{out}?protocol=simple", faults="skew:by=1s,partition=1")
    assert not out.exists()


def test_a_fault_that_never_fired_is_warned_with_why(tmp_path: Path) -> None:
    """Issue 44 item 17: a listed fault that fired 0 times is named, with its reason, on the
    console and in the summary; a kind without a trigger fires by its default on a short play."""
    out = tmp_path / "out"
    summary_path = tmp_path / "summary.json"
    far = 1 << 63
    faults = f"restart-replay;duplicate-ddl:topic=nope;stale-watermark:at={far}"
    result = CliRunner().invoke(
        app,
        [
            "play",
            *("--engine", "inline", "--rows", "2000", "--clock", "feed"),
            *("--watermark-interval", "0.5", "--faults", faults),
            *("--sink-uri", f"file://{out}?protocol=simple&partition-num=2"),
            *("--summary-json", str(summary_path)),
        ],
    )
    assert result.exit_code == 0, result.output
    summary = orjson.loads(summary_path.read_bytes())
    assert summary["verified"] is True
    assert {f["kind"] for f in summary["faults"]} == {"restart-replay"}
    reasons = summary["faults_not_fired"]
    assert set(reasons) == {"duplicate-ddl", "stale-watermark"}
    assert reasons["duplicate-ddl"].startswith("topic 'nope' received no message")
    assert reasons["stale-watermark"].startswith(f"at={far} is past the stream's last commit ts")
    assert "fault duplicate-ddl fired 0 times: topic 'nope'" in result.output
