"""``tisink play`` to Kafka (the session broker), read back with confluent-kafka, then verify.

The scenario is the docs' ``simple.user`` table: CREATE, then INSERT/UPDATE/DELETE as in
``golden/docs-examples``. The table dispatcher puts every DML of the table on partition
crc32("simple" + "user") % 3; bootstraps and watermarks go to all three partitions.
"""

from __future__ import annotations

import zlib
from pathlib import Path

import orjson
import pytest
from confluent_kafka import Producer

from tests.docs_examples import DOCS_DELETE_TS, DOCS_INSERT_TS, DOCS_UPDATE_TS, docs_row
from tests.kafka_support.readback import create_topic, read_partition, unique_topic
from tests.verify.streams import bootstrap, insert, table_schema, watermark
from tisink.feed.format.samples import DEMO_FEED
from tisink.play.run import PlaySpec, run_play
from tisink.verify import verify

PARTITIONS = 3


def _user_feed(simple_golden: Path, path: Path) -> Path:
    boot = orjson.loads((simple_golden / "docs-examples" / "bootstrap.json").read_bytes())
    schema = {**boot["tableSchema"], "table": "user"}
    john = {"id": 1, "name": "John Doe", "age": 25, "score": 90.5}
    records = [
        {
            "type": "ddl",
            "commitTs": schema["version"] + 4,
            "startTs": schema["version"] + 1,
            "ddlType": "CREATE",
            "query": "CREATE TABLE `simple`.`user` (...)",
            "table": schema,
        },
        docs_row(DOCS_INSERT_TS, "INSERT", after=john),
        docs_row(DOCS_INSERT_TS + 7, "INSERT", after={**john, "id": 2, "name": "Jane"}),
        docs_row(DOCS_UPDATE_TS, "UPDATE", after={**john, "score": 95}, before=john),
        docs_row(DOCS_DELETE_TS, "DELETE", before={**john, "score": 95}),
    ]
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    return path


def test_docs_user_scenario_lands_where_ticdc_puts_it_and_verifies(
    kafka_bootstrap: str, simple_golden: Path, tmp_path: Path
) -> None:
    topic = unique_topic("verify-user")
    uri = f"kafka://{kafka_bootstrap}/{topic}?protocol=simple&partition-num={PARTITIONS}"
    run_play(
        PlaySpec(
            feed=_user_feed(simple_golden, tmp_path / "user.jsonl"),
            sink_uri=uri,
            config_path=None,
            engine="inline",
        )
    )

    dml_partition = zlib.crc32(b"simpleuser") % PARTITIONS
    seen: dict[int, list[tuple[bytes | None, dict]]] = {}
    for partition in range(PARTITIONS):
        records = read_partition(kafka_bootstrap, topic, partition, expected=1, timeout=15)
        seen[partition] = [(key, orjson.loads(value or b"null")) for key, value in records]
    for partition, messages in seen.items():
        types = [m["type"] for _, m in messages]
        assert "BOOTSTRAP" in types, (partition, types)
        assert "WATERMARK" in types, (partition, types)
        assert "CREATE" in types, (partition, types)
        dml = [(key, m) for key, m in messages if m["type"] in ("INSERT", "UPDATE", "DELETE")]
        if partition != dml_partition:
            assert dml == []
            continue
        assert [(m["type"], m["commitTs"]) for _, m in dml] == [
            ("INSERT", DOCS_INSERT_TS),
            ("INSERT", DOCS_INSERT_TS + 7),
            ("UPDATE", DOCS_UPDATE_TS),
            ("DELETE", DOCS_DELETE_TS),
        ]
        assert {key for key, _ in dml} == {b""}
        assert dml[0][1]["data"] == {"age": "25", "id": "1", "name": "John Doe", "score": "90.5"}
    watermark_keys = {key for m in seen.values() for key, msg in m if msg["type"] == "WATERMARK"}
    assert watermark_keys == {None}

    report = verify(uri, timeout_s=15)
    assert report.ok, [str(v) for v in report.violations]
    assert report.topics == [topic]
    assert report.unfinished == []
    assert (report.counts["INSERT"], report.counts["UPDATE"], report.counts["DELETE"]) == (2, 1, 1)
    assert report.messages == sum(len(m) for m in seen.values())
    assert report.tables == {"simple.user"}


