"""``tisink play`` on Spark as a user runs it: what is refused before a session starts, and how
a play that fails or is stopped ends (the CLI in a subprocess)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import orjson

from tisink.run.broker import free_port

TISINK = shutil.which("tisink") or str(Path(sys.executable).with_name("tisink"))


def play(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TISINK, "play", *args], capture_output=True, text=True, timeout=timeout)


def test_what_spark_cannot_play_is_refused_before_a_session_starts() -> None:
    """Exit 2 in one line, within seconds: no Spark session was started for any of these."""
    closed = f"spark://127.0.0.1:{free_port()}"
    for args, reason in [
        (["--master", closed], f"cannot reach the Spark master {closed}"),
        (["--master", "spark://nosuch.invalid:7077"], "cannot reach the Spark master"),
        (["--master", "lokal[2]"], "is no Spark master URL"),
        (["--workload", "nosuch"], "no built-in 'nosuch'"),
        (["--sink-uri", "nosuch://x"], "unknown sink scheme 'nosuch'"),
        (["--sink-uri", "blackhole://?protocol=nope"], "protocol 'nope'"),
    ]:
        started = time.monotonic()
        out = play("--master", "local[1]", "--rows", "10", *args)
        assert out.returncode == 2, (args, out.stderr[-2000:])
        assert time.monotonic() - started < 20, args
        lines = out.stderr.strip().splitlines()
        assert lines[-1].startswith("play refused: "), (args, out.stderr[-2000:])
        assert reason in " ".join(lines), (args, out.stderr[-2000:])
        assert "Traceback" not in out.stderr and "SparkContext" not in out.stderr, args


def test_a_line_longer_than_the_jvm_heap_is_read_by_the_tasks_and_refused_as_inline(
    tmp_path: Path,
) -> None:
    """A 600 MB line, more than a 512 MB JVM could hold: the tasks read it themselves (no line
    enters the JVM), and the play fails on it in one line, naming it as the inline engine
    does."""
    feed = tmp_path / "one-line.jsonl"
    with feed.open("w") as out:
        out.write('{"type":"resolved","ts":1}\n')
        out.write('{"type":"row","x":"' + "a" * 600_000_000 + '"}\n')
    runs = [
        subprocess.run(
            [
                *(TISINK, "play", *engine, "--feed", str(feed), "--sink-uri", "blackhole://"),
            ],
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, "PYSPARK_SUBMIT_ARGS": "--driver-memory 512m pyspark-shell"},
        )
        for engine in (("--master", "local[1]"), ("--engine", "inline"))
    ]
    feed.unlink()
    on_spark, inline = runs
    assert on_spark.returncode == inline.returncode != 0, on_spark.stderr[-3000:]
    assert "Traceback" not in on_spark.stderr, on_spark.stderr[-3000:]
    last = on_spark.stderr.strip().splitlines()[-1]
    assert last == inline.stderr.strip().splitlines()[-1]
    assert "one-line.jsonl:2" in last, last
    assert "java.lang" not in last


def test_a_failed_owner_leaves_what_the_others_acknowledged_in_the_summary(
    tmp_path: Path,
) -> None:
    """Partition 1's file cannot be opened (a folder holds its name): its owner fails, the
    other one writes its rows; the summary has their latency, rate and the real times."""
    out, summary = tmp_path / "out", tmp_path / "summary.json"
    (out / "tidb-cdc" / "partition-1.jsonl").mkdir(parents=True)
    played = play(
        *("--master", "local[2]", "--workload", "demo", "--rows", "3000", "--append"),
        *("--sink-uri", f"file://{out}?protocol=simple&partition-num=2"),
        *("--summary-json", str(summary)),
        timeout=300,
    )
    assert played.returncode == 1, played.stderr[-3000:]
    result = orjson.loads(summary.read_bytes())
    assert "partition-1.jsonl" in result["error"]
    acked = result["latency_ms"]["count"]
    assert acked > 0 and sum(entry["rows"] for entry in result["series"]) == acked
    assert result["rows_per_s"] > 0 and result["messages"]["DML"] == acked
    assert result["elapsed_s"] > result["startup_s"] > 0
    perf = played.stderr.strip().splitlines()[-2]
    assert perf.startswith(f"{acked} rows acknowledged"), played.stderr[-3000:]
