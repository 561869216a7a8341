"""The Kafka group on a few rows against the test broker, and what ``tisink bench`` writes."""

from __future__ import annotations

import orjson

from tisink.bench.kafka import encoded_parts, kafka_group
from tisink.bench.output import markdown, print_tables
from tisink.bench.results import BenchResult
from tisink.bench.rows import ten_column_txns
from tisink.bench.suite import write_outputs

PNG = b"\x89PNG\r\n\x1a\n"


def test_the_sink_and_the_raw_sends_move_the_same_rows(kafka_bootstrap: str) -> None:
    """Against Tansu: both raw senders measured, Kafka's producer tool skipped in one line."""
    txns = ten_column_txns(300)
    assert sum(map(len, encoded_parts(txns))) == 300
    *raw, tool = kafka_group(kafka_bootstrap, txns, 1, "tansu")
    for result in raw:
        assert result.rows_per_s > 0 and result.baseline_rows_per_s
        assert result.p99_ms is not None and result.p99_ms >= 0
        assert result.bytes_per_row and result.bytes_per_row > 100
    assert [r.baseline for r in raw] == ["raw aiokafka batch sends", "raw confluent-kafka produce"]
    assert raw[0].note == f"300 rows; broker at {kafka_bootstrap} (Tansu)"
    assert tool.baseline_rows_per_s is None and not tool.error
    assert tool.note.startswith("skipped: runs against Apache Kafka only")


RESULTS = [
    BenchResult("encode", "simple json", 200.0, "orjson.dumps", 800.0, bytes_per_row=415.0),
    BenchResult("encode", "simple avro", 0.0, error="ImportError: gone"),
    BenchResult("engines", "local[2]", 30.0, "inline", 20.0, p99_ms=12.5, note="start-up 1 s"),
]


def test_the_outputs_hold_every_result(tmp_path) -> None:
    meta = {"repeat": 3}
    paths = write_outputs(RESULTS, meta, tmp_path / "out")
    assert [p.name for p in paths] == ["bench.json", "bench.md", "bench.png"]
    document = orjson.loads(paths[0].read_bytes())
    assert document["meta"] == meta
    assert [r["ratio"] for r in document["results"]] == [0.25, None, 1.5]
    assert paths[2].read_bytes().startswith(PNG)
    text = markdown(RESULTS, meta)
    assert "## encode" in text and "## engines" in text
    assert "| simple json | 200 | orjson.dumps | 800 | 0.25 | 415.0 |  |  |" in text
    assert "failed: ImportError: gone" in text


def test_the_console_tables(capsys) -> None:
    print_tables(RESULTS)
    out = capsys.readouterr().out
    assert "local[2]" in out and "1.50" in out and "failed: ImportError: gone" in out
