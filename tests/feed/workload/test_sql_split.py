"""Cutting a dump into statements as the ``mysql`` client does, each with its file line."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tisink.feed.workload.sql_split import split_statements

_TEXT = st.text(alphabet=st.sampled_from(list("ab;'\"`\\#-/*\n ")), max_size=12)
_COMMENT = st.sampled_from(["", "-- x;y\n", "# ';\n", "/* ; */ ", "/*T![x] ; */ "])


def _quoted(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "''") + "'"


@given(st.lists(st.tuples(_COMMENT, _TEXT, st.integers(0, 2)), min_size=1, max_size=6))
def test_quotes_and_comments_hide_the_delimiter(parts: list[tuple[str, str, int]]) -> None:
    """Each CREATE comes back whole, at its line, whatever its quoted default holds."""
    dump, expected = "", []
    for i, (comment, text, blank) in enumerate(parts):
        dump += comment + "\n" * blank
        line = dump.count("\n") + 1
        statement = f"CREATE TABLE t{i} (s text DEFAULT {_quoted(text)})"
        expected.append((statement, line))
        dump += statement + ";\nINSERT INTO x VALUES (" + _quoted(text) + ");\n"
    got = [(s.text, s.line) for s in split_statements(dump) if s.text]
    assert got == expected


def test_delimiter_and_conditional_comments() -> None:
    dump = (
        "/*!40101 SET NAMES utf8mb4 */;\n"
        "DELIMITER ;;\n"
        "CREATE PROCEDURE p() BEGIN SELECT 1; END ;;\n"
        "DELIMITER ;\n"
        "CREATE TABLE t (id int)\n/*!50100 PARTITION BY HASH(id) */;\n"
        "USE `db`"
    )
    got = [(s.text.strip(), s.line) for s in split_statements(dump)]
    assert got == [
        ("", 1),
        ("CREATE PROCEDURE p() BEGIN SELECT 1; END", 3),
        ("CREATE TABLE t (id int)\n  PARTITION BY HASH(id)", 5),
        ("USE `db`", 7),
    ]
