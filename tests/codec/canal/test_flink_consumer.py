"""An independent consumer: Apache Flink's ``canal-json`` format reads what tisink writes.

Opt-in (the PyFlink wheels are ~850 MB): set ``TISINK_FLINK_PYTHON`` to the Python of a separate
environment holding PyFlink, kept apart from the project's (its pins conflict easily), and Java
17 on the PATH:

    python3 -m venv /tmp/flinkenv && /tmp/flinkenv/bin/pip install apache-flink==2.3.0
    TISINK_FLINK_PYTHON=/tmp/flinkenv/bin/python pytest -q tests/codec/canal/test_flink_consumer.py

For the ``all-types`` and ``demo`` workloads: play the feed with ``protocol=canal-json`` into a
``file://`` sink, hand each table's row messages to a Flink job (filesystem connector, one table
per ``database.table``; DDL messages other than CREATE stop Flink's format, and TIDB_WATERMARKs
fall outside every table filter, so only rows are handed over), and compare Flink's changelog
with the feed: the +I/-U/+U/-D counts per table (key-changing UPDATEs arrive as TiCDC splits
them, -D and +I) and every value of every column, parsed by Flink into the column's own Flink
type where one reads canal's text.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.codec.canal.flink_values import flink_type, from_feed, from_flink
from tests.flink_support import (
    Key,
    compare_changelogs,
    expected_changelog,
    needs_flink,
    read_changelog,
    run_job,
    table_columns,
)
from tisink.eventsink.file import read_file_topic
from tisink.feed.format.records import FeedRow
from tisink.feed.workload import generate_records, record_line
from tisink.model.events import RowChangedEvent
from tisink.play.run import PlaySpec, run_play
from tisink.sink.providers import DEFAULT_FILE_TOPIC

JOB = Path(__file__).with_name("flink_job.py")

pytestmark = needs_flink


def _run_flink(tmp: Path, rows: list[RowChangedEvent], out_dir: Path) -> dict[Key, Counter]:
    """Hand each table's row messages to Flink; its changelog per table, comparable."""
    columns = table_columns(rows)
    tables = sorted(columns)
    files = {key: (tmp / "flink" / f"{key[0]}.{key[1]}") for key in tables}
    for folder in files.values():
        folder.mkdir(parents=True)
    lines: dict[Key, list[bytes]] = {key: [] for key in tables}
    for _, _, _, value in read_file_topic(out_dir, DEFAULT_FILE_TOPIC):
        assert value is not None  # no tombstones in canal-json
        body = orjson.loads(value)
        if body["isDdl"] or body["type"] not in ("INSERT", "UPDATE", "DELETE"):
            continue
        lines[(body["database"], body["table"])].append(value)
    spec: dict[str, list[dict[str, Any]]] = {"tables": []}
    for key in tables:
        (files[key] / "part-0.json").write_bytes(b"\n".join(lines[key]) + b"\n")
        spec["tables"].append(
            {
                "database": key[0],
                "table": key[1],
                "path": str(files[key]),
                "columns": [[c.name, flink_type(c)] for c in columns[key]],
            }
        )
    spec_path = tmp / "spec.json"
    spec_path.write_text(json.dumps(spec))
    done = run_job(JOB, spec_path)
    assert done.returncode == 0, done.stderr[-4000:]
    return read_changelog(done.stdout, tables, columns, from_flink)


@pytest.mark.parametrize("workload", ["all-types", "demo"])
def test_flink_reads_the_canal_json_stream(tmp_path: Path, workload: str) -> None:
    records = list(generate_records(workload, 11, 2000))
    feed = tmp_path / "feed.jsonl"
    feed.write_bytes(b"".join(record_line(r) for r in records))
    out_dir = tmp_path / "out"
    uri = (
        f"file://{out_dir}?protocol=canal-json&file-layout=partitions"
        "&partition-num=2&enable-tidb-extension=true"
    )
    run_play(PlaySpec(feed=feed, sink_uri=uri, engine="inline", clock="feed", verify_after=False))
    rows = [r.row for r in records if type(r) is FeedRow]
    seen = _run_flink(tmp_path, rows, out_dir)
    mismatches, report = compare_changelogs(expected_changelog(rows, from_feed), seen)
    print("\n".join(report))
    assert mismatches == 0, "\n".join(report)
