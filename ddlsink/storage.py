"""StorageDDLSink: the storage layout's DDL and checkpoint side (TiCDC's cloud-storage
``WriteBlockEvent`` and ``AddCheckpointTs``).

A DDL writes the schema file of the table version it made, with its query and TiDB's action
number (a DROP TABLE: the dropped table's columns at the DDL's commit ts; CREATE / DROP
DATABASE: a database-level file); the DML rows of that version then go to its own directory.
``write_checkpoint_ts`` replaces ``metadata`` with ``{"checkpoint-ts":N}``; the player calls it
only once every row at or below N is acknowledged, which the DML sink does only after the
row's file and index are written and ``fsync``'ed, so the checkpoint never runs ahead of the
files. Both writes are atomic and durable.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from tisink.eventsink.storage.config import StorageConfig
from tisink.eventsink.storage.files import FileWriter
from tisink.eventsink.storage.paths import METADATA_FILE
from tisink.eventsink.storage.resume import read_checkpoint
from tisink.eventsink.storage.schema_file import SchemaFile, database_of, ddl_action
from tisink.model.events import DDLEvent
from tisink.model.table import TableInfo

log = logging.getLogger(__name__)


def checkpoint_json(ts: int) -> bytes:
    """``json.Marshal(map[string]uint64{"checkpoint-ts": ts})``."""
    return b'{"checkpoint-ts":%d}' % ts


class StorageDDLSink:
    """Implements ``ddlsink.base.DDLSink`` for the storage layout."""

    def __init__(self, writer: FileWriter, config: StorageConfig) -> None:
        self._writer = writer
        self._config = config
        self._checkpoint = read_checkpoint(writer.root) or 0  # never back past a stored one
        self.ddls = 0
        self.checkpoints = 0

    def schema_file(self, ddl: DDLEvent) -> SchemaFile | None:
        """The schema file ``ddl`` writes; None when it names no table or database."""
        action = ddl_action(ddl)
        column_ids = self._config.output_column_id
        if ddl.table is not None:
            table = ddl.table
            return SchemaFile(
                table.schema,
                table,
                table.version,
                query=ddl.query,
                action=action,
                output_column_id=column_ids,
            )
        if ddl.pre_table is not None:
            gone = ddl.pre_table
            return SchemaFile(
                gone.schema,
                gone,
                ddl.commit_ts,
                query=ddl.query,
                action=action,
                output_column_id=column_ids,
            )
        database = database_of(ddl)
        if database is None:
            return None
        return SchemaFile(database, None, ddl.commit_ts, query=ddl.query, action=action)

    async def write_ddl_event(self, ddl: DDLEvent) -> None:
        if ddl.is_bootstrap:
            return
        schema = self.schema_file(ddl)
        if schema is None:
            log.debug("DDL %s names no table or database: no schema file", ddl.describe())
            return
        await asyncio.to_thread(self._writer.write_schema, schema, replace=True)
        self.ddls += 1

    async def write_checkpoint_ts(self, ts: int, tables: Sequence[TableInfo]) -> None:
        if ts <= self._checkpoint:
            return
        await asyncio.to_thread(self._writer.write_file, METADATA_FILE, checkpoint_json(ts))
        self._checkpoint = ts
        self.checkpoints += 1

    async def close(self) -> None:
        return None
