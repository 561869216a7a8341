"""Per-table renderers of canal-json row messages, built once per table version and options.

TiCDC's ``newJSONMessageForDML`` (pkg/sink/codec/canal/canal_json_encoder.go, pingcap/ticdc)
writes, in this order: ``id`` (0), ``database``, ``table``, ``pkNames`` (the primary key's
columns in table order, ``[]`` without one), ``isDdl`` (false), ``type``, ``es`` (commitTs
physical ms), ``ts`` (build time), ``sql`` (""), ``sqlType``, ``mysqlType``, ``old`` and then
``data`` (``old`` first: the writer is hand-rolled), then ``_tidb`` with the extension.
``sqlType`` and ``mysqlType`` list the columns of the message in table order (TiCDC iterates a
Go map for ``mysqlType``, so its order varies between runs; table order is one of those
orders). Virtual generated columns are left out everywhere.

A message carries every stored column, or only the handle key's for a DELETE under
``delete-only-output-handle-key-columns`` and for the large-message fallbacks; each column set
has its own generated function (``codegen``). A string orjson refuses (a lone surrogate) takes
the same code with a repairing ``dumps``; a bad value is reported naming table and column.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

import orjson

from tisink.codec.canal import types
from tisink.codec.canal.codegen import RowEncoder, Templates, compile_row_encoder
from tisink.codec.canal.jsontext import dumps
from tisink.codec.canal.values import Converter, converter_for
from tisink.codec.errors import CodecError
from tisink.codec.gojson import repaired_dumps
from tisink.codec.values import timestamp_texts
from tisink.codec.values.checks import VALUE_ERRORS, failing_column
from tisink.model.events import RowChangedEvent
from tisink.model.table import ColumnInfo, TableInfo


def pk_names(table: TableInfo) -> list[str]:
    """The columns flagged as primary key, in table order (TiCDC ``PrimaryKeyColumnNames``)."""
    primary: set[str] = set()
    for index in table.indexes:
        if index.primary:
            primary.update(index.columns)
    return [c.name for c in table.columns if c.name in primary]


def _object(pairs: list[tuple[str, Any]]) -> bytes:
    """A JSON object of already ordered pairs; ``null`` when empty, as TiCDC writes it."""
    if not pairs:
        return b"null"
    return b"{" + b",".join(dumps(k) + b":" + dumps(v) for k, v in pairs) + b"}"


class _Variant:
    """The generated functions of one column set."""

    __slots__ = ("build", "columns", "run", "safe", "templates")

    def __init__(
        self,
        columns: list[tuple[ColumnInfo, Converter]],
        templates: Templates,
        build: Callable[[list[tuple[ColumnInfo, Converter]], Templates, Any], RowEncoder],
    ) -> None:
        self.columns = columns
        self.templates = templates
        self.build = build
        self.run: RowEncoder = build(columns, templates, orjson.dumps)
        self.safe: RowEncoder | None = None

    def encode(self, row: RowChangedEvent, mid: bytes, tail: bytes) -> bytes:
        """The fast function, or on a string orjson refuses the repairing one; raises one of
        ``VALUE_ERRORS`` on a bad value."""
        out: list[bytes] = []
        rows, table, commit_ts = (row,), row.table, row.commit_ts
        try:
            self.run(rows, mid, tail, out.append, table, commit_ts)
            return out[0]
        except TypeError:  # orjson.JSONEncodeError is TypeError: a lone surrogate, or a bad value
            pass
        if self.safe is None:
            self.safe = self.build(self.columns, self.templates, repaired_dumps)
        self.safe(rows, mid, tail, out.append, table, commit_ts)
        return out[0]


class RowRenderer:
    """Row messages of one table version under one set of options."""

    __slots__ = (
        "_delete_key_only",
        "_full",
        "_key_columns",
        "_keyed",
        "_variant",
        "run",
        "table",
    )

    def __init__(
        self,
        table: TableInfo,
        tz: datetime.tzinfo,
        *,
        content_compatible: bool,
        only_updated: bool,
        delete_key_only: bool,
        newarch: bool = True,
    ) -> None:
        self.table = table
        self._delete_key_only = delete_key_only
        stored = [(c, converter_for(c, tz)) for c in table.stored_columns]
        if not stored:
            raise CodecError(f"table {table.qualified_name}: no column to encode")
        head = (
            b'{"id":0,"database":'
            + dumps(table.schema)
            + b',"table":'
            + dumps(table.table)
            + b',"pkNames":'
            + dumps(pk_names(table))
            + b',"isDdl":false,"type":'
        )
        zone_text = timestamp_texts(tz)
        utc = tz is datetime.UTC

        def build(
            columns: list[tuple[ColumnInfo, Converter]], templates: Templates, dumper: Any
        ) -> RowEncoder:
            return compile_row_encoder(
                columns,
                templates,
                utc=utc,
                zone_text=zone_text,
                only_updated=only_updated,
                dumps=dumper,
                newarch=newarch,
            )

        self._variant = lambda columns: _Variant(
            columns, _templates(head, [c for c, _ in columns], content_compatible, newarch), build
        )
        self._full = self._variant(stored)
        key = set(table.handle_key)
        self._key_columns = [pair for pair in stored if pair[0].name in key]
        self._keyed: _Variant | None = None
        """The handle key's functions, compiled when first needed."""
        self.run: RowEncoder | None = None if delete_key_only else self._full.run
        """The generated function itself when every row takes it (no per-row choice): the
        hot path hands it a run of rows and falls back to ``encode`` for the row it raised on."""

    def _key_variant(self) -> _Variant:
        if self._keyed is None:
            self._keyed = self._variant(self._key_columns)
        return self._keyed

    def encode(
        self, row: RowChangedEvent, mid: bytes, tail: bytes, key_only: bool = False
    ) -> bytes:
        """The message of one row; ``key_only`` keeps only the handle key's columns (a DELETE
        under ``delete-only-output-handle-key-columns`` always does)."""
        if self._delete_key_only and row.after is None:
            key_only = True
        variant = self._key_variant() if key_only else self._full
        try:
            return variant.encode(row, mid, tail)
        except VALUE_ERRORS as err:
            raise self._error(row, variant, err) from err

    def _error(self, row: RowChangedEvent, variant: _Variant, err: Exception) -> CodecError:
        """Name the failing column, trying one column at a time."""
        where = row.describe()
        failure = failing_column(where, (row.after, row.before), variant.columns)
        return failure or CodecError(f"{where}: cannot render the row: {type(err).__name__}: {err}")


