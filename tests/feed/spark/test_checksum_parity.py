"""A feed's row checksums (``feed/format/checksums.py``) reach the encoders on Spark as they do
inline: computed and given ones, a ``corrupted`` mark and the halves of a key-changing UPDATE
the sink splits write the same bytes on both engines, at one core and two, and a checksum the
reader refuses stops both engines with the same error."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

pytest.importorskip("pyspark")

from tests.output_files import output_files
from tests.schema_registry_fixture import schema_registry_fixture
from tisink.core.clock import FeedClock
from tisink.eventsink.file import list_file_topics, read_file_topic_records
from tisink.feed.errors import PlayError
from tisink.feed.format.reader import read_feed
from tisink.feed.inline import play_with_factory
from tisink.feed.play_spec import PlaySpec
from tisink.feed.spark import run_spark_play
from tisink.feed.workload import generate_feed
from tisink.sink.config import ChangefeedConfig
from tisink.sink.factory import SinkFactory

SEED = 11
ROWS = 300
PARTITIONS = 3
INTEGRITY = '[integrity]\nintegrity-check-level = "correctness"\n'
# the halves of a split UPDATE go to the owners of their own keys
INDEX_VALUE = '[[sink.dispatchers]]\nmatcher = ["*.*"]\npartition = "index-value"\n'
AVRO = (
    "protocol=avro&enable-tidb-extension=true&avro-decimal-handling-mode=string"
    "&avro-bigint-unsigned-handling-mode=string"
)
CASES = {
    "simple": ("protocol=simple", INTEGRITY + INDEX_VALUE),
    "simple-classic": ("protocol=simple", "newarch = false\n" + INTEGRITY + INDEX_VALUE),
    "avro": (AVRO, INTEGRITY + INDEX_VALUE),
}
U32 = (1 << 32) - 1

schema_registry = schema_registry_fixture("module", name="schema_registry")


def _checksum(index: int) -> dict[str, Any] | None:
    """The checksum object given to the ``index``-th row: none for every fifth one, computed
    ones of each version, and ones whose values are given."""
    return (
        None,
        {},
        {"version": 1},
        {"version": 0, "current": index * 2654435761 & U32, "previous": index},
        {"version": 2, "corrupted": False, "current": index * 40503 & U32},
    )[index % 5]


@pytest.fixture(scope="module")
def checksum_feed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """sysbench's feed (its UPDATEs change the primary key) in two files, its rows carrying
    checksums of every kind: computed, given, absent, one INSERT and one key-changing UPDATE
    marked corrupted, and key-changing UPDATEs with each kind of checksum."""
    folder = tmp_path_factory.mktemp("checksums")
    whole = folder / "whole.jsonl"
    generate_feed("sysbench", SEED, ROWS, whole)
    records = [orjson.loads(line) for line in whole.read_bytes().splitlines() if line]
    rows = [r for r in records if r["type"] == "row"]
    for index, row in enumerate(rows):
        checksum = _checksum(index)
        if checksum is not None:
            row["checksum"] = checksum
    insert = next(r for r in rows[50:] if r["op"] == "INSERT")
    insert["checksum"] = {"corrupted": True}
    moved = [r for r in rows if r["op"] == "UPDATE" and r["before"]["id"] != r["after"]["id"]]
    assert len(moved) > 10
    for index, row in enumerate(moved):  # each kind of checksum on split UPDATEs
        row.pop("checksum", None)
        checksum = _checksum(index)
        if checksum is not None:
            row["checksum"] = checksum
    moved[6]["checksum"] = {"corrupted": True}
    kinds = {orjson.dumps(sorted(r.get("checksum", {"none": 1}))) for r in moved}
    assert len(kinds) == 6  # each kind, and the corrupted mark
    feed = folder / "feed"
    feed.mkdir()
    half = len(records) // 2
    for name, part in (("part-0.jsonl", records[:half]), ("part-1.jsonl", records[half:])):
        (feed / name).write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in part))
    return feed


def _uri(out: Path, query: str, registry: str | None) -> str:
    uri = f"file://{out}?{query}&partition-num={PARTITIONS}"
    return uri if registry is None else f"{uri}&schema-registry={registry}"


def _inline(feed: Path, uri: str, config: Path) -> None:
    factory = SinkFactory(uri, ChangefeedConfig.from_toml(config), clock=FeedClock())
    asyncio.run(play_with_factory(read_feed(feed), factory))


def _spark(feed: Path, uri: str, config: Path) -> None:
    """A local[2] play, in the module's Spark session."""
    run_spark_play(
        PlaySpec(
            feed=feed, seed=SEED, sink_uri=uri, config_path=config, master="local[2]", clock="feed"
        )
    )


