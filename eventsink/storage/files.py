"""What one closed data file becomes on disk, in order: its table version's schema file (when
missing), then the data file and the index naming it: the data file first in TiCDC's new
architecture (ticdc ``writer.writeDataFile``, #3785, v8.5.5), the index first in the classic
one (tiflow ``dmlWorker.flushMessages``, ``newarch=false``).

Every write is atomic and durable (``durable.write_atomic``), so when ``write`` returns the
rows are stored and the index names their file; only then does the sink fire their callbacks.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tisink.eventsink.errors import EventSinkError
from tisink.eventsink.storage.config import StorageConfig
from tisink.eventsink.storage.durable import write_atomic
from tisink.eventsink.storage.paths import DataDir, parse_data_file_name
from tisink.eventsink.storage.schema_file import SchemaFile

log = logging.getLogger(__name__)


class StorageSinkError(EventSinkError):
    """A storage file cannot be written; the message names it."""


@dataclass(slots=True)
class ClosedFile:
    """A data file to write: where, what, the schema file its table version needs, and the
    callbacks of the transactions in it."""

    directory: DataDir
    name: str
    data: bytes
    schema: SchemaFile
    rows: int
    txns: int
    callbacks: list[Callable[[], None]] = field(default_factory=list)
    records: int = 0
    """The encoder's change records in ``data``, one per row (a CSV UPDATE's old-value line
    rides in its record): the summary's DML messages."""


class FileWriter:
    """Writes closed files under ``root``; numbers data files per directory (and dispatcher)
    on from what an index already names (TiCDC reads the index when it first meets a
    directory). The classic sink reuses the indexed number when that file is missing or empty
    (its index is written before the file); the new one goes on after it (a data file past
    the index, which only a write cut short leaves, is replaced: TiCDC would skip it and
    write its rows again in the next file)."""

    def __init__(
        self, root: Path, *, sync: bool = True, config: StorageConfig | None = None
    ) -> None:
        self.root = root
        self._sync = sync
        self.config = config or StorageConfig()
        self._numbers: dict[DataDir, int] = {}
        self._schemas: set[str] = set()

    def next_number(self, directory: DataDir) -> int:
        number = self._numbers.get(directory)
        if number is None:
            number = self._indexed_number(directory)
        number += 1
        self._numbers[directory] = number
        return number

    def _indexed_number(self, directory: DataDir) -> int:
        index = self.root / directory.index_path()
        try:
            name = index.read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return 0
        except OSError as err:
            raise StorageSinkError(f"cannot read index file {index}: {err}") from err
        parsed = parse_data_file_name(name)
        if parsed is None or parsed[0] != directory.dispatcher:
            raise StorageSinkError(f"index file {index} names no data file: {name!r}")
        number = parsed[1]
        if not self.config.newarch:
            data = self.root / directory.path() / name
            if not data.exists() or data.stat().st_size == 0:
                return number - 1  # tiflow getNextFileIdxFromIndexFile
        return number

    def write_schema(self, schema: SchemaFile, *, replace: bool = False) -> None:
        """Write ``schema``; a table version's first rows write it only when it is missing
        (TiCDC's point check), a DDL (``replace``) writes it with its query. With
        ``use-table-id-as-path`` a database's schema file is not written (ticdc
        ``sink.writeFile``)."""
        by_table_id = self.config.use_table_id_as_path
        if by_table_id and not schema.table_level:
            return
        relative = schema.path(by_table_id=by_table_id)
        if not replace and relative in self._schemas:
            return
        path = self.root / relative
        if replace or not path.exists():
            self._write(path, schema.to_json())
        self._schemas.add(relative)

    def write(self, closed: ClosedFile) -> None:
        """Schema file, then data file and index in the architecture's order: each atomic
        and durable."""
        self.write_schema(closed.schema)
        data = self.root / closed.directory.path() / closed.name
        index = self.root / closed.directory.index_path()
        if self.config.newarch:
            self._write(data, closed.data)
            self._write(index, (closed.name + "\n").encode())
        else:
            self._write(index, (closed.name + "\n").encode())
            self._write(data, closed.data)
        log.debug("wrote %s/%s: %d rows", closed.directory.path(), closed.name, closed.rows)

    def write_file(self, relative: str, data: bytes) -> None:
        self._write(self.root / relative, data)

    def _write(self, path: Path, data: bytes) -> None:
        try:
            write_atomic(path, data, sync=self._sync)
        except OSError as err:
            raise StorageSinkError(f"cannot write {path}: {err}") from err
