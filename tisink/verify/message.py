"""Simple Protocol payloads read back as consumers read them: decompress, decode, normalise.

JSON and Avro messages become the same ``SimpleMessage``, so the checker has one code path.
Only what the checks need is kept: kind, type, commitTs, the table names and schemaVersion of a
DML with its images, and the announced ``tableSchema`` (names, version, handle key) of a
BOOTSTRAP or DDL. The ``preTableSchema`` announces nothing: it is the definition being replaced.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from codec.compression import decompress
from codec.config import PAYLOAD_COMPRESSIONS
from codec.simple.avro.generic import decode_message
from tisink.verify.errors import MessageDecodeError

WATERMARK = "WATERMARK"
BOOTSTRAP = "BOOTSTRAP"
DDL = "DDL"
DML = "DML"
DML_TYPES = frozenset({"INSERT", "UPDATE", "DELETE"})
DDL_TYPES = frozenset(
    {"CREATE", "RENAME", "CINDEX", "DINDEX", "ERASE", "TRUNCATE", "ALTER", "QUERY"}
)
_UINT64 = (1 << 64) - 1


@dataclass(frozen=True, slots=True)
class AnnouncedSchema:
    """A ``tableSchema`` as far as the checks need it."""

    schema: str
    table: str
    table_id: int
    version: int
    handle_key: tuple[str, ...]

    @property
    def name(self) -> str:
        return f"{self.schema}.{self.table}"


@dataclass(frozen=True, slots=True)
class SimpleMessage:
    """One decoded message; ``type`` is the JSON ``type`` (INSERT, ALTER, WATERMARK...)."""

    kind: str
    type: str
    commit_ts: int
    database: str = ""
    table: str = ""
    schema_version: int = 0
    table_schema: AnnouncedSchema | None = None
    data: Mapping[str, Any] | None = None
    old: Mapping[str, Any] | None = None

    @property
    def table_name(self) -> str:
        return f"{self.database}.{self.table}"

    def summary(self) -> str:
        """One line for a violation report."""
        if self.kind == DML:
            return (
                f"{self.type} {self.table_name} commitTs={self.commit_ts} "
                f"schemaVersion={self.schema_version}"
            )
        if self.kind == WATERMARK:
            return f"WATERMARK commitTs={self.commit_ts}"
        schema = self.table_schema
        about = f" {schema.name} version={schema.version}" if schema else ""
        ts = f" commitTs={self.commit_ts}" if self.kind == DDL else ""
        return f"{self.type}{about}{ts}"


def handle_key(indexes: list[Mapping[str, Any]]) -> tuple[str, ...]:
    """TiCDC's handle key from a ``tableSchema``'s indexes: the primary index, else the first
    unique index whose columns are all NOT NULL; () when there is neither."""
    for index in indexes:
        if index.get("primary"):
            return tuple(index["columns"])
    for index in indexes:
        if index.get("unique") and not index.get("nullable"):
            return tuple(index["columns"])
    return ()


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
) -> SimpleMessage:
    if kind == WATERMARK:
        return SimpleMessage(WATERMARK, WATERMARK, body["commitTs"] & _UINT64)
    if kind == BOOTSTRAP:
        return SimpleMessage(
            BOOTSTRAP, BOOTSTRAP, 0, table_schema=_schema(body["tableSchema"], schema_key)
        )
    if kind == DDL:
        return SimpleMessage(
            DDL,
            kind_type,
            body["commitTs"] & _UINT64,
            table_schema=_schema(body.get("tableSchema"), schema_key),
        )
    return SimpleMessage(
        DML,
        kind_type,
        body["commitTs"] & _UINT64,
        database=body["database"],
        table=body["table"],
        schema_version=body["schemaVersion"] & _UINT64,
        data=body.get("data"),
        old=body.get("old"),
    )


def _decode_json(payload: bytes) -> SimpleMessage:
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
    return _from_fields(kind, kind_type, body, "schema")


def _decode_avro(payload: bytes) -> SimpleMessage:
    message = decode_message(payload)
    kind = message["type"]
    body = message["payload"]
    return _from_fields(kind, body.get("type", kind), body, "database")


class MessageDecoder:
    """Decompress and decode payloads of one ``encoding-format`` and payload compression."""

    def __init__(self, encoding_format: str = "json", compression: str = "none") -> None:
        decoders: dict[str, Callable[[bytes], SimpleMessage]] = {
            "json": _decode_json,
            "avro": _decode_avro,
        }
        if encoding_format not in decoders:
            raise MessageDecodeError(f"unknown encoding-format {encoding_format!r}")
        if compression not in PAYLOAD_COMPRESSIONS:
            raise MessageDecodeError(f"unknown large-message-handle-compression {compression!r}")
        self._decode = decoders[encoding_format]
        self._compression = compression
        self.encoding_format = encoding_format

    def decode(self, payload: bytes | None) -> SimpleMessage:
        """The message in ``payload``; MessageDecodeError says why it is not one."""
        if payload is None:
            raise MessageDecodeError("null value (a tombstone), not a Simple message")
        try:
            raw = decompress(self._compression, payload)
            return self._decode(raw)
        # a consumer sees arbitrary bytes: fastavro and the decompressors raise assorted types
        except Exception as err:
            raise MessageDecodeError(
                f"not a Simple {self.encoding_format} message "
                f"(compression {self._compression}): {type(err).__name__}: {err}"
            ) from err
