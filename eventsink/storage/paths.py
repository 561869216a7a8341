"""TiCDC's storage layout (``pkg/cloudstorage/path_key.go``, ``generator.go``):

* data: ``{schema}/{table}/{table-version}/[{partition}/][{date}/]CDC{num}{ext}``, ``num``
  zero-padded to ``file-index-width`` and counted from 1 per directory (again from 1 in a new
  date directory);
* index: ``<data dir>/meta/CDC.index``, holding the newest data file's name and a newline;
* schema: ``{schema}/{table}/meta/schema_{table-version}_{checksum:010d}.json``, or
  ``{schema}/meta/schema_...`` for a database-level DDL;
* ``metadata`` at the top: ``{"checkpoint-ts":N}``.

Dates are the clock's UTC date (TiCDC uses the capture's local zone; UTC keeps a play's files
the same on every machine). The schema and table names pass ``path_component``: a name that is
not one plain directory name (``..``, ``/abs``, NUL) is refused naming the table.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass

from tisink.eventsink.path_names import path_component, table_subject

INDEX_FILE = "CDC.index"
META_DIR = "meta"
METADATA_FILE = "metadata"
DATE_FORMATS = {"none": "", "year": "%Y", "month": "%Y-%m", "day": "%Y-%m-%d"}
DATE_PATTERNS = {
    "none": "",
    "year": r"\d{4}",
    "month": r"\d{4}-\d{2}",
    "day": r"\d{4}-\d{2}-\d{2}",
}
SCHEMA_FILE = re.compile(r"schema_(\d+)_(\d{10})\.json")
DATA_FILE = re.compile(r"CDC(\d{6,20})(\.[a-z]+)")


def date_text(now_ms: int, separator: str) -> str:
    """The date directory of a file closed at ``now_ms`` ("" for ``none``)."""
    fmt = DATE_FORMATS[separator]
    if not fmt:
        return ""
    moment = datetime.datetime.fromtimestamp(now_ms / 1000, tz=datetime.UTC)
    return moment.strftime(fmt)


@dataclass(frozen=True, slots=True, order=True)
class DataDir:
    """One directory of data files: a table version's (partition's) (date's)."""

    schema: str
    table: str
    version: int
    partition: int = 0
    date: str = ""

    def path(self) -> str:
        parts = [table_path(self.schema, self.table), str(self.version)]
        if self.partition:
            parts.append(str(self.partition))
        if self.date:
            parts.append(self.date)
        return "/".join(parts)

    def index_path(self) -> str:
        return f"{self.path()}/{META_DIR}/{INDEX_FILE}"

    def file_path(self, number: int, extension: str, width: int) -> str:
        return f"{self.path()}/{data_file_name(number, extension, width)}"


def data_file_name(number: int, extension: str, width: int) -> str:
    return f"CDC{number:0{width}d}{extension}"


def table_path(schema: str, table: str) -> str:
    """``{schema}/{table}``, each name one directory under the root; PathNameError naming the
    table otherwise."""
    subject = table_subject(schema, table)
    path_component(schema, "schema name", subject)
    return f"{schema}/{path_component(table, 'table name', subject)}"


def schema_file_path(schema: str, table: str, version: int, checksum: int) -> str:
    """A table's schema file, or a database's when ``table`` is ""."""
    name = f"schema_{version}_{checksum:010d}.json"
    if not table:
        database = path_component(schema, "schema name", table_subject(schema, ""))
        return f"{database}/{META_DIR}/{name}"
    return f"{table_path(schema, table)}/{META_DIR}/{name}"


def parse_data_dir(parts: list[str], separator: str) -> DataDir | None:
    """A data directory from its path parts (schema, table, version[, partition][, date]);
    None when they do not match the layout for ``separator``."""
    dated = separator != "none"
    if len(parts) not in ((4, 5) if dated else (3, 4)) or not parts[2].isdigit():
        return None
    date = parts[-1] if dated else ""
    if dated and not re.fullmatch(DATE_PATTERNS[separator], date):
        return None
    middle = parts[3 : len(parts) - dated]
    if middle and not middle[0].isdigit():
        return None
    partition = int(middle[0]) if middle else 0
    return DataDir(parts[0], parts[1], int(parts[2]), partition, date)
