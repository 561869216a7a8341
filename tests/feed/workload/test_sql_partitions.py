"""Partitioned tables in a ``--schema-sql`` dump: their clause checked, then kept (rows carry
their partition's id) or, for an expression, played as one table."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from tisink.feed.format.records import FeedRow
from tisink.feed.workload import ScenarioError, generate_records, load_scenario

TABLE = """USE shop;
CREATE TABLE `t` (
  `id` int NOT NULL,
  `d` date,
  `r` int,
  {key}
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4
{clause};
CREATE TABLE after_it (id int primary key);
"""
PARTITIONS = {
    "hash": ("PRIMARY KEY (`id`)", "PARTITION BY HASH(id) PARTITIONS 4"),
    "linear hash": ("PRIMARY KEY (`id`)", "PARTITION BY LINEAR HASH (`id` MOD 7) PARTITIONS 3"),
    "key": ("PRIMARY KEY (`id`)", "PARTITION BY KEY(`id`) PARTITIONS 4"),
    "key of the primary key": ("PRIMARY KEY (`id`)", "PARTITION BY KEY ALGORITHM = 2 ()"),
    "range": (
        "KEY `i` (`id`)",
        "PARTITION BY RANGE (YEAR(`d`))\n(PARTITION `p0` VALUES LESS THAN (2000),\n"
        " PARTITION `p1` VALUES LESS THAN (MAXVALUE))",
    ),
    "range columns": (
        "KEY `i` (`id`)",
        "PARTITION BY RANGE COLUMNS(d, r)\n(PARTITION p0 VALUES LESS THAN ('2000-01-01', 5),\n"
        " PARTITION p1 VALUES LESS THAN (MAXVALUE, MAXVALUE) ENGINE = InnoDB)",
    ),
    "list": (
        "PRIMARY KEY (`id`, `r`)",
        "PARTITION BY LIST (r)\n(PARTITION p0 VALUES IN (1, 2, NULL),\n PARTITION pd DEFAULT)",
    ),
    "list columns": (
        "UNIQUE KEY `u` (`r`)",
        "PARTITION BY LIST COLUMNS(`r`) (PARTITION p0 VALUES IN (1), PARTITION `pd` DEFAULT)",
    ),
}


def _dump(tmp_path: Path, key: str, clause: str) -> Path:
    path = tmp_path / "dump.sql"
    path.write_text(TABLE.format(key=key, clause=clause))
    return path


UNROUTED = {"linear hash", "range"}
"""Kinds of an expression rather than a column: played as one table, with a warning."""


@pytest.mark.parametrize("mysqldump", [False, True], ids=["tidb", "mysqldump"])
@pytest.mark.parametrize("kind", list(PARTITIONS))
def test_a_partitioned_table_keeps_its_partitions_or_is_played_as_one_table(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, kind: str, mysqldump: bool
) -> None:
    key, clause = PARTITIONS[kind]
    if mysqldump:  # as mysqldump writes it: a comment MySQL runs
        clause = f"/*!50100 {clause} */"
    with caplog.at_level(logging.INFO, logger="tisink.feed.workload.sql_schema"):
        scenario = load_scenario(_dump(tmp_path, key, clause))
    assert [t.qualified_name for t in scenario.tables] == ["shop.t", "shop.after_it"]
    assert [c.column.name for c in scenario.tables[0].columns] == ["id", "d", "r"]
    assert "dump.sql:2: table shop.t is partitioned" in caplog.text
    rows = [r for r in generate_records(scenario, 1, 60) if type(r) is FeedRow]
    assert {r.row.table.table for r in rows} == {"t", "after_it"}
    assert len({r.row.table.table_id for r in rows}) == 2  # DMLs keep the logical table's id
    t_rows = [r.row for r in rows if r.row.table.table == "t"]
    if kind in UNROUTED:
        assert scenario.tables[0].partition is None
        assert "played as one table" in caplog.text
        assert {r.physical_table_id for r in t_rows} == {t_rows[0].table.table_id}
    else:
        partition = t_rows[0].table.partition
        assert partition is not None
        ids = {d.id for d in partition.definitions}
        assert ids == set(range(101, 101 + len(partition.definitions)))
        assert {r.physical_table_id for r in t_rows} <= ids


@pytest.mark.parametrize(
    ("key", "clause", "message"),
    [
        (
            "KEY i (id)",
            "PARTITION BY RANGE (r) (\nPARTITION p0 VALUES LESS THAN (10),\n"
            "PARTITION p1 VALUES LESS THAN (20))",
            "dump.sql:8: table shop.t: PARTITION BY: the last RANGE partition must be VALUES "
            "LESS THAN MAXVALUE",
        ),
        (
            "KEY i (id)",
            "PARTITION BY LIST (r) (PARTITION p0 VALUES IN (1))",
            "dump.sql:8: table shop.t: PARTITION BY: PARTITION BY LIST needs a DEFAULT partition",
        ),
        (
            "KEY i (id)",
            "PARTITION BY RANGE (r)",
            "dump.sql:8: table shop.t: PARTITION BY: PARTITION BY RANGE needs its partitions",
        ),
        (
            "PRIMARY KEY (id)",
            "\nPARTITION BY HASH(r) PARTITIONS 2",
            "dump.sql:9: table shop.t column r: PARTITION BY: unique key (id) must include every "
            "column of the partitioning function (r)",
        ),
        (
            "KEY i (id)",
            "PARTITION BY HASH(YEAR(nope))",
            "dump.sql:8: table shop.t column nope: PARTITION BY: names a missing column",
        ),
        (
            "KEY i (id)",
            "PARTITION BY KEY() PARTITIONS 2",
            "dump.sql:8: table shop.t: PARTITION BY: KEY() needs a primary key",
        ),
        (
            "KEY i (id)",
            "PARTITION BY RANGE (YEAR(d)) SUBPARTITION BY HASH(id) SUBPARTITIONS 2 "
            "(PARTITION p0 VALUES LESS THAN MAXVALUE)",
            "dump.sql:8: table shop.t: PARTITION BY: SUBPARTITION is not supported",
        ),
        (
            "KEY i (id)",
            "PARTITION BY RANGE (id) INTERVAL (100) FIRST PARTITION LESS THAN (100) "
            "LAST PARTITION LESS THAN (1000)",
            "dump.sql:8: table shop.t: PARTITION BY: INTERVAL partitioning is not supported",
        ),
        (
            "KEY i (id)",
            "PARTITION BY SYSTEM_TIME",
            "dump.sql:8: table shop.t: PARTITION BY: PARTITION BY 'SYSTEM_TIME' is not supported",
        ),
        (
            "KEY i (id)",
            "PARTITION BY HASH(id) PARTITIONS 0",
            "dump.sql:8: table shop.t: PARTITION BY: PARTITIONS '0': a count in 1..8192",
        ),
        (
            "KEY i (id)",
            "PARTITION BY HASH(id +) PARTITIONS 2",
            "dump.sql:8: table shop.t: PARTITION BY: cannot parse the partitioning expression",
        ),
        (
            "KEY i (id)",
            "PARTITION BY HASH(id) PARTITIONS 2 garbage",
            "dump.sql:8: table shop.t: PARTITION BY: unexpected 'garbage'",
        ),
    ],
)
def test_what_a_partitioned_table_cannot_be_is_refused_at_its_line(
    tmp_path: Path, key: str, clause: str, message: str
) -> None:
    with pytest.raises(ScenarioError) as caught:
        load_scenario(_dump(tmp_path, key, clause))
    assert message in str(caught.value)


def test_a_dump_of_only_a_partitioned_table_is_not_empty(tmp_path: Path) -> None:
    path = tmp_path / "one.sql"
    path.write_text("CREATE TABLE t (id int primary key) PARTITION BY HASH(id) PARTITIONS 4;\n")
    assert [t.qualified_name for t in load_scenario(path).tables] == ["test.t"]
