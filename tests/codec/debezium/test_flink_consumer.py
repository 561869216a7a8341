"""An independent consumer: Apache Flink's ``debezium-json`` format reads what tisink writes,
DDL and WATERMARK messages included.

Opt-in (the PyFlink wheels are ~850 MB): set ``TISINK_FLINK_PYTHON`` to the Python of a separate
environment holding PyFlink, kept apart from the project's, and Java 17 on the PATH:

    python3 -m venv /tmp/flinkenv && /tmp/flinkenv/bin/pip install apache-flink==2.3.0
    TISINK_FLINK_PYTHON=/tmp/flinkenv/bin/python pytest -m '' -n 0 \\
        tests/codec/debezium/test_flink_consumer.py

For the ``all-types`` and ``demo`` workloads: play the feed with ``protocol=debezium`` and
``enable-tidb-extension=true`` into a ``file://`` sink, so that DDL messages (no ``op``) and
WATERMARKs (``op`` "m") sit among the row messages, and hand Flink, for each table, the stream
as written less the other tables' rows (``debezium-json`` has no table filter): every DDL and
every WATERMARK stays. What Flink 2.3.0 does, as measured here:

* with ``debezium-json.ignore-parse-errors`` it skips the DDL and WATERMARK messages and its
  changelog equals the feed's: the +I/-U/+U/-D per table (key-changing UPDATEs arrive as TiCDC
  splits them, -D and +I) and every value of every column, read into the Flink type a consumer
  declares for Debezium's units (``flink_values.py``);
* without it the job fails on the first such message: ``Corrupt Debezium JSON message '...'``
  quoting it, caused by a NullPointerException for a DDL (no ``op``) and by ``Unknown "op"
  value "m"`` for a WATERMARK;
* ``debezium-json.schema-include`` is needed with the schema and without it: TiCDC wraps every
  value in ``{"payload":...}``, ``debezium-disable-schema`` leaves out only ``schema``;
* UPDATEs without ``before`` (``output-old-value = false``) are refused, and dropped with
  ``ignore-parse-errors``.

``newarch=false`` (pingcap/tiflow master) writes DDL messages and WATERMARKs as well; the classic
architecture of TiCDC v8.5.0-v8.5.7 writes neither, and that rows-only stream Flink reads
without ``ignore-parse-errors``.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.codec.debezium.flink_values import flink_type, from_feed, from_flink
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
from tisink.model.table import ColumnInfo
from tisink.play.run import PlaySpec, run_play
from tisink.sink.providers import DEFAULT_FILE_TOPIC

JOB = Path(__file__).with_name("flink_job.py")
ROWS = 2000
ALL_TYPES = ("types", "all_types")

pytestmark = needs_flink

Message = tuple[str, Key | None, bytes]
"""A message's kind ("row", "ddl", "watermark"), its table (rows and DDLs) and its value."""


def _play(
    tmp: Path, workload: str, params: str, config: str = ""
) -> tuple[list[RowChangedEvent], list[Message]]:
    """The feed's rows, and the messages a Debezium play of it into a file sink wrote (sink URI
    parameters ``params``, changefeed TOML ``config``), every one checked to hold the schema
    envelope unless ``debezium-disable-schema`` is asked for (``payload`` either way)."""
    records = list(generate_records(workload, 11, ROWS))
    feed = tmp / "feed.jsonl"
    feed.write_bytes(b"".join(record_line(r) for r in records))
    config_path = tmp / "changefeed.toml"
    config_path.write_text(config)
    out_dir = tmp / "out"
    uri = f"file://{out_dir}?protocol=debezium&partition-num=2&enable-tidb-extension=true{params}"
    spec = PlaySpec(
        feed=feed,
        sink_uri=uri,
        config_path=config_path,
        engine="inline",
        clock="feed",
        verify_after=False,
    )
    run_play(spec)
    with_schema = "debezium-disable-schema=true" not in params
    messages: list[Message] = []
    for _, _, _, value in read_file_topic(out_dir, DEFAULT_FILE_TOPIC):
        assert value is not None  # no tombstones here
        body = orjson.loads(value)
        assert set(body) == ({"payload", "schema"} if with_schema else {"payload"}), body.keys()
        payload = body["payload"]
        op = payload.get("op")
        source = payload["source"]
        if op in ("c", "u", "d"):
            messages.append(("row", (source["db"], source["table"]), value))
        elif op == "m":
            messages.append(("watermark", None, value))
        else:
            assert op is None and "ddl" in payload, payload
            messages.append(("ddl", (source["db"], source["table"]), value))
    return [r.row for r in records if type(r) is FeedRow], messages


