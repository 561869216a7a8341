"""The Avro encoder (tiflow ``avro.BatchEncoder``): one record per row, key and value in the
Confluent wire format under schemas registered per topic.

A row's key holds its primary key columns (ticdc; tiflow, ``newarch=false``: its handle key
columns; none: a null key); its value every column (ticdc: virtual generated ones as NULL;
tiflow: the stored ones), plus the TiDB extension fields when on. A DELETE has a key and a null
value, a Kafka tombstone, as TiCDC writes it (ticdc with watermarks on: its ``0x03`` marker).
An UPDATE is written as its new image: the sink splits an UPDATE that changes a unique key into
DELETE and INSERT before it gets here, as TiCDC's MQ sinks do. The subjects are
``<topic>-key`` and ``<topic>-value``, the topic with ``.`` made ``_``; the sink names the
topic through ``use_topics`` (the router's), else it is ``<schema>_<table>``. DDL and
checkpoint events are written only with ``enable-tidb-extension`` and ``avro-enable-watermark``
(TiCDC: for testing). The encoder's only I/O is the schema registry, once per subject and table
version.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Callable, Sequence

import fastavro

from tisink.codec.avro import wire
from tisink.codec.avro.confluent import open_registry
from tisink.codec.avro.options import AvroOptions
from tisink.codec.avro.registry import CachedSchema, SchemaRegistry, parse
from tisink.codec.avro.rows import TableRecords, extension
from tisink.codec.avro.schema import DEFAULT_NAMESPACE
from tisink.codec.config import EncoderConfig
from tisink.codec.encoder_base import EncoderBase
from tisink.codec.errors import MessageTooLargeError
from tisink.codec.gojson import go_dumps
from tisink.codec.message import EncodedRows, Message, MessageType, Record
from tisink.codec.open.ddl import action_type
from tisink.codec.renderer_cache import RendererCache
from tisink.core.clock import Clock
from tisink.core.errors import ConfigError
from tisink.model.events import DDLEvent, RowChangedEvent
from tisink.model.table import TableInfo

log = logging.getLogger(__name__)

TOMBSTONE = None
"""A DELETE's value: null (a Kafka tombstone)."""
KEY_SUFFIX = "-key"
VALUE_SUFFIX = "-value"

TopicFor = Callable[[str, str], str]
"""``(schema, table) -> topic``: the router's ``topic_for_table``."""


def default_topic(schema: str, table: str) -> str:
    """The topic when the sink named none: ``<schema>_<table>``."""
    return f"{schema}_{table}"


def subject(topic: str, suffix: str) -> str:
    """``topicName2SchemaSubjects`` of ``sanitizeTopic``: ``.`` is special to connectors."""
    return topic.replace(".", "_") + suffix


def check_options(options: AvroOptions, row_checksum: bool, has_registry: bool) -> None:
    """TiCDC's ``Config.Validate`` for avro; ConfigError names the option."""
    if not has_registry:
        raise ConfigError(
            'Avro protocol requires parameter "schema-registry" to specify the schema registry'
        )
    if row_checksum and not (
        options.enable_tidb_extension
        and options.decimal_handling_mode == "string"
        and options.bigint_unsigned_handling_mode == "string"
    ):
        raise ConfigError(
            'Avro protocol with row level checksum should set "enable-tidb-extension" to '
            '"true", "avro-decimal-handling-mode" to "string" and '
            '"avro-bigint-unsigned-handling-mode" to "string"'
        )


