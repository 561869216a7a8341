"""The command line as a user runs it: the installed ``tisink`` script in a subprocess."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from tisink.feed.format.samples import DEMO_FEED

TISINK = shutil.which("tisink") or str(Path(sys.executable).with_name("tisink"))


def run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [TISINK, "--log-json", *args], capture_output=True, text=True, timeout=timeout
    )


def count_records(feed: Path) -> tuple[int, int]:
    """Rows and DDLs of a feed, counted without tisink's reader."""
    rows = ddl = 0
    for line in feed.read_text().split("\n"):
        if line.strip():
            kind = json.loads(line)["type"]
            rows += kind == "row"
            ddl += kind == "ddl"
    return rows, ddl


def test_version():
    out = run("--version")
    assert out.returncode == 0
    assert out.stdout.startswith("tisink ")


def test_sinks_lists_builtin_schemes():
    out = run("sinks")
    assert out.returncode == 0, out.stderr
    for scheme in ("log", "blackhole", "file", "kafka"):
        assert scheme in out.stdout


@pytest.mark.parametrize("uri", ["blackhole://", "log://"])
def test_play_counts_rows_and_ddl_exactly(tmp_path, uri):
    summary_path = tmp_path / "summary.json"
    out = run(
        "play",
        "--engine",
        "inline",
        "--feed",
        str(DEMO_FEED),
        "--sink-uri",
        uri,
        "--summary-json",
        str(summary_path),
    )
    assert out.returncode == 0, out.stderr
    summary = json.loads(summary_path.read_text())
    assert (summary["rows"], summary["ddl"]) == count_records(Path(DEMO_FEED))
    assert summary["checkpoint_ts"] > 0
    for key in ("messages", "bytes", "startup_s", "rows_per_s", "elapsed_s"):
        assert key in summary


def test_play_to_file_counts_messages_by_type(tmp_path):
    summary_path = tmp_path / "summary.json"
    out_dir = tmp_path / "out"
    uri = f"file://{out_dir}?protocol=simple&partition-num=3"
    out = run(
        "play",
        "--engine",
        "inline",
        "--feed",
        str(DEMO_FEED),
        "--sink-uri",
        uri,
        "--clock",
        "feed",
        "--summary-json",
        str(summary_path),
    )
    assert out.returncode == 0, out.stderr
    summary = json.loads(summary_path.read_text())
    lines = sum(len(p.read_text().splitlines()) for p in out_dir.rglob("partition-*.jsonl"))
    assert sum(summary["messages"].values()) == lines
    assert summary["messages"]["DML"] >= summary["rows"]
    assert summary["bytes"] > 0


def test_bad_feed_fails_naming_file_and_line(tmp_path):
    feed = tmp_path / "bad.jsonl"
    good = Path(DEMO_FEED).read_text().splitlines()
    feed.write_text("\n".join([*good[:20], '{"type":"row","commitTs":1}', *good[20:]]) + "\n")
    out = run("play", "--engine", "inline", "--feed", str(feed), "--sink-uri", "blackhole://")
    assert out.returncode == 1
    assert "bad.jsonl:21" in out.stderr


def test_a_failed_play_writes_its_summary_with_the_error_and_checkpoint(tmp_path: Path) -> None:
    feed, summary = tmp_path / "bad.jsonl", tmp_path / "summary.json"
    good = Path(DEMO_FEED).read_text().splitlines()
    bad_at = next(i for i, line in enumerate(good) if '"type":"row"' in line) + 40
    feed.write_text("\n".join([*good[:bad_at], '{"type":"row","commitTs":1}', *good[bad_at:]]))
    uri = f"file://{tmp_path / 'out'}?protocol=simple"
    out = run("play", "--engine", "inline", "--feed", str(feed), "--sink-uri", uri,
              "--summary-json", str(summary))  # fmt: skip
    assert out.returncode == 1
    result = orjson.loads(summary.read_bytes())
    assert result["error"].startswith(f"bad.jsonl:{bad_at + 1}: ")
    assert result["rows"] == 40
    assert result["checkpoint_ts"] > 0
    assert result["messages"]["DML"] > 0
    assert result["verified"] is None


