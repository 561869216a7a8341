"""Normalisation: equal values in different representations compare equal, and only they."""

from __future__ import annotations

import datetime as dt
import struct
from decimal import Decimal

import pytest

from tisink.check.mysqltype import parse_mysql_type
from tisink.check.normalise import Unreadable, binary_equal, normaliser

UTC_PLUS_2 = dt.timezone(dt.timedelta(hours=2))

EQUAL = [
    ("int(11)", 1, "1"),
    ("bigint(20) unsigned", 18446744073709551615, "18446744073709551615"),
    ("int(11)", 3, Decimal("3.0")),
    ("decimal(10,2)", "1.50", 1.5),
    ("decimal(10,2)", "1.50", Decimal("1.5")),
    ("decimal(10,2)", "0.00", "0"),
    ("float", 1.100000023841858, "1.1"),
    ("double", 0.1, Decimal("0.1")),
    ("datetime(3)", "2024-01-02 03:04:05.000", dt.datetime(2024, 1, 2, 3, 4, 5)),
    ("datetime(3)", "2024-01-02 03:04:05.120", "2024-01-02T03:04:05.12"),
    ("datetime", "2024-01-02 00:00:00", dt.date(2024, 1, 2)),
    ("timestamp(6)", "2024-01-02 01:00:00.000000", dt.datetime(2024, 1, 2, 3, tzinfo=UTC_PLUS_2)),
    ("timestamp", "2024-01-02 01:00:00", "2024-01-02 03:00:00+02:00"),
    ("date", "2024-01-02", dt.date(2024, 1, 2)),
    ("time(2)", "-838:59:59.50", -dt.timedelta(hours=838, minutes=59, seconds=59.5)),
    ("time", "12:00:01", dt.time(12, 0, 1)),
    ("year(4)", 2024, "2024"),
    ("bit(16)", 258, b"\x01\x02"),
    ("enum('a','b')", "b", 2),
    ("set('x','y','z')", "x,z", "z,x"),
    ("set('x','y','z')", "x,z", ["z", "x"]),
    ("set('x','y','z')", "x,z", 5),
    ("json", '{"a":[1,2],"b":1}', '{"b": 1.0, "a": [1, 2]}'),
    ("json", '{"a":1}', {"a": 1}),
    ("varbinary(8)", b"caf\xc3\xa9", "café"),
    ("char(4)", "ab", "ab  "),
    ("vector(2)", "[0.1,0.2]", [0.10000000149, 0.2]),
    ("vector(3)", "[1,0.5,-2]", "[1.0, 0.5, -2.0]"),  # json.dumps of doubles
    ("vector(3)", "[1,0.5,-2]", "{1,0.5,-2}"),  # PostgreSQL's array text
    ("vector(3)", "[1,0.5,-2]", (1.0, 0.5, -2.0)),  # real[] through a driver
    ("vector(3)", "[1,0.5,-2]", struct.pack("<3f", 1, 0.5, -2)),  # MariaDB's binary VECTOR
    ("vector(3)", "[1,0.5,-2]", b"[1,0.5,-2]"),
    ("vector(2)", "[0.1,0.2]", "[0.100000001,0.2]"),  # one float32
    ("vector", "[]", []),
]

DIFFERENT = [
    ("int(11)", 1, 2),
    ("decimal(10,2)", "1.50", "1.51"),
    ("double", 1.1, 1.1000001),
    ("datetime(6)", "2024-01-02 03:04:05.000001", "2024-01-02 03:04:05"),
    ("varchar(4)", "ab", "ab "),
    ("json", '{"a":1}', '{"a":"1"}'),
    ("set('x','y')", "x", "x,y"),
    ("int(11)", 1, "abc"),
    ("vector(3)", "[1,0.5,-2]", "[1,0.5,-2.001]"),
    ("vector(3)", "[1,0.5,-2]", "[1,0.5]"),
    ("vector(2)", "[0.1,0.2]", "[0.1,0.20000002]"),  # the next float32
    ("vector(1)", "[1]", "[NaN]"),
]


@pytest.mark.parametrize(("mysql_type", "expected", "actual"), EQUAL)
def test_equal(mysql_type, expected, actual):
    convert = normaliser(parse_mysql_type(mysql_type))
    assert convert(expected) == convert(actual)


@pytest.mark.parametrize(("mysql_type", "expected", "actual"), DIFFERENT)
def test_different(mysql_type, expected, actual):
    convert = normaliser(parse_mysql_type(mysql_type))
    assert convert(expected) != convert(actual)


def test_unreadable_values_are_kept_as_text():
    assert normaliser(parse_mysql_type("decimal(5,2)"))("n/a") == Unreadable("n/a")


def test_binary_text_decoded_as_latin1():
    assert binary_equal(b"caf\xe9", "café")
    assert not binary_equal(b"cafe", "café")


def test_a_vector_reads_as_tidb_prints_it():
    convert = normaliser(parse_mysql_type("vector(4)"))
    assert (
        convert([1.0, 0.1, -2.5e-8, 3e38])
        == "[1,0.1,-0.000000025,300000000000000000000000000000000000000]"
    )
    assert convert("[1,0.5,Infinity]") == Unreadable("[1,0.5,Infinity]")
