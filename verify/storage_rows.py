"""The rows of one storage data file, read as a consumer reads them: CSV through
``codec.csv.decoder``, canal-json one JSON object per line. Each row keeps what verify checks:
its event type, commit ts (None when the file does not carry it), names and line."""

from __future__ import annotations

from dataclasses import dataclass

import orjson

from tisink.codec.config import EncoderConfig
from tisink.codec.csv.decoder import parse_row, split_rows
from tisink.codec.csv.options import CSVOptions
from tisink.codec.errors import MessageDecodeError
from tisink.core.clock import TSO_LOGICAL_BITS

_CSV_TYPES = {"I": "INSERT", "U": "UPDATE", "D": "DELETE"}
_CANAL_TYPES = ("INSERT", "UPDATE", "DELETE")


@dataclass(frozen=True, slots=True)
class StoredRow:
    """One row event of a data file (an old-value UPDATE's D and I lines are one)."""

    kind: str
    schema: str
    table: str
    commit_ts: int | None
    line: int
    identity: bytes
    """What makes the row itself: equal identities with a commit ts are the same row twice."""
    columns: int


def read_rows(data: bytes, encoder: EncoderConfig, terminator: str, where: str) -> list[StoredRow]:
    """The rows of a data file; MessageDecodeError names ``where`` and the line."""
    if not data.endswith(terminator.encode()):
        raise MessageDecodeError(f"{where}: the file does not end with the terminator")
    options = encoder.options
    if isinstance(options, CSVOptions):
        return _csv_rows(data, options, where)
    return _json_rows(data, terminator, where)


def _csv_rows(data: bytes, options: CSVOptions, where: str) -> list[StoredRow]:
    rows: list[StoredRow] = []
    fields_list = split_rows(data, options, where)
    first = 1 + bool(options.output_field_header and fields_list)  # the header is line 1
    line = 0
    while line < len(fields_list):
        fields = fields_list[line]
        row = parse_row(fields, options, f"{where}: line {line + first}")
        kind = _CSV_TYPES[row.op]
        identity = "\x00".join(f if f is not None else "\x01" for f in fields).encode()
        step = 1
        if row.is_update and row.op == "D" and line + 1 < len(fields_list):
            after = parse_row(fields_list[line + 1], options, f"{where}: line {line + first + 1}")
            if not (after.is_update and after.op == "I"):
                raise MessageDecodeError(
                    f"{where}: line {line + first + 1}: an old-value UPDATE's D line is not "
                    "followed by its I line"
                )
            kind, step = "UPDATE", 2
            identity += (
                b"\x02"
                + "\x00".join(
                    f if f is not None else "\x01" for f in fields_list[line + 1]
                ).encode()
            )
        commit_ts = row.commit_ts if options.include_commit_ts else None
        rows.append(
            StoredRow(
                kind, row.schema, row.table, commit_ts, line + first, identity, len(row.columns)
            )
        )
        line += step
    return rows


def _json_rows(data: bytes, terminator: str, where: str) -> list[StoredRow]:
    rows: list[StoredRow] = []
    lines = data.split(terminator.encode())[:-1]
    for number, text in enumerate(lines, start=1):
        try:
            message = orjson.loads(text)
            kind = message["type"]
            schema, table = message["database"], message["table"]
        except (orjson.JSONDecodeError, KeyError, TypeError) as err:
            raise MessageDecodeError(
                f"{where}: line {number}: not a canal-json row: {err}"
            ) from None
        if kind not in _CANAL_TYPES or message.get("isDdl"):
            raise MessageDecodeError(f"{where}: line {number}: type {kind!r} is no row change")
        extension = message.get("_tidb") or {}
        commit_ts = extension.get("commitTs") if isinstance(extension, dict) else None
        if commit_ts is None and isinstance(message.get("es"), int):
            commit_ts = message["es"] << TSO_LOGICAL_BITS
        identity = text if extension else b""
        columns = len((message.get("data") or [{}])[0])
        rows.append(StoredRow(kind, schema, table, commit_ts, number, identity, columns))
    return rows