def _kinds(messages: list[Message]) -> set[str]:
    return {kind for kind, _, _ in messages}


def _flink(
    tmp: Path,
    rows: list[RowChangedEvent],
    messages: list[Message],
    *,
    ignore_parse_errors: bool,
    schema_include: bool = True,
    only: Key | None = None,
) -> tuple[subprocess.CompletedProcess[str], list[Key], dict[Key, list[ColumnInfo]]]:
    """Hand Flink, per table (or the one table ``only``), the messages less the other tables'
    rows; the finished job, the tables in spec order and their columns."""
    columns = table_columns(rows)
    tables = [only] if only is not None else sorted(columns)
    spec: dict[str, Any] = {
        "options": {
            "debezium-json.schema-include": str(schema_include).lower(),
            "debezium-json.ignore-parse-errors": str(ignore_parse_errors).lower(),
            "debezium-json.timestamp-format.standard": "ISO-8601",
        },
        "tables": [],
    }
    for key in tables:
        folder = tmp / "flink" / f"{key[0]}.{key[1]}"
        folder.mkdir(parents=True)
        lines = [value for kind, table, value in messages if kind != "row" or table == key]
        (folder / "part-0.json").write_bytes(b"\n".join(lines) + b"\n")
        spec["tables"].append(
            {"path": str(folder), "columns": [[c.name, flink_type(c)] for c in columns[key]]}
        )
    spec_path = tmp / "spec.json"
    spec_path.write_text(json.dumps(spec))
    return run_job(JOB, spec_path), tables, columns


def _assert_reads_the_feed(
    tmp: Path,
    rows: list[RowChangedEvent],
    messages: list[Message],
    *,
    ignore_parse_errors: bool,
) -> None:
    """Flink's changelog of every table equals the feed's, value for value."""
    done, tables, columns = _flink(tmp, rows, messages, ignore_parse_errors=ignore_parse_errors)
    assert done.returncode == 0, done.stderr[-4000:]
    seen = read_changelog(done.stdout, tables, columns, from_flink)
    mismatches, report = compare_changelogs(expected_changelog(rows, from_feed), seen)
    print("\n".join(report))
    assert mismatches == 0, "\n".join(report)


_CORRUPT = re.compile(r"Caused by: java\.io\.IOException: Corrupt Debezium JSON message '(.*)'\.")


def _refusal(done: subprocess.CompletedProcess[str]) -> tuple[dict[str, Any], str]:
    """The message a failed job's format refused (the ``payload`` of the JSON its error quotes)
    and the error's cause (the next ``Caused by:`` line)."""
    assert done.returncode != 0, "the job did not fail"
    lines = done.stderr.split("\n")  # not splitlines(): a quoted value may hold U+2028
    for index, line in enumerate(lines):
        corrupt = _CORRUPT.fullmatch(line)
        if corrupt is not None:
            cause = next(c for c in lines[index + 1 :] if c.startswith("Caused by: "))
            return orjson.loads(corrupt.group(1))["payload"], cause.removeprefix("Caused by: ")
    raise AssertionError(done.stderr[-4000:])


_NO_OP = "java.lang.NullPointerException"
"""The cause of a refused message without ``op``: Flink calls ``toString()`` on the missing
field. The JVM's helpful message (``Cannot invoke "Object.toString()" because the return value
of "...GenericRowData.getField(int)" is null``) follows in some runs and not in others."""


def _is(payload: dict[str, Any], message: Message) -> bool:
    """Whether a payload Flink quoted is ``message``'s (compared by its ASCII parts: Java's
    stderr may not carry the rest)."""
    mine = orjson.loads(message[2])["payload"]
    return payload["source"] == mine["source"] and payload.get("op") == mine.get("op")


@pytest.mark.parametrize("workload", ["all-types", "demo"])
def test_flink_skips_ddl_and_watermarks_with_ignore_parse_errors(
    tmp_path: Path, workload: str
) -> None:
    rows, messages = _play(tmp_path, workload, "")
    assert _kinds(messages) == {"row", "ddl", "watermark"}
    _assert_reads_the_feed(tmp_path, rows, messages, ignore_parse_errors=True)


