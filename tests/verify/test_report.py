"""The report: ok, the dictionary for --summary-json and the text for the terminal."""

from __future__ import annotations

import orjson

from tests.verify.streams import bootstrap, check, insert, table_schema, watermark
from tisink.verify import render_text as render

TS = 447984084414103554


def test_clean_report_text_and_dict() -> None:
    report = check([bootstrap(table_schema()), insert(TS, 1), watermark(TS)], topic="cdc")
    report.topics = ["cdc"]
    assert report.ok
    data = report.to_dict()
    assert orjson.loads(orjson.dumps(data)) == data
    assert data["counts"] == {"BOOTSTRAP": 1, "INSERT": 1, "WATERMARK": 1}
    assert data["messages_by_kind"] == {"BOOTSTRAP": 1, "DML": 1, "WATERMARK": 1}
    assert data["partitions"] == {"cdc[0]": 3}
    assert data["violations"] == []
    text = render(report)
    assert text.splitlines()[0].endswith("OK")
    assert "messages: 3 (BOOTSTRAP 1, DML 1, WATERMARK 1)" in text
    assert "events: BOOTSTRAP 1, INSERT 1, WATERMARK 1" in text
    assert "violations" not in text


def test_failed_report_names_each_violation() -> None:
    report = check([insert(TS, 1), watermark(TS + 5), watermark(TS)], topic="cdc", partition=2)
    data = report.to_dict()
    assert data["ok"] is False
    assert data["violation_counts"] == {"schema-before-dml": 1, "watermark-monotonic": 1}
    assert data["violations"][1] == {
        "topic": "cdc",
        "partition": 2,
        "offset": 2,
        "rule": "watermark-monotonic",
        "detail": f"watermark {TS} is below watermark {TS + 5} at offset 1",
        "message": f"WATERMARK commitTs={TS}",
    }
    text = render(report)
    assert text.splitlines()[0].endswith("FAILED")
    assert "  watermark-monotonic: 1 (WATERMARK commitTs never goes back)" in text
    assert f"  cdc[2]@2 watermark-monotonic: watermark {TS} is below" in text


def test_unfinished_partitions_fail_the_report() -> None:
    report = check([watermark(TS)])
    report.unfinished = ["cdc[1]: read up to offset 3, end at start >= 9; nothing more came in 1s"]
    assert not report.ok
    assert "unfinished: cdc[1]: read up to offset 3" in render(report)


def test_an_empty_stream_fails_unless_allowed_and_says_so_on_its_first_line() -> None:
    report = check([])
    assert report.empty and not report.ok
    assert report.to_dict()["ok"] is False
    first = render(report).splitlines()[0]
    assert first.endswith(
        "FAILED: nothing was read (no messages); an empty stream passes only with --allow-empty"
    )
    report.allow_empty = True
    assert report.ok
    assert report.to_dict()["allow_empty"] is True
    assert (
        render(report)
        .splitlines()[0]
        .endswith("OK: nothing was read (no messages), as --allow-empty allows")
    )


def test_allowing_empty_excuses_no_violation() -> None:
    report = check([])
    report.allow_empty = True
    report.unfinished = ["cdc[0]: nothing read, end at start >= offset 4; nothing more came in 1s"]
    assert not report.ok
    assert render(report).splitlines()[0].endswith("FAILED: nothing was read (no messages)")
