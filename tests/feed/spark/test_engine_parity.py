"""Both engines run one player: under ``--clock feed`` the inline engine and Spark ``local[2]``
write byte-identical partition files, and a DTS partition's binlog positions never go back,
however tables share partitions."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import orjson
import pytest

pytest.importorskip("pyspark")

from tests.output_files import output_files
from tisink.codec.config import EncoderConfig
from tisink.codec.decoded import DecodedMessage
from tisink.codec.protocol import Decoder, DecodesWithHeaders
from tisink.codec.registry import get_protocol
from tisink.core.clock import FeedClock
from tisink.eventsink.file import FileRecord, list_file_topics, read_file_topic_records
from tisink.feed.format.reader import read_feed
from tisink.feed.inline import play_with_factory
from tisink.feed.play_spec import PlaySpec
from tisink.feed.spark import run_spark_play
from tisink.feed.workload import generate_feed
from tisink.sink.config import ChangefeedConfig
from tisink.sink.factory import SinkFactory

SEED = 7
ROWS = 1500
PARTITIONS = 3
# TiCDC's per-table BOOTSTRAP cadence, its triggers close enough to fire many times in the feed
BUSY = "[sink]\nsend-bootstrap-interval-in-sec = 5\nsend-bootstrap-in-msg-count = 50\n"
PARTITION_ZERO = BUSY + "send-bootstrap-to-all-partition = false\n"
# delivery faults, from the changefeed file: the same copies at the same offsets on both engines
FAULTS = (
    '[sink]\nfaults = "restart-replay:every=1s;bab:p=0.05;duplicate-ddl;producer-retry:p=0.05;'
    'stale-watermark:every=1s;duplicate-watermark:p=0.3"\n'
)
CASES = {
    "simple": ("simple", None),
    "simple-busy-cadence": ("simple", BUSY),
    "simple-partition-zero": ("simple", PARTITION_ZERO),
    "debezium": ("debezium", None),
    "tencent-dts": ("tencent-dts", None),
    "alibaba-dts": ("alibaba-dts", None),
    "simple-faults": ("simple", FAULTS),
    "tencent-dts-faults": ("tencent-dts", FAULTS),
    # key-changing UPDATEs split in each architecture's order (tablesink/split.py)
    "simple-newarch": ("simple", None),
    "simple-classic": ("simple", "newarch = false\n"),
}


@pytest.fixture(scope="module")
def demo_feed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("feed") / "demo.jsonl"
    generate_feed("demo", SEED, ROWS, path)
    return path


@pytest.fixture(scope="module")
def multi_table_feed(demo_feed: Path) -> Path:
    """The demo feed with every run of four row lines made one transaction (one commitTs)
    spanning the tables the run touches, their rows interleaved."""
    lines = [orjson.loads(line) for line in demo_feed.read_bytes().splitlines() if line]
    run: list[dict[str, Any]] = []
    for record in lines:
        if record["type"] != "row":
            run = []
            continue
        run.append(record)
        if len(run) > 1:
            record["commitTs"], record["startTs"] = run[0]["commitTs"], run[0]["startTs"]
        if len(run) == 4:
            run = []
    path = demo_feed.with_name("multi-table.jsonl")
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in lines))
    spanning = sum(
        len({r["tableID"] for r in lines if r["type"] == "row" and r["commitTs"] == ts}) > 1
        for ts in {r["commitTs"] for r in lines if r["type"] == "row"}
    )
    assert spanning > 50
    return path


def _uri(out: Path, protocol: str) -> str:
    return f"file://{out}?protocol={protocol}&partition-num={PARTITIONS}"


def _config(tmp: Path, text: str | None) -> Path | None:
    if text is None:
        return None
    path = tmp / "changefeed.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _inline(feed: Path, out: Path, protocol: str, config: Path | None) -> None:
    changefeed = ChangefeedConfig.from_toml(config) if config is not None else None
    factory = SinkFactory(_uri(out, protocol), changefeed, clock=FeedClock())
    asyncio.run(play_with_factory(read_feed(feed), factory))


def _spark(feed: Path, out: Path, protocol: str, config: Path | None) -> None:
    run_spark_play(
        PlaySpec(
            feed=feed,
            seed=SEED,
            sink_uri=_uri(out, protocol),
            config_path=config,
            master="local[2]",
            clock="feed",
        )
    )


def _decoded(directory: Path) -> list[bytes]:
    """Each partition's values, joined (the Simple JSON messages as written)."""
    return [
        b"\n".join(r.value for r in read_file_topic_records(directory, topic) if r.partition == p)
        for topic in list_file_topics(directory)
        for p in range(PARTITIONS)
    ]


