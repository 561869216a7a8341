"""The checker's rules on hand-built streams: each rule clean and broken, named precisely."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.verify.streams import (
    BUILD_TS,
    VERSION,
    bootstrap,
    check,
    ddl,
    dml,
    index,
    insert,
    only_violation,
    table_schema,
    watermark,
)
from tisink.codec.simple.decoder import SimpleDecoder
from tisink.verify import StreamChecker, VerifyReport

TS = 447984084414103554


def docs_stream(simple_golden: Path, bootstrap_table: str) -> list[bytes]:
    docs = simple_golden / "docs-examples"
    boot = orjson.loads((docs / "bootstrap.json").read_bytes())
    boot["tableSchema"]["table"] = bootstrap_table
    return [
        orjson.dumps(boot),
        *((docs / f"dml_{op}.json").read_bytes().strip() for op in ("insert", "update", "delete")),
        (docs / "watermark.json").read_bytes().strip(),
    ]


def test_docs_examples_in_order_are_clean(simple_golden: Path) -> None:
    # The docs' bootstrap names its table new_user; the DML examples are simple.user.
    report = check(docs_stream(simple_golden, "user"))
    assert report.ok, [str(v) for v in report.violations]
    assert report.counts == {"BOOTSTRAP": 1, "INSERT": 1, "UPDATE": 1, "DELETE": 1, "WATERMARK": 1}
    assert report.tables == {"simple.user"}
    assert report.partitions == {"t[0]": 5}


def test_docs_bootstrap_of_another_table_leaves_the_dml_without_schema(
    simple_golden: Path,
) -> None:
    report = check(docs_stream(simple_golden, "new_user"), topic="docs", partition=2)
    assert only_violation(report) == ("schema-before-dml", "docs", 2, 1)
    assert "simple.user" in report.violations[0].detail
    assert report.violations[0].message.startswith("INSERT simple.user commitTs=")


def test_dml_without_schema_is_reported_once_per_table() -> None:
    report = check([insert(TS, 1), insert(TS + 1, 2), insert(TS + 2, 3, table="other")])
    assert [(v.rule, v.offset) for v in report.violations] == [
        ("schema-before-dml", 0),
        ("schema-before-dml", 2),
    ]
    assert "simple.other" in report.violations[1].detail


def test_a_ddl_table_schema_announces_the_table() -> None:
    created = table_schema()
    altered = table_schema(version=VERSION + 10)
    stream = [
        ddl("CREATE", TS - 5, created),
        insert(TS, 1),
        ddl("ALTER", TS + 1, altered, created),
        insert(TS + 2, 2, version=VERSION + 10),
    ]
    assert check(stream).ok


def test_a_pre_table_schema_announces_nothing() -> None:
    stream = [ddl("ERASE", TS - 5, None, table_schema()), insert(TS, 1)]
    assert only_violation(check(stream))[0] == "schema-before-dml"


def test_rename_announces_the_new_name_with_the_same_version() -> None:
    old = table_schema(table="user")
    new = table_schema(table="new_user")
    stream = [bootstrap(old), ddl("RENAME", TS, new, old), insert(TS + 1, 1, table="new_user")]
    assert check(stream).ok


def test_unannounced_schema_version() -> None:
    stream = [bootstrap(table_schema()), insert(TS, 1), insert(TS + 1, 2, version=VERSION + 7)]
    report = check(stream, topic="orders", partition=1)
    assert only_violation(report) == ("schema-version-announced", "orders", 1, 2)
    assert str(VERSION + 7) in report.violations[0].detail
    assert str(VERSION) in report.violations[0].detail


def test_a_schema_announced_in_another_partition_does_not_count() -> None:
    report = VerifyReport(source="test")
    checker = StreamChecker(report, SimpleDecoder)
    checker.check_record("t", 0, 0, bootstrap(table_schema()))
    checker.check_record("t", 1, 0, insert(TS, 1))
    checker.check_record("t", 0, 1, insert(TS, 1))
    assert [(v.rule, v.partition, v.offset) for v in report.violations] == [
        ("schema-before-dml", 1, 0)
    ]


def test_watermark_going_back() -> None:
    stream = [watermark(TS), watermark(TS), watermark(TS + 5), watermark(TS + 3)]
    report = check(stream, topic="wm", partition=2)
    assert only_violation(report) == ("watermark-monotonic", "wm", 2, 3)
    assert f"below watermark {TS + 5} at offset 2" in report.violations[0].detail


def test_dml_behind_a_watermark() -> None:
    stream = [
        bootstrap(table_schema()),
        watermark(TS),
        insert(TS + 1, 1),
        insert(TS, 2),
        insert(TS - 1, 3),
    ]
    report = check(stream)
    assert [(v.rule, v.offset) for v in report.violations] == [
        ("dml-behind-watermark", 3),
        ("dml-behind-watermark", 4),
    ]
    assert f"<= watermark {TS} at offset 1" in report.violations[0].detail


def test_handle_commit_ts_going_back() -> None:
    stream = [
        bootstrap(table_schema()),
        insert(TS + 10, 1),
        insert(TS + 5, 2),  # another handle: its own order
        dml("UPDATE", TS + 10, data={"id": "1", "name": "m"}, old={"id": "1", "name": "n"}),
        dml("DELETE", TS + 9, old={"id": "1", "name": "n"}),
    ]
    report = check(stream, topic="rows", partition=0)
    assert only_violation(report) == ("handle-commit-ts-order", "rows", 0, 4)
    assert "(id='1')" in report.violations[0].detail
    assert f"below {TS + 10} at offset 3" in report.violations[0].detail


def test_a_redelivered_batch_is_counted_not_checked_again() -> None:
    """At-least-once: a batch written again after its ack was lost repeats records exactly;
    they are DUPLICATEs, not a handle going back. A record that only looks alike is checked."""
    batch = [insert(TS + 1, 1), insert(TS + 2, 2), insert(TS + 3, 1)]
    report = check([bootstrap(table_schema()), *batch, *batch, insert(TS + 2, 1)])
    assert report.counts["DUPLICATE"] == 3
    assert only_violation(report) == ("handle-commit-ts-order", "t", 0, 7)


def test_an_update_moves_both_its_old_and_new_handle() -> None:
    stream = [
        bootstrap(table_schema()),
        dml("UPDATE", TS + 10, data={"id": "2", "name": "n"}, old={"id": "1", "name": "n"}),
        insert(TS + 3, 1),
    ]
    assert only_violation(check(stream))[:1] == ("handle-commit-ts-order",)


def test_handle_is_a_not_null_unique_key_when_there_is_no_primary_key() -> None:
    nullable_uk = index("uk_name", ["name"], nullable=True)
    strict_uk = index("uk_id", ["id"])
    with_key = table_schema(indexes=[nullable_uk, strict_uk])
    report = check([bootstrap(with_key), insert(TS + 1, 1), insert(TS, 1)])
    assert only_violation(report)[0] == "handle-commit-ts-order"
    # Only a nullable unique key: no handle, so the rule does not apply.
    without_key = table_schema(indexes=[nullable_uk])
    assert check([bootstrap(without_key), insert(TS + 1, 1), insert(TS, 1)]).ok


def test_undecodable_payloads_are_violations_and_checking_goes_on() -> None:
    stream = [b"not json", None, b'{"type":"NOPE","commitTs":1}', watermark(TS)]
    report = check(stream, topic="junk", partition=1)
    assert [(v.rule, v.offset) for v in report.violations] == [
        ("decodable", 0),
        ("decodable", 1),
        ("decodable", 2),
    ]
    assert "NOPE" in report.violations[2].detail
    assert report.counts == {"UNDECODABLE": 3, "WATERMARK": 1}


def test_only_the_first_violations_are_kept_but_all_are_counted() -> None:
    stream = [watermark(TS + 100), *(watermark(TS + i) for i in range(10))]
    report = check(stream, max_violations=3)
    assert [v.offset for v in report.violations] == [1, 2, 3]
    assert report.violation_counts == {"watermark-monotonic": 10}
    assert not report.ok


@pytest.mark.parametrize("compression", ["snappy", "lz4"])
def test_compressed_payloads_are_read_with_the_configured_compression(compression: str) -> None:
    from tisink.codec.compression import compress

    stream = [compress(compression, p) for p in (bootstrap(table_schema()), insert(TS, 1))]
    assert check(stream, compression=compression).ok
    uncompressed = check(stream)
    assert uncompressed.violation_counts == {"decodable": 2}


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.integers(0, 5), st.booleans()), min_size=1, max_size=40
    )
)
def test_streams_written_in_commit_order_are_clean(steps: list[tuple[int, int, bool]]) -> None:
    """Rows in commit order with watermarks only below the next row: no rule can break."""
    stream = [bootstrap(table_schema())]
    ts = TS
    for gap, row_id, then_watermark in steps:
        ts += gap
        stream.append(insert(ts, row_id))
        if then_watermark:
            stream.append(watermark(ts))
            ts += 1
    assert check(stream).ok


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 20), min_size=1, max_size=30))
def test_every_watermark_below_the_highest_so_far_is_one_violation(marks: list[int]) -> None:
    # each built at its own time: an exact repeat would be a redelivery, not a new watermark
    report = check([watermark(TS + m, BUILD_TS + i) for i, m in enumerate(marks)])
    below = [i for i, m in enumerate(marks) if m < max(marks[: i + 1])]
    assert [v.offset for v in report.violations] == below[:20]
    assert report.violation_counts["watermark-monotonic"] == len(below)
