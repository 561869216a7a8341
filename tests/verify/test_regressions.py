"""Issue 47: a commit ts that goes back inside a partition (a split table, a restart after a
failed send) is valid at-least-once traffic when every row still arrives: verify lists it as
``commit ts regressed`` with its topic, partition and offsets, not as a violation. A row whose
own change goes back stays a ``handle-commit-ts-order`` violation unless the newer change comes
again after it before the next WATERMARK; a lost row still fails."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.verify.streams import bootstrap, check, dml, insert, table_schema, watermark
from tisink.eventsink.file import partition_file
from tisink.play.run import PlaySpec, run_play
from tisink.sink.providers import DEFAULT_FILE_TOPIC
from tisink.verify import render_text, verify

TS = 447984084414103554
PARTITIONS = 3


def _update(commit_ts: int) -> bytes:
    return dml("UPDATE", commit_ts, data={"id": "1", "name": "new"}, old={"id": "1", "name": "n"})


def test_a_commit_ts_going_back_is_listed_not_a_violation() -> None:
    stream = [
        bootstrap(table_schema()),
        watermark(TS),
        insert(TS + 10, 1),
        insert(TS + 5, 2),  # another row, below TS + 10: a split table's second node
        insert(TS + 6, 3),
        insert(TS + 11, 4),
        insert(TS + 7, 5),
    ]
    report = check(stream, topic="orders", partition=2)
    assert report.ok, [str(v) for v in report.violations]
    runs = [
        (r.first_offset, r.last_offset, r.commit_ts, r.above_ts, r.above_offset)
        for r in report.regressions
    ]
    assert runs == [(3, 4, TS + 5, TS + 10, 2), (6, 6, TS + 7, TS + 11, 5)]
    text = render_text(report)
    assert "commit ts regressed: 3 message(s) in 2 run(s)" in text
    assert f"orders[2]@3-4: commitTs {TS + 5} is below {TS + 10} at offset 2" in text
    assert report.to_dict()["regressions"][1]["first_offset"] == 6


def test_below_the_watermark_it_is_still_a_violation_and_no_regression() -> None:
    report = check(
        [bootstrap(table_schema()), insert(TS + 10, 1), watermark(TS + 8), insert(TS + 5, 2)]
    )
    assert report.violation_counts == {"dml-behind-watermark": 1}
    assert report.regressions == []


def test_a_rows_change_going_back_is_healed_by_its_newer_change_again() -> None:
    newer, older = _update(TS + 10), insert(TS + 5, 1)
    report = check([bootstrap(table_schema()), watermark(TS), newer, older, newer])
    assert report.ok, [str(v) for v in report.violations]
    assert [(r.first_offset, r.commit_ts) for r in report.regressions] == [(3, TS + 5)]
    assert report.counts["DUPLICATE"] == 1


@pytest.mark.parametrize(
    "tail",
    [
        "older-copy-first",  # the row ends on the older change
        "watermark-first",  # the newer change came again only after the window was resolved
        "never",
    ],
)
def test_a_rows_change_going_back_without_the_newer_again_fails(tail: str) -> None:
    newer, older = _update(TS + 10), insert(TS + 5, 1)
    ends = {
        "older-copy-first": [older, newer],
        "watermark-first": [watermark(TS + 20), newer],
        "never": [],
    }[tail]
    report = check([bootstrap(table_schema()), watermark(TS), newer, older, *ends])
    assert report.violation_counts == {"handle-commit-ts-order": 1}
    assert report.violations[0].offset == 3
    assert "(id='1')" in report.violations[0].detail


def _play(out: Path, protocol: str, faults: str) -> dict[str, Any]:
    uri = f"file://{out}?protocol={protocol}&file-layout=partitions&partition-num={PARTITIONS}"
    summary = run_play(
        PlaySpec(
            workload="demo",
            rows=3000,
            sink_uri=uri,
            engine="inline",
            clock="feed",
            watermark_interval_s=0.5,
            faults=faults,
        )
    ).to_dict()
    assert summary["verified"] is True
    return summary


@pytest.mark.parametrize("protocol", ["simple", "debezium", "open"])
@pytest.mark.parametrize("faults", ["split-table:nth=10", "ts-regression:nth=40"])
def test_a_played_stream_verifies_with_its_regressions_at_the_faults(
    tmp_path: Path, protocol: str, faults: str
) -> None:
    out = tmp_path / "out"
    summary = _play(out, protocol, faults)
    uri = f"file://{out}?protocol={protocol}&file-layout=partitions&partition-num={PARTITIONS}"
    report = verify(uri)
    assert report.ok, render_text(report)
    assert report.regressions, render_text(report)
    spans = {(f["partition"], f["first_offset"], f["last_offset"]) for f in summary["faults"]}
    for run in report.regressions:  # each regression is a fault's record, first delivered
        assert any(
            p == run.partition and first <= run.first_offset and run.last_offset <= last
            for p, first, last in spans
        ), run
    assert "commit ts regressed: " in render_text(report)


def _b64(text: str) -> bytes:
    return base64.b64decode(text)


def test_a_lost_row_among_regressions_still_fails(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _play(out, "simple", "ts-regression:nth=40")
    uri = f"file://{out}?protocol=simple&file-layout=partitions&partition-num={PARTITIONS}"
    report = verify(uri)
    run = report.regressions[0]
    path = partition_file(out, DEFAULT_FILE_TOPIC, run.partition)
    lines = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    acknowledged = {(DEFAULT_FILE_TOPIC, p): 0 for p in range(PARTITIONS)}
    for partition in range(PARTITIONS):
        held = partition_file(out, DEFAULT_FILE_TOPIC, partition).read_bytes().count(b"\n")
        acknowledged[DEFAULT_FILE_TOPIC, partition] = held
    # the first delivery of a lost run's row: no other record of the partition equals it
    lost = lines[run.first_offset]
    assert sum(1 for line in lines if line["value"] == lost["value"]) == 1
    assert orjson.loads(_b64(lost["value"]))["type"] in ("INSERT", "UPDATE", "DELETE")
    kept = [line for n, line in enumerate(lines) if n != run.first_offset]
    path.write_bytes(
        b"".join(orjson.dumps({**line, "offset": n}) + b"\n" for n, line in enumerate(kept))
    )
    broken = verify(uri, acknowledged=acknowledged)
    assert not broken.ok
    assert broken.violation_counts["acknowledged-stored"] == 1
