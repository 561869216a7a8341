"""The CSV reader verify uses reads back what the encoder writes, for any text and any of
TiCDC's allowed delimiter / quote choices; an incomplete file is refused naming its line."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tisink.codec.config import EncoderConfig
from tisink.codec.csv.decoder import parse_row, split_fields, split_rows
from tisink.codec.csv.encoder import CSVEncoder
from tisink.codec.csv.options import CSVOptions
from tisink.codec.csv.text import escaped
from tisink.codec.errors import MessageDecodeError
from tisink.model.events import RowChangedEvent
from tisink.model.table import ColumnInfo, TableInfo

TABLE = TableInfo(
    "s", "t", 1, 1, (ColumnInfo("a", "varchar", charset="utf8mb4"), ColumnInfo("b", "int"))
)
SHAPES = [
    CSVOptions(),
    CSVOptions(quote="", delimiter="|"),
    CSVOptions(quote="'", delimiter="[*]", terminator="\n"),
    CSVOptions(quote="", delimiter="\t", null="NULL", include_commit_ts=True),
]
texts = st.text(alphabet=st.sampled_from(list("ab,|'\"\\\r\n\t[*]N é")), max_size=12)


@settings(deadline=None)
@given(
    shape=st.sampled_from(SHAPES),
    values=st.lists(st.tuples(st.none() | texts, st.none() | st.integers()), max_size=5),
)
def test_what_the_encoder_writes_reads_back(
    shape: CSVOptions, values: list[tuple[str | None, int | None]]
) -> None:
    encoder = CSVEncoder(EncoderConfig(protocol="csv", options=shape))
    data = b""
    for i, (a, b) in enumerate(values):
        row = RowChangedEvent(i, i + 1, TABLE, None, {"a": a, "b": b})
        data += encoder.encode_row(row) + shape.terminator.encode()
    rows = [parse_row(fields, shape) for fields in split_fields(data, shape)]
    assert [(r.op, r.table, r.schema) for r in rows] == [("I", "t", "s")] * len(values)
    expected = [[a, None if b is None else str(b)] for a, b in values]
    if not shape.quote:  # escaped text cannot tell the NULL text from a value spelling it
        # (unless escaping changes the value: "\N" is written "\\N")
        expected = [
            [None if a is not None and escaped(a, shape.delimiter) == shape.null else a, b]
            for a, b in expected
        ]
    assert [r.columns for r in rows] == expected
    if shape.include_commit_ts:
        assert [r.commit_ts for r in rows] == [i + 1 for i in range(len(values))]


def test_a_file_cut_inside_a_row_is_refused() -> None:
    with pytest.raises(MessageDecodeError, match=r"CDC1\.csv: line 2"):
        split_fields(b'"I","t","s",1\r\n"I","t","s","ab', CSVOptions(), "CDC1.csv")


def test_the_header_line_is_taken_off() -> None:
    """``output-field-header``: the first line names the columns; the rows follow it."""
    options = CSVOptions(output_field_header=True, include_commit_ts=True)
    encoder = CSVEncoder(EncoderConfig(protocol="csv", options=options, time_zone="UTC"))
    row = RowChangedEvent(1, 2, TABLE, None, {"a": "x", "b": 3})
    data = encoder.header(TABLE) + encoder.encode_row(row) + options.terminator.encode()
    assert split_rows(data, options, "f") == [["I", "t", "s", "2", "x", "3"]]
    assert split_rows(b"", options, "f") == []
    with pytest.raises(MessageDecodeError, match="no header line"):
        split_rows(encoder.encode_row(row) + b"\r\n", options, "f")
