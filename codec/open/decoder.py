"""Open Protocol records read back for ``tisink verify``: one record holds a batch of events.

The key stream must start with batch version 1; then each event's key JSON (8-byte length
first) pairs with the value stream's next value. Row events give DML messages whose table
schema is announced by the row itself (its handle key: the columns marked ``"h":true``), DDL
events DDL messages, resolved events WATERMARKs. Checked as a consumer would trip over them:
both streams end together, the value maps agree with the event's kind, every column has a type
code and a value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from tisink.codec.compression import decompress
from tisink.codec.decoded import DDL, DML, WATERMARK, AnnouncedSchema, DecodedMessage
from tisink.codec.errors import MessageDecodeError
from tisink.codec.open import ddl
from tisink.codec.open.batch import BATCH_VERSION, LENGTH, LENGTH_BYTES


def split(key: bytes, value: bytes) -> list[tuple[bytes, bytes]]:
    """The ``(key JSON, value bytes)`` of each event of one batched record."""
    if len(key) < LENGTH_BYTES or LENGTH.unpack_from(key)[0] != BATCH_VERSION:
        raise ValueError("key does not start with batch version 1")
    events: list[tuple[bytes, bytes]] = []
    k, v = LENGTH_BYTES, 0
    while k < len(key):
        key_end = k + LENGTH_BYTES + LENGTH.unpack_from(key, k)[0]
        if v + LENGTH_BYTES > len(value):
            raise ValueError(f"value stream ends before event {len(events)}'s value")
        value_end = v + LENGTH_BYTES + LENGTH.unpack_from(value, v)[0]
        if key_end > len(key) or value_end > len(value):
            raise ValueError(f"event {len(events)} runs past the end of its stream")
        events.append((key[k + LENGTH_BYTES : key_end], value[v + LENGTH_BYTES : value_end]))
        k, v = key_end, value_end
    if v != len(value):
        raise ValueError(f"value stream has {len(value) - v} bytes after the last event")
    return events  # an empty batch (the version head alone) is valid: TiCDC's reader skips it


def _columns(value: Mapping[str, Any], field: str) -> dict[str, Any] | None:
    raw = value.get(field)
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise ValueError(f"{field!r} is not an object")
    for name, column in raw.items():
        # ``f`` is absent from recordings older than the flag bits; TiCDC reads it as 0
        if not isinstance(column, dict) or not {"t", "v"} <= column.keys():
            raise ValueError(f"column {name!r} of {field!r} lacks t or v")
    return raw


def _row(key: Mapping[str, Any], value: Mapping[str, Any]) -> DecodedMessage:
    update, pre, delete = _columns(value, "u"), _columns(value, "p"), _columns(value, "d")
    image: dict[str, Any]
    data: dict[str, Any] | None
    old: dict[str, Any] | None
    if delete is not None:
        if update is not None or pre is not None:
            raise ValueError("a row event with both d and u/p")
        kind, data, old, image = "DELETE", None, delete, delete
    elif update is None:
        raise ValueError("a row event with neither u nor d")
    else:
        kind = "UPDATE" if pre is not None else "INSERT"
        data, old, image = update, pre, update
    handle = tuple(name for name, column in image.items() if column.get("h") is True)
    schema = AnnouncedSchema(key["scm"], key["tbl"], 0, 0, handle)
    return DecodedMessage(
        DML,
        kind,
        key["ts"],
        key["scm"],
        key["tbl"],
        0,
        schema,
        None if data is None else {n: c["v"] for n, c in data.items()},
        None if old is None else {n: c["v"] for n, c in old.items()},
    )


class OpenDecoder:
    """Decode batched records whose values use ``compression``.

    An UPDATE written without ``output-old-value`` reads as an INSERT (the value carries
    nothing else that tells them apart), as it does for TiCDC's own consumer."""

    def __init__(self, compression: str = "none") -> None:
        self._compression = compression

    def decode(self, key: bytes | None, value: bytes | None) -> list[DecodedMessage]:
        """The events of one record; MessageDecodeError says why it is not a batch."""
        if key is None or value is None:
            raise MessageDecodeError("null key or value: an Open Protocol record has both")
        try:
            return [self._event(k, v) for k, v in split(key, value)]
        # a consumer sees arbitrary bytes: the parser and decompressors raise assorted types
        except Exception as err:
            raise MessageDecodeError(
                f"not an Open Protocol batch (compression {self._compression}): "
                f"{type(err).__name__}: {err}"
            ) from err

    def _event(self, raw_key: bytes, raw_value: bytes) -> DecodedMessage:
        key = orjson.loads(raw_key)
        if not isinstance(key, dict) or type(key.get("ts")) is not int:
            raise ValueError("event key is not an object with an integer ts")
        kind = key.get("t")
        if kind == 3:
            if raw_value:
                raise ValueError("a resolved event with a value")
            return DecodedMessage(WATERMARK, WATERMARK, key["ts"])
        value = orjson.loads(decompress(self._compression, raw_value))
        if not isinstance(value, dict):
            raise ValueError("event value is not an object")
        if kind == 1:
            return _row(key, value)
        if kind == 2:
            if not isinstance(value.get("q"), str) or type(value.get("t")) is not int:
                raise ValueError("a DDL event without q and t")
            ddl_type = ddl.ddl_type_name(value["t"], bool(key.get("tbl")))
            return DecodedMessage(DDL, ddl_type, key["ts"], key.get("scm", ""), key.get("tbl", ""))
        raise ValueError(f"unknown event type {kind!r}")
