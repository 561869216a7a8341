"""The documentation's record-and-replay example, run command by command in this process
against the session's broker: a 6-partition topic played, captured, replayed into a new topic
(which gets the source's 6 partitions) and verified there.

The commands are read from the page that shows them; only what a shared broker needs changes:
its address for the example's, and the topics get names no other test uses. The example's own
``tisink broker ... &`` and ``kill %1`` lines are the session broker's here."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import orjson
import pytest
from confluent_kafka.admin import AdminClient
from typer.testing import CliRunner

from tests.kafka_support.readback import unique_topic
from tisink.cli import app

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_BASH = re.compile(r"^```bash\n(.*?)^```", re.DOTALL | re.MULTILINE)
EXAMPLE_ADDRESS = "127.0.0.1:19092"
EXAMPLE_TOPICS = ("orders-cdc", "staging")


def example_commands() -> list[list[str]]:
    """The ``tisink`` commands of the block that captures and replays, each as its words."""
    for page in PAGES:
        for block in _BASH.findall(page.read_text(encoding="utf-8")):
            if "tisink capture" in block and "tisink replay" in block:
                lines = block.replace("\\\n", " ").splitlines()
                return [words for line in lines if (words := shlex.split(line, comments=True))]
    raise AssertionError(f"no bash block of {[p.name for p in PAGES]} captures and replays")


def _partitions(bootstrap: str, topic: str) -> int | None:
    """Every topic is listed: asking for one by name would create it on the embedded broker."""
    found = AdminClient({"bootstrap.servers": bootstrap}).list_topics(timeout=10).topics.get(topic)
    return len(found.partitions) if found is not None and found.error is None else None


def test_the_replay_example_runs_as_written(
    kafka_bootstrap: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commands = example_commands()
    names = {topic: unique_topic(topic) for topic in EXAMPLE_TOPICS}
    monkeypatch.chdir(tmp_path)
    ran = []
    for words in commands:
        if words[0] != "tisink" or words[-1] == "&":
            assert words[0] in ("tisink", "kill"), words  # the broker's start and stop
            continue
        args = []
        for word in words[1:]:
            word = word.replace(EXAMPLE_ADDRESS, kafka_bootstrap)
            for topic, name in names.items():
                word = word.replace(f"/{topic}", f"/{name}")
            args.append(word)
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, f"{shlex.join(words)}\n{result.output}"
        ran.append(words[1])
    assert ran == ["play", "capture", "replay", "verify"], ran
    assert _partitions(kafka_bootstrap, names["staging"]) == 6
    summary = orjson.loads((tmp_path / "replay1" / "summary.json").read_bytes())
    captured = sum(
        len(path.read_bytes().splitlines())
        for path in (tmp_path / "cap" / names["orders-cdc"]).glob("partition-*.jsonl")
    )
    assert captured > 0 and summary["rows"] == 3 * captured  # --loop 3