def _cli(feed: Path, uri: str, config: Path) -> None:
    """A local[1] play: its own Spark session, in a ``tisink`` process."""
    tisink = Path(sys.executable).with_name("tisink")
    done = subprocess.run(
        [
            *(str(tisink), "play", "--feed", str(feed), "--master", "local[1]"),
            *("--clock", "feed", "--config", str(config), "--sink-uri", uri),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]


def _values(directory: Path) -> bytes:
    """Every message value a file sink wrote, joined."""
    topics = list_file_topics(directory)
    records = (r for t in topics for r in read_file_topic_records(directory, t))
    return b"\n".join(r.value or b"" for r in records)


@pytest.mark.parametrize("case", list(CASES))
def test_checksums_write_the_same_bytes_inline_and_on_spark(
    spark: Any, request: pytest.FixtureRequest, checksum_feed: Path, tmp_path: Path, case: str
) -> None:
    query, text = CASES[case]
    registry = request.getfixturevalue("schema_registry") if "avro" in query else None
    config = tmp_path / "changefeed.toml"
    config.write_text(text, encoding="utf-8")
    outs = {name: tmp_path / name for name in ("inline", "local1", "local2")}
    _inline(checksum_feed, _uri(outs["inline"], query, registry), config)
    _spark(checksum_feed, _uri(outs["local2"], query, registry), config)
    _cli(checksum_feed, _uri(outs["local1"], query, registry), config)
    inline = output_files(outs["inline"])
    assert len(inline) >= PARTITIONS
    if registry is None:  # what the bytes hold: the feed's corrupted marks, on split halves too
        corrupted = _values(outs["inline"]).count(b'"corrupted":true')
        assert corrupted >= 3, corrupted
    for name in ("local2", "local1"):
        got = output_files(outs[name])
        assert sorted(got) == sorted(inline), name
        for path, data in inline.items():
            assert got[path] == data, f"{case} {name}: {path} differs"


BAD = {
    "not-an-object": 5,
    "unknown-field": {"version": 2, "crc": 1},
    "bad-version": {"version": 9},
    "bad-corrupted": {"corrupted": "yes"},
    "too-big": {"current": 1 << 32},
    "huge": {"previous": 1 << 70},
}


@pytest.mark.parametrize("bad", list(BAD))
def test_a_refused_checksum_stops_both_engines_with_one_error(
    spark: Any, checksum_feed: Path, tmp_path: Path, bad: str
) -> None:
    feed = tmp_path / "feed"
    feed.mkdir()
    for part in sorted(checksum_feed.iterdir()):
        (feed / part.name).write_bytes(part.read_bytes())
    second = feed / "part-1.jsonl"
    lines = second.read_bytes().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if i > 30 and b'"op":"UPDATE"' in line)
    record = orjson.loads(lines[at])
    record["checksum"] = BAD[bad]
    lines[at] = json.dumps(record, separators=(",", ":")).encode() + b"\n"  # 70-bit integers too
    second.write_bytes(b"".join(lines))
    config = tmp_path / "changefeed.toml"
    config.write_text(INTEGRITY + INDEX_VALUE, encoding="utf-8")
    errors = []
    for engine, out in ((_inline, tmp_path / "inline"), (_spark, tmp_path / "spark")):
        with pytest.raises(PlayError) as caught:
            engine(feed, _uri(out, "protocol=simple", None), config)
        errors.append(str(caught.value.cause))
    assert errors[0].startswith(f"part-1.jsonl:{at + 1}: "), errors[0]
    assert "checksum" in errors[0] and "\n" not in errors[0]
    assert errors[1] == errors[0]
