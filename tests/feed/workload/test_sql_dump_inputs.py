"""Hostile and unusual ``--schema-sql`` dumps: types, routines, temporary tables, generated
columns, encodings, and SQL at random, each read or refused in one line at its ``file:line``."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tisink.feed.workload import ScenarioError, load_scenario
from tisink.feed.workload.sql_schema import parse_sql_scenario


def _dump(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "dump.sql"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        (
            "USE geo;\nCREATE TABLE t (\n id int,\n p POINT NOT NULL\n);",
            "dump.sql:4: table geo.t column p: unknown mysqlType 'point'",
        ),
        (
            "CREATE TABLE t (id int, `the place` MULTIPOLYGON);",
            "dump.sql:1: table test.t column the place: unknown mysqlType 'multipolygon'",
        ),
        (
            "CREATE TABLE t (\n a int,\n b int GENERATED ALWAYS AS (a + 1) STORED\n);",
            "dump.sql:3: table test.t column b: a generated column (AS (a + 1)) is not supported",
        ),
        (
            "CREATE TABLE t (\n a int,\n b int AS (a * 2) VIRTUAL\n);",
            "dump.sql:3: table test.t column b: a generated column (AS (a * 2)) is not supported",
        ),
        ("CREATE INDEX i ON t (a);", "dump.sql:1: CREATE INDEX is not supported"),
        (
            "CREATE ALGORITHM=UNDEFINED DEFINER=`root`@`%` SQL SECURITY DEFINER VIEW v AS "
            "SELECT 1;",
            "dump.sql:1: CREATE VIEW is not supported",
        ),
    ],
)
def test_a_type_or_column_it_cannot_make_is_named_at_its_line(
    tmp_path: Path, sql: str, message: str
) -> None:
    with pytest.raises(ScenarioError) as caught:
        load_scenario(_dump(tmp_path, sql))
    assert message in str(caught.value)


ROUTINES = """CREATE TABLE before_it (id int primary key);
DELIMITER ;;
CREATE DEFINER=`root`@`localhost` PROCEDURE `p`(IN x int)
BEGIN
  SELECT x; -- not the end;
END ;;
/*!50003 CREATE*/ /*!50017 DEFINER=`root`@`%`*/ /*!50003 TRIGGER tr BEFORE INSERT ON before_it
FOR EACH ROW BEGIN SET @a = 1; END */;;
DELIMITER ;
CREATE FUNCTION f() RETURNS int DETERMINISTIC RETURN 1;
CREATE PROCEDURE q() BEGIN SELECT 1; END;
CREATE EVENT e ON SCHEDULE EVERY 1 DAY DO DELETE FROM before_it;
CREATE TABLE after_it (id int primary key, s varchar(8) DEFAULT ';');
"""


def test_procedures_triggers_and_functions_are_skipped_like_other_statements(
    tmp_path: Path,
) -> None:
    scenario = load_scenario(_dump(tmp_path, ROUTINES))
    assert [t.name for t in scenario.tables] == ["before_it", "after_it"]
    assert scenario.tables[1].columns[1].column.default == ";"


def test_a_temporary_table_is_skipped_with_a_note(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    sql = "CREATE TABLE kept (id int);\n\nCREATE TEMPORARY TABLE scratch (id int);\n"
    with caplog.at_level(logging.WARNING, logger="tisink.feed.workload.sql_schema"):
        scenario = load_scenario(_dump(tmp_path, sql))
    assert [t.name for t in scenario.tables] == ["kept"]
    assert "dump.sql:3: CREATE TEMPORARY TABLE skipped" in caplog.text
    only = "CREATE GLOBAL TEMPORARY TABLE g (id int) ON COMMIT DELETE ROWS;"
    with pytest.raises(ScenarioError, match="no CREATE TABLE in the file"):
        load_scenario(_dump(tmp_path, only))


LATIN1 = "CREATE TABLE t (\n  id int,\n  s varchar(8) DEFAULT 'caf\u00e9'\n);\n".encode("latin-1")


def test_a_dump_that_is_not_utf8_is_named_with_the_byte(tmp_path: Path) -> None:
    path = tmp_path / "dump.sql"
    path.write_bytes(LATIN1)
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    offset = LATIN1.index(b"\xe9")
    assert str(caught.value) == (
        f"{path}:3: not UTF-8: byte 0xe9 at byte offset {offset} "
        "(convert the file to UTF-8, e.g. with iconv)"
    )


_PIECES = [
    *("CREATE", "TABLE", "TEMPORARY", "t", "(", ")", ",", ";", ";;", "id", "int", "date", "d"),
    *("PRIMARY KEY", "UNIQUE", "PARTITION BY", "HASH", "RANGE", "LIST", "COLUMNS", "KEY"),
    *("VALUES", "LESS THAN", "MAXVALUE", "IN", "DEFAULT", "PARTITIONS", "4", "LINEAR", "="),
    *("'", '"', "`", "--", "#", "/*", "*/", "/*!50100", "\n", "DELIMITER", "USE", "POINT"),
    *("AS", "(a+1)", "STORED", "varchar(3)", "SUBPARTITION", "@", "DEFINER", "VIEW", "\\"),
    *("PROCEDURE", "BEGIN", "END", "NULL", "NOT", "YEAR(d)", "ALGORITHM"),
]


@settings(deadline=None)
@given(
    st.booleans(),
    st.lists(st.sampled_from(_PIECES), min_size=1, max_size=30),
)
def test_any_dump_gives_a_scenario_or_one_line(table_first: bool, pieces: list[str]) -> None:
    """Hostile SQL never escapes as another exception, nor as a message of several lines."""
    head = "CREATE TABLE t (id int PRIMARY KEY, d date, r int) " if table_first else ""
    try:
        parse_sql_scenario(head + " ".join(pieces), "fuzz.sql")
    except ScenarioError as err:
        assert "\n" not in str(err)
