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
import os
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.codec.canal.flink_values import flink_type, from_feed, from_flink
from tisink.eventsink.file import read_file_topic
from tisink.feed.format.records import FeedRow
from tisink.feed.workload import generate_records, record_line
from tisink.model.events import RowChangedEvent
from tisink.model.table import ColumnInfo
from tisink.play.run import PlaySpec, run_play
from tisink.sink.providers import DEFAULT_FILE_TOPIC
from tisink.tablesink.split import changes_unique_key

FLINK_PYTHON = os.environ.get("TISINK_FLINK_PYTHON", "")
JOB = Path(__file__).with_name("flink_job.py")

pytestmark = pytest.mark.skipif(
    not FLINK_PYTHON, reason="opt-in: set TISINK_FLINK_PYTHON to a PyFlink environment's python"
)

Key = tuple[str, str]


def _expected(rows: list[RowChangedEvent]) -> dict[Key, Counter[tuple[str, tuple[Any, ...]]]]:
    """Per table, the changelog Flink should give: kind and the row's comparable values."""
    columns = _columns(rows)
    out: dict[Key, Counter[tuple[str, tuple[Any, ...]]]] = {}
    for row in rows:
        key = (row.table.schema, row.table.table)
        cols = columns[key]

        def image(values: dict[str, Any] | None, cols: list[ColumnInfo] = cols) -> tuple[Any, ...]:
            assert values is not None
            return tuple(_hashable(from_feed(c, values.get(c.name))) for c in cols)

        changes = out.setdefault(key, Counter())
        if row.is_insert:
            changes[("+I", image(row.after))] += 1
        elif row.is_delete:
            changes[("-D", image(row.before))] += 1
        elif changes_unique_key(row):
            changes[("-D", image(row.before))] += 1
            changes[("+I", image(row.after))] += 1
        else:
            changes[("-U", image(row.before))] += 1
            changes[("+U", image(row.after))] += 1
    return out


def _columns(rows: list[RowChangedEvent]) -> dict[Key, list[ColumnInfo]]:
    """Every stored column a table had in the feed, first definition kept (a consumer declares
    the union; a row of an older version leaves the newer columns null)."""
    out: dict[Key, dict[str, ColumnInfo]] = {}
    for row in rows:
        seen = out.setdefault((row.table.schema, row.table.table), {})
        for column in row.table.stored_columns:
            seen.setdefault(column.name, column)
    return {key: list(cols.values()) for key, cols in out.items()}


def _hashable(value: Any) -> Any:
    if isinstance(value, list | dict):
        return json.dumps(value, sort_keys=True)
    return value


def _run_flink(tmp: Path, rows: list[RowChangedEvent], out_dir: Path) -> dict[Key, Counter]:
    """Hand each table's row messages to Flink; its changelog per table, comparable."""
    columns = _columns(rows)
    tables = sorted(columns)
    files = {key: (tmp / "flink" / f"{key[0]}.{key[1]}") for key in tables}
    for folder in files.values():
        folder.mkdir(parents=True)
    lines: dict[Key, list[bytes]] = {key: [] for key in tables}
    for _, _, _, value in read_file_topic(out_dir, DEFAULT_FILE_TOPIC):
        body = orjson.loads(value)
        if body["isDdl"] or body["type"] not in ("INSERT", "UPDATE", "DELETE"):
            continue
        lines[(body["database"], body["table"])].append(value)
    spec = {"tables": []}
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
    done = subprocess.run(
        [FLINK_PYTHON, str(JOB), str(spec_path)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    out: dict[Key, Counter] = {key: Counter() for key in tables}
    for line in done.stdout.split("\n"):
        if not line.startswith("{"):
            continue
        item = json.loads(line)
        key = tables[item["table"]]
        values = tuple(
            _hashable(from_flink(c, v)) for c, v in zip(columns[key], item["values"], strict=True)
        )
        out[key][(item["kind"], values)] += 1
    return out


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
    expected = _expected(rows)
    seen = _run_flink(tmp_path, rows, out_dir)
    report = []
    mismatches = 0
    for key in sorted(expected):
        want, got = expected[key], seen.get(key, Counter())
        kinds_want = Counter({k: 0 for k in ("+I", "-U", "+U", "-D")})
        kinds_got = Counter(kinds_want)
        for (kind, _), n in want.items():
            kinds_want[kind] += n
        for (kind, _), n in got.items():
            kinds_got[kind] += n
        missing, extra = want - got, got - want
        mismatches += sum(missing.values()) + sum(extra.values())
        report.append(f"{key}: want {dict(kinds_want)} got {dict(kinds_got)}")
        for item in list(missing)[:3]:
            report.append(f"  missing {item}")
        for item in list(extra)[:3]:
            report.append(f"  extra   {item}")
    print("\n".join(report))
    assert mismatches == 0, "\n".join(report)
