"""The classic architecture's Open Protocol bytes (pingcap/tiflow c7b2588e
``pkg/sink/codec/open/open_protocol_message.go``, ``internal/message_key.go``,
``internal/column.go``), for ``newarch=false``.

tiflow builds Go structs and maps and hands them to ``encoding/json``, where ticdc streams
them through json-iterator (``open/codec.go``). What a consumer sees differ:

* the columns of ``u``/``p``/``d`` sorted by name (a Go map), not in table order;
* ``p`` left out when ``only-output-updated-columns`` drops every column (``omitempty``), where
  ticdc writes ``"p":{}``;
* strings with Go's HTML-safe escapes and ``\\u2028``/``\\u2029`` (json-iterator without
  ``EscapeHTML`` writes ``<>&`` and the separators raw);
* the key ``{"ts","scm","tbl","rid","ptn","t","ohk","ccl"}`` in ``MessageKey``'s order with
  ``omitempty`` (an empty ``scm``/``tbl`` left out, ``ptn`` before ``t``, a claim-check key
  without ``ohk``); ``rid`` is the row's int handle (``RecordID.IntValue()``): for a table
  whose primary key is one integer column, clustered as TiDB makes it by default, that
  column's value as an int64 (``row_id``); a table with another key or none has a
  ``_tidb_rowid`` the feed does not carry, so tisink writes no ``rid`` there (README.md).

The value is the new architecture's, re-laid: parsed with every number kept as its text (the
floats are the same shortest Go forms in both writers), the maps sorted, dumped as
``encoding/json`` does. Slower than the compiled writers, and only taken under ``newarch=false``.
"""

from __future__ import annotations

import json
from typing import Any

from orjson import Fragment

from tisink.codec.gojson import go_dumps
from tisink.model.mysqltypes import TypeFamily
from tisink.model.table import TableInfo

_PARTS = ("u", "p", "d")


def _number(text: str) -> Fragment:
    return Fragment(text)


def value(ticdc_value: bytes) -> bytes:
    """tiflow's value JSON of the row whose ticdc value JSON is ``ticdc_value``."""
    body: dict[str, Any] = json.loads(ticdc_value, parse_float=_number)
    out: dict[str, Any] = {}
    for part in _PARTS:
        columns = body.get(part)
        if columns:  # omitempty: an empty map is left out
            out[part] = {name: columns[name] for name in sorted(columns)}
    return go_dumps(out)


def int_handle(table: TableInfo) -> str | None:
    """The column whose value is the row's int handle: a primary key of one integer column
    (TiDB clusters it by default, ``PKIsHandle``); None otherwise."""
    for index in table.indexes:
        if index.primary and len(index.columns) == 1:
            column = table.column_by_name[index.columns[0]]
            if column.family in (TypeFamily.INT, TypeFamily.BIGINT):
                return column.name
    return None


def row_id(value: Any) -> int:
    """The handle's ``IntValue()``: an int64, so an unsigned BIGINT above 2^63-1 wraps."""
    number = int(value)
    return number - (1 << 64) if number >= 1 << 63 else number


def row_key(
    commit_ts: int,
    schema: str,
    table: str,
    partition: int | None,
    handle_key_only: bool = False,
    claim_check: str = "",
    rid: int = 0,
) -> bytes:
    """tiflow ``MessageKey`` of a row: ``t`` 1, ``ohk`` only for a handle-key-only value
    (the claim-check key sets it false, so leaves it out), ``ccl`` for a claim check."""
    key: dict[str, Any] = {"ts": commit_ts}
    if schema:
        key["scm"] = schema
    if table:
        key["tbl"] = table
    if rid:
        key["rid"] = rid
    if partition is not None:
        key["ptn"] = partition
    key["t"] = 1
    if handle_key_only and not claim_check:
        key["ohk"] = True
    if claim_check:
        key["ccl"] = claim_check
    return go_dumps(key)


def ddl_key(commit_ts: int, schema: str, table: str, kind: int) -> bytes:
    """tiflow ``MessageKey`` of a DDL: empty names left out."""
    key: dict[str, Any] = {"ts": commit_ts}
    if schema:
        key["scm"] = schema
    if table:
        key["tbl"] = table
    key["t"] = kind
    return go_dumps(key)


def ddl_value(query: str, action: int) -> bytes:
    """tiflow ``messageDDL``: ``{"q","t"}`` through ``encoding/json``."""
    return go_dumps({"q": query, "t": action})
