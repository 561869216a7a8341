"""How ``tisink play`` ends when it does not run to the end: a failed play's summary, Ctrl-C at
each phase (the CLI in a subprocess, as a terminal runs it)."""

from __future__ import annotations

import base64
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson

from tisink.feed.format.samples import DEMO_FEED

TISINK = shutil.which("tisink") or str(Path(sys.executable).with_name("tisink"))
SLOW_VERIFY = (
    "import time, tisink.play.run as play; verify = play.verify; "
    "play.verify = lambda *args, **kwargs: (time.sleep(60), verify(*args, **kwargs))[1]; "
    "from tisink.cli import main; main()"
)
"""The command line with a verify that takes a minute, as one of an incomplete stream does."""


def ctrl_c_after(command: list[str], event: str, delay_s: float = 0.0) -> tuple[int, str, float]:
    """Run ``command`` (with ``-v --log-json``) as a terminal does, in a process group of its
    own, and send SIGINT to the whole group ``delay_s`` after the log line ``event`` appears;
    returns the exit code, stderr and the seconds from the signal to the exit."""
    play = subprocess.Popen(
        command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
        start_new_session=True,
    )  # fmt: skip
    assert play.stderr is not None
    seen = []
    for line in play.stderr:
        seen.append(line)
        if event in line:
            break
    else:
        raise AssertionError(f"no {event!r} in {''.join(seen)[-3000:]}")
    time.sleep(delay_s)
    os.killpg(play.pid, signal.SIGINT)
    signalled = time.monotonic()
    _, rest = play.communicate(timeout=120)
    return play.returncode, "".join(seen) + rest, time.monotonic() - signalled


def test_a_failed_play_reports_what_was_acknowledged_and_its_real_times(tmp_path: Path) -> None:
    """300 rows at 200 rows/s, then a bad record: about 1.5 s of playing, all of it in the
    summary (time, rate, latency, series) and in the console's last line."""
    lines = Path(DEMO_FEED).read_text().splitlines()
    bad_at = [i for i, line in enumerate(lines) if '"type":"row"' in line][300]
    feed, summary = tmp_path / "bad.jsonl", tmp_path / "summary.json"
    feed.write_text("\n".join([*lines[:bad_at], '{"type":"row","commitTs":1}', *lines[bad_at:]]))
    out = subprocess.run(
        [
            *(TISINK, "play", "--engine", "inline", "--feed", str(feed), "--rate", "200"),
            *("--sink-uri", f"file://{tmp_path / 'out'}?protocol=simple"),
            *("--summary-json", str(summary)),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 1, out.stderr[-2000:]
    result = orjson.loads(summary.read_bytes())
    assert result["error"].startswith(f"bad.jsonl:{bad_at + 1}: ")
    assert result["latency_ms"]["count"] == result["rows"] == 300
    assert sum(entry["rows"] for entry in result["series"]) == 300
    assert result["elapsed_s"] >= 1.0 and result["startup_s"] > 0
    assert 100 < result["rows_per_s"] < 300
    perf = out.stderr.strip().splitlines()[-2]
    assert perf.startswith("300 rows acknowledged, "), out.stderr[-2000:]
    assert out.stderr.strip().splitlines()[-1].startswith("play failed: bad.jsonl:")


def test_ctrl_c_at_the_terminal_leaves_the_embedded_broker_to_the_play(tmp_path: Path) -> None:
    """The broker runs in a session of its own: the play drains into it and stops cleanly."""
    summary = tmp_path / "summary.json"
    code, stderr, _ = ctrl_c_after(
        [
            *(TISINK, "-v", "--log-json", "play", "--engine", "inline", "--workload", "demo"),
            *("--rows", "200000", "--rate", "2000", "--summary-json", str(summary)),
        ],
        "embedded broker on",
        delay_s=2.0,
    )
    assert code == 130, stderr[-3000:]
    result = orjson.loads(summary.read_bytes())
    assert result["stopped_by"] == "SIGINT" and result["error"] is None
    assert 0 < result["latency_ms"]["count"] == result["rows"] < 200000


def test_ctrl_c_while_verifying_stops_at_once_with_130(tmp_path: Path) -> None:
    summary = tmp_path / "summary.json"
    code, stderr, took = ctrl_c_after(
        [
            *(sys.executable, "-c", SLOW_VERIFY, "-v", "--log-json", "play"),
            *("--engine", "inline", "--workload", "demo", "--rows", "300"),
            *("--sink-uri", f"file://{tmp_path / 'out'}?protocol=simple"),
            *("--summary-json", str(summary)),
        ],
        '"MQ DDL sink closed',  # the play's last line before verify
        delay_s=1.0,
    )
    assert code == 130, stderr[-3000:]
    assert took < 10
    result = orjson.loads(summary.read_bytes())
    assert result["stopped_by"] == "SIGINT" and result["verified"] is None
    assert result["rows"] == 300 and result["error"] is None


def test_ctrl_c_as_spark_owners_start_ends_in_seconds_and_reports_what_they_wrote(
    tmp_path: Path,
) -> None:
    """SIGINT as the partition owners' job starts (200,000 rows to generate): the play exits
    130 in seconds with its summary, and the summary's rows are the rows in the partition
    files (a row taken before the stop is written, never only counted). An owner that had
    not started writes nothing, and the driver cancels the job only while no owner started
    (an owner leaves a note before it writes: Spark's status store shows a started task
    late, and a cancelled owner's rows were on disk but not in the summary)."""
    out, summary = tmp_path / "out", tmp_path / "summary.json"
    code, stderr, took = ctrl_c_after(
        [
            *(TISINK, "-v", "--log-json", "play", "--master", "local[2]", "--workload", "demo"),
            *("--rows", "200000", "--sink-uri", f"file://{out}?protocol=simple&partition-num=2"),
            *("--summary-json", str(summary)),
        ],
        '"playing into 2 partition owners',
    )
    assert code == 130, stderr[-3000:]
    assert took < 15, stderr[-3000:]
    result = orjson.loads(summary.read_bytes())
    assert result["stopped_by"] == "SIGINT" and result["error"] is None
    lines = [line for p in out.rglob("partition-*.jsonl") for line in p.read_bytes().splitlines()]
    values = [orjson.loads(base64.b64decode(orjson.loads(line)["value"])) for line in lines]
    dml = [value for value in values if value["type"] in ("INSERT", "UPDATE", "DELETE")]
    assert sum(result["messages"].values()) == len(values), stderr[-3000:]
    assert result["messages"].get("DML", 0) == len(dml)
    assert result["rows"] == len(dml)  # the demo's rows: one DML message each
