"""Issue 47: ``examples/consumers/checksum_consumer.py`` under ``corrupt-checksum``.

It computes each row's checksum again from the Simple JSON message alone (an implementation
of TiDB's column-level checksum independent of ``codec/checksum.py``), so it also checks the
checksums tisink writes. On clean traffic every row verifies; under ``corrupt-checksum`` it
names exactly the rows the fault corrupted; a value changed in transit is caught by the
recomputation alone. The correct consumer (``warn``: report and apply what TiCDC delivered) is
EQUAL under ``tisink check``; one that drops the rows it cannot verify (``skip``) is
DIFFERENT, naming the table and key it lost; ``stop`` stops there, exit 1."""

from __future__ import annotations

import base64
import re
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from tests.examples.test_consumers import EXAMPLES, ROWS, _check
from tisink.eventsink.file import partition_file
from tisink.play.run import PlaySpec, run_play
from tisink.sink.providers import DEFAULT_FILE_TOPIC

PARTITIONS = 3
FAULT = "corrupt-checksum:nth=15"


@pytest.fixture(scope="module")
def expected_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("expected") / "expected.db"
    uri = f"sqlite:///{path}"
    run_play(PlaySpec(workload="demo", rows=ROWS, sink_uri=uri, engine="inline"))
    return uri


def _play(tmp_path: Path, faults: str | None, workload: str = "demo") -> tuple[Path, dict]:
    config = tmp_path / "changefeed.toml"
    config.write_text('[integrity]\nintegrity-check-level = "correctness"\n')
    out = tmp_path / "cdc"
    summary = run_play(
        PlaySpec(
            workload=workload,
            rows=ROWS,
            sink_uri=f"file://{out}?protocol=simple&partition-num={PARTITIONS}",
            config_path=config,
            engine="inline",
            clock="feed",
            watermark_interval_s=0.5,
            faults=faults,
        )
    )
    assert summary.verified is True
    return out, summary.to_dict()


def _consume(out: Path, database: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            str(EXAMPLES / "checksum_consumer.py"),
            f"file://{out}/{DEFAULT_FILE_TOPIC}",
            str(database),
            *args,
        ],
        cwd=EXAMPLES,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _mismatches(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("checksum mismatch: ")]


def test_every_row_of_clean_traffic_verifies(expected_db: str, tmp_path: Path) -> None:
    out, _ = _play(tmp_path, None)
    result = _consume(out, tmp_path / "consumer.db")
    assert result.returncode == 0, result.stderr
    assert _mismatches(result.stderr) == []
    verified = int(re.search(r"(\d+) row checksum\(s\) verified", result.stderr)[1])  # type: ignore[index]
    assert verified >= ROWS
    code, output = _check(expected_db, tmp_path / "consumer.db")
    assert code == 0 and "EQUAL: " in output, output


def test_every_type_verifies(tmp_path: Path) -> None:
    """``all-types``: every MySQL type TiDB checksums, computed apart from tisink's code."""
    out, _ = _play(tmp_path, None, "all-types")
    result = _consume(out, tmp_path / "consumer.db")
    assert result.returncode == 0, result.stderr
    assert _mismatches(result.stderr) == []
    assert f"{ROWS} row checksum(s) verified, 0 mismatched" in result.stderr


@pytest.fixture(scope="module")
def corrupted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict]]:
    out, summary = _play(tmp_path_factory.mktemp("corrupted"), FAULT)
    injected = [f for f in summary["faults"] if f["kind"] == "corrupt-checksum"]
    assert len(injected) > 1
    return out, injected


def test_warn_names_each_corrupted_row_and_ends_equal(
    expected_db: str, corrupted: tuple[Path, list[dict]], tmp_path: Path
) -> None:
    out, injected = corrupted
    result = _consume(out, tmp_path / "consumer.db")
    assert result.returncode == 0, result.stderr
    found = _mismatches(result.stderr)
    assert len(found) == len(injected), result.stderr
    assert all("marked corrupted" in line for line in found)
    assert {int(re.search(r"commitTs=(\d+)", line)[1]) for line in found} == {  # type: ignore[index]
        f["commit_ts"] for f in injected
    }
    code, output = _check(expected_db, tmp_path / "consumer.db")
    assert code == 0 and "EQUAL: " in output, output


def test_skip_loses_the_rows_it_dropped(
    expected_db: str, corrupted: tuple[Path, list[dict]], tmp_path: Path
) -> None:
    out, _ = corrupted
    result = _consume(out, tmp_path / "skip.db", "--on-mismatch", "skip")
    assert result.returncode == 0, result.stderr
    code, output = _check(expected_db, tmp_path / "skip.db")
    assert code == 1, output
    named = re.compile(r"^\s*\w+\.\w+ key \(.+\): ", re.M)
    assert named.search(output), output


def test_stop_stops_at_the_first(corrupted: tuple[Path, list[dict]], tmp_path: Path) -> None:
    out, _ = corrupted
    result = _consume(out, tmp_path / "stop.db", "--on-mismatch", "stop")
    assert result.returncode == 1
    assert len(_mismatches(result.stderr)) == 1, result.stderr


def test_a_value_changed_in_transit_fails_the_recomputation(tmp_path: Path) -> None:
    """No ``corrupted`` flag: only computing the checksum again finds it."""
    out, _ = _play(tmp_path, None)
    path = partition_file(out, DEFAULT_FILE_TOPIC, 0)
    lines = path.read_bytes().splitlines()
    for n, line in enumerate(lines):
        record = orjson.loads(line)
        message = orjson.loads(base64.b64decode(record["value"])) if record.get("value") else {}
        if message.get("type") == "INSERT" and message["table"] == "orders":
            column = next(c for c, v in message["data"].items() if isinstance(v, str) and c != "id")
            message["data"][column] += "0"
            record["value"] = base64.b64encode(orjson.dumps(message)).decode()
            lines[n] = orjson.dumps(record)
            break
    else:
        pytest.fail("no INSERT into orders on partition 0")
    path.write_bytes(b"\n".join(lines) + b"\n")
    result = _consume(out, tmp_path / "consumer.db")
    found = _mismatches(result.stderr)
    assert len(found) == 1, result.stderr
    assert "shop.orders" in found[0] and "computed" in found[0]
    assert "marked corrupted" not in found[0]
