"""``tisink play`` to a ``file://`` sink, then ``verify``: clean streams pass, corrupted fail."""

from __future__ import annotations

import base64
from pathlib import Path

import orjson
import pytest

from tisink.codec.compression import decompress
from tisink.codec.simple.avro.generic import decode_message
from tisink.eventsink.file import partition_file
from tisink.feed.format.samples import DEMO_FEED
from tisink.play.run import PlaySpec, run_play
from tisink.sink.providers import DEFAULT_FILE_TOPIC
from tisink.verify import VerifyError, verify

SAMPLE = DEMO_FEED
PARTITIONS = 3


def _play(tmp_path: Path, params: str) -> tuple[str, dict[str, int]]:
    uri = f"file://{tmp_path / 'out'}?protocol=simple&partition-num={PARTITIONS}{params}"
    summary = run_play(PlaySpec(feed=SAMPLE, sink_uri=uri, config_path=None, engine="inline"))
    return uri, summary.messages


def _lines(directory: Path, partition: int) -> list[dict]:
    path = partition_file(directory, DEFAULT_FILE_TOPIC, partition)
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def _write(directory: Path, partition: int, records: list[dict]) -> None:
    """Rewrite a partition file with offsets renumbered, as a broker would have assigned them."""
    path = partition_file(directory, DEFAULT_FILE_TOPIC, partition)
    renumbered = [{**record, "offset": n} for n, record in enumerate(records)]
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in renumbered))


def _message_type(record: dict, encoding: str, compression: str = "none") -> str:
    value = decompress(compression, base64.b64decode(record["value"]))
    if encoding == "avro":
        message = decode_message(value)
        return message["payload"].get("type", message["type"])
    return orjson.loads(value)["type"]


@pytest.mark.parametrize(
    ("params", "encoding", "compression"),
    [
        ("", "json", "none"),
        ("&encoding-format=avro", "avro", "none"),
        ("&encoding-format=avro&large-message-handle-compression=lz4", "avro", "lz4"),
        ("&large-message-handle-compression=snappy", "json", "snappy"),
    ],
)
def test_sample_feed_verifies_and_a_dml_before_its_bootstrap_fails(
    tmp_path: Path, params: str, encoding: str, compression: str
) -> None:
    uri, produced = _play(tmp_path, params)
    report = verify(uri)
    assert report.ok, [str(v) for v in report.violations]
    assert report.topics == [DEFAULT_FILE_TOPIC]
    assert report.encoding_format == encoding
    dml = sum(report.counts[t] for t in ("INSERT", "UPDATE", "DELETE"))
    assert dml == produced["DML"]
    assert report.counts["BOOTSTRAP"] == produced["BOOTSTRAP"]
    assert report.counts["WATERMARK"] == produced["WATERMARK"]
    assert report.messages == sum(produced.values())
    assert report.tables >= {"shop.orders", "shop.customers", "metrics.events"}

    directory = tmp_path / "out"
    records = _lines(directory, 1)
    types = [_message_type(r, encoding, compression) for r in records]
    first_dml = next(i for i, t in enumerate(types) if t in ("INSERT", "UPDATE", "DELETE"))
    _write(directory, 1, [records[first_dml], *records[:first_dml], *records[first_dml + 1 :]])
    broken = verify(uri)
    assert not broken.ok
    first = broken.violations[0]
    assert (first.rule, first.topic, first.partition, first.offset) == (
        "schema-before-dml",
        DEFAULT_FILE_TOPIC,
        1,
        0,
    )
    assert f"{DEFAULT_FILE_TOPIC}[1]@0 schema-before-dml" in str(first)


def test_a_watermark_going_back_is_named(tmp_path: Path) -> None:
    uri, _ = _play(tmp_path, "&topic=cdc")
    directory = tmp_path / "out"
    path = partition_file(directory, "cdc", 2)
    records = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    watermarks = [
        orjson.loads(base64.b64decode(r["value"]))
        for r in records
        if orjson.loads(base64.b64decode(r["value"]))["type"] == "WATERMARK"
    ]
    assert len(watermarks) >= 2
    stale = {**watermarks[-1], "commitTs": watermarks[0]["commitTs"] - 1}
    records.append(
        {
            "offset": len(records),
            "key": None,
            "value": base64.b64encode(orjson.dumps(stale)).decode(),
        }
    )
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    report = verify(uri)
    assert [(v.rule, v.topic, v.partition, v.offset) for v in report.violations] == [
        ("watermark-monotonic", "cdc", 2, len(records) - 1)
    ]


def test_verify_reads_topics_routed_by_dispatcher_rules(tmp_path: Path) -> None:
    config = tmp_path / "changefeed.toml"
    config.write_text(
        '[[sink.dispatchers]]\nmatcher = ["metrics.*"]\ntopic = "m_{schema}"\n', encoding="utf-8"
    )
    uri = f"file://{tmp_path / 'out'}?protocol=simple&topic=cdc"
    run_play(PlaySpec(feed=SAMPLE, sink_uri=uri, config_path=config, engine="inline"))
    alone = verify(uri)
    assert alone.topics == ["cdc"]
    assert "metrics.events" not in alone.tables
    report = verify(uri, config_path=config)
    assert report.ok, [str(v) for v in report.violations]
    assert report.topics == ["cdc", "m_metrics"]
    assert "metrics.events" in report.tables
    assert any(key.startswith("m_metrics[") for key in report.partitions)
    assert verify(uri, topic_pattern="m_.*").topics == ["cdc", "m_metrics"]


def test_unreadable_sinks_are_errors(tmp_path: Path) -> None:
    with pytest.raises(VerifyError, match="does not exist"):
        verify(f"file://{tmp_path / 'missing'}?protocol=simple")
    (tmp_path / "empty").mkdir()
    with pytest.raises(VerifyError, match=f"topic '{DEFAULT_FILE_TOPIC}' does not exist"):
        verify(f"file://{tmp_path / 'empty'}?protocol=simple")
    with pytest.raises(VerifyError, match="cannot read protocol 'debug': it has no decoder"):
        verify(f"file://{tmp_path}?protocol=debug")
    with pytest.raises(VerifyError, match="the sink's protocol is 'simple', not 'debug'"):
        verify(f"file://{tmp_path}?protocol=simple", protocol="debug")
    with pytest.raises(VerifyError, match="log://"):
        verify("log://")


@pytest.mark.parametrize("encoding", ["json", "avro"])
def test_all_types_workload_passes_verify(tmp_path, encoding):
    """Every MySQL type, generated, encoded and read back: the stream keeps its promises."""
    uri = f"file://{tmp_path}?protocol=simple&partition-num=3&encoding-format={encoding}"
    summary = run_play(
        PlaySpec(workload="all-types", seed=11, rows=2000, sink_uri=uri, engine="inline")
    )
    assert summary.verified is True
    report = verify(uri)
    assert report.ok, [str(v) for v in report.violations]
    dml = sum(report.counts.get(kind, 0) for kind in ("INSERT", "UPDATE", "DELETE"))
    assert dml == summary.rows == 2000