def _templates(
    head: bytes, columns: list[ColumnInfo], content_compatible: bool, newarch: bool = True
) -> Templates:
    names = [c.name for c in columns]
    mysql = _object([(c.name, types.mysql_type(c, content_compatible)) for c in columns])
    if not columns and not newarch:
        # tiflow tests ``mysqlTypeMap == nil`` on a map it made: an empty one is ``{}``
        mysql = b"{}"
    base = [types.java_type(c) for c in columns]
    promotions: list[tuple[int, int]] = []
    wider: list[int] = []
    for i, column in enumerate(columns):
        promotion = types.promotion(column)
        if promotion is not None:
            promotions.append((i, promotion[0]))
            wider.append(promotion[1])

    def sql_type(mask: int) -> bytes:
        codes = list(base)
        for bit, (i, _) in enumerate(promotions):
            if mask >> bit & 1:
                codes[i] = wider[bit]
        return _object(list(zip(names, codes, strict=True)))

    return Templates(
        types=(head + b'"INSERT"', head + b'"UPDATE"', head + b'"DELETE"'),
        sql_type=sql_type,
        promotions=tuple(promotions),
        no_old=b',"mysqlType":' + mysql + b',"old":null,"data":[',
        with_old=b',"mysqlType":' + mysql + b',"old":[',
    )
