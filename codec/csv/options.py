"""The options of TiCDC's CSV protocol (``protocol=csv``, ``pkg/sink/codec/csv``).

The options are TiCDC's ``[sink.csv]`` table (``delimiter``, ``quote``, ``null``,
``include-commit-ts``, ``binary-encoding-method``, ``output-old-value``, ``output-handle-key``,
``output-field-header``); tisink also takes each as a URI parameter. ``terminator`` is the
storage sink's (``[sink] terminator``), which sets it here. Apart from the registry entry, so
the encoder and the value writers read them without importing the entry that builds them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tisink.core.options import Option, one_of, to_bool, to_str

NAME = "csv"
CSV_TABLE = (("sink", "csv"),)
BINARY_ENCODINGS = ("base64", "hex")


@dataclass(frozen=True)
class CSVOptions:
    """TiCDC's defaults (``replica_config.go``): comma, double quote, ``\\N``, base64, CRLF."""

    delimiter: str = ","
    quote: str = '"'
    null: str = "\\N"
    include_commit_ts: bool = False
    binary_encoding_method: str = "base64"
    output_old_value: bool = False
    output_handle_key: bool = False
    output_field_header: bool = False
    terminator: str = "\r\n"
    """Set by the storage sink from ``[sink] terminator``."""
    newarch: bool = True
    """Set by the storage sink from ``newarch``: the classic sink (false, tiflow) writes
    ``output-handle-key``'s column, the new one (ticdc) ignores the setting."""


def _delimiter(value: Any) -> str:
    """TiCDC's ``validateAndAdjust``: one to three characters, no line break."""
    text = to_str(value)
    if not text:
        raise ValueError("the delimiter cannot be empty")
    if len(text) > 3:
        raise ValueError(f"the delimiter has more than three characters: {text!r}")
    if "\r" in text or "\n" in text:
        raise ValueError("the delimiter cannot hold a line break")
    return text


def _quote(value: Any) -> str:
    text = to_str(value)
    if len(text) > 1:
        raise ValueError(f"the quote is more than one character: {text!r}")
    if text in ("\r", "\n"):
        raise ValueError("the quote cannot be a line break")
    return text


OPTIONS = (
    Option("delimiter", "delimiter", _delimiter, CSV_TABLE, help="field separator (1-3 chars)"),
    Option("quote", "quote", _quote, CSV_TABLE, help='quote around texts ("" escapes instead)'),
    Option("null", "null", to_str, CSV_TABLE, help="text of a NULL value"),
    Option(
        "include-commit-ts",
        "include_commit_ts",
        to_bool,
        CSV_TABLE,
        help="a commit-ts column after the schema name",
    ),
    Option(
        "binary-encoding-method",
        "binary_encoding_method",
        one_of(*BINARY_ENCODINGS),
        CSV_TABLE,
        help="binary columns as base64 or hex",
    ),
    Option(
        "output-old-value",
        "output_old_value",
        to_bool,
        CSV_TABLE,
        help="an is-update column; an UPDATE as a D row (old) and an I row (new)",
    ),
    Option(
        "output-handle-key",
        "output_handle_key",
        to_bool,
        CSV_TABLE,
        help="a handle-key column after the head (newarch=false, as tiflow); the new "
        "architecture ignores it (ticdc logs 'not support output handle key')",
    ),
    Option(
        "output-field-header",
        "output_field_header",
        to_bool,
        CSV_TABLE,
        help="each file starts with a header line of column names",
    ),
)


def check_options(options: CSVOptions) -> None:
    """TiCDC refuses a quote that is part of the delimiter."""
    if options.quote and options.quote in options.delimiter:
        raise ValueError(
            f"quote {options.quote!r} and delimiter {options.delimiter!r} share a character"
        )