def test_an_empty_feed_and_a_used_file_sink_folder_are_refused_before_playing(
    tmp_path: Path,
) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n  \n")
    uri = f"file://{tmp_path / 'out'}?protocol=simple"
    out = run("play", "--engine", "inline", "--feed", str(empty), "--sink-uri", uri)
    assert out.returncode == 2
    assert "holds no records" in " ".join(out.stderr.split())
    assert not (tmp_path / "out").exists()
    first = run("play", "--engine", "inline", "--workload", "demo", "--rows", "50",
                "--sink-uri", uri)  # fmt: skip
    assert first.returncode == 0, first.stderr[-2000:]
    files = {p: p.read_bytes() for p in (tmp_path / "out").rglob("*.jsonl")}
    again = run("play", "--engine", "inline", "--workload", "demo", "--rows", "50",
                "--sink-uri", uri)  # fmt: skip
    assert again.returncode == 2
    assert "already holds topic(s) tidb-cdc" in " ".join(again.stderr.split())
    assert {p: p.read_bytes() for p in files} == files
    appended = run("play", "--engine", "inline", "--workload", "demo", "--rows", "50",
                   "--sink-uri", uri, "--append")  # fmt: skip
    assert appended.returncode == 0, appended.stderr[-2000:]
    assert all(len(p.read_bytes()) > len(data) for p, data in files.items() if data)
    assert "verify skipped" in appended.stderr


def test_unknown_scheme_is_a_clear_error():
    out = run("play", "--engine", "inline", "--feed", str(DEMO_FEED), "--sink-uri", "nosuch://x")
    assert out.returncode == 2
    assert "nosuch" in out.stderr


def test_generate_is_reproducible(tmp_path):
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for out in (first, second):
        done = run(
            "generate", "--workload", "all-types", "--seed", "7", "--rows", "300", "--out", str(out)
        )
        assert done.returncode == 0, done.stderr
    assert first.read_bytes() == second.read_bytes()
    assert count_records(first)[0] == 300


def test_generate_gives_rows_checksums_and_marks_every_nth_corrupted(tmp_path):
    out = tmp_path / "feed.jsonl"
    args = ("--rows", "300", "--checksum-version", "1", "--corrupt-nth", "50", "--out", str(out))
    done = run("generate", "--workload", "demo", *args)
    assert done.returncode == 0, done.stderr
    rows = [r for r in map(json.loads, out.read_bytes().splitlines()) if r["type"] == "row"]
    assert len(rows) == 300 and all(r["checksum"]["version"] == 1 for r in rows)
    assert [n for n, r in enumerate(rows, 1) if r["checksum"]["corrupted"]] == list(
        range(50, 301, 50)
    )