class AvroEncoder(EncoderBase):
    """Implements ``codec.encoder.RowEventEncoder`` for ``protocol=avro``. ``registry``
    replaces the HTTP client of the ``schema-registry`` option (tests, a shared client)."""

    message_per_row = True

    def __init__(
        self,
        config: EncoderConfig,
        clock: Clock | None = None,
        *,
        registry: SchemaRegistry | None = None,
        topic_for: TopicFor = default_topic,
        namespace: str = DEFAULT_NAMESPACE,
    ) -> None:
        self._registry_override = registry
        self._topic_for = topic_for
        self._namespace = namespace
        super().__init__(config, clock)

    def _set_up(self, config: EncoderConfig) -> None:
        options = self._options = config.options_as(AvroOptions)
        self._row_checksum = config.enable_row_checksum
        registry = self._registry_override
        check_options(
            options, self._row_checksum, registry is not None or bool(options.schema_registry)
        )
        self._registry: SchemaRegistry = registry or open_registry(options.schema_registry)
        self._schemas: dict[str, CachedSchema] = {}
        self._records = RendererCache(self._new_records, "avro")

    def use_topics(self, topic_for: TopicFor) -> None:
        """Name subjects after the topics ``topic_for`` gives (the sink's router)."""
        self._topic_for = topic_for
        self._schemas.clear()

    def _new_records(self, table: TableInfo) -> TableRecords:
        return TableRecords.build(
            table, self._options, self._tz, self._row_checksum, self._namespace
        )

    def records(self, table: TableInfo) -> TableRecords:
        """The key and value records of ``table``'s version."""
        return self._records.get(table)

    def schema_for(self, subject_name: str, table: TableInfo, schema_text: str) -> CachedSchema:
        """The registered schema of ``subject_name`` for ``table``'s version (tiflow
        ``GetCachedOrRegister``): registered again when the version changed."""
        entry = self._schemas.get(subject_name)
        if entry is not None and entry.table_version == table.version:
            return entry
        parsed = parse(schema_text)
        schema_id = self._registry.register(subject_name, schema_text)
        entry = CachedSchema(schema_id, wire.header(schema_id), parsed, table.version)
        self._schemas[subject_name] = entry
        return entry

    def _framed(self, entry: CachedSchema, datum: dict[str, object]) -> bytes:
        out = io.BytesIO()
        out.write(entry.header)
        fastavro.schemaless_writer(out, entry.parsed, datum)
        return out.getvalue()

    def encode_row(self, row: RowChangedEvent) -> Record:
        """One row's ``(key, value)``."""
        table = row.table
        records = self.records(table)
        topic = self._topic_for(table.schema, table.table)
        image = row.before if row.after is None else row.after
        assert image is not None
        key: bytes | None = None
        if records.key_schema is not None:
            entry = self.schema_for(subject(topic, KEY_SUFFIX), table, records.key_schema)
            key = self._framed(entry, records.key(image))
        if row.after is None:
            value = TOMBSTONE
            if self._options.newarch and self._options.watermarks:
                value = wire.delete_marker(row.commit_ts)
        else:
            entry = self.schema_for(subject(topic, VALUE_SUFFIX), table, records.value_schema)
            datum = records.value(image)
            if self._options.enable_tidb_extension:
                datum |= extension(row, self._row_checksum)
            value = self._framed(entry, datum)
        length = (len(value) if value else 0) + (len(key) if key else 0)
        if length > self._limit:
            raise MessageTooLargeError(
                f"table {table.qualified_name}: an Avro message of {length} bytes exceeds "
                f"max-message-bytes {self._max_bytes} (less {self._max_bytes - self._limit} "
                "bytes of record overhead)"
            )
        return (key, value)

    def encode_rows(self, rows: Sequence[RowChangedEvent]) -> EncodedRows:
        records: list[Record] = []
        size = 0
        for row in rows:
            record = self.encode_row(row)
            records.append(record)
            size += len(record[1] or b"") + len(record[0] or b"")
        return EncodedRows(records, size)

    def encode_ddl(self, ddl: DDLEvent) -> Message | None:
        """TiCDC's DDL marker: ``0x01`` and the DDL as JSON, only with watermarks on."""
        if not self._options.watermarks or ddl.is_bootstrap:
            return None
        table = ddl.table or ddl.pre_table
        body = {
            "query": ddl.query,
            "type": action_type(ddl),
            "schema": table.schema if table else "",
            "table": table.table if table else "",
            "commitTs": ddl.commit_ts,
        }
        value = bytes((wire.DDL_BYTE,)) + go_dumps(body)
        return Message(value, None, MessageType.DDL, table=ddl.qualified_name)

    def encode_bootstrap(self, table: TableInfo) -> Message | None:
        return None

    def encode_checkpoint(self, ts: int) -> Message | None:
        """TiCDC's checkpoint marker: ``0x02`` and the ts, only with watermarks on."""
        if not self._options.watermarks:
            return None
        return Message(wire.checkpoint(ts), None, MessageType.WATERMARK)
