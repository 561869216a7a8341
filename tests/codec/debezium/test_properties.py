"""Invariants over generated rows of every type: the generated per-table encoder writes the same
bytes as the general column-by-column path, and every message passes the strict schema check."""

from __future__ import annotations

import base64
import datetime
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.codec.debezium.support import encoder
from tisink.codec.debezium.schemacheck import check_envelope, check_key
from tisink.model import ColumnInfo, IndexInfo, RowChangedEvent, TableInfo, make_table
from tisink.model.mysqltypes import INTEGER_RANGES

TEXT = {"charset": "utf8mb4", "collate": "utf8mb4_bin"}


def _columns() -> list[ColumnInfo]:
    c = ColumnInfo
    out = [c("id", "bigint", nullable=False)]
    for name in INTEGER_RANGES:
        out += [c(f"{name}_s", name), c(f"{name}_u", name, unsigned=True)]
    out += [
        c("f", "float", length=12),
        c("f_md", "float", length=7, decimal=2),
        c("dbl", "double", length=22),
        c("dec", "decimal", length=20, decimal=6),
        c("vc", "varchar", length=20, **TEXT),
        c("vc_default", "varchar", length=20, default="dflt", **TEXT),
        c("bin", "binary", length=8),
        c("blob", "blob"),
        c("d", "date"),
        c("dt", "datetime", decimal=0),
        c("dt6", "datetime", decimal=6),
        c("ts", "timestamp", decimal=3),
        c("tm", "time", decimal=2),
        c("y", "year", length=4, unsigned=True, zerofill=True),
        c("e", "enum", elements=("a", "b,c", "d'e"), **TEXT),
        c("s", "set", elements=("x", "y", "z"), **TEXT),
        c("b1", "bit", length=1, unsigned=True),
        c("b13", "bit", length=13, unsigned=True),
        c("j", "json"),
        c("v", "vector", length=2),
    ]
    return out


TABLE: TableInfo = make_table(
    "db", "all", 9, 4, _columns(), [IndexInfo("primary", ("id",), True, True)]
)


def _integer(column: ColumnInfo) -> st.SearchStrategy[int]:
    low, high, unsigned_max = INTEGER_RANGES[column.mysql_type]
    return st.integers(0, unsigned_max) if column.unsigned else st.integers(low, high)


_dates = st.dates(datetime.date(1, 1, 1), datetime.date(9999, 12, 31))
_datetimes = st.datetimes(datetime.datetime(1, 1, 1), datetime.datetime(9999, 12, 31))
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-(1 << 63), (1 << 63) - 1) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=6,
)
_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "f": st.floats(width=32, allow_nan=False, allow_infinity=False),
    "f_md": st.floats(-1e5, 1e5).map(lambda x: round(x, 2)),
    "dbl": st.floats(allow_nan=False, allow_infinity=False),
    "dec": st.decimals(-(10**14), 10**14, places=6, allow_nan=False, allow_infinity=False).map(str),
    "vc": st.text(max_size=20),
    "vc_default": st.text(max_size=20),
    "bin": st.binary(max_size=8).map(lambda b: base64.b64encode(b).decode()),
    "blob": st.binary(max_size=30).map(lambda b: base64.b64encode(b).decode()),
    "d": _dates.map(lambda d: d.strftime("%Y-%m-%d").rjust(10, "0")) | st.just("0000-00-00"),
    "dt": _datetimes.map(lambda t: f"{t.year:04d}" + t.strftime("-%m-%d %H:%M:%S")),
    "dt6": _datetimes.map(lambda t: f"{t.year:04d}" + t.strftime("-%m-%d %H:%M:%S.%f")),
    "ts": st.datetimes(datetime.datetime(1970, 1, 1, 0, 0, 1), datetime.datetime(2038, 1, 19)).map(
        lambda t: t.strftime("%Y-%m-%d %H:%M:%S.%f")[:23]
    )
    | st.just("0000-00-00 00:00:00"),
    "tm": st.tuples(
        st.booleans(), st.integers(0, 838), st.integers(0, 59), st.integers(0, 5999)
    ).map(
        lambda p: f"{'-' if p[0] else ''}{p[1]:02d}:{p[2]:02d}:{p[3] // 100:02d}.{p[3] % 100:02d}"
    ),
    "y": st.integers(1901, 2155),
    "e": st.sampled_from(["", "a", "b,c", "d'e"]),
    "s": st.lists(st.sampled_from(["x", "y", "z"]), unique=True),
    "b1": st.integers(0, 1),
    "b13": st.integers(0, (1 << 13) - 1),
    "j": _json,
    "v": st.lists(st.floats(-10, 10, width=32), min_size=2, max_size=2),
}


@st.composite
def images(draw: st.DrawFn) -> dict[str, Any]:
    image: dict[str, Any] = {"id": draw(st.integers(1, 10**6))}
    for column in TABLE.columns[1:]:
        strategy = _VALUES[column.name] if column.name in _VALUES else _integer(column)
        image[column.name] = draw(st.none() | strategy)
    return image


options = st.fixed_dictionaries(
    {
        "disable_schema": st.booleans(),
        "output_old_value": st.booleans(),
        "enable_tidb_extension": st.booleans(),
        "include_start_ts": st.booleans(),
    }
)


@settings(max_examples=100, deadline=None)
@given(
    options, st.none() | images(), st.none() | images(), st.sampled_from(["UTC", "Europe/Paris"])
)
def test_generated_encoder_matches_the_general_path(
    opts: dict[str, Any], before: Any, after: Any, zone: str
) -> None:
    if before is None and after is None:
        return
    enc = encoder(time_zone=zone, **opts)
    row = RowChangedEvent(3, 7 << 18, TABLE, before=before, after=after)
    renderer = enc.renderer(TABLE)
    key, value = renderer.encode(row, 5)
    assert (key, value) == renderer.encode_general(row, 5)
    if not opts["disable_schema"]:
        check_key(json.loads(key))
        check_envelope(json.loads(value))
