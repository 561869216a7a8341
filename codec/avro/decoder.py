"""The decoder ``tisink verify`` reads TiCDC's Avro with (tiflow ``avro/decoder.go``).

A record with a key, or whose value starts with the magic byte 0, is a row: the schema ids of
key and value are looked up in the registry (cached by id), the data read with fastavro. An
empty value is a DELETE whose image is the key. The value's ``_tidb_op`` tells INSERT ("c")
from UPDATE ("u") and ``_tidb_commit_ts`` gives the commit ts; without the TiDB extension a
row reads as an INSERT at commit ts 0. A DELETE carries no commit ts (TiCDC writes only its
key): it is dated at the newest commit ts the partition showed before it (a row's, or a
checkpoint's plus one), a lower bound, so the checks that order by commit ts pass over it. A
keyless value starting with 1 is TiCDC's DDL marker, with 2 its checkpoint marker. Database
and table come from the record's namespace (``<changefeed namespace>.<database>``) and name,
as sanitized names.
"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping, Sequence
from typing import Any

import fastavro

from tisink.codec.avro import schema, wire
from tisink.codec.avro.confluent import open_registry
from tisink.codec.avro.options import AvroOptions
from tisink.codec.avro.registry import SchemaRegistry, parse
from tisink.codec.avro.rows import INSERT_OP, UPDATE_OP
from tisink.codec.config import EncoderConfig
from tisink.codec.decoded import DDL, DML, WATERMARK, AnnouncedSchema, DecodedMessage
from tisink.codec.errors import CodecError, MessageDecodeError
from tisink.codec.open.ddl import ddl_type_name
from tisink.model.events import RowChecksum

_EXTENSION = frozenset(
    (
        schema.TIDB_OP,
        schema.TIDB_COMMIT_TS,
        schema.TIDB_PHYSICAL_TIME,
        schema.TIDB_ROW_CHECKSUM,
        schema.TIDB_CORRUPTED,
        schema.TIDB_CHECKSUM_VERSION,
    )
)
_OPS = {INSERT_OP: "INSERT", UPDATE_OP: "UPDATE"}


class _Schema:
    """A registered schema as the decoder needs it: parsed, with its names and fields."""

    __slots__ = ("database", "fields", "parsed", "table")

    def __init__(self, text: str) -> None:
        document = json.loads(text)
        self.parsed = parse(text)
        namespace = str(document.get("namespace", ""))
        self.database = namespace.partition(".")[2] if "." in namespace else ""
        self.table = str(document.get("name", ""))
        self.fields = tuple(f["name"] for f in document.get("fields", ()))


class AvroDecoder:
    """Implements ``codec.protocol.Decoder`` for ``protocol=avro``; ``registry`` replaces the
    HTTP client of the config's ``schema-registry``."""

    def __init__(
        self, config: EncoderConfig | None = None, *, registry: SchemaRegistry | None = None
    ) -> None:
        self._registry = registry
        self._url = config.options_as(AvroOptions).schema_registry if config else ""
        self._schemas: dict[int, _Schema] = {}
        self._newest = 0
        """The newest commit ts this partition showed: a DELETE's date."""
        self.last_checksum: RowChecksum | None = None
        """The row checksum of the last message decoded (None: it carried none)."""

    def _registry_client(self) -> SchemaRegistry:
        if self._registry is None:
            self._registry = open_registry(self._url)
        return self._registry

    def schema(self, schema_id: int) -> _Schema:
        """The schema of ``schema_id``, fetched once."""
        found = self._schemas.get(schema_id)
        if found is None:
            found = self._schemas[schema_id] = _Schema(
                self._registry_client().schema_by_id(schema_id)
            )
        return found

    def read(self, data: bytes) -> tuple[_Schema, dict[str, Any]]:
        """The schema and datum of one Confluent-framed key or value."""
        schema_id, payload = wire.split(data)
        found = self.schema(schema_id)
        try:
            datum = fastavro.schemaless_reader(io.BytesIO(payload), found.parsed, None)
        except Exception as err:  # fastavro raises EOFError, ValueError, ... on bad data
            raise MessageDecodeError(
                f"Avro data does not match schema id {schema_id}: {err}"
            ) from err
        if not isinstance(datum, dict):
            raise MessageDecodeError(f"Avro data of schema id {schema_id} is not a record")
        return found, datum

    def decode(self, key: bytes | None, value: bytes | None) -> Sequence[DecodedMessage]:
        try:
            return [self._decode(key, value)]
        except MessageDecodeError:
            raise
        except (CodecError, ValueError, KeyError, TypeError) as err:
            raise MessageDecodeError(f"not an Avro message: {err}") from err

    def _decode(self, key: bytes | None, value: bytes | None) -> DecodedMessage:
        self.last_checksum = None
        if not key:
            if not value:
                raise MessageDecodeError("an Avro record with neither key nor value")
            if value[0] == wire.DDL_BYTE:
                return _ddl(json.loads(value[1:]))
            if value[0] == wire.CHECKPOINT_BYTE:
                ts = wire.checkpoint_ts(value)
                self._newest = max(self._newest, ts + 1)
                return DecodedMessage(WATERMARK, WATERMARK, ts)
            if wire.is_delete_marker(value):
                raise MessageDecodeError("a DELETE marker without a key names no table")
            return self._row(None, value)
        return self._row(key, value)

    def _row(self, key: bytes | None, value: bytes | None) -> DecodedMessage:
        handle: tuple[str, ...] = ()
        key_data: dict[str, Any] | None = None
        if key:
            key_schema, key_data = self.read(key)
            handle = key_schema.fields
        marker = wire.is_delete_marker(value)
        if not value or marker:
            assert key_data is not None
            announced = AnnouncedSchema(key_schema.database, key_schema.table, 0, 0, handle)
            commit_ts = self._newest
            if marker:  # ticdc's DELETE marker carries the commit ts
                assert value is not None
                commit_ts = wire.checkpoint_ts(bytes((wire.CHECKPOINT_BYTE,)) + value[1:])
                self._newest = max(self._newest, commit_ts)
            return DecodedMessage(
                DML,
                "DELETE",
                commit_ts,
                key_schema.database,
                key_schema.table,
                table_schema=announced,
                old=key_data,
            )
        value_schema, datum = self.read(value)
        self.last_checksum = _checksum(datum)
        kind = _OPS.get(datum.get(schema.TIDB_OP, INSERT_OP), "INSERT")
        commit_ts = int(datum.get(schema.TIDB_COMMIT_TS, 0))
        self._newest = max(self._newest, commit_ts)
        data = {n: v for n, v in datum.items() if n not in _EXTENSION}
        database, table = value_schema.database, value_schema.table
        return DecodedMessage(
            DML,
            kind,
            commit_ts,
            database,
            table,
            table_schema=AnnouncedSchema(database, table, 0, 0, handle),
            data=data,
        )


def _checksum(datum: Mapping[str, Any]) -> RowChecksum | None:
    """The checksum fields of a value (TiCDC writes "" when the row had none)."""
    current = datum.get(schema.TIDB_ROW_CHECKSUM)
    if not current:
        return None
    return RowChecksum(
        int(datum.get(schema.TIDB_CHECKSUM_VERSION, 0)),
        bool(datum.get(schema.TIDB_CORRUPTED, False)),
        int(current),
        0,
    )


def _ddl(body: Mapping[str, Any]) -> DecodedMessage:
    if not isinstance(body, Mapping) or type(body.get("type")) is not int:
        raise MessageDecodeError("an Avro DDL marker without a type")
    table = str(body.get("table", ""))
    return DecodedMessage(
        DDL,
        ddl_type_name(body["type"], bool(table)),
        int(body.get("commitTs", 0)),
        str(body.get("schema", "")),
        table,
    )
