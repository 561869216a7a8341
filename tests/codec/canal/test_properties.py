"""Properties over generated rows: the message is Go-escaped JSON in TiCDC's field order, every
value reads back as the text computed here independently of the codec, the sqlType follows the
values, and the decoder returns the images."""

from __future__ import annotations

import base64
import json
from decimal import Decimal
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.codec.canal.support import encoder
from tisink.codec.canal.decoder import CanalJSONDecoder
from tisink.codec.values import float32_text, float64_text, to_float32
from tisink.model import ColumnInfo, IndexInfo, RowChangedEvent, make_table

TEXT = {"charset": "utf8mb4", "collate": "utf8mb4_bin"}
C = ColumnInfo
COLUMNS = [
    C("id", "bigint", nullable=False),
    C("ti_u", "tinyint", unsigned=True),
    C("i_s", "int"),
    C("bi_u", "bigint", unsigned=True),
    C("f", "float"),
    C("dbl", "double"),
    C("dec", "decimal", length=20, decimal=4),
    C("vc", "varchar", length=50, **TEXT),
    C("blob", "blob"),
    C("e", "enum", elements=("a", "b", "c"), **TEXT),
    C("s", "set", elements=("x", "y", "z"), **TEXT),
    C("bit", "bit", length=64, unsigned=True),
]
TABLE = make_table("p", "t", 7, 1, COLUMNS, [IndexInfo("PRIMARY", ("id",), True, True)])
FIELDS = ["id", "database", "table", "pkNames", "isDdl", "type", "es", "ts", "sql", "sqlType"]
FIELDS += ["mysqlType", "old", "data", "_tidb"]

finite = st.floats(allow_nan=False, allow_infinity=False)
decimals = st.decimals(min_value=-(10**15), max_value=10**15, places=4).map(str)
VALUES = {
    "ti_u": st.integers(0, 255),
    "i_s": st.integers(-(2**31), 2**31 - 1),
    "bi_u": st.integers(0, 2**64 - 1),
    "f": finite.filter(lambda v: abs(v) < 3e38),
    "dbl": finite,
    "dec": decimals,
    "vc": st.text(max_size=20),
    "blob": st.binary(max_size=20).map(lambda b: base64.b64encode(b).decode()),
    "e": st.sampled_from(["a", "b", "c", ""]),
    "s": st.lists(st.sampled_from(["x", "y", "z"]), unique=True),
    "bit": st.integers(0, 2**64 - 1),
}


@st.composite
def images(draw: Any, key: int) -> dict[str, Any]:
    image: dict[str, Any] = {"id": key}
    for name, values in VALUES.items():
        image[name] = draw(st.none() | values)
    return image


def expected_text(name: str, v: Any) -> str | None:
    """The canal-json text of a value, computed from TiCDC's rules without the codec."""
    if v is None:
        return None
    if name in ("id", "ti_u", "i_s", "bi_u", "bit"):
        return str(v)
    if name == "f":
        return float32_text(to_float32(v))
    if name == "dbl":
        return float64_text(v)
    if name == "dec":
        return str(Decimal(v))
    if name == "vc":
        return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in v)
    if name == "blob":
        return base64.b64decode(v).decode("latin-1")
    if name == "e":
        return str(["", "a", "b", "c"].index(v))
    if name == "s":
        return str(sum(1 << ["x", "y", "z"].index(m) for m in v))
    raise AssertionError(name)


def expected_sql_types(image: dict[str, Any]) -> dict[str, int]:
    ti, bi = image["ti_u"], image["bi_u"]
    return {
        "id": -5,
        "ti_u": 5 if ti is not None and ti > 127 else -6,
        "i_s": 4,
        "bi_u": 3 if bi is not None and bi > 2**63 - 1 else -5,
        "f": 7,
        "dbl": 8,
        "dec": 3,
        "vc": 12,
        "blob": 2004,
        "e": 4,
        "s": -7,
        "bit": -7,
    }


@settings(deadline=None)
@given(images(1), images(1), st.sampled_from(["INSERT", "UPDATE", "DELETE"]), st.booleans())
def test_rows_round_trip(
    first: dict[str, Any], second: dict[str, Any], op: str, extension: bool
) -> None:
    before, after = {"INSERT": (None, first), "UPDATE": (first, second), "DELETE": (first, None)}[
        op
    ]
    event = RowChangedEvent(9, 446710992078110720, TABLE, before, after)
    codec = encoder({"enable-tidb-extension": extension})
    ((key, value),) = codec.encode_rows([event]).records
    assert key is None
    for raw in (b"<", b">", b"&", "\u2028".encode(), b"\\b", b"\\f"):
        assert raw not in value.replace(b"\\\\", b""), raw
    body = json.loads(value)
    assert list(body) == FIELDS[:-1] + (["_tidb"] if extension else [])
    assert body["type"] == op and body["pkNames"] == ["id"]
    image = after if after is not None else before
    assert image is not None
    assert body["data"] == [{n: expected_text(n, image[n]) for n in image}]
    assert body["sqlType"] == expected_sql_types(image)
    if before is not None and after is not None:
        assert body["old"] == [{n: expected_text(n, before[n]) for n in before}]
    (decoded,) = CanalJSONDecoder().decode(key, value)
    assert decoded.type == op
    images_ = (decoded.data, decoded.old) if op != "DELETE" else (decoded.old, None)
    assert images_[0] == body["data"][0]