@pytest.mark.parametrize("refused", ["ddl", "watermark"])
def test_flink_fails_on_ddl_and_watermarks_without_ignore_parse_errors(
    tmp_path: Path, refused: str
) -> None:
    rows, messages = _play(tmp_path, "all-types", "")
    if refused == "watermark":  # the DDLs taken out, to see a WATERMARK refused
        messages = [m for m in messages if m[0] != "ddl"]
    first = next(m for m in messages if m[0] != "row")
    assert first[0] == refused
    done, _, _ = _flink(tmp_path, rows, messages, ignore_parse_errors=False, only=ALL_TYPES)
    payload, cause = _refusal(done)
    assert _is(payload, first)
    if refused == "ddl":
        assert cause.partition(":")[0] == _NO_OP, cause
    else:
        assert cause.startswith('java.io.IOException: Unknown "op" value "m".'), cause


@pytest.mark.parametrize("schema_include", [True, False])
def test_schema_include_is_needed_without_the_schema_too(
    tmp_path: Path, schema_include: bool
) -> None:
    """``debezium-disable-schema`` leaves the schema out but keeps the ``payload`` envelope
    (``{"payload":...}``, as TiCDC writes), so Flink needs ``schema-include`` either way:
    without it no message has an ``op`` where Flink looks, rows included."""
    rows, messages = _play(tmp_path, "all-types", "&debezium-disable-schema=true")
    if schema_include:
        _assert_reads_the_feed(tmp_path, rows, messages, ignore_parse_errors=True)
        return
    rows_only = [m for m in messages if m[0] == "row"]
    done, _, _ = _flink(
        tmp_path, rows, rows_only, ignore_parse_errors=False, schema_include=False, only=ALL_TYPES
    )
    payload, cause = _refusal(done)
    assert _is(payload, next(m for m in rows_only if m[1] == ALL_TYPES))
    assert cause.partition(":")[0] == _NO_OP, cause


@pytest.mark.parametrize("ignore_parse_errors", [False, True])
def test_flink_refuses_updates_without_before(tmp_path: Path, ignore_parse_errors: bool) -> None:
    """``output-old-value = false`` leaves ``before`` out of UPDATEs: Flink does not read them
    as +U alone but refuses them, and with ``ignore-parse-errors`` drops every UPDATE quietly
    (key-changing ones arrive split, as a DELETE and an INSERT, and are read)."""
    config = "[sink.debezium]\noutput-old-value = false\n"
    rows, messages = _play(tmp_path, "all-types", "", config)
    rows_only = [m for m in messages if m[0] == "row"]
    done, tables, columns = _flink(
        tmp_path, rows, rows_only, ignore_parse_errors=ignore_parse_errors, only=ALL_TYPES
    )
    if not ignore_parse_errors:
        payload, cause = _refusal(done)
        assert payload["op"] == "u" and payload.get("before") is None
        assert cause.startswith(
            'java.lang.IllegalStateException: The "before" field of UPDATE message is null'
        ), cause
        return
    assert done.returncode == 0, done.stderr[-4000:]
    seen = read_changelog(done.stdout, tables, columns, from_flink)
    want = expected_changelog(rows, from_feed)[ALL_TYPES]
    assert any(kind == "+U" for kind, _ in want)  # UPDATEs that keep their key: dropped
    kept = Counter({change: n for change, n in want.items() if change[0] in ("+I", "-D")})
    mismatches, report = compare_changelogs({ALL_TYPES: kept}, seen)
    assert mismatches == 0, "\n".join(report)


def test_newarch_false_writes_ddl_and_watermarks_too(tmp_path: Path) -> None:
    """pingcap/tiflow master (``newarch=false``) sends both as the new architecture does, so
    Flink refuses its stream without ``ignore-parse-errors`` as well."""
    rows, messages = _play(tmp_path, "all-types", "&newarch=false")
    assert _kinds(messages) == {"row", "ddl", "watermark"}
    done, _, _ = _flink(tmp_path, rows, messages, ignore_parse_errors=False, only=ALL_TYPES)
    payload, cause = _refusal(done)
    assert _is(payload, next(m for m in messages if m[0] != "row"))
    assert cause.partition(":")[0] == _NO_OP, cause


@pytest.mark.parametrize("workload", ["all-types", "demo"])
def test_flink_reads_a_rows_only_classic_stream_without_ignore_parse_errors(
    tmp_path: Path, workload: str
) -> None:
    """The classic architecture of TiCDC v8.5.0-v8.5.7 sends no DDL message and no WATERMARK:
    its consumer sees ``newarch=false``'s rows alone, which Flink reads as they are."""
    rows, messages = _play(tmp_path, workload, "&newarch=false")
    rows_only = [m for m in messages if m[0] == "row"]
    _assert_reads_the_feed(tmp_path, rows, rows_only, ignore_parse_errors=False)
