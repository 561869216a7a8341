"""The feed reader: accepts good feeds, rejects each kind of bad line with its place."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tisink.feed import FeedDDL, FeedError, FeedResolved, FeedRow, read_feed
from tisink.feed.format.reader import FeedParser
from tisink.feed.format.records import Source
from tisink.feed.format.row_builder import light_event
from tisink.feed.format.samples import DEMO_FEED
from tisink.model.events import DDLType, RowChangedEvent, RowOp

DATA = Path(__file__).parents[1] / "data"


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_sample_feed_is_accepted_whole() -> None:
    expected = Counter(obj["type"] for obj in _lines(DEMO_FEED))
    records = list(read_feed(DEMO_FEED))
    kinds = Counter(
        {FeedRow: "row", FeedDDL: "ddl", FeedResolved: "resolved"}[type(r)] for r in records
    )
    assert kinds == expected
    assert 200 <= expected["row"] <= 500
    ddl_types = {r.ddl.ddl_type for r in records if isinstance(r, FeedDDL)}
    assert {DDLType.CREATE, DDLType.ALTER, DDLType.RENAME, DDLType.TRUNCATE} <= ddl_types
    families = {
        col.mysql_type
        for r in records
        if isinstance(r, FeedDDL) and r.ddl.table
        for col in r.ddl.table.columns
    }
    assert {"timestamp", "enum", "set", "varbinary", "binary", "json"} <= families


def test_rows_carry_their_line_as_size_and_source() -> None:
    raw = DEMO_FEED.read_bytes().splitlines()
    for record in read_feed(DEMO_FEED):
        if isinstance(record, FeedRow):
            assert record.source is not None
            assert record.row.approximate_size == len(raw[record.source.line - 1])


def test_read_rows_takes_the_common_rows_and_stops_where_parse_line_must_read() -> None:
    """Stage one's reading (``read_rows``, then ``parse_line`` for the line it stopped at)
    gives the streaming reader's rows, at their lines, on a feed of every DDL and column
    kind."""
    lines = DEMO_FEED.read_bytes().splitlines()
    expected = [
        (record.source.line - 1, record.row)
        for record in FeedParser().parse_lines(lines, "demo")
        if isinstance(record, FeedRow) and record.source is not None
    ]
    parser, rows, indexes, at, stops = FeedParser(), [], [], 0, 0
    got: list[tuple[int, Any]] = []
    while at < len(lines):
        at = parser.read_rows(lines, at, rows, indexes)
        got += zip(indexes, map(light_event, rows), strict=True)
        rows.clear()
        indexes.clear()
        if at < len(lines):
            stops += 1
            raw = lines[at]
            record = parser.parse_line(raw, Source("demo", at + 1)) if raw.strip() else None
            if isinstance(record, FeedRow):
                got.append((at, record.row))
            at += 1

    def fields(row: RowChangedEvent) -> tuple[Any, ...]:
        """All but the size, which a ``LightRow`` leaves out."""
        return tuple(getattr(row, name) for name in row.__slots__ if name != "approximate_size")

    assert [(i, fields(row)) for i, row in got] == [(i, fields(row)) for i, row in expected]
    assert 0 < stops < len(lines) // 4  # DDLs and resolved records only, mostly


def test_docs_user_scenario_matches_the_golden_schemas(simple_golden: Path) -> None:
    golden = json.loads((simple_golden / "docs-examples" / "ddl_alter.json").read_text())
    records = list(read_feed(DATA / "simple_user.jsonl"))
    create, insert, update, delete, resolved, alter, after_alter = records
    assert isinstance(create, FeedDDL) and create.ddl.ddl_type is DDLType.CREATE
    assert _without_ids(create.ddl.table.to_dict()) == golden["preTableSchema"]
    assert _without_ids(alter.ddl.table.to_dict()) == golden["tableSchema"]
    assert _without_ids(alter.ddl.pre_table.to_dict()) == golden["preTableSchema"]
    assert alter.commit_ts == golden["commitTs"] and alter.ddl.query == golden["sql"]
    ops = [r.row.op for r in (insert, update, delete)]
    assert ops == [RowOp.INSERT, RowOp.UPDATE, RowOp.DELETE]
    assert update.row.before["score"] == 90.5 and update.row.after["score"] == 95
    assert delete.row.table.qualified_name == "simple.user"
    assert isinstance(resolved, FeedResolved) and resolved.ts == 447984124732375041
    assert resolved.source.line == 5 and alter.source.line == 7  # the blank line 6 is skipped
    assert after_alter.row.table.version == golden["tableSchema"]["version"]
    assert after_alter.row.after["createTime"] == "2024-02-26 08:32:23"


def _without_ids(schema: dict) -> dict:
    columns = [{k: v for k, v in c.items() if k != "id"} for c in schema["columns"]]
    return {**schema, "columns": columns}


def test_folder_is_one_feed_in_name_order(tmp_path: Path) -> None:
    lines = DEMO_FEED.read_bytes().splitlines(keepends=True)
    (tmp_path / "part-0002.jsonl").write_bytes(b"".join(lines[150:]))
    (tmp_path / "part-0001.jsonl").write_bytes(b"".join(lines[:150]))
    (tmp_path / "_SUCCESS").write_bytes(b"")
    whole = [_identity(r) for r in read_feed(DEMO_FEED)]
    split = list(read_feed(tmp_path))
    assert [_identity(r) for r in split] == whole
    assert split[150].source.file == "part-0002.jsonl" and split[150].source.line == 1


def _identity(record: object) -> tuple:
    if isinstance(record, FeedRow):
        row = record.row
        return ("row", row.commit_ts, row.table.table_id, row.before, row.after)
    if isinstance(record, FeedDDL):
        return ("ddl", record.commit_ts, record.ddl)
    return ("resolved", record.ts)


def test_a_bad_line_in_a_later_file_names_that_file(tmp_path: Path) -> None:
    shutil.copy(DEMO_FEED, tmp_path / "a.jsonl")
    (tmp_path / "b.jsonl").write_text('\n{"type":"resolved","ts":5}\n')
    with pytest.raises(FeedError, match=r"^b\.jsonl:2: commitTs 5 is not after resolved ts"):
        list(read_feed(tmp_path))


def test_missing_feed_is_reported(tmp_path: Path) -> None:
    with pytest.raises(FeedError, match="does not exist"):
        list(read_feed(tmp_path / "nope.jsonl"))
    with pytest.raises(FeedError, match="holds no files"):
        list(read_feed(tmp_path))


# (fixture, line, table, column, reason fragment)
BAD = [
    ("tinyint_range", 3, "shop.t", "ti", "300 out of range for tinyint"),
    ("unsigned_negative", 3, "shop.t", "tu", "-1 out of range for tinyint unsigned"),
    ("bigint_unsigned_overflow", 3, "shop.t", "bu", "out of range for bigint unsigned"),
    ("int_as_string", 3, "shop.t", "id", '"1" is not an integer'),
    ("int_as_float", 3, "shop.t", "ti", "1.0 is not an integer"),
    ("bit_overflow", 3, "shop.t", "b", "16 does not fit bit(4)"),
    # orjson reads it as a float: the message names the integer as written
    ("bit_beyond_64_bits", 3, "shop.t", "b", "1180591620717411303424 does not fit bit(4)"),
    ("float_as_string", 3, "shop.t", "f", "is not a number (float)"),
    ("float32_range", 3, "shop.t", "f", "out of range for float"),
    ("decimal_scale", 3, "shop.t", "dec", "more than 2 fraction digits"),
    ("decimal_precision", 3, "shop.t", "dec", '"1234.5" out of range for decimal(5,2)'),
    ("decimal_number", 3, "shop.t", "dec", "is not a decimal string"),
    ("decimal_unsigned", 3, "shop.t", "decu", "negative for decimal(5,2) unsigned"),
    ("decimal_garbage", 3, "shop.t", "dec", '"1e5" is not a decimal'),
    ("varchar_too_long", 3, "shop.t", "vc", "5 characters do not fit varchar(4)"),
    ("string_as_int", 3, "shop.t", "vc", "5 is not a string"),
    # beyond 64 bits: orjson cannot write it back, the message still shows it as written
    ("string_as_huge_int", 3, "shop.t", "vc", "123456789012345678901234567890 is not a string"),
    ("tinytext_bytes", 3, "shop.t", "tt", "400 bytes do not fit tinytext"),
    ("base64_unpadded", 3, "shop.t", "vb", "not padded standard base64"),
    ("varbinary_too_long", 3, "shop.t", "vb", "5 bytes do not fit varbinary(4)"),
    ("date_format", 3, "shop.t", "dt", "is not a date"),
    ("date_invalid", 3, "shop.t", "dt", "is not a valid date"),
    ("date_feb30", 3, "shop.t", "dt", '"2023-02-30" is not a valid date: 2023-02 has no day 30'),
    ("datetime_apr31", 3, "shop.t", "dtm", "is not a valid datetime(3): 2023-04 has no day 31"),
    ("timestamp_feb29", 3, "shop.t", "ts", "is not a valid timestamp: 2023-02 has no day 29"),
    ("datetime_fraction", 3, "shop.t", "dtm", "more than 3 fraction digits"),
    ("datetime_format", 3, "shop.t", "dtm", "is not a datetime(3)"),
    ("timestamp_range", 3, "shop.t", "ts", "out of range for timestamp"),
    ("time_range", 3, "shop.t", "tm", '"839:00:00" out of range for time(1)'),
    ("time_format", 3, "shop.t", "tm", "is not a valid time(1)"),
    ("year_range", 3, "shop.t", "y", "1900 out of range for year"),
    ("enum_member", 3, "shop.t", "e", "\"c\" is not a member of enum('a','b')"),
    ("set_member", 3, "shop.t", "s", '"z" is not a member of set'),
    ("set_not_list", 3, "shop.t", "s", "is not a list of set member names"),
    ("set_repeated", 3, "shop.t", "s", "repeats a member"),
    ("vector_strings", 3, "shop.t", "v", "is not a list of numbers"),
    ("null_not_null", 3, "shop.t", "id", "NULL in a NOT NULL column"),
    ("missing_column", 3, "shop.t", "j", "missing from the row image"),
    ("unknown_column", 3, "shop.t", "zz", "unknown column"),
    ("virtual_present", 3, "shop.t", "g", "virtual generated column must be absent"),
    ("before_image_bad", 3, "shop.t", "ti", "999 out of range for tinyint (before image)"),
    ("op_mismatch", 3, "shop.t", None, "op 'INSERT' does not match the images"),
    ("table_name_mismatch", 3, "shop.t", None, "table 'u' does not match tableID 7"),
    ("row_after_erase", 4, "shop.t", None, "tableID 7 was erased at commitTs 2500"),
    ("row_after_truncate", 4, "shop.t", None, "tableID 7 was truncated into tableID 9"),
    ("create_existing", 3, "shop.t", None, "CREATE of tableID 7, which exists"),
    ("commit_ts_backwards", 3, None, None, "commitTs 1500 goes back (previous 2000)"),
    ("after_resolved", 4, None, None, "commitTs 3000 is not after resolved ts 3000"),
    ("unknown_table", 3, None, None, "unknown tableID 8"),
    ("bad_ddl_type", 3, None, None, "unknown ddlType 'DROP'"),
    ("bad_table_schema", 3, None, None, "column 'ti' has unknown mysqlType 'tinyinteger'"),
    ("invalid_json", 3, None, None, "invalid JSON at column 382: unexpected end of data"),
    ("not_utf8", 3, None, None, "invalid UTF-8 at byte 192 (0xe9)"),
    ("unknown_record_type", 3, None, None, "unknown record type 'rows'"),
    ("unknown_field", 3, None, None, "unknown field 'befor' in a row record"),
    ("start_after_commit", 3, None, None, "startTs 3001 is after commitTs 3000"),
    # commit times from 2200 on are refused (model/tso.py LATEST_TS)
    (
        "commit_ts_far_future",
        3,
        None,
        None,
        "commitTs 18446744073709551615 is a TSO of 4199-11-24T01:22:57.663Z; "
        "commit times must be before 2200-01-01T00:00:00.000Z",
    ),
    ("commit_ts_from_2200", 3, None, None, "is a TSO of 2200-01-01T00:00:00.000Z"),
    ("resolved_far_future", 3, None, None, "ts 18446744073709551615 is a TSO of 4199-11-24"),
    ("ddl_far_future", 3, None, None, "commitTs 18446744073709551615 is a TSO of 4199"),
    # our own encoders leave empty names out, and decoders then miss them
    ("blank_schema_name", 1, None, None, "bad table object: schema name '' is blank"),
    ("blank_table_name", 3, None, None, "bad table object: table name '' is blank"),
    ("blank_column_name", 3, "shop.u", None, "the name '' of column 2 is blank"),
]


def test_every_bad_fixture_is_covered() -> None:
    assert {p.stem for p in (DATA / "bad").glob("*.jsonl")} == {case[0] for case in BAD}


@pytest.mark.parametrize(
    ("name", "line", "table", "column", "reason"), BAD, ids=[case[0] for case in BAD]
)
def test_bad_line_is_rejected_with_its_place(
    name: str, line: int, table: str | None, column: str | None, reason: str
) -> None:
    path = DATA / "bad" / f"{name}.jsonl"
    seen: list[object] = []
    with pytest.raises(FeedError) as caught:
        seen.extend(read_feed(path))
    err = caught.value
    assert (err.file, err.line, err.table, err.column) == (path.name, line, table, column)
    assert reason in err.reason
    prefix = f"{path.name}:{line}: "
    if table:
        prefix += f"table {table}" + (f" column {column}" if column else "") + ": "
    assert str(err).startswith(prefix)
    assert str(err).endswith(err.reason)


LAST_TSO_BEFORE_2200 = (7_258_118_400_000 << 18) - 1
"""model/tso.py LATEST_TS, written out so this test reads the same on older code."""


def test_the_last_tso_before_2200_is_accepted(tmp_path: Path) -> None:
    lines = (DATA / "bad" / "commit_ts_from_2200.jsonl").read_text().splitlines()
    row = json.loads(lines[2])
    row["commitTs"] = LAST_TSO_BEFORE_2200
    path = tmp_path / "late.jsonl"
    path.write_text("\n".join([*lines[:2], json.dumps(row)]) + "\n")
    records = list(read_feed(path))
    assert isinstance(records[-1], FeedRow) and records[-1].row.commit_ts == LAST_TSO_BEFORE_2200
