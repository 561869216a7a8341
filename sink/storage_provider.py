"""The storage layout behind ``file:///dir?protocol=csv`` and ``?protocol=canal-json``:
TiCDC's cloud-storage sink (``eventsink/storage``, ``ddlsink/storage.py``) on a local folder.

``FileProvider`` hands a URI here when its protocol has a storage extension (csv, canal-json)
and ``file-layout`` is not ``partitions``. The event sink and the DDL sink of one folder share
a ``FileWriter``, so a table version's schema file is written once. The layout has no topics or
partitions, so Spark plays it in one task; ``tisink verify`` reads it with
``tisink.verify.storage``.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from tisink.codec import new_encoder
from tisink.codec.csv.options import CSVOptions
from tisink.codec.encoder import FileHeaderEncoder, RowEventEncoder
from tisink.codec.protocol import TakesTerminator
from tisink.codec.registry import protocols
from tisink.core.clock import Clock
from tisink.core.errors import ConfigError
from tisink.core.options import build_options
from tisink.ddlsink.storage import StorageDDLSink
from tisink.eventsink.storage.config import STORAGE_OPTIONS, StorageConfig, StorageLayout
from tisink.eventsink.storage.files import FileWriter
from tisink.eventsink.storage.paths import METADATA_FILE
from tisink.eventsink.storage.resume import ResumePoint
from tisink.eventsink.storage.sink import StorageSink
from tisink.sink.config import ChangefeedConfig
from tisink.sink.errors import SinkURIError
from tisink.sink.uri import SinkURI

LAYOUT_PARAM = "file-layout"
"""``file://`` parameter: ``storage`` (TiCDC's layout) or ``partitions`` (Kafka-like files)."""
LAYOUTS = ("storage", "partitions")


def storage_protocols() -> list[str]:
    """The protocols TiCDC's storage sink writes (their registry entries say so)."""
    return [name for name, spec in protocols().items() if spec.storage_extension is not None]


def storage_layout(uri: SinkURI, config: ChangefeedConfig) -> StorageLayout:
    """The layout a URI writes; SinkURIError for a protocol the storage sink does not take."""
    spec = config.encoder.spec
    if spec.storage_extension is None:
        raise SinkURIError(
            f"sink URI {uri.redacted()}: the storage layout takes protocol "
            f"{' or '.join(storage_protocols())}, not {spec.name}"
        )
    try:
        storage = build_options(
            StorageConfig, STORAGE_OPTIONS, config.settings, config.source, config.labels
        )
    except ConfigError as err:
        raise SinkURIError(str(err)) from err
    encoder = config.encoder
    if isinstance(encoder.options, TakesTerminator):
        options: Any = dataclasses.replace(encoder.options, terminator=storage.terminator)  # type: ignore[type-var]
        encoder = dataclasses.replace(encoder, options=options)
    if isinstance(encoder.options, CSVOptions):  # the classic CSV writes output-handle-key
        csv = dataclasses.replace(encoder.options, newarch=storage.newarch)
        encoder = dataclasses.replace(encoder, options=csv)
    root = Path(uri.path)
    if root.exists() and not root.is_dir():
        raise SinkURIError(f"sink URI {uri.redacted()}: {root} is not a directory")
    return StorageLayout(root, encoder, storage, spec.storage_extension)


class StorageProvider:
    """TiCDC's storage sink over a local folder."""

    uri_params = (LAYOUT_PARAM,)
    default_protocol = None  # chosen only for a protocol the URI or config names

    def __init__(self) -> None:
        self._writers: dict[Path, FileWriter] = {}

    def layout(self, uri: SinkURI, config: ChangefeedConfig) -> StorageLayout:
        return storage_layout(uri, config)

    def _writer(self, layout: StorageLayout) -> FileWriter:
        key = layout.root.resolve()
        writer = self._writers.get(key)
        if writer is None:
            writer = self._writers[key] = FileWriter(layout.root, config=layout.config)
        return writer

    async def create_event_sink(
        self, uri: SinkURI, config: ChangefeedConfig, clock: Clock
    ) -> StorageSink:
        layout = storage_layout(uri, config)
        encoder: RowEventEncoder = new_encoder(layout.encoder, clock)
        header = encoder.header if isinstance(encoder, FileHeaderEncoder) else None
        return StorageSink(
            layout.root,
            layout.config,
            encoder,
            layout.extension,
            clock,
            header=header,
            record_end=layout.config.terminator.encode(),
            writer=self._writer(layout),
            resume=ResumePoint.read(layout),  # a folder an earlier run left goes on (--append)
        )

    async def create_ddl_sink(
        self, uri: SinkURI, config: ChangefeedConfig, clock: Clock
    ) -> StorageDDLSink:
        layout = storage_layout(uri, config)
        return StorageDDLSink(self._writer(layout), layout.config)

    def leftover_topics(self, uri: SinkURI, config: ChangefeedConfig) -> list[str]:
        """The folder's tables (``schema/table``) when an earlier run left a layout there."""
        root = Path(uri.path)
        if not (root / METADATA_FILE).exists() and not root.is_dir():
            return []
        found = {
            f"{path.parent.parent.parent.name}/{path.parent.parent.name}"
            for path in root.glob("*/*/meta/schema_*.json")
        }
        found.update(  # use-table-id-as-path: {table-id}/meta/
            path.parent.parent.name
            for path in root.glob("*/meta/schema_*.json")
            if path.parent.parent.name.isdigit()
        )
        if not found and (root / METADATA_FILE).exists():
            found.add(METADATA_FILE)
        return sorted(found)
