"""Canal-json records read back for ``tisink verify``, as a canal-json consumer reads them.

A row message announces its own table (its ``pkNames`` are the handle verify orders by), so
the schema-before-DML rule holds per message. Without the TiDB extension a row carries no
commitTs; ``es`` (its physical milliseconds) shifted back into a TSO keeps the commit order
at millisecond precision, which is what such a consumer has. Checked here, as a consumer would
trip over them: the type agrees with ``old``/``data``, every value is a string or null, and
``sqlType``/``mysqlType`` name exactly the columns of ``data``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from tisink.codec.canal.ddl import WATERMARK_TYPE
from tisink.codec.compression import decompress
from tisink.codec.decoded import (
    DDL,
    DDL_TYPES,
    DML,
    DML_TYPES,
    WATERMARK,
    AnnouncedSchema,
    DecodedMessage,
)
from tisink.codec.errors import MessageDecodeError


def _tso(body: Mapping[str, Any], field: str) -> int:
    """``_tidb.<field>`` when present, else ``es`` as a TSO."""
    extension = body.get("_tidb")
    if isinstance(extension, dict) and field in extension:
        ts = extension[field]
    else:
        ts = body["es"] << 18
    if type(ts) is not int or ts < 0:
        raise ValueError(f"{field} {ts!r} is not a TSO")
    return ts


def _image(body: Mapping[str, Any], field: str) -> dict[str, Any] | None:
    """The one map of ``data`` or ``old`` (None for null), its values strings or null."""
    value = body[field]
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != 1 or not isinstance(value[0], dict):
        raise ValueError(f"{field} is not a list of one object")
    image: dict[str, Any] = value[0]
    for name, text in image.items():
        if text is not None and type(text) is not str:
            raise ValueError(f"{field}.{name} is {type(text).__name__}, not a string or null")
    return image


def _row(body: Mapping[str, Any]) -> DecodedMessage:
    kind = body["type"]
    data, old = _image(body, "data"), _image(body, "old")
    if data is None or (old is None) != (kind != "UPDATE"):
        raise ValueError(f"{kind} with data {data is not None}, old {old is not None}")
    for field in ("sqlType", "mysqlType"):
        types = body[field]
        names = set(types) if isinstance(types, dict) else set()
        if names != set(data):
            raise ValueError(f"{field} names {sorted(names)}, data has {sorted(data)}")
    database, table = body["database"], body["table"]
    schema = AnnouncedSchema(database, table, 0, 0, tuple(body["pkNames"] or ()))
    commit_ts = _tso(body, "commitTs")
    if kind == "DELETE":
        return DecodedMessage(DML, kind, commit_ts, database, table, 0, schema, None, data)
    return DecodedMessage(DML, kind, commit_ts, database, table, 0, schema, data, old)


def decode_body(body: Any) -> DecodedMessage:
    """One parsed canal-json message as a DecodedMessage (DELETE's image as ``old``)."""
    if not isinstance(body, dict):
        raise TypeError(f"expected a JSON object, got {type(body).__name__}")
    kind = body["type"]
    if body["isDdl"] is True:
        if kind not in DDL_TYPES:
            raise ValueError(f"unknown DDL type {kind!r}")
        return DecodedMessage(DDL, kind, _tso(body, "commitTs"), body["database"], body["table"])
    if kind == WATERMARK_TYPE:
        return DecodedMessage(WATERMARK, WATERMARK, _tso(body, "watermarkTs"))
    if kind not in DML_TYPES:
        raise ValueError(f"unknown message type {kind!r}")
    return _row(body)


class CanalJSONDecoder:
    """Decompress and decode canal-json records of one payload compression."""

    def __init__(self, compression: str = "none") -> None:
        self._compression = compression

    def decode(self, key: bytes | None, value: bytes | None) -> list[DecodedMessage]:
        """The message of one record (keys carry nothing); MessageDecodeError says why it is
        not one."""
        if value is None:
            raise MessageDecodeError("null value (a tombstone): TiCDC never writes one")
        try:
            return [decode_body(orjson.loads(decompress(self._compression, value)))]
        # a consumer sees arbitrary bytes: the JSON parser and decompressors raise assorted types
        except Exception as err:
            raise MessageDecodeError(
                f"not a canal-json message (compression {self._compression}): "
                f"{type(err).__name__}: {err}"
            ) from err
