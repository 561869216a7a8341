"""Generated rows of partitioned tables: ids allocated after the table's as TiDB does, each row
in the partition its values route to, a row moved by an UPDATE written as a DELETE in the old
partition and an INSERT in the new one (TiDB's ``partitionedTable.UpdateRecord``)."""

from __future__ import annotations

import logging
from collections import Counter
from itertools import pairwise
from pathlib import Path

import pytest

from tisink.feed.format.records import FeedDDL, FeedRow
from tisink.feed.workload import ScenarioError, generate_records, load_scenario, parse_scenario
from tisink.feed.workload.selection import selectable

SCENARIO = """
[[tables]]
schema = "s"
name = "ranged"
columns = [{ name = "id", type = "bigint" }, { name = "v", type = "int" }]
primary = ["id"]
key_updates = 0.5
partition = { type = "RANGE", columns = ["id"], definitions = [
  { name = "p0", lessThan = [40] }, { name = "p1", lessThan = [80] },
  { name = "pmax", lessThan = ["MAXVALUE"] } ] }

[[tables]]
schema = "s"
name = "hashed"
columns = [{ name = "id", type = "int" }, { name = "v", type = "varchar(8)" }]
primary = ["id"]
partition = { type = "HASH", columns = ["id"], definitions = [
  { name = "p0" }, { name = "p1" }, { name = "p2" } ] }

[[tables]]
schema = "s"
name = "listed"
columns = [{ name = "a", type = "tinyint unsigned" }, { name = "b", type = "int" }]
partition = { type = "LIST", columns = ["a"], definitions = [
  { name = "p0", in = LOW }, { name = "pd", default = true } ] }

[[tables]]
schema = "s"
name = "plain"
columns = [{ name = "id", type = "int" }]
primary = ["id"]

[[ddl]]
at = 0.5
table = "hashed"
action = "truncate"
""".replace("LOW", str([[n] for n in range(128)]))


def _records(rows: int = 400) -> list[FeedDDL | FeedRow]:
    scenario = parse_scenario(SCENARIO, "partitioned.toml")
    return [r for r in generate_records(scenario, 7, rows) if isinstance(r, FeedDDL | FeedRow)]


def test_ids_follow_each_table_and_its_partitions_and_truncate_takes_a_new_block() -> None:
    ddls = {
        (d.ddl.ddl_type.value, d.ddl.table.table): d.ddl.table
        for d in _records()
        if isinstance(d, FeedDDL) and d.ddl.table
    }
    ranged, hashed = ddls[("CREATE", "ranged")], ddls[("CREATE", "hashed")]
    assert ranged.table_id == 100
    assert [d.id for d in ranged.partition.definitions] == [101, 102, 103]  # type: ignore[union-attr]
    assert hashed.table_id == 104
    assert ddls[("CREATE", "listed")].table_id == 108
    assert ddls[("CREATE", "plain")].table_id == 111
    truncated = ddls[("TRUNCATE", "hashed")]
    assert truncated.table_id == 112
    assert [d.id for d in truncated.partition.definitions] == [113, 114, 115]  # type: ignore[union-attr]


def test_every_row_is_in_its_partition_and_no_update_crosses_one() -> None:
    records = _records()
    rows = [r.row for r in records if isinstance(r, FeedRow)]
    seen: Counter[tuple[str, int]] = Counter()
    for row in rows:
        image = row.after if row.after is not None else row.before
        assert image is not None
        assert row.physical_table_id == row.table.physical_id(image)
        if row.is_update:
            assert row.table.physical_id(row.before) == row.physical_table_id  # type: ignore[arg-type]
        seen[(row.table.table, row.physical_table_id)] += 1
    assert {p for t, p in seen if t == "hashed"} >= {105, 106, 107, 113, 114, 115}
    assert {p for t, p in seen if t == "listed"} == {109, 110}
    assert {p for t, p in seen if t == "plain"} == {111}
    # the re-keyed rows of ``ranged`` cross its bounds: a DELETE then an INSERT, one commit
    moves = 0
    for first, second in pairwise(rows):
        if (
            first.table.table == "ranged"
            and first.is_delete
            and second.is_insert
            and second.table is first.table
            and first.commit_ts == second.commit_ts
            and first.physical_table_id != second.physical_table_id
        ):
            moves += 1
    assert moves > 0


def test_the_same_seed_gives_the_same_partitioned_rows() -> None:
    def ids() -> list[tuple[int, int]]:
        return [
            (r.row.commit_ts, r.row.physical_table_id)
            for r in _records(200)
            if isinstance(r, FeedRow)
        ]

    assert ids() == ids()


def test_a_table_whose_updates_may_move_rows_is_not_stepped_over() -> None:
    scenario = parse_scenario(SCENARIO, "partitioned.toml")
    names = [t.name for t in scenario.tables]
    assert selectable(scenario, names.index("hashed"))  # the key routes it; keys never change
    assert not selectable(scenario, names.index("listed"))  # ``a`` is no key: UPDATEs move it


@pytest.mark.parametrize(
    ("partition", "message"),
    [
        (
            '{ type = "RANGE", columns = ["id"], definitions = [{ name = "p0", lessThan = [9] }] }',
            "the last RANGE partition must be LESS THAN MAXVALUE",
        ),
        (
            '{ type = "LIST", columns = ["id"], definitions = [{ name = "p0", in = [[1]] }] }',
            "a LIST partitioning needs a DEFAULT partition",
        ),
        (
            '{ type = "HASH", columns = ["v"], definitions = [{ name = "p0" }] }',
            "column v: unique key 'primary' must include every partitioning column",
        ),
        (
            '{ type = "HASH", columns = ["f"], definitions = [{ name = "p0" }] }',
            "column 'f' (double, binary) cannot route PARTITION BY HASH",
        ),
        ('{ type = "HASH", columns = ["id"] }', "bad partition"),
    ],
)
def test_a_partition_table_that_cannot_be_played_is_refused(partition: str, message: str) -> None:
    text = f"""
[[tables]]
name = "t"
columns = [{{ name = "id", type = "int" }}, {{ name = "v", type = "int" }},
           {{ name = "f", type = "double" }}]
primary = ["id"]
partition = {partition}
"""
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text, "bad.toml")
    assert message in str(caught.value)
    assert "test.t" in str(caught.value)


def test_a_dump_table_the_router_cannot_follow_is_played_as_one(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    dump = tmp_path / "dump.sql"
    dump.write_text(
        "CREATE TABLE k (name varchar(16) COLLATE utf8mb4_general_ci PRIMARY KEY, v int)\n"
        "PARTITION BY KEY(name) PARTITIONS 4;\n"
        "CREATE TABLE b (name varchar(16) COLLATE utf8mb4_bin PRIMARY KEY, v int)\n"
        "PARTITION BY KEY(name) PARTITIONS 4;\n"
    )
    with caplog.at_level(logging.INFO, logger="tisink.feed.workload.sql_schema"):
        scenario = load_scenario(dump)
    assert scenario.tables[0].partition is None
    assert "dump.sql:1: table test.k is partitioned (KEY, 4 partitions) but played as one" in (
        caplog.text
    )
    assert "utf8mb4_general_ci" in caplog.text
    keyed = scenario.tables[1].partition
    assert keyed is not None and keyed.kind == "KEY" and keyed.columns == ("name",)
