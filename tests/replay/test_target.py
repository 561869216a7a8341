"""``tisink replay --routing same``: the target's partitions are settled against the source's
before anything is created. A new topic gets the source's count unless ``partition-num`` says
otherwise; a target with fewer partitions is refused (exit 2, one line) and leaves no topic or
folder behind."""

from __future__ import annotations

from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient
from typer.testing import CliRunner

from tests.kafka_support.readback import create_topic, unique_topic
from tisink.cli import app
from tisink.replay.records import ReplayRecord, record_line


def _write_folder(folder: Path, topic: str, partitions: int, records: int) -> None:
    (folder / topic).mkdir(parents=True)
    for p in range(partitions):
        lines = (record_line(ReplayRecord(i, None, b"v%d" % p, (), None)) for i in range(records))
        (folder / topic / f"partition-{p}.jsonl").write_bytes(b"".join(lines))


def _partitions(bootstrap: str, topic: str) -> int | None:
    """The partitions of ``topic`` as librdkafka sees them; None when it does not exist. Every
    topic is listed: asking for one by name would create it on a broker that auto-creates."""
    metadata = AdminClient({"bootstrap.servers": bootstrap}).list_topics(timeout=10)
    found = metadata.topics.get(topic)
    if found is None or found.error is not None or not found.partitions:
        return None
    return len(found.partitions)


def _replay(*args: str) -> tuple[int, list[str]]:
    result = CliRunner().invoke(app, ["replay", *args])
    return result.exit_code, result.output.strip().splitlines()


def _refused(code: int, lines: list[str], *words: str) -> None:
    assert code == 2, lines
    assert len(lines) == 1 and lines[0].startswith("replay refused:"), lines
    text = lines[0]
    assert all(word in text for word in words), text


def test_a_file_target_gets_the_source_partitions_or_is_refused(tmp_path: Path) -> None:
    _write_folder(tmp_path / "cap", "t", 4, 5)
    out = tmp_path / "out"
    code, lines = _replay(str(tmp_path / "cap"), "--sink-uri", f"file://{out}?partition-num=2")
    _refused(code, lines, "source topic t has 4 partitions", "partition-num=2", "tidb-cdc")
    assert not out.exists()
    code, lines = _replay(str(tmp_path / "cap"), "--sink-uri", f"file://{out}")
    assert code == 0, lines
    files = sorted(p.name for p in (out / "tidb-cdc").glob("partition-*.jsonl"))
    assert files == [f"partition-{p}.jsonl" for p in range(4)]
    for p in range(4):
        assert len((out / "tidb-cdc" / f"partition-{p}.jsonl").read_bytes().splitlines()) == 5


def test_a_new_topic_gets_the_source_partitions(kafka_bootstrap: str, tmp_path: Path) -> None:
    _write_folder(tmp_path / "cap", "t", 6, 10)
    target = unique_topic("staging")
    code, lines = _replay(
        str(tmp_path / "cap"), "--sink-uri", f"kafka://{kafka_bootstrap}/{target}"
    )
    assert code == 0, lines
    assert _partitions(kafka_bootstrap, target) == 6


def test_a_refused_replay_creates_no_topic(kafka_bootstrap: str, tmp_path: Path) -> None:
    """The README's case: a 6-partition source, ``partition-num=3``: refused before the topic
    is created, so the replay asked again without it (or with 6) starts clean."""
    _write_folder(tmp_path / "cap", "t", 6, 10)
    target = unique_topic("staging")
    uri = f"kafka://{kafka_bootstrap}/{target}"
    code, lines = _replay(str(tmp_path / "cap"), "--sink-uri", f"{uri}?partition-num=3")
    _refused(code, lines, "has 6 partitions", "partition-num=3", target, "nothing was created")
    assert _partitions(kafka_bootstrap, target) is None
    code, lines = _replay(str(tmp_path / "cap"), "--sink-uri", f"{uri}?partition-num=6")
    assert code == 0, lines
    assert _partitions(kafka_bootstrap, target) == 6


def test_an_existing_topic_with_fewer_partitions_is_refused(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    _write_folder(tmp_path / "cap", "t", 3, 10)
    target = unique_topic("fewer")
    create_topic(kafka_bootstrap, target, 2)
    code, lines = _replay(
        str(tmp_path / "cap"), "--sink-uri", f"kafka://{kafka_bootstrap}/{target}"
    )
    _refused(code, lines, "has 3 partitions", f"target topic {target} 2", "--routing key")
    code, lines = _replay(
        str(tmp_path / "cap"),
        *("--sink-uri", f"kafka://{kafka_bootstrap}/{target}", "--routing", "key"),
    )
    assert code == 0, lines
    assert _partitions(kafka_bootstrap, target) == 2


@pytest.mark.parametrize("routing", ["same", "key"])
def test_a_missing_source_topic_creates_no_target(kafka_bootstrap: str, routing: str) -> None:
    source, target = unique_topic("missing"), unique_topic("never")
    code, lines = _replay(
        f"kafka://{kafka_bootstrap}/{source}",
        *("--sink-uri", f"kafka://{kafka_bootstrap}/{target}", "--routing", routing),
        *("--timeout", "5"),
    )
    assert code == 1, lines
    assert any("no such topic" in line for line in lines), lines
    assert _partitions(kafka_bootstrap, target) is None