def test_a_broken_stream_fails_naming_each_violation(kafka_bootstrap: str) -> None:
    topic = unique_topic("verify-broken")
    create_topic(kafka_bootstrap, topic, PARTITIONS)
    producer = Producer({"bootstrap.servers": kafka_bootstrap, "enable.idempotence": False})
    ts = DOCS_INSERT_TS
    sends = [
        (0, insert(ts, 1)),  # a DML with no schema before it
        (1, watermark(ts + 5)),
        (1, watermark(ts)),  # a watermark going back
        (2, bootstrap(table_schema())),
        (2, insert(ts + 1, 1)),
    ]
    for partition, value in sends:
        producer.produce(topic, value=value, partition=partition)
    assert producer.flush(15) == 0

    report = verify(f"kafka://{kafka_bootstrap}/{topic}?protocol=simple", timeout_s=15)
    assert not report.ok
    assert report.unfinished == []
    assert report.messages == len(sends)
    # partitions are consumed concurrently, so the order between them is not fixed
    assert sorted((v.rule, v.topic, v.partition, v.offset) for v in report.violations) == [
        ("schema-before-dml", topic, 0, 0),
        ("watermark-monotonic", topic, 1, 1),
    ]


@pytest.mark.parametrize(
    "params",
    [
        "",
        "&encoding-format=avro&large-message-handle-compression=snappy",
        "&encoder-concurrency=2",
    ],
)
def test_sample_feed_played_to_kafka_verifies(
    kafka_bootstrap: str, tmp_path: Path, params: str
) -> None:
    topic = unique_topic("verify-demo")
    config = tmp_path / "changefeed.toml"
    config.write_text(
        f'[[sink.dispatchers]]\nmatcher = ["metrics.*"]\ntopic = "{topic}-{{schema}}"\n',
        encoding="utf-8",
    )
    uri = f"kafka://{kafka_bootstrap}/{topic}?protocol=simple&partition-num={PARTITIONS}{params}"
    summary = run_play(PlaySpec(feed=DEMO_FEED, sink_uri=uri, config_path=config, engine="inline"))
    report = verify(uri, timeout_s=15, config_path=config)
    assert report.ok, [str(v) for v in report.violations]
    assert report.topics == [topic, f"{topic}-metrics"]
    assert report.messages == sum(summary.messages.values())
    assert "metrics.events" in report.tables


def test_an_inline_play_verifies_against_what_the_broker_acknowledged(
    kafka_bootstrap: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The play hands verify its producers' acknowledged ends: one per partition written,
    each the partition's record count as an independent client reads it."""
    import tisink.play.run

    seen: dict[str, object] = {}
    real_verify = tisink.play.run.verify

    def spy(*args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        seen.update(kwargs)
        return real_verify(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(tisink.play.run, "verify", spy)
    topic = unique_topic("acked-play")
    uri = f"kafka://{kafka_bootstrap}/{topic}?protocol=simple&partition-num=3"
    summary = run_play(PlaySpec(feed=DEMO_FEED, sink_uri=uri, engine="inline"))
    assert summary.verified is True
    acknowledged = seen["acknowledged"]
    assert isinstance(acknowledged, dict) and set(acknowledged) == {(topic, p) for p in range(3)}
    for (_, partition), end in acknowledged.items():
        assert len(read_partition(kafka_bootstrap, topic, partition, end)) == end


def test_a_topic_holding_messages_is_refused_unless_appended(kafka_bootstrap: str) -> None:
    """As with a used ``file://`` folder: a second play into the same topic would read as one
    stream with the first, so it is refused before anything is written (exit 2)."""
    from typer.testing import CliRunner

    from tisink.cli import app

    topic = unique_topic("leftover")
    uri = f"kafka://{kafka_bootstrap}/{topic}?protocol=simple&partition-num={PARTITIONS}"
    play = ["play", "--engine", "inline", "--workload", "demo", "--rows", "50", "--sink-uri", uri]
    first = CliRunner().invoke(app, play)
    assert first.exit_code == 0, first.output
    held = [len(read_partition(kafka_bootstrap, topic, p, 1)) for p in range(PARTITIONS)]
    again = CliRunner().invoke(app, play)
    assert again.exit_code == 2
    assert f"already holds topic(s) {topic}" in again.output
    assert [len(read_partition(kafka_bootstrap, topic, p, 1)) for p in range(PARTITIONS)] == held
    appended = CliRunner().invoke(app, [*play, "--append"])
    assert appended.exit_code == 0, appended.output
    assert sum(len(read_partition(kafka_bootstrap, topic, p, 1)) for p in range(PARTITIONS)) > sum(
        held
    )
