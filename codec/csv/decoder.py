"""Reads TiCDC CSV files back (``csv_decoder.go``'s job): for ``tisink verify`` and tests.

``split_fields`` turns a file's bytes into rows of fields, ``None`` for the NULL text; a file
that does not end in the terminator is incomplete and refused, naming the line.
``split_rows`` does the same and takes off the header line ``output-field-header`` puts at the
top of each file (checked to be one: ticdc's decoder reads it as the column names).
``parse_row`` reads a row's head (operation, table, schema, commit ts, is-update) and leaves
the columns.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from tisink.codec.csv.options import CSVOptions
from tisink.codec.errors import MessageDecodeError

Fields = list[str | None]
_UNESCAPE = re.compile(r"\\(.)", re.DOTALL)


def _unescape(text: str) -> str:
    return _UNESCAPE.sub(lambda m: {"n": "\n", "r": "\r"}.get(m.group(1), m.group(1)), text)


@cache
def _pattern(delimiter: str, quote: str, terminator: str) -> re.Pattern[str]:
    d, t = re.escape(delimiter), re.escape(terminator)
    if quote:
        q = re.escape(quote)
        field = rf"{q}(?P<q>(?:[^{q}]|{q}{q})*){q}|(?P<u>(?:(?!{d}|{t})[^{q}])*)"
    else:
        field = rf"(?P<q>(?!))?(?P<u>(?:\\.|(?!{d}|{t})[^\\])*)"
    return re.compile(rf"(?:{field})(?P<end>{d}|{t}|\Z)", re.DOTALL)


def split_fields(data: bytes, options: CSVOptions, where: str = "") -> list[Fields]:
    """The rows of one CSV file; MessageDecodeError names ``where`` and the line when the
    text does not parse or the last row lacks its terminator."""
    text = data.decode("utf-8")
    pattern = _pattern(options.delimiter, options.quote, options.terminator)
    rows: list[Fields] = []
    row: Fields = []
    position, line = 0, 1
    quote, null = options.quote, options.null
    while position < len(text):
        match = pattern.match(text, position)
        if match is None or match.end() == position:
            raise MessageDecodeError(f"{where}: line {line}: not a CSV field at offset {position}")
        quoted, plain, end = match.group("q"), match.group("u"), match.group("end")
        if quoted is not None:
            row.append(quoted.replace(quote + quote, quote))
        elif plain == null:
            row.append(None)
        else:
            row.append(plain if quote else _unescape(plain or ""))
        position = match.end()
        if end == options.terminator:
            rows.append(row)
            row, line = [], line + 1
        elif not end:
            raise MessageDecodeError(f"{where}: line {line}: the file ends inside a row")
    return rows


HEADER_START = "ticdc-meta$operation"


def split_rows(data: bytes, options: CSVOptions, where: str = "") -> list[Fields]:
    """The data rows of one CSV file: ``split_fields`` without the header line (with
    ``output-field-header``; an empty file has none)."""
    rows = split_fields(data, options, where)
    if options.output_field_header and rows:
        if rows[0][:1] != [HEADER_START]:
            raise MessageDecodeError(
                f"{where}: line 1: no header line (output-field-header): {rows[0][:3]!r}"
            )
        return rows[1:]
    return rows


@dataclass(frozen=True, slots=True)
class CSVRow:
    """One line: its operation (I, U, D), names, commit ts (0 without the column),
    is-update (None without the column) and the column values."""

    op: str
    table: str
    schema: str
    commit_ts: int
    is_update: bool | None
    columns: Fields


def parse_row(fields: Fields, options: CSVOptions, where: str = "") -> CSVRow:
    """The head of a row as ``csvMessage.decode`` reads it."""
    head = 3 + options.include_commit_ts + options.output_old_value
    if len(fields) < head:
        raise MessageDecodeError(f"{where}: a row has {len(fields)} fields, fewer than {head}")
    op, table, schema = fields[0], fields[1], fields[2]
    if op not in ("I", "U", "D") or table is None or schema is None:
        raise MessageDecodeError(f"{where}: bad operation {op!r} (want I, U or D)")
    commit_ts = 0
    index = 3
    if options.include_commit_ts:
        text = fields[3]
        if text is None or not text.isdigit():
            raise MessageDecodeError(f"{where}: the commit-ts column holds {text!r}")
        commit_ts = int(text)
        index += 1
    is_update = None
    if options.output_old_value:
        flag = fields[index]
        if flag not in ("true", "false"):
            raise MessageDecodeError(f"{where}: the is-update column holds {flag!r}")
        is_update = flag == "true"
        index += 1
    return CSVRow(op, table, schema, commit_ts, is_update, fields[index:])
