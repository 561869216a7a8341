"""``tisink verify`` on a stream with nothing to read: exit 1 with the first line saying so,
unless ``--allow-empty`` says an empty stream is expected (then OK, saying it was empty).

An empty Kafka topic, an empty file-sink topic and an empty storage folder each read nothing;
verifying nothing would pass a mistyped topic or folder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from tests.kafka_support.readback import create_topic, unique_topic
from tisink.cli import app

REFUSED = "an empty stream passes only with --allow-empty"


def _verify(uri: str, *extra: str) -> tuple[int, list[str]]:
    result = CliRunner().invoke(app, ["verify", "--sink-uri", uri, "--timeout", "5", *extra])
    return result.exit_code, result.stdout.splitlines()


def _empty_file_topic(tmp_path: Path) -> str:
    """A file-sink folder whose topic exists (a partition file) and holds no record."""
    (tmp_path / "cdc").mkdir()
    (tmp_path / "cdc" / "partition-0.jsonl").write_bytes(b"")
    return f"file://{tmp_path}?protocol=simple&topic=cdc"


def _empty_storage_folder(tmp_path: Path) -> str:
    (tmp_path / "storage").mkdir()
    return f"file://{tmp_path / 'storage'}?protocol=csv"


@pytest.mark.parametrize(
    ("make", "verdict"),
    [
        (_empty_file_topic, "(json): FAILED: nothing was read (no messages)"),
        (_empty_storage_folder, "(csv): FAILED: nothing was read (no files)"),
    ],
    ids=["file-topic", "storage-layout"],
)
def test_an_empty_folder_fails_unless_allowed(
    tmp_path: Path, make: Callable[[Path], str], verdict: str
) -> None:
    uri = make(tmp_path)
    code, lines = _verify(uri)
    assert code == 1, lines
    assert lines[0] == f"verify {uri} {verdict}; {REFUSED}"
    summary = tmp_path / "report.json"
    code, lines = _verify(uri, "--allow-empty", "--summary-json", str(summary))
    assert code == 0, lines
    assert lines[0].endswith(", as --allow-empty allows")
    assert "OK: nothing was read" in lines[0]
    report = orjson.loads(summary.read_bytes())
    assert (report["ok"], report["allow_empty"], report["messages"]) == (True, True, 0)


def test_an_empty_kafka_topic_fails_unless_allowed(kafka_bootstrap: str) -> None:
    topic = unique_topic("verify-empty")
    create_topic(kafka_bootstrap, topic, 3)
    uri = f"kafka://{kafka_bootstrap}/{topic}"
    code, lines = _verify(uri)
    assert code == 1, lines
    assert lines[0] == f"verify {uri} (json): FAILED: nothing was read (no messages); {REFUSED}"
    code, lines = _verify(uri, "--allow-empty")
    assert code == 0, lines
    assert lines[0] == (
        f"verify {uri} (json): OK: nothing was read (no messages), as --allow-empty allows"
    )
