"""TiCDC's storage layout (ticdc ``pkg/cloudstorage/path_key.go``, ``generator.go``; tiflow
``pkg/sink/cloudstorage/path.go``):

* data: ``{schema}/{table}/{table-version}/[{partition}/][{date}/]CDC{num}{ext}``, ``num``
  zero-padded to ``file-index-width`` and counted from 1 per directory (again from 1 in a new
  date directory); with ``use-table-id-as-path`` (new architecture)
  ``{table-id}/{table-version}/[{date}/]``, the physical table id standing for schema, table
  and partition;
* with ``enable-table-across-nodes`` (new architecture) the name is
  ``CDC_{dispatcherID}_{num}{ext}``, each dispatcher numbering its own files;
* index: ``<data dir>/meta/CDC.index`` (``meta/CDC_{dispatcherID}.index``), holding the newest
  data file's name and a newline;
* schema: ``{schema}/{table}/meta/schema_{table-version}_{checksum:010d}.json``, or
  ``{schema}/meta/schema_...`` for a database-level DDL (``{table-id}/meta/schema_...`` with
  ``use-table-id-as-path``, which writes no database-level file);
* ``metadata`` at the top: ``{"checkpoint-ts":N}``.

Dates are the clock's UTC date (TiCDC uses the capture's local zone; UTC keeps a play's files
the same on every machine). The schema and table names pass ``path_component``: a name that is
not one plain directory name (``..``, ``/abs``, NUL) is refused naming the table.
"""

from __future__ import annotations

import datetime
import hashlib
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
DATA_FILE = re.compile(r"CDC(?:_[0-9A-Za-z-]+_)?(\d{6,20})(\.[a-z]+)")
"""A data file's name: group 1 the number, group 2 the extension (``parse_data_file_name``
also gives the dispatcher)."""
INDEX_NAME = re.compile(r"CDC(?:_([0-9A-Za-z-]+))?\.index")


def parse_data_file_name(name: str) -> tuple[str, int, str] | None:
    """(dispatcher, number, extension) of ``CDC{num}{ext}`` (dispatcher "") or
    ``CDC_{dispatcher}_{num}{ext}``; None for another name (ticdc
    ``ParseFileIndexFromFileName``)."""
    match = DATA_FILE.fullmatch(name)
    if match is None:
        return None
    dispatcher = name[4 : name.rindex("_")] if name.startswith("CDC_") else ""
    return dispatcher, int(match.group(1)), match.group(2)


def dispatcher_id(physical_table_id: int) -> str:
    """A dispatcher's id as ticdc prints it (``GID.String()``: the low and the high 64 bits in
    decimal, run together). TiCDC draws it from a random UUID each time a dispatcher starts;
    tisink derives it from the physical table id, so a play's names are the same on every run
    and a resumed play goes on numbering its files."""
    digest = hashlib.blake2b(b"tisink-dispatcher:%d" % physical_table_id, digest_size=16).digest()
    low = int.from_bytes(digest[:8], "little")
    high = int.from_bytes(digest[8:], "little")
    return f"{low}{high}"


def date_text(now_ms: int, separator: str) -> str:
    """The date directory of a file closed at ``now_ms`` ("" for ``none``)."""
    fmt = DATE_FORMATS[separator]
    if not fmt:
        return ""
    moment = datetime.datetime.fromtimestamp(now_ms / 1000, tz=datetime.UTC)
    return moment.strftime(fmt)


@dataclass(frozen=True, slots=True, order=True)
class DataDir:
    """One numbered run of data files: a table version's (partition's) (date's) directory, and
    in it one dispatcher's files (``dispatcher`` "": the plain ``CDC{num}`` names).
    ``table_id`` (non-zero: ``use-table-id-as-path``) names the directory by the physical table
    id instead of schema, table and partition."""

    schema: str
    table: str
    version: int
    partition: int = 0
    date: str = ""
    dispatcher: str = ""
    table_id: int = 0

    def path(self) -> str:
        if self.table_id:
            parts = [str(self.table_id), str(self.version)]
        else:
            parts = [table_path(self.schema, self.table), str(self.version)]
            if self.partition:
                parts.append(str(self.partition))
        if self.date:
            parts.append(self.date)
        return "/".join(parts)

    def index_name(self) -> str:
        return f"CDC_{self.dispatcher}.index" if self.dispatcher else INDEX_FILE

    def index_path(self) -> str:
        return f"{self.path()}/{META_DIR}/{self.index_name()}"

    def file_name(self, number: int, extension: str, width: int) -> str:
        return data_file_name(number, extension, width, self.dispatcher)

    def file_path(self, number: int, extension: str, width: int) -> str:
        return f"{self.path()}/{self.file_name(number, extension, width)}"


def data_file_name(number: int, extension: str, width: int, dispatcher: str = "") -> str:
    """``CDC{num}{ext}``, or ``CDC_{dispatcher}_{num}{ext}`` (ticdc ``generateDataFileName``)."""
    if dispatcher:
        return f"CDC_{dispatcher}_{number:0{width}d}{extension}"
    return f"CDC{number:0{width}d}{extension}"


def table_path(schema: str, table: str) -> str:
    """``{schema}/{table}``, each name one directory under the root; PathNameError naming the
    table otherwise."""
    subject = table_subject(schema, table)
    path_component(schema, "schema name", subject)
    return f"{schema}/{path_component(table, 'table name', subject)}"


def schema_file_path(
    schema: str, table: str, version: int, checksum: int, table_id: int = 0
) -> str:
    """A table's schema file, or a database's when ``table`` is ""; a table's under its id
    when ``table_id`` is given (``use-table-id-as-path``)."""
    name = f"schema_{version}_{checksum:010d}.json"
    if table and table_id:
        return f"{table_id}/{META_DIR}/{name}"
    if not table:
        database = path_component(schema, "schema name", table_subject(schema, ""))
        return f"{database}/{META_DIR}/{name}"
    return f"{table_path(schema, table)}/{META_DIR}/{name}"


def parse_data_dir(
    parts: list[str], separator: str, *, by_table_id: bool = False, dispatcher: str = ""
) -> DataDir | None:
    """A data directory from its path parts (schema, table, version[, partition][, date], or
    with ``by_table_id`` table id, version[, date]); None when they do not match the layout
    for ``separator``. A directory named by table id has no names yet (the listing reads them
    from its schema files); its partition is the table id, one stream per physical table."""
    dated = separator != "none"
    if by_table_id:
        if len(parts) != 2 + dated or not parts[0].isdigit() or not parts[1].isdigit():
            return None
        date = parts[2] if dated else ""
        if dated and not re.fullmatch(DATE_PATTERNS[separator], date):
            return None
        table_id = int(parts[0])
        return DataDir("", "", int(parts[1]), table_id, date, dispatcher, table_id)
    if len(parts) not in ((4, 5) if dated else (3, 4)) or not parts[2].isdigit():
        return None
    date = parts[-1] if dated else ""
    if dated and not re.fullmatch(DATE_PATTERNS[separator], date):
        return None
    middle = parts[3 : len(parts) - dated]
    if middle and not middle[0].isdigit():
        return None
    partition = int(middle[0]) if middle else 0
    return DataDir(parts[0], parts[1], int(parts[2]), partition, date, dispatcher)
