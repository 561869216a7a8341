"""Debezium records read back for ``tisink verify`` (issue 11 item 7).

Each record is one message: a row (``op`` c/u/d), a DDL (``ddl`` in the payload) or a WATERMARK
(``op`` "m"). A row announces its own table schema, whose handle key is the key's payload
columns, so verify's schema-before-DML rule holds per message and its per-handle commit order
check works on the key. Checked here, as a consumer would trip over them: ``op`` agrees with
``before``/``after``; the ``schema`` is there exactly when enabled and declares every payload
field with a matching JSON kind (``schemacheck``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from tisink.codec.compression import decompress
from tisink.codec.debezium.options import DebeziumOptions
from tisink.codec.debezium.schemacheck import check_envelope, check_key
from tisink.codec.decoded import DDL, DML, WATERMARK, AnnouncedSchema, DecodedMessage
from tisink.codec.errors import MessageDecodeError

_OPS = {"c": "INSERT", "u": "UPDATE", "d": "DELETE"}


def _object(raw: bytes, what: str) -> dict[str, Any]:
    body = orjson.loads(raw)
    if not isinstance(body, dict) or not isinstance(body.get("payload"), dict):
        raise ValueError(f"{what} is not an object with a payload object")
    return body


def _images(op: str, payload: Mapping[str, Any]) -> tuple[Any, Any]:
    """``(after, before)`` once they agree with ``op``."""
    after, before = payload.get("after"), payload.get("before")
    if op == "c":
        ok = isinstance(after, dict) and "before" in payload and before is None
    elif op == "d":
        ok = isinstance(before, dict) and "after" in payload and after is None
    else:
        ok = isinstance(after, dict) and (before is None or isinstance(before, dict))
        ok = ok and ("before" not in payload or before is not None)
    if not ok:
        raise ValueError(f"op {op!r} does not agree with before/after")
    return after, before


class DebeziumDecoder:
    """Decompress and decode Debezium JSON records written under ``options``."""

    def __init__(self, options: DebeziumOptions, compression: str = "none") -> None:
        self._with_schema = not options.disable_schema
        self._compression = compression

    def decode(self, key: bytes | None, value: bytes | None) -> list[DecodedMessage]:
        """The message of one record; MessageDecodeError says why it is not one."""
        if value is None:
            raise MessageDecodeError("null value (a tombstone): TiCDC never writes one")
        if key is None:
            raise MessageDecodeError("null key: TiCDC's Debezium messages always have one")
        try:
            value_obj = _object(decompress(self._compression, value), "value")
            key_obj = _object(decompress(self._compression, key), "key")
            return [self._message(key_obj, value_obj)]
        # a consumer sees arbitrary bytes: the JSON parser and decompressors raise assorted types
        except Exception as err:
            raise MessageDecodeError(
                f"not a Debezium message (compression {self._compression}): "
                f"{type(err).__name__}: {err}"
            ) from err

    def _message(self, key: dict[str, Any], value: dict[str, Any]) -> DecodedMessage:
        for what, obj in (("key", key), ("value", value)):
            if ("schema" in obj) != self._with_schema:
                state = "enabled" if self._with_schema else "disabled"
                raise ValueError(
                    f"{what} {'lacks' if self._with_schema else 'has'} a schema "
                    f"while the schema is {state}"
                )
        payload = value["payload"]
        source = payload["source"]
        commit_ts = source["commit_ts"]
        if type(commit_ts) is not int or commit_ts < 0:
            raise ValueError(f"source.commit_ts {commit_ts!r} is not a TSO")
        if self._with_schema:
            check_key(key)
            check_envelope(value)
        if "ddl" in payload:
            changes = payload["tableChanges"]
            kind_type = changes[0]["type"] if changes else "QUERY"
            return DecodedMessage(DDL, kind_type, commit_ts, source["db"], source["table"])
        op = payload["op"]
        if op == "m":
            return DecodedMessage(WATERMARK, WATERMARK, commit_ts)
        if op not in _OPS:
            raise ValueError(f"unknown op {op!r}")
        after, before = _images(op, payload)
        database, table = source["db"], source["table"]
        schema = AnnouncedSchema(database, table, 0, 0, tuple(key["payload"]))
        return DecodedMessage(DML, _OPS[op], commit_ts, database, table, 0, schema, after, before)
