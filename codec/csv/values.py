"""Column values as TiCDC's CSV writes them (``fromColValToCsvVal`` in ``csv_message.go``).

Which values are Go strings decides the quoting: texts, DECIMAL, dates and times, ENUM (its
name), SET (its names joined by ``,``), JSON (TiDB's text), VECTOR and binary columns (base64
or hex of the bytes) are strings; integers, YEAR, BIT (the unsigned number), FLOAT (float32's
shortest digits) and DOUBLE are numbers, printed with ``%v`` and never quoted. TIMESTAMP is in
the changefeed's zone.
"""

from __future__ import annotations

import base64
import datetime
from collections.abc import Callable
from typing import Any

from tisink.codec.csv.options import CSVOptions
from tisink.codec.csv.text import escaped, go_g_text, quoted
from tisink.codec.errors import CodecError
from tisink.codec.values import (
    binary_bytes,
    float32_text,
    float64_text,
    set_names,
)
from tisink.codec.values.checks import (
    as_number,
    as_text,
)
from tisink.codec.values.texts import tidb_text
from tisink.model.mysqltypes import TypeFamily
from tisink.model.table import ColumnInfo

Field = Callable[[Any], str]
"""A non-NULL feed value of one column to its CSV field text."""


def _binary(column: ColumnInfo, method: str) -> Callable[[Any], str]:
    if method == "hex":
        return lambda v: binary_bytes(column, as_text(v)).hex()
    return lambda v: base64.b64encode(binary_bytes(column, as_text(v))).decode("ascii")


_NUMBERS = frozenset(
    (
        TypeFamily.INT,
        TypeFamily.BIGINT,
        TypeFamily.YEAR,
        TypeFamily.BIT,
        TypeFamily.FLOAT,
        TypeFamily.DOUBLE,
    )
)
"""The families whose values are Go numbers, printed with ``%v`` and never quoted."""


def _text(column: ColumnInfo, options: CSVOptions, tz: datetime.tzinfo) -> Field:
    family = column.family
    if family is TypeFamily.FLOAT:
        return lambda v: go_g_text(float32_text(as_number(v)))
    if family is TypeFamily.DOUBLE:
        return lambda v: go_g_text(float64_text(as_number(v)))
    if family is TypeFamily.BINARY:
        return _binary(column, options.binary_encoding_method)
    if family is TypeFamily.ENUM:
        return as_text
    if family is TypeFamily.SET:
        return set_names(column)
    text = tidb_text(column, tz)
    if text is None:
        raise CodecError(f"column {column.name!r}: no CSV rendering for {column.mysql_type}")
    return text


def field_for(column: ColumnInfo, options: CSVOptions, tz: datetime.tzinfo) -> Field:
    """The field text of a non-NULL value of ``column``: a string quoted or escaped as the
    options say, a number as ``%v`` prints it."""
    text = _text(column, options, tz)
    if column.family in _NUMBERS:
        return text
    if options.quote:
        quote = options.quote
        return lambda v: quoted(text(v), quote)
    delimiter = options.delimiter
    return lambda v: escaped(text(v), delimiter)


def meta_field(value: str, options: CSVOptions) -> str:
    """A string column of the row's head (operation, table, schema names)."""
    if options.quote:
        return quoted(value, options.quote)
    return escaped(value, options.delimiter)
