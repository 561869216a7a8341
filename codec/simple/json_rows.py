"""Per-table renderers for JSON DML messages and their ``data``/``old`` maps (spec 2).

A renderer is built once per table schema version: it binds one converter per stored column,
pre-sorted by name (``data`` is a Go map, so ``json.Marshal`` sorts its keys bytewise, which for
UTF-8 is code-point order), and compiles them into generated straight-line functions. ``render``
builds one sorted map; ``dml`` builds a whole plain DML message (no checksum, claim check or
key-only reduction) from byte templates fixed per table version, so a row costs one dict
display, one ``orjson.dumps`` and one bytes format.
"""

from __future__ import annotations

import binascii
import datetime
import struct
from collections.abc import Callable
from typing import Any

import orjson

from tisink.codec.errors import CodecError
from tisink.codec.gojson import go_dumps, html_escape
from tisink.codec.json_fast import HELPERS, number_text
from tisink.codec.simple.json_converters import (
    INT_FAMILIES,
    TEXT_FAMILIES,
    Converter,
    converter_for,
)
from tisink.codec.values import CANONICAL_PADDED_TAILS, timestamp_texts
from tisink.codec.values.checks import failing_column
from tisink.core.codegen import run_generated
from tisink.model.events import Image, RowChangedEvent
from tisink.model.mysqltypes import TypeFamily
from tisink.model.table import ColumnInfo, TableInfo

Heads = tuple[bytes, bytes, bytes]
"""The fixed start of an INSERT, UPDATE and DELETE message of one transaction: everything up to
its first map (``"data":``, or ``"old":`` for a DELETE)."""

RENDER_ERRORS = (
    KeyError,
    TypeError,  # orjson.JSONEncodeError included
    ValueError,
    OverflowError,
    AttributeError,
    struct.error,
    CodecError,
)
"""What a bad row image raises inside a generated function."""


def _value_expr(i: int, column: ColumnInfo, utc: bool) -> str:
    """Source of the JSON value of column ``i`` (read into ``v{i}``): the common feed values
    are handled inline, NULL and anything odd go through the converter ``c{i}``, which gives
    the exact result or the error."""
    v, family = f"v{i}", column.family
    slow = f"None if {v} is None else c{i}({v})"
    if family in INT_FAMILIES:
        return f"_str({v}) if _type({v}) is int else {slow}"
    if family in TEXT_FAMILIES:
        return f"{v} if _type({v}) is str else {slow}"
    number = number_text(i, family, slow)
    if number is not None:
        return number
    if family is TypeFamily.BINARY:
        # TiCDC writes the base64 of the bytes: a canonical base64 value is its own text, so
        # it passes as given once strict decoding accepts it (a bad one raises, and the
        # general path names the column) and it has the length a binary(N) needs.
        size = f"_len(_a2b({v}, strict_mode=True))"
        fits = f"{size} == {column.length}" if column.mysql_type == "binary" else f"{size} >= 0"
        canonical = f"({v}[-1:] != '=' or {v}[-3:] in _padded)"
        return f"{v} if _type({v}) is str and {fits} and {canonical} else {slow}"
    if family is TypeFamily.TIMESTAMP:
        text = v if utc else f"z{i}({v})"  # UTC: the value text is already the zone's text
        return f"{{'location': zone, 'value': {text}}} if _type({v}) is str else {slow}"
    return slow


def _image_lines(image: str, exprs: list[str]) -> list[str]:
    """Read each column of ``image`` into ``v{i}``: a missing column raises KeyError."""
    return [f"    v{i} = {image}[k{i}]" for i in range(len(exprs))]


def _display(exprs: list[str]) -> str:
    return "{" + ", ".join(f"k{i}: {e}" for i, e in enumerate(exprs)) + "}"


def _dumped(image: str, target: str, exprs: list[str]) -> list[str]:
    """Lines leaving the Go JSON bytes of ``image``'s map in ``target``; 60, 62, 38 and 226 are
    the bytes that need Go's HTML-safe escaping (``<``, ``>``, ``&``, the lead of U+2028/9)."""
    return [
        *_image_lines(image, exprs),
        f"    {target} = _dumps({_display(exprs)})",
        f"    if 60 in {target} or 62 in {target} or 38 in {target} or 226 in {target}:",
        f"        {target} = _escape({target})",
    ]


def _namespace(
    columns: tuple[tuple[ColumnInfo, Converter], ...], tz: datetime.tzinfo, zone_name: str
) -> dict[str, Any]:
    """Default arguments of a generated function: names, converters and helpers reach the
    code as fast locals, never through the source text."""
    namespace: dict[str, Any] = {
        "zone": zone_name,
        "_type": type,
        "_str": str,
        "_dumps": orjson.dumps,
        "_escape": html_escape,
        "_len": len,
        "_a2b": binascii.a2b_base64,
        "_padded": CANONICAL_PADDED_TAILS,
        **HELPERS,
    }
    texts = timestamp_texts(tz)
    for i, (column, convert) in enumerate(columns):
        namespace[f"k{i}"], namespace[f"c{i}"] = column.name, convert
        if column.family is TypeFamily.TIMESTAMP:
            namespace[f"z{i}"] = texts
    return namespace


