"""VECTOR in CSV against TiCDC's own tests (``data/vector.json``, sources in
``data/README.md``): the field is ``VectorFloat32.String()``, a string, so quoted when a quote
is set and escaped like any string when not; the text is TiDB's for its own test vectors."""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

import pytest

from tisink.codec.config import EncoderConfig
from tisink.codec.csv.encoder import CSVEncoder
from tisink.codec.csv.options import CSVOptions
from tisink.codec.csv.values import field_for
from tisink.model.events import RowChangedEvent
from tisink.model.table import ColumnInfo, IndexInfo, make_table

GOLDEN = json.loads((Path(__file__).parent / "data" / "vector.json").read_text(encoding="utf-8"))
TS = 435661838416609281
VECTOR5 = ColumnInfo(GOLDEN["convert"]["column"], "vector", length=5)


def test_convert_to_csv_type() -> None:
    """``TestConvertToCSVType``: the value is the string, written as strings are."""
    case = GOLDEN["convert"]
    quoted = field_for(VECTOR5, CSVOptions(), datetime.UTC)
    assert quoted(case["value"]) == '"' + case["want"] + '"'
    bare = field_for(VECTOR5, CSVOptions(delimiter="\t", quote=""), datetime.UTC)
    assert bare(case["value"]) == case["want"]


def test_a_vector_field_in_a_whole_line() -> None:
    """The field in a line of ``TestCSVMessageEncode``'s layout (op, table, schema, commitTs,
    columns) with the tab delimiter of ``TestRowChangeEventConversion``; with no quote the
    delimiter is escaped inside the vector text as in any string."""
    table = make_table(
        "test", "table1", 1, 1, [ColumnInfo("id", "int", nullable=False), VECTOR5],
        [IndexInfo("primary", ("id",), unique=True, primary=True)],
    )  # fmt: skip
    image = {"id": 1, "vectorfloat32": GOLDEN["convert"]["value"]}
    row = RowChangedEvent(TS - 1, TS, table, None, image)
    options = CSVOptions(delimiter="\t", quote='"', null="\\N", include_commit_ts=True)
    encoder = CSVEncoder(EncoderConfig(protocol="csv", options=options, time_zone="UTC"))
    assert encoder.encode_row(row) == b'"I"\t"table1"\t"test"\t435661838416609281\t1\t"[1,2,3,4,5]"'
    options = CSVOptions(delimiter=",", quote="", null="\\N")
    encoder = CSVEncoder(EncoderConfig(protocol="csv", options=options, time_zone="UTC"))
    assert encoder.encode_row(row) == b"I,table1,test,1,[1\\,2\\,3\\,4\\,5]"


@pytest.mark.parametrize("case", GOLDEN["tidb_text"]["cases"], ids=lambda c: c["text"])
def test_tidb_vector_text(case: dict[str, Any]) -> None:
    field = field_for(ColumnInfo("v", "vector"), CSVOptions(), datetime.UTC)
    assert field(case["value"]) == '"' + case["text"] + '"'
