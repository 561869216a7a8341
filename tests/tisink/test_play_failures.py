"""How a play that cannot go ahead ends: without Java the Spark engine is refused before it
starts (one line, exit 2, what to install and the engine that needs none); a sink that cannot
be opened fails the run (exit 1) and still writes ``--summary-json`` with the error."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tisink.cli import app
from tisink.run.broker import free_port


@pytest.mark.parametrize(
    ("java", "why"),
    [
        (None, "there is no java on PATH"),
        ("home without java", "has no bin/java"),
        ("home with Java 8", "is Java 1.8.0_392"),
    ],
)
def test_spark_play_without_java_17_is_refused_in_one_line(
    tmp_path: Path, java: str | None, why: str
) -> None:
    home = tmp_path / "jdk"
    (home / "bin").mkdir(parents=True)
    if java == "home with Java 8":
        (home / "bin" / "java").write_text("#!/bin/sh\nexit 1\n")
        (home / "bin" / "java").chmod(0o755)
        (home / "release").write_text('JAVA_VERSION="1.8.0_392"\n')
    summary = tmp_path / "run.json"
    env = {"PATH": str(tmp_path / "no-such-folder"), "JAVA_HOME": str(home) if java else None}
    result = CliRunner().invoke(app, ["play", "--summary-json", str(summary)], env=env)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("play refused: "), result.output
    assert "Java 17 or later" in lines[0] and why in lines[0]
    assert "apt-get install openjdk-17-jre-headless" in lines[0]
    assert "--engine inline needs no Java" in lines[0]
    assert not summary.exists()  # refused before the start: nothing played


def test_the_java_major_of_both_version_schemes() -> None:
    from tisink.play.run import _java_major

    assert [_java_major(v) for v in ("1.8.0_392", "11.0.2", "17", "21.0.1+12")] == [8, 11, 17, 21]


def _failed_play(tmp_path: Path, args: list[str]) -> tuple[str, dict[str, object], float]:
    """The one "play failed" line, the summary written and the seconds the command took."""
    summary = tmp_path / "run.json"
    began = time.monotonic()
    result = CliRunner().invoke(
        app, ["play", "--engine", "inline", "--rows", "10", *args, "--summary-json", str(summary)]
    )
    took = time.monotonic() - began
    assert result.exit_code == 1, result.output
    failed = [line for line in result.output.splitlines() if "play failed" in line]
    assert len(failed) == 1, result.output
    assert summary.exists(), "a failed play writes --summary-json whenever it was given"
    written = json.loads(summary.read_text())
    said = str(written["error"])
    assert said and failed[0] == f"play failed: {said}"
    assert result.output.count(said) == 2, result.output  # the summary's row and that line
    return failed[0], written, took


def test_unreachable_kafka_fails_the_play_in_one_line_and_writes_the_summary(
    tmp_path: Path,
) -> None:
    port = free_port()
    line, summary, took = _failed_play(
        tmp_path, ["--sink-uri", f"kafka://127.0.0.1:{port}/t?dial-timeout=1s"]
    )
    assert f"cannot reach Kafka at 127.0.0.1:{port}: tried for " in line
    assert f"(the sink URI's dial-timeout); 127.0.0.1:{port}: Connection refused" in line
    stated = float(line.split("tried for ")[1].split("s ")[0])
    assert 0.9 <= stated <= took  # it kept trying as long as it says, and no longer
    assert "KafkaConnectionError" not in line and "AddressFamily" not in line
    assert summary["rows"] == 0


def test_a_database_that_cannot_be_opened_still_writes_the_summary(tmp_path: Path) -> None:
    port = free_port()
    line, summary, _ = _failed_play(tmp_path, ["--sink-uri", f"mysql://root@127.0.0.1:{port}/"])
    assert f"127.0.0.1:{port}" in line
    assert summary["sink_uri"] == f"mysql://root@127.0.0.1:{port}/"


def test_a_feed_error_part_way_is_said_once_and_written_to_the_summary(tmp_path: Path) -> None:
    feed = tmp_path / "feed.jsonl"
    made = CliRunner().invoke(
        app, ["generate", "--workload", "demo", "--rows", "5", "--out", str(feed)]
    )
    assert made.exit_code == 0, made.output
    lines = feed.read_text().splitlines()
    feed.write_text("\n".join([*lines[:5], '{"type": "dml"}', *lines[5:]]) + "\n")
    sink = f"file://{tmp_path / 'out'}?protocol=canal-json"
    line, _, _ = _failed_play(tmp_path, ["--feed", str(feed), "--sink-uri", sink])
    assert "feed.jsonl:6: unknown record type 'dml'" in line