def _define(signature: str, body: list[str], namespace: dict[str, Any]) -> Callable[..., Any]:
    defaults = ", ".join(f"{name}={name}" for name in namespace)
    source = "\n".join([f"def generated({signature}, {defaults}):", *body])
    return run_generated(source, "simple-json row renderer", namespace)["generated"]


def _compile_render(
    columns: tuple[tuple[ColumnInfo, Converter], ...], tz: datetime.tzinfo, zone_name: str
) -> Callable[[Image], dict[str, Any]]:
    """One straight-line function building the sorted map of an image: no loop, no unpacking."""
    exprs = [_value_expr(i, c, tz is datetime.UTC) for i, (c, _) in enumerate(columns)]
    body = [*_image_lines("image", exprs), f"    return {_display(exprs)}"]
    return _define("image", body, _namespace(columns, tz, zone_name))


def _compile_dml(
    columns: tuple[tuple[ColumnInfo, Converter], ...], tz: datetime.tzinfo, zone_name: str
) -> Callable[[RowChangedEvent, Heads], bytes]:
    """One function writing a whole plain DML message of this table version from the heads of
    its transaction (``JSONRowRenderer.heads``): the maps are dumped, the rest is joined."""
    namespace = _namespace(columns, tz, zone_name)
    namespace["_join"] = b"".join
    exprs = [_value_expr(i, c, tz is datetime.UTC) for i, (c, _) in enumerate(columns)]
    body = [
        "    after = row.after",
        "    before = row.before",
        "    if before is None:",
        *("    " + line for line in _dumped("after", "data", exprs)),
        "        return _join((heads[0], data, b'}'))",
        *_dumped("before", "old", exprs),
        "    if after is None:",
        "        return _join((heads[2], old, b'}'))",
        *_dumped("after", "data", exprs),
        "    return _join((heads[1], data, b',\"old\":', old, b'}'))",
    ]
    return _define("row, heads", body, namespace)


class JSONRowRenderer:
    """Renders rows of one table version: sorted ``data``/``old`` dicts and plain messages."""

    __slots__ = (
        "_columns",
        "_key_columns",
        "_renders",
        "_tz",
        "_zone_name",
        "dml",
        "prefix",
        "schema_version",
        "table",
    )

    def __init__(self, table: TableInfo, tz: datetime.tzinfo, zone_name: str) -> None:
        self.table = table
        names = b"".join(
            b',"%s":%s' % (key, go_dumps(value))
            for key, value in ((b"database", table.schema), (b"table", table.table))
            if value
        )
        self.prefix = b'{"version":1' + names
        """The message start fixed per table: ``version`` and the omitempty names."""
        self.schema_version = b',"schemaVersion":%d' % table.version if table.version else b""
        stored = sorted(table.stored_columns, key=lambda c: c.name)
        self._columns = tuple((c, converter_for(c, tz, zone_name)) for c in stored)
        handle_key = set(table.handle_key)
        self._key_columns = tuple(pair for pair in self._columns if pair[0].name in handle_key)
        self._tz, self._zone_name = tz, zone_name
        self._renders: dict[bool, Callable[[Image], dict[str, Any]]] = {}
        """The map builders (all columns, or the handle key's by ``True``), compiled when
        first used: plain rows take ``dml`` alone, and each compile costs about a hundred rows."""
        self.dml: Callable[[RowChangedEvent, Heads], bytes] | None = (
            _compile_dml(self._columns, tz, zone_name) if self._columns else None
        )
        """The plain DML message of a row with a non-zero ``physical_table_id``, given the
        ``heads`` of its tableID and commitTs; None when the table has no stored column (its
        maps are empty and omitted). Raises one of ``RENDER_ERRORS`` on a bad image or a
        string orjson refuses."""

    def heads(self, physical_table_id: int, commit_ts: int, build_ts: int) -> Heads:
        """The message starts ``dml`` joins its maps to, made once per transaction: formatting
        the numbers costs more than dumping a row's maps' worth of joins."""
        ids = b'%d,"type":"' % physical_table_id
        times = b'","commitTs":%d,"buildTs":%d%b' % (commit_ts, build_ts, self.schema_version)
        start = self.prefix + b',"tableID":' + ids
        return (
            start + b"INSERT" + times + b',"data":',
            start + b"UPDATE" + times + b',"data":',
            start + b"DELETE" + times + b',"old":',
        )

    def render(self, image: Image, handle_key_only: bool = False) -> dict[str, Any]:
        """The map for one image; only the handle-key columns when ``handle_key_only``."""
        render = self._renders.get(handle_key_only)
        if render is None:
            columns = self._key_columns if handle_key_only else self._columns
            render = self._renders[handle_key_only] = _compile_render(
                columns, self._tz, self._zone_name
            )
        try:
            return render(image)
        except RENDER_ERRORS as err:
            raise self._error(image, handle_key_only) from err

    def _error(self, image: Image, handle_key_only: bool) -> CodecError:
        """Find the failing column by converting one column at a time."""
        where = f"table {self.table.qualified_name}"
        columns = self._key_columns if handle_key_only else self._columns
        found = failing_column(where, (image,), columns, RENDER_ERRORS)
        if found is not None:
            return found
        return CodecError(f"{where}: cannot render the row image")