def test_generate_refuses_what_it_cannot_do_before_generating(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    for args, reason in (
        (("--out", str(blocker / "feed.jsonl")), f"cannot write the feed to {blocker}"),
        (("--out", str(tmp_path)), "cannot write the feed to"),
        (("--out", str(tmp_path / "f.jsonl"), "--rows", "-5"), "--rows must be positive"),
        (
            ("--out", str(tmp_path / "f.jsonl"), "--checksum-version", "3"),
            "--checksum-version must be one of [0, 1, 2]",
        ),
        (
            ("--out", str(tmp_path / "f.jsonl"), "--corrupt-nth", "4"),
            "--corrupt-nth needs --checksum-version",
        ),
    ):
        done = run("generate", "--workload", "demo", *args)
        assert done.returncode == 2, done.stdout + done.stderr
        assert reason in " ".join(done.stderr.split()), done.stderr
        assert "Traceback" not in done.stdout + done.stderr
    assert not (tmp_path / "f.jsonl").exists()


def test_default_play_is_spark_to_the_embedded_broker_and_verifies(tmp_path):
    """The README's main command, shrunk: no sink URI, Spark engine, a workload, verify."""
    summary_path = tmp_path / "summary.json"
    out = run(
        "play",
        "--rows",
        "3000",
        "--master",
        "local[2]",
        "--summary-json",
        str(summary_path),
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    summary = json.loads(summary_path.read_text())
    assert summary["engine"] == "spark"
    assert summary["rows"] == 3000
    assert summary["verified"] is True
    assert summary["messages"]["WATERMARK"] >= 3
    assert summary["sink_uri"].startswith("kafka://127.0.0.1:")


def test_ctrl_c_stops_an_inline_play_with_a_summary(tmp_path: Path) -> None:
    """The first SIGINT ends the source; what was sent is acknowledged, the summary (with
    its checkpoint) is written, and the exit code is 130."""
    out, summary = tmp_path / "out", tmp_path / "run" / "summary.json"
    play = subprocess.Popen(
        [
            *(TISINK, "play", "--engine", "inline", "--workload", "demo", "--rows", "200000"),
            *("--rate", "3000", "--sink-uri", f"file://{out}?protocol=simple"),
            *("--summary-json", str(summary)),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not list(out.glob("*/partition-*.jsonl")):
        time.sleep(0.2)
    time.sleep(1.5)
    play.send_signal(signal.SIGINT)
    _, stderr = play.communicate(timeout=60)
    assert play.returncode == 130, stderr[-2000:]
    result = orjson.loads(summary.read_bytes())
    assert result["stopped_by"] == "SIGINT"
    assert 0 < result["rows"] < 200000
    assert result["checkpoint_ts"] > 0
    assert result["verified"] is None


def test_ctrl_c_at_the_terminal_stops_a_spark_play_with_a_summary(tmp_path: Path) -> None:
    """SIGINT to the whole process group, as a terminal sends it (Spark's JVM and Python
    workers included): the owners stop taking rows and drain, the partial stream verifies,
    and the play exits 130 with its summary."""
    out, summary = tmp_path / "out", tmp_path / "summary.json"
    uri = f"file://{out}?protocol=simple&partition-num=2"
    play = subprocess.Popen(
        [
            *(TISINK, "play", "--master", "local[2]", "--workload", "demo", "--rows", "200000"),
            *("--rate", "3000", "--sink-uri", uri, "--summary-json", str(summary)),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    # both owners write (an owner that starts after the stop writes nothing, by design)
    while time.monotonic() < deadline and len(list(out.glob("*/partition-*.jsonl"))) < 2:
        time.sleep(0.2)
    time.sleep(2)
    os.killpg(play.pid, signal.SIGINT)
    _, stderr = play.communicate(timeout=60)
    assert play.returncode == 130, stderr[-3000:]
    result = orjson.loads(summary.read_bytes())
    assert result["stopped_by"] == "SIGINT"
    assert result["error"] is None
    assert 0 < result["rows"] < 200000
    assert result["checkpoint_ts"] > 0
    check = run("verify", "--sink-uri", uri)
    assert check.returncode == 0, check.stdout[-3000:]


def test_meaningless_numbers_and_unwritable_outputs_are_refused_before_playing(
    tmp_path: Path,
) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("x")
    for args, reason in [
        (["--rows", "-5"], "--rows must be positive"),
        (["--rate", "0"], "--rate must be a positive number"),
        (["--rate", "nan"], "--rate must be a positive number"),
        (["--watermark-interval", "0"], "--watermark-interval must be at least"),
        (["--summary-json", str(blocked / "s.json")], "cannot write the summary"),
    ]:
        run = subprocess.run(
            [TISINK, "play", "--engine", "inline", "--sink-uri", "blackhole://", *args],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert run.returncode == 2, (args, run.stderr)
        assert reason in " ".join(run.stderr.split()), (args, run.stderr)
