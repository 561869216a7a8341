"""The ``mysql_type`` texts of ``tidb_cdc.columns`` and the SQL-type fallback."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from tisink.check.errors import CheckError
from tisink.check.mysqltype import from_reflected, parse_mysql_type
from tisink.model.mysqltypes import TypeFamily


@pytest.mark.parametrize(
    ("text", "name", "length", "scale", "unsigned"),
    [
        ("decimal(10,2)", "decimal", 10, 2, False),
        ("int(11) unsigned", "int", 11, 0, True),
        ("year(4) zerofill", "year", 4, 0, False),
        ("datetime(3)", "datetime", 0, 3, False),
        ("timestamp", "timestamp", 0, 0, False),
        ("time(2)", "time", 0, 2, False),
        ("bit(8)", "bit", 8, 0, False),
        ("json", "json", 0, 0, False),
        ("FLOAT UNSIGNED", "float", 0, 0, True),
        ("vector(4)", "vector", 4, 0, False),
    ],
)
def test_parse(text, name, length, scale, unsigned):
    parsed = parse_mysql_type(text)
    assert (parsed.name, parsed.length, parsed.scale, parsed.unsigned) == (
        name,
        length,
        scale,
        unsigned,
    )


def test_enum_and_set_members_with_quotes_and_commas():
    assert parse_mysql_type("enum('a','b,c','d''q','e\\\\f')").elements == (
        "a",
        "b,c",
        "d'q",
        "e\\f",
    )
    assert parse_mysql_type("set('x','y')").family is TypeFamily.SET


@pytest.mark.parametrize("text", ["number(5)", "decimal(a)", "int(1,2,3)", ""])
def test_parse_refuses(text):
    with pytest.raises(CheckError):
        parse_mysql_type(text)


@pytest.mark.parametrize(
    ("sql_type", "family"),
    [
        (sa.Integer(), TypeFamily.BIGINT),
        (sa.Numeric(10, 2), TypeFamily.DECIMAL),
        (sa.Float(), TypeFamily.DOUBLE),
        (sa.DateTime(), TypeFamily.DATETIME),
        (sa.Date(), TypeFamily.DATE),
        (sa.LargeBinary(), TypeFamily.BINARY),
        (sa.JSON(), TypeFamily.JSON),
        (sa.Text(), TypeFamily.STRING),
    ],
)
def test_reflected(sql_type, family):
    assert from_reflected(sql_type).family is family
