"""One table, ``shop.orders``, with a column of every kind of normalisation: its MySQL types,
its rows as tisink's SQLite applier stores them, and the same values as a consumer may store
them instead."""

from __future__ import annotations

ORDER_COLUMNS = (
    ("id", "INTEGER", "int(11)"),
    ("amount", "TEXT", "decimal(10,2)"),
    ("created", "TEXT", "datetime(3)"),
    ("paid", "TEXT", "timestamp"),
    ("doc", "TEXT", "json"),
    ("state", "TEXT", "enum('new','paid')"),
    ("tags", "TEXT", "set('a','b','c')"),
    ("flags", "INTEGER", "bit(8)"),
    ("payload", "BLOB", "varbinary(16)"),
    ("ratio", "REAL", "float"),
    ("day", "TEXT", "date"),
    ("span", "TEXT", "time(2)"),
    ("qty", "INTEGER", "int(11) unsigned"),
    ("note", "TEXT", "char(10)"),
)
EXPECTED_ROWS = [
    (
        1,
        "1.50",
        "2024-01-02 03:04:05.000",
        "2024-01-02 03:04:05",
        '{"a":[1,2],"b":2}',
        "paid",
        "a,c",
        5,
        b"\x00\xffab",
        1.100000023841858,
        "2024-01-02",
        "-838:59:59.00",
        7,
        "x",
    ),
    (
        2,
        "0.00",
        None,
        None,
        "null",
        "new",
        "",
        0,
        b"caf\xc3\xa9",
        0.5,
        None,
        "00:00:01.50",
        0,
        None,
    ),
]
# the same values, stored as a consumer may store them
ACTUAL_COLUMNS = tuple((name, "", mysql_type) for name, _, mysql_type in ORDER_COLUMNS)
ACTUAL_ROWS = [
    (
        "1",
        1.5,
        "2024-01-02T03:04:05",
        "2024-01-02 05:04:05+02:00",
        '{"b": 2, "a": [1, 2.0]}',
        2,
        "c,a",
        b"\x05",
        b"\x00\xffab",
        "1.1",
        "2024-01-02 00:00:00",
        "-838:59:59",
        "7",
        "x  ",
    ),
    (2, "0", None, None, "null", "new", "", 0, "café", 0.5, None, "0:00:01.5", "0", None),
]
