"""The ``schema`` blocks of Debezium keys and values, built once per table version as bytes.

Orders are TiCDC's write orders (``EncodeKey``, ``EncodeValue``, ``writeSourceSchema``), which
differ between blocks: the envelope writes ``type, optional, name, version, fields``, the source
struct ``type, fields, optional, name, field``, the key ``type, name, optional, fields``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tisink.codec.debezium.jsonwriter import dumps
from tisink.codec.debezium.names import SOURCE_SCHEMA_NAME

_SNAPSHOT = {
    "type": "string",
    "optional": True,
    "name": "io.debezium.data.Enum",
    "version": 1,
    "parameters": {"allowed": "true,last,false,incremental"},
    "default": "false",
    "field": "snapshot",
}
_SOURCE_FIELDS: tuple[tuple[str, bool, str], ...] = (
    ("string", False, "version"),
    ("string", False, "connector"),
    ("string", False, "name"),
    ("int64", False, "ts_ms"),
    ("", True, "snapshot"),
    ("string", False, "db"),
    ("string", True, "sequence"),
    ("string", True, "table"),
    ("int64", False, "server_id"),
    ("string", True, "gtid"),
    ("string", False, "file"),
    ("int64", False, "pos"),
    ("int32", False, "row"),
    ("int64", True, "thread"),
    ("string", True, "query"),
)
_TIDB_SOURCE_FIELDS = (("int64", False, "commit_ts"), ("string", False, "cluster_id"))
_TRANSACTION = {
    "type": "struct",
    "fields": [
        {"type": "string", "optional": False, "field": "id"},
        {"type": "int64", "optional": False, "field": "total_order"},
        {"type": "int64", "optional": False, "field": "data_collection_order"},
    ],
    "optional": True,
    "name": "event.block",
    "version": 1,
    "field": "transaction",
}
OP_FIELD = {"type": "string", "optional": False, "field": "op"}
TS_MS_FIELD = {"type": "int64", "optional": True, "field": "ts_ms"}


def source_schema(tidb_extension: bool, include_start_ts: bool) -> dict[str, Any]:
    """The ``io.debezium.connector.mysql.Source`` struct. ticdc (not tiflow) declares
    ``commit_ts`` and ``cluster_id`` with ``enable-tidb-extension``, and ``start_ts`` in DML
    envelopes with ``debezium-include-start-ts``."""
    fields: list[Any] = []
    rows = _SOURCE_FIELDS + (_TIDB_SOURCE_FIELDS if tidb_extension else ())
    if include_start_ts:
        rows += (("int64", False, "start_ts"),)
    for kind, optional, name in rows:
        fields.append(
            _SNAPSHOT if name == "snapshot" else {"type": kind, "optional": optional, "field": name}
        )
    return {
        "type": "struct",
        "fields": fields,
        "optional": False,
        "name": SOURCE_SCHEMA_NAME,
        "field": "source",
    }


def envelope_schema(
    name: str, value_name: str | None, columns: bytes, source: dict[str, Any]
) -> bytes:
    """``,"schema":{...}`` of a row (``value_name`` set) or watermark envelope: ``columns`` is
    the comma-joined column entries, shared by ``before`` and ``after``."""
    fields: list[Any] = []
    marker = "\x00columns\x00"
    if value_name is not None:
        for image in ("before", "after"):
            fields.append(
                {
                    "type": "struct",
                    "optional": True,
                    "name": value_name,
                    "field": image,
                    "fields": [marker],
                }
            )
    fields += [source, OP_FIELD, TS_MS_FIELD, _TRANSACTION]
    block = {"type": "struct", "optional": False, "name": name, "version": 1, "fields": fields}
    return b',"schema":' + dumps(block).replace(dumps(marker), columns)


def key_schema(name: str, columns: Sequence[bytes]) -> bytes:
    """``,"schema":{...}`` of a row or watermark key."""
    head = dumps({"type": "struct", "name": name, "optional": False})
    return b',"schema":' + head[:-1] + b',"fields":[' + b",".join(columns) + b"]}"
