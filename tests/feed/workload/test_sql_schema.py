"""Scenarios from a MySQL ``CREATE TABLE`` dump (``--schema-sql``), parsed with sqlglot."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.feed.workload.cli_support import TISINK, run_command
from tisink.feed.format.reader import read_feed
from tisink.feed.format.records import FeedRow
from tisink.feed.workload import ScenarioError, generate_records, load_scenario, record_line
from tisink.model.mysqltypes import TypeFamily

DUMP = """-- MySQL dump 10.13
/*!40101 SET NAMES utf8mb4 */;
DROP TABLE IF EXISTS `orders`;
USE `shop`;
CREATE TABLE `orders` (
  `id` bigint unsigned NOT NULL AUTO_INCREMENT,
  `customer_id` int NOT NULL DEFAULT '0',
  `price` decimal(10,2) NOT NULL,
  `status` enum('new','paid') DEFAULT 'new',
  `note` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin DEFAULT NULL,
  `tags` set('a','b'),
  `placed` datetime(3) NULL DEFAULT CURRENT_TIMESTAMP(3),
  `flags` bit(8),
  `doc` json,
  `ok` bool,
  `y` year,
  `v` vector(3),
  `z` int(5) unsigned zerofill,
  `code` char(8) NOT NULL,
  PRIMARY KEY (`id`),
  UNIQUE KEY `uk_code` (`code`),
  KEY `idx_s` (`status`, `note`(10))
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
LOCK TABLES `orders` WRITE;
INSERT INTO `orders` VALUES (1,2,3.00,'new',NULL,'',NULL,NULL,NULL,1,2000,NULL,1,'a');
UNLOCK TABLES;
CREATE TABLE people (id int primary key, name text, email varchar(99) unique);
"""


def _dump(tmp_path: Path, text: str = DUMP) -> Path:
    path = tmp_path / "dump.sql"
    path.write_text(text)
    return path


def test_a_dump_becomes_tables_with_their_types_and_keys(tmp_path: Path) -> None:
    scenario = load_scenario(_dump(tmp_path))
    orders, people = scenario.tables
    assert (orders.qualified_name, people.qualified_name) == ("shop.orders", "shop.people")
    cols = {c.column.name: c.column for c in orders.columns}
    assert cols["id"].mysql_type == "bigint" and cols["id"].unsigned and not cols["id"].nullable
    assert (cols["price"].length, cols["price"].decimal) == (10, 2)
    assert cols["status"].elements == ("new", "paid") and cols["status"].default == "new"
    assert cols["customer_id"].default == "0"
    assert cols["placed"].family is TypeFamily.DATETIME and cols["placed"].decimal == 3
    assert cols["ok"].mysql_type == "tinyint" and cols["z"].zerofill
    assert cols["v"].family is TypeFamily.VECTOR
    indexes = {i.name: (i.columns, i.unique, i.primary) for i in orders.indexes}
    assert indexes == {
        "primary": (("id",), True, True),
        "uk_code": (("code",), True, False),
        "idx_s": (("status", "note"), False, False),
    }
    assert {i.name: i.columns for i in people.indexes} == {"primary": ("id",), "email": ("email",)}


def test_generate_writes_a_valid_feed_from_a_dump(tmp_path: Path) -> None:
    out = tmp_path / "feed.jsonl"
    dump = _dump(tmp_path)
    args = ["--schema-sql", str(dump), "--rows", "300", "--out", str(out), "--seed", "4"]
    run = subprocess.run([TISINK, "generate", *args], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    rows = [r for r in read_feed(out) if type(r) is FeedRow]  # the reader validates each
    assert len(rows) == 300
    assert {r.row.table.table for r in rows} == {"orders", "people"}
    same = generate_records(load_scenario(dump), 4, 300)
    assert out.read_bytes() == b"".join(record_line(r) for r in same)


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        (
            "CREATE TABLE t (\n id int,\n g geometry\n);",
            "dump.sql:3: table test.t column g: unknown",
        ),
        ("USE x;\nCREATE VIEW v AS SELECT 1;", "dump.sql:2: CREATE VIEW is not supported"),
        (
            "CREATE TABLE t (\n a int,\n b decimal(5,2),\n UNIQUE KEY u (b)\n);",
            "dump.sql:3: table test.t column b: decimal cannot be in a unique key",
        ),
        ("CREATE TABLE t (\n a int,\n b in t(;", "dump.sql:3: cannot parse the SQL"),
        ("SELECT 1;", "no CREATE TABLE in the file"),
        ("CREATE TABLE t2 LIKE t;", "dump.sql:1: CREATE TABLE ... LIKE"),
        (
            "CREATE TABLE t (a int,\n b json,\n UNIQUE KEY (b));",
            "dump.sql:2: table test.t column b: json cannot be in a unique key",
        ),
    ],
)
def test_what_the_generator_cannot_make_is_an_error_at_its_line(
    tmp_path: Path, sql: str, message: str
) -> None:
    with pytest.raises(ScenarioError) as caught:
        load_scenario(_dump(tmp_path, sql))
    assert message in str(caught.value)


def test_the_commands_refuse_a_missing_or_doubled_source(tmp_path: Path) -> None:
    for args, reason in [
        (["generate", "--out", str(tmp_path / "f.jsonl")], "give --workload or --schema-sql"),
        (
            ["generate", "--out", str(tmp_path / "f.jsonl"), "--schema-sql", str(tmp_path)],
            "--schema-sql needs a .sql file",
        ),
        (
            ["play", "--workload", "demo", "--schema-sql", str(_dump(tmp_path))],
            "give one of --feed, --workload, --schema-sql",
        ),
    ]:
        run = subprocess.run([TISINK, *args], capture_output=True, text=True, timeout=60)
        assert run.returncode == 2, (args, run.stderr)
        assert reason in " ".join((run.stdout + run.stderr).split()), (args, run.stderr)


LATIN1 = "CREATE TABLE t (\n  id int,\n  s varchar(8) DEFAULT 'caf\u00e9'\n);\n".encode("latin-1")


@pytest.mark.parametrize("command", ["generate", "play"])
def test_the_commands_refuse_a_dump_that_is_not_utf8_in_one_line(
    tmp_path: Path, command: str
) -> None:
    path = tmp_path / "dump.sql"
    path.write_bytes(LATIN1)
    code, said = run_command(tmp_path, command, ["--schema-sql", str(path), "--rows", "10"])
    assert code == 2, said
    assert f"{command} refused: {path}:3: not UTF-8: byte 0xe9" in said
    assert "Traceback" not in said
