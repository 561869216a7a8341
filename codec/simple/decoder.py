"""Simple Protocol records read back as consumers read them: decompress, decode, normalise.

JSON and Avro messages become the same ``DecodedMessage``. The ``preTableSchema`` of a DDL
announces nothing: it is the definition being replaced.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import orjson

from tisink.codec.compression import decompress
from tisink.codec.config import PAYLOAD_COMPRESSIONS
from tisink.codec.decoded import (
    BOOTSTRAP,
    DDL,
    DDL_TYPES,
    DML,
    DML_TYPES,
    WATERMARK,
    AnnouncedSchema,
    DecodedMessage,
    handle_key,
)
from tisink.codec.errors import MessageDecodeError
from tisink.codec.simple.avro.generic import decode_message
from tisink.model.events import RowChecksum

_UINT64 = (1 << 64) - 1


def _schema(raw: Any, schema_key: str) -> AnnouncedSchema | None:
    if raw is None:
        return None
    return AnnouncedSchema(
        schema=raw[schema_key],
        table=raw["table"],
        table_id=raw["tableID"],
        version=raw["version"] & _UINT64,
        handle_key=handle_key(raw["indexes"]),
    )


def _from_fields(
    kind: str, kind_type: str, body: Mapping[str, Any], schema_key: str
) -> DecodedMessage:
    if kind == WATERMARK:
        return DecodedMessage(WATERMARK, WATERMARK, body["commitTs"] & _UINT64)
    if kind == BOOTSTRAP:
        return DecodedMessage(
            BOOTSTRAP, BOOTSTRAP, 0, table_schema=_schema(body["tableSchema"], schema_key)
        )
    if kind == DDL:
        return DecodedMessage(
            DDL,
            kind_type,
            body["commitTs"] & _UINT64,
            table_schema=_schema(body.get("tableSchema"), schema_key),
        )
    return DecodedMessage(
        DML,
        kind_type,
        body["commitTs"] & _UINT64,
        database=body["database"],
        table=body["table"],
        schema_version=body["schemaVersion"] & _UINT64,
        data=body.get("data"),
        old=body.get("old"),
    )


def _checksum(body: Mapping[str, Any]) -> RowChecksum | None:
    """A DML message's ``checksum`` (``[integrity]`` on), as the decoded body has it."""
    carried = body.get("checksum")
    if not isinstance(carried, Mapping):
        return None
    if "version" not in carried:  # the Avro encoding's union branch: (name, record)
        return None
    return RowChecksum(
        int(carried["version"]),
        bool(carried["corrupted"]),
        int(carried["current"]),
        int(carried["previous"]),
    )


def _decode_json(payload: bytes) -> DecodedMessage:
    return _decode_json_body(payload)[0]


def _decode_json_body(payload: bytes) -> tuple[DecodedMessage, RowChecksum | None]:
    body = orjson.loads(payload)
    if not isinstance(body, dict):
        raise TypeError(f"expected a JSON object, got {type(body).__name__}")
    kind_type = body["type"]
    if kind_type in (WATERMARK, BOOTSTRAP):
        kind = kind_type
    elif kind_type in DML_TYPES:
        kind = DML
    elif kind_type in DDL_TYPES:
        kind = DDL
    else:
        raise ValueError(f"unknown message type {kind_type!r}")
    decoded = _from_fields(kind, kind_type, body, "schema")
    return decoded, _checksum(body) if kind == DML else None


def _decode_avro(payload: bytes) -> DecodedMessage:
    return _decode_avro_body(payload)[0]


def _decode_avro_body(payload: bytes) -> tuple[DecodedMessage, RowChecksum | None]:
    message = decode_message(payload)
    kind = message["type"]
    body = message["payload"]
    decoded = _from_fields(kind, body.get("type", kind), body, "database")
    carried = body.get("checksum") if kind == DML else None
    if isinstance(carried, tuple):  # fastavro's union branch with its record name
        carried = carried[1]
    return decoded, _checksum({"checksum": carried}) if isinstance(carried, Mapping) else None


class SimpleDecoder:
    """Decompress and decode payloads of one ``encoding-format`` and payload compression."""

    def __init__(self, encoding_format: str = "json", compression: str = "none") -> None:
        decoders: dict[str, Callable[[bytes], tuple[DecodedMessage, RowChecksum | None]]] = {
            "json": _decode_json_body,
            "avro": _decode_avro_body,
        }
        if encoding_format not in decoders:
            raise MessageDecodeError(f"unknown encoding-format {encoding_format!r}")
        if compression not in PAYLOAD_COMPRESSIONS:
            raise MessageDecodeError(f"unknown large-message-handle-compression {compression!r}")
        self._decode = decoders[encoding_format]
        self._compression = compression
        self.encoding_format = encoding_format
        self.last_checksum: RowChecksum | None = None
        """The row checksum of the last message decoded (None: it carried none)."""

    def decode(self, key: bytes | None, value: bytes | None) -> list[DecodedMessage]:
        """The message in ``value`` (Simple keys carry nothing); MessageDecodeError says why it
        is not one."""
        return [self.decode_value(value)]

    def decode_value(self, payload: bytes | None) -> DecodedMessage:
        """The message in one record's value."""
        self.last_checksum = None
        if payload is None:
            raise MessageDecodeError("null value (a tombstone), not a Simple message")
        try:
            raw = decompress(self._compression, payload)
            decoded, self.last_checksum = self._decode(raw)
            return decoded
        # a consumer sees arbitrary bytes: fastavro and the decompressors raise assorted types
        except Exception as err:
            raise MessageDecodeError(
                f"not a Simple {self.encoding_format} message "
                f"(compression {self._compression}): {type(err).__name__}: {err}"
            ) from err