def _play_both(feed: Path, tmp_path: Path, case: str) -> None:
    """Play ``feed`` on both engines and check every partition file is byte-identical."""
    protocol, text = CASES[case]
    config = _config(tmp_path, text)
    _inline(feed, tmp_path / "inline", protocol, config)
    _spark(feed, tmp_path / "spark", protocol, config)
    inline, on_spark = output_files(tmp_path / "inline"), output_files(tmp_path / "spark")
    assert len(inline) >= PARTITIONS
    assert sorted(inline) == sorted(on_spark)
    for name, data in inline.items():
        assert data == on_spark[name], f"{case}: {name} differs"


@pytest.mark.parametrize("case", list(CASES))
def test_inline_and_spark_write_the_same_bytes(
    spark: Any, demo_feed: Path, tmp_path: Path, case: str
) -> None:
    _play_both(demo_feed, tmp_path, case)
    protocol, text = CASES[case]
    if text == FAULTS:  # the faults fired: partitions hold copies of earlier records
        values = [
            r.value
            for t in list_file_topics(tmp_path / "inline")
            for r in read_file_topic_records(tmp_path / "inline", t)
        ]
        assert len(values) - len(set(values)) > 20
    if protocol == "simple":
        # TiCDC's cadence: each table's first row, then every 50 messages or 5 s, everywhere
        # (or in partition 0 alone)
        bootstraps = [data.count(b'"type":"BOOTSTRAP"') for data in _decoded(tmp_path / "inline")]
        least = 1 if text is None else 5
        if text == PARTITION_ZERO:
            assert bootstraps[0] >= least and bootstraps[1:] == [0] * (PARTITIONS - 1)
        else:
            assert min(bootstraps) >= least, bootstraps


@pytest.fixture(scope="module")
def sysbench_feed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """sysbench's UPDATEs change unique keys inside multi-row transactions (split, then ordered
    by the architecture: deletes first, or each DELETE in place and the INSERTs last)."""
    path = tmp_path_factory.mktemp("feed") / "sysbench.jsonl"
    generate_feed("sysbench", SEED, ROWS, path)
    return path


@pytest.mark.parametrize("case", ["simple-newarch", "simple-classic"])
def test_split_updates_keep_the_engines_equal(
    spark: Any, sysbench_feed: Path, tmp_path: Path, case: str
) -> None:
    _play_both(sysbench_feed, tmp_path, case)
    deletes = sum(data.count(b'"type":"DELETE"') for data in _decoded(tmp_path / "inline"))
    assert deletes > 20  # the split halves are there (sysbench deletes little of its own)


# Not the DTS protocols yet: their synthetic seqId numbers the entries of one commit ts in the
# order an encoder sees them, and a Spark owner's encoder sees only its partition's share.
@pytest.mark.parametrize("case", ["simple-busy-cadence", "debezium"])
def test_transactions_spanning_tables_keep_the_engines_equal(
    spark: Any, multi_table_feed: Path, tmp_path: Path, case: str
) -> None:
    _play_both(multi_table_feed, tmp_path, case)


@pytest.mark.parametrize("engine", ["inline", "spark"])
@pytest.mark.parametrize("protocol", ["tencent-dts", "alibaba-dts"])
def test_dts_positions_never_go_back_within_a_partition(
    spark: Any, demo_feed: Path, tmp_path: Path, protocol: str, engine: str
) -> None:
    out = tmp_path / "out"
    (_inline if engine == "inline" else _spark)(demo_feed, out, protocol, None)
    decoder_of = get_protocol(protocol).new_decoder
    assert decoder_of is not None
    checked = 0
    for topic in list_file_topics(out):
        stamps: dict[int, list[int]] = {}
        decoders: dict[int, Any] = {}
        for record in read_file_topic_records(out, topic):
            decoder = decoders.setdefault(record.partition, decoder_of(_config_of(protocol)))
            for message in _decode(decoder, record):
                if message.kind in ("DML", "DDL"):
                    stamps.setdefault(record.partition, []).append(message.commit_ts)
        for partition, seen in stamps.items():
            assert seen == sorted(seen), f"{protocol} {engine}: partition {partition} goes back"
            checked += len(seen)
    assert checked >= ROWS


def _config_of(protocol: str) -> EncoderConfig:
    return ChangefeedConfig.from_mapping({"sink": {"protocol": protocol}}).encoder


def _decode(decoder: Decoder, record: FileRecord) -> list[DecodedMessage]:
    if isinstance(decoder, DecodesWithHeaders):
        return list(decoder.decode_with_headers(record.key, record.value, record.headers))
    return list(decoder.decode(record.key, record.value))
